""" "Sometimes" vacuity guards: transitions that must be reachable for a "holds" to mean much.

A bound that makes one of these unreachable (no crash budget, one record, no second epoch)
makes every verdict vacuous; the checker fails such a run (protocol.md, "Vacuity guards").
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from checker.properties import SOMETIMES, Property
from invariants.access import Replication


def properties(acc: Replication, lifecycle: bool = True) -> list[Property]:
    """The guards over ``acc``; crash and restart guards only with ``lifecycle``."""

    def hw_advances(before: tuple[Any, ...], label: Label, after: tuple[Any, ...]) -> bool:
        """Some replica's HW advances."""
        return any(new > old for old, new in zip(acc.hws(before), acc.hws(after)))

    def crash_happens(before: tuple[Any, ...], label: Label, after: tuple[Any, ...]) -> bool:
        """A broker crashes."""
        return acc.event(label) == "crash"

    def restart_happens(before: tuple[Any, ...], label: Label, after: tuple[Any, ...]) -> bool:
        """A crashed broker restarts."""
        return acc.event(label) == "restart"

    def truncation_removes_record(
        before: tuple[Any, ...], label: Label, after: tuple[Any, ...]
    ) -> bool:
        """A truncation removes a record from some replica's log."""
        return any(len(new) < len(old) for old, new in zip(acc.logs(before), acc.logs(after)))

    def second_election(before: tuple[Any, ...], label: Label, after: tuple[Any, ...]) -> bool:
        """A second leader election happens (a leader is replaced)."""
        return acc.event(label) == "election" and acc.quorum(before)[0] is not None

    guards = [("HwAdvances", hw_advances)]
    if lifecycle:
        guards += [("CrashHappens", crash_happens), ("RestartHappens", restart_happens)]
    guards += [
        ("TruncationRemovesRecord", truncation_removes_record),
        ("SecondElection", second_election),
    ]
    return [Property(name, func.__doc__ or "", SOMETIMES, func) for name, func in guards]
