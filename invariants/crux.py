"""The steps a counterexample's story must not leave out, and the sentences for them.

A story (``invariants.story``) follows one record; on a long trace (a shrunk simulate walk at
5 replicas) that leaves out steps a reader needs: a leader shrinking its ISR so that it
commits alone, a follower re-admitted to an ISR, a replica's HW passing the offset. Given the
*involved* replicas (those holding the records the property is about, and the leaders whose
HW or ISR decides) and the offset, ``events`` finds, for every step the story does not
mention yet, each change that matters:

- an involved replica's log lost a record at or below the offset (a truncation), or took at
  the offset a record another involved replica does not hold there;
- an ISR changed where the change involves an involved replica: an involved leader's own
  ISR, or any ISR (a leader's or the controller's) gaining or losing an involved replica;
- an involved replica's HW moved past the offset.

Offsets are 0-based and the HW exclusive, as everywhere in hwcheck.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from invariants.safety import record_text

STATE = re.compile(r"^State (\d+)\b")


def mentioned(lines: Iterable[str]) -> set[int]:
    """The states (1-based) whose step a story line opens with (``State N (...)``)."""
    return {int(m.group(1)) for line in lines if (m := STATE.match(line))}


def _isr(members: Sequence[int]) -> str:
    return "{" + ",".join(map(str, sorted(members))) + "}"


def _log_change(
    views: Sequence[dict[Any, Any]], action: str, k: int, r: int, involved: set[int], offset: int
) -> str | None:
    """What step ``k`` did to replica ``r``'s log at or below ``offset``, when it matters: a
    truncation (a record removed at or below ``offset``), or an append at ``offset`` of a
    record another involved replica does not hold there after the step; None otherwise."""
    old, new = views[k - 1]["replicas"][r]["log"], views[k]["replicas"][r]["log"]
    for at in range(offset + 1):
        was, now = old[at] if at < len(old) else None, new[at] if at < len(new) else None
        if was == now:
            continue
        if was is not None:
            return f"replica {r}'s log lost {record_text(was)} at offset {at}" + (
                f" and took {record_text(now)}" if now is not None else ""
            )
        others = [o for o in involved if o != r]
        if at == offset and any(
            views[k]["replicas"][o]["log"][at : at + 1] != [now] for o in others
        ):
            how = {"Produce": "wrote", "Fetch": "copied"}.get(action.partition("(")[0], "appended")
            return f"replica {r} {how} {record_text(now)} at offset {at}"
        return None
    return None


def _isr_changes(before: dict[Any, Any], after: dict[Any, Any], involved: set[int]) -> list[str]:
    out = []
    for r, (old, new) in enumerate(zip(before["replicas"], after["replicas"])):
        changed = set(old["isr"]) ^ set(new["isr"])
        if (
            changed
            and new["role"] == "leader"
            and old["role"] == "leader"
            and (r in involved or changed & involved)
        ):
            out.append(f"leader {r}'s ISR became {_isr(new['isr'])} (was {_isr(old['isr'])})")
    old, new = before["controller"]["isr"], after["controller"]["isr"]
    if (set(old) ^ set(new)) & involved:
        out.append(f"the controller's ISR became {_isr(new)} (was {_isr(old)})")
    return out


def events(
    actions: Sequence[str | None],
    views: Sequence[dict[str, Any]],
    involved: Iterable[int],
    offset: int,
    told: set[int],
) -> list[tuple[int, str]]:
    """``(state, sentence)`` for each step not in ``told`` (states, 1-based) that changed an
    involved replica's log at or below ``offset``, an ISR involving an involved replica, or
    moved an involved replica's HW past ``offset``; one sentence per step, its changes joined
    by "; "."""
    involved = set(involved)
    found = []
    for k in range(1, len(views)):
        if k + 1 in told:
            continue
        before, after = views[k - 1], views[k]
        said = [
            text
            for r in sorted(involved)
            if (text := _log_change(views, actions[k] or "", k, r, involved, offset)) is not None
        ]
        said += _isr_changes(before, after, involved)
        said += [
            f"replica {r}'s HW moved past offset {offset}"
            for r in sorted(involved)
            if before["replicas"][r]["hw"] <= offset < after["replicas"][r]["hw"]
        ]
        if said:
            found.append((k + 1, f"State {k + 1} ({actions[k]}): " + "; ".join(said) + "."))
    return found


def merge(lines: list[str], extra: list[tuple[int, str]]) -> list[str]:
    """``lines`` with the ``extra`` sentences put in state order: lines before the first
    ``State N`` line stay first, lines after the last one (a closing remark) stay last, and a
    line between them without a state number keeps its place after the line before it."""
    numbered = [i for i, line in enumerate(lines) if STATE.match(line)]
    if not numbered:  # nothing to interleave with: the extra steps close the story
        return lines + [text for _, text in extra]
    if not extra:
        return lines
    first, last = numbered[0], numbered[-1]
    body, state = [], 0
    for i in range(first, last + 1):
        if m := STATE.match(lines[i]):
            state = int(m.group(1))
        body.append((state, i, lines[i]))
    body += [(number, len(lines) + i, text) for i, (number, text) in enumerate(extra)]
    return lines[:first] + [line for _, _, line in sorted(body)] + lines[last + 1 :]
