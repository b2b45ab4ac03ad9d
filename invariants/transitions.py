"""Transition properties: EpochMonotonic."""

from __future__ import annotations

from checker.properties import TRANSITION, Property
from invariants.access import Replication


def _epoch_problem(acc: Replication, before, after) -> str | None:
    """Why the step ``before -> after`` moves an epoch backwards, or None.

    Only replicas that changed are examined: every log starts empty, so by induction an
    unchanged log was checked when it last changed.
    """
    if acc.quorum(after)[1] < acc.quorum(before)[1]:
        return "the controller's epoch went back"
    for r in acc.changed_replicas(before, after):
        old, new = acc.replica_epoch(before, r), acc.replica_epoch(after, r)
        if old is not None and new is not None and new < old:
            return f"replica {r}'s leader epoch went back from {old} to {new}"
        log = acc.log(after, r)
        for i in range(len(log) - 1):
            if log[i][1] > log[i + 1][1]:
                return (f"replica {r}'s log has epoch {log[i][1]} at offset {i} "
                        f"followed by epoch {log[i + 1][1]}")
    return None


def properties(acc: Replication) -> list[Property]:
    """EpochMonotonic over ``acc``."""

    def epoch_monotonic(before, label, after) -> bool:
        """Record epochs never decrease along a log; no live replica's epoch goes back."""
        return _epoch_problem(acc, before, after) is None

    return [Property("EpochMonotonic", epoch_monotonic.__doc__, TRANSITION, epoch_monotonic,
                     lambda before, label, after: _epoch_problem(acc, before, after))]
