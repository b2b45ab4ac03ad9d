"""NoUncommittedRead: what a consumer can read from any replica was committed (KAFKA-14704).

A consumer reads a partition up to a replica's HW, from the leader or, since KIP-392
(Kafka 2.4), from a follower. KAFKA-14704 (apache/kafka PR 13230) is a follower whose HW,
taken from a fetch response before it truncated on that response's DivergingEpoch, covered
records of its own that were never committed; a consumer fetching from it in that window
read them. The ticket's statement, as this model can say it: every record below a live
replica's HW was committed at that offset.
"""

from __future__ import annotations

from typing import Any

from checker.properties import INVARIANT, Property
from invariants import truncation
from invariants.access import Replication
from invariants.removal import holds
from invariants.safety import record_text


def _exposed(acc: Replication, s: tuple[Any, ...]) -> tuple[int, int] | None:
    """``(replica, offset)`` of the first record below a live replica's HW that was never
    committed at that offset, or None."""
    logs, hws, committed = acc.logs(s), acc.hws(s), acc.committed(s) or ()
    epochs = acc.epochs(s)
    for r, log in enumerate(logs):
        hw = hws[r]
        if not hw or epochs[r + 1] is None:  # nothing readable, or the replica is down
            continue
        for offset in range(min(hw, len(log))):
            if (offset, log[offset][0]) not in committed:
                return r, offset
    return None


def properties(acc: Replication) -> list[Property]:
    """NoUncommittedRead over ``acc`` (a model that keeps the committed history)."""

    def no_uncommitted_read(s: tuple[Any, ...]) -> bool:
        """Every record below a live replica's HW, which a consumer may read from it (KIP-392),
        was committed at that offset."""
        return _exposed(acc, s) is None

    def explain(s: tuple[Any, ...]) -> str:
        found = _exposed(acc, s)
        if found is None:
            return "every record below a live replica's HW was committed"
        r, offset = found
        return (
            f"replica {r} has HW {acc.hws(s)[r]}, so a consumer may read "
            f"{record_text(acc.logs(s)[r][offset])} at offset {offset} from it, "
            f"but that record was never committed there"
        )

    return [
        Property(
            "NoUncommittedRead",
            no_uncommitted_read.__doc__ or "",
            INVARIANT,
            no_uncommitted_read,
            explain,
        )
    ]


def exposed_in(view: dict[str, Any]) -> tuple[int, int] | None:
    """``(replica, offset)`` of the first uncommitted record below a live replica's HW in a
    model view (``spec.view``: logs as ``[id, epoch]`` lists, ``committed`` as ``[offset,
    id]`` pairs), or None."""
    committed = {tuple(pair) for pair in view.get("committed", [])}
    for replica in view["replicas"]:
        if not replica["alive"]:
            continue
        log = replica["log"]
        for offset in range(min(replica["hw"], len(log))):
            if (offset, log[offset][0]) not in committed:
                return replica["replica"], offset
    return None


def story(variant: str, actions: Any, views: Any) -> list[str]:
    """NoUncommittedRead's account of a trace: which record a consumer may read where, and,
    when the step that raised the HW took it from a DivergingEpoch response before the
    truncation it asks for, that this is KAFKA-14704. Empty when the last view does not
    show the violation."""
    found = exposed_in(views[-1])
    if found is None:
        return []
    r, offset = found
    replica = views[-1]["replicas"][r]
    rid, epoch = replica["log"][offset]
    lines = [
        (
            f"Replica {r} has HW {replica['hw']}, so a consumer fetching from it (KIP-392) "
            f"may read m{rid} (epoch {epoch}) at offset {offset}, which was never committed "
            "there."
        )
    ]
    got = next(
        (k for k in range(1, len(views)) if holds(views[k], r, offset, rid)),
        None,
    )
    if got is not None:
        how = "wrote" if (actions[got] or "").startswith(f"Produce(leader={r})") else "got"
        lines.append(
            f"State {got + 1} ({actions[got]}): replica {r} {how} m{rid} at offset {offset}."
        )
        kept = next(
            (
                k
                for k in range(got + 1, len(views))
                if (actions[k] or "").startswith(f"BecomeFollower(replica={r},")
            ),
            None,
        )
        if kept is not None and truncation.rule_of(variant) == "diverging":
            lines.append(
                f"State {kept + 1} ({actions[kept]}): replica {r} became follower and kept "
                f"m{rid}: it truncates only on a fetch response (KAFKA-10554)."
            )
    for k in range(len(views) - 1, 0, -1):
        before, after = views[k - 1]["replicas"][r], views[k]["replicas"][r]
        if before["hw"] <= offset < after["hw"]:
            pending = (after.get("fetcher") or {}).get("truncate_to")
            why = (
                f": the fetch response carried a DivergingEpoch and the leader's HW, and the "
                f"follower took the HW first; the truncation to {pending} it asks for is "
                "still to come (KAFKA-14704, fixed in 3.4.1 and 3.5.0 by truncating first)"
                if pending is not None
                else ""
            )
            lines.append(
                f"State {k + 1} ({actions[k]}): replica {r}'s HW moved past offset {offset}{why}."
            )
            break
    return lines
