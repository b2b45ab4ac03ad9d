"""NoDivergence's story: the offset where two replicas' logs differ below both HWs, how
each came to hold its record there (and lost others before, and why), and the step where
the fork went below both HWs. Works on the model's views of the states."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from invariants.removal import arg, at, fetched_from, holds, removal, removed
from invariants.safety import first_gap, record_text


def forked(views: Sequence[dict[str, Any]]) -> tuple[int, int, int] | None:
    """``(a, b, offset)``: the first two replicas of the last view whose logs differ at an
    offset below both HWs, and that offset; None when no two do."""
    last = views[-1]["replicas"]
    for a in range(len(last)):
        for b in range(a + 1, len(last)):
            bound = min(last[a]["hw"], last[b]["hw"], len(last[a]["log"]), len(last[b]["log"]))
            offset = first_gap(last[a]["log"], bound, last[b]["log"])
            if offset is not None:
                return a, b, offset
    return None


def divergence(
    variant: str, actions: Sequence[str | None], views: Sequence[dict[str, Any]]
) -> list[str]:
    """NoDivergence: the offset and the two records; then, in order, how each replica came to
    hold its own (and any record it lost at that offset before, and why), and the step where
    the fork went below both HWs."""
    fork = forked(views)
    if fork is None:
        return []
    a, b, offset = fork
    last = views[-1]["replicas"]
    lines = [
        (
            f"At offset {offset}, below both HWs ({last[a]['hw']} and "
            f"{last[b]['hw']}), replica {a} holds "
            f"{record_text(last[a]['log'][offset])} and replica {b} holds "
            f"{record_text(last[b]['log'][offset])}."
        )
    ]
    events = [
        *_history(variant, actions, views, a, offset),
        *_history(variant, actions, views, b, offset),
        *_exposed(actions, views, a, b, offset),
    ]
    return lines + [text for _, text in sorted(events)]


def _history(variant: Any, actions: Any, views: Any, r: int, offset: int) -> list[tuple[int, str]]:
    """``(step, sentence)``: where replica ``r`` got the record it ends with at ``offset``, and
    every other record it lost there before that (with why)."""
    record = views[-1]["replicas"][r]["log"][offset]
    events, got = [], 0
    for k in range(len(views) - 1, 0, -1):
        log = views[k - 1]["replicas"][r]["log"]
        if offset >= len(log) or log[offset] != record:
            how = (
                f"wrote m{record[0]} as leader"
                if (actions[k] or "").startswith("Produce")
                else f"copied m{record[0]} from leader {fetched_from(actions[k], views[k - 1], r)}"
                if (actions[k] or "").startswith("Fetch")
                else f"got m{record[0]}"
            )
            events.append((k, f"{at(actions, k)}replica {r} {how}."))
            got = k
            break
    else:
        events.append((0, f"Replica {r} held m{record[0]} from the initial state."))
    for k in range(1, got):
        before, after = views[k - 1], views[k]
        old = before["replicas"][r]["log"]
        if offset < len(old) and not holds(after, r, offset, old[offset][0]):
            events.append((k, removed(variant, actions, views, k, r, old[offset][0])))
    for k in range(got + 1, len(views)):  # truncations that kept the record: by which rule
        if (actions[k] or "").startswith("BecomeFollower") and arg(actions[k], "replica") == r:
            before, after = views[k - 1], views[k]
            said = removal(actions[k], variant, before, after, r)
            events.append((k, f"{at(actions, k)}replica {r} {said}."))
    return events


def _exposed(actions: Any, views: Any, a: int, b: int, offset: int) -> list[tuple[int, str]]:
    """The step after which both replicas keep their final records at ``offset`` below their
    HWs, naming whose HW moved."""
    final = [views[-1]["replicas"][r]["log"][offset] for r in (a, b)]

    def forked(view: Any) -> bool:
        reps = [view["replicas"][r] for r in (a, b)]
        return all(
            offset < min(rep["hw"], len(rep["log"])) and rep["log"][offset] == rec
            for rep, rec in zip(reps, final)
        )

    k = len(views) - 1
    while k > 0 and forked(views[k - 1]):
        k -= 1
    if k == 0:
        return []
    movers = [r for r in (a, b) if views[k - 1]["replicas"][r]["hw"] <= offset]
    who = " and ".join(f"replica {r}'s" for r in movers) or "a"
    text = (
        f"{at(actions, k)}{who} HW moved past offset {offset}; both "
        "records are now below the HWs, visible to consumers."
    )
    return [(k, text)]
