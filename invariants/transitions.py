"""Epoch properties: EpochMonotonic (transition) and RecordEpochsMonotonic (invariant)."""

from __future__ import annotations

from typing import Any

from checker.model import Label
from checker.properties import INVARIANT, TRANSITION, Property
from invariants.access import Replication


def _went_back(old: tuple[Any, ...], new: tuple[Any, ...]) -> str | None:
    """Compare two ``Replication.epochs`` tuples: which epoch went back, or None."""
    if new[0] < old[0]:
        return f"the controller's epoch went back from {old[0]} to {new[0]}"
    for r, (before, after) in enumerate(zip(old[1:], new[1:], strict=True)):
        if before is not None and after is not None and after < before:
            return f"replica {r}'s leader epoch went back from {before} to {after}"
    return None


def _epoch_problem(acc: Replication, before: tuple[Any, ...], after: tuple[Any, ...]) -> str | None:
    """Which epoch the step ``before -> after`` moves backwards, or None. Most steps change
    no epoch, so the epoch tuples are compared whole first."""
    old_epochs, new_epochs = acc.epochs(before), acc.epochs(after)
    if new_epochs == old_epochs:
        return None
    return _went_back(old_epochs, new_epochs)


def _log_problem(acc: Replication, s: tuple[Any, ...]) -> str | None:
    """Which log has a record of a lower epoch after one of a higher epoch, or None."""
    for r, log in enumerate(acc.logs(s)):
        for i in range(len(log) - 1):
            if log[i][1] > log[i + 1][1]:
                return (
                    f"replica {r}'s log has epoch {log[i][1]} at offset {i} "
                    f"followed by epoch {log[i + 1][1]}"
                )
    return None


def properties(acc: Replication) -> list[Property]:
    """EpochMonotonic (transition) and RecordEpochsMonotonic (invariant) over ``acc``.

    protocol.md states EpochMonotonic with two halves; the half about logs depends on one
    state only, so it is the invariant RecordEpochsMonotonic, checked once per distinct state
    rather than on every transition.
    """

    def epoch_monotonic(before: tuple[Any, ...], label: Label, after: tuple[Any, ...]) -> bool:
        """No live replica's leader epoch and not the controller's epoch ever goes back."""
        return _epoch_problem(acc, before, after) is None

    def prepare(before: tuple[Any, ...]) -> Any:
        epochs, old = acc.epochs, acc.epochs(before)
        return lambda label, after: (new := epochs(after)) == old or not _went_back(old, new)

    def record_epochs_monotonic(s: tuple[Any, ...]) -> bool:
        """Record epochs never decrease along any replica's log."""
        for log in acc.logs(s):
            if len(log) > 1:
                epoch = log[0][1]
                for record in log:
                    if record[1] < epoch:
                        return False
                    epoch = record[1]
        return True

    return [
        Property(
            "RecordEpochsMonotonic",
            record_epochs_monotonic.__doc__ or "",
            INVARIANT,
            record_epochs_monotonic,
            lambda s: _log_problem(acc, s),
        ),
        Property(
            "EpochMonotonic",
            epoch_monotonic.__doc__ or "",
            TRANSITION,
            epoch_monotonic,
            lambda before, label, after: _epoch_problem(acc, before, after),
            prepare,
        ),
    ]
