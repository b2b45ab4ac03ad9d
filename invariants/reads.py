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
from invariants.access import Replication
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
