"""Safety invariants: NoCommittedLoss, NoDivergence, WeakIsr, StrongIsr (protocol.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checker.properties import INVARIANT, Property
from invariants.access import Replication


def record_text(record: Any) -> str:
    """A record as the trace pictures name it: ``m<id> (epoch <e>)``, or ``nothing`` for a
    missing one (``record`` is ``(record id, leader epoch)`` or None)."""
    return "nothing" if record is None else f"m{record[0]} (epoch {record[1]})"


def _missing(log: Sequence[Any], committed: Any) -> tuple[int, int] | None:
    """The first committed ``(offset, id)`` that ``log`` does not hold at that offset."""
    for offset, record_id in committed:
        if offset >= len(log) or log[offset][0] != record_id:
            return offset, record_id
    return None


def _nowhere(logs: Any, committed: Any) -> tuple[int, int] | None:
    """The first committed ``(offset, id)`` that no log in ``logs`` holds at that offset
    (KIP-966's "global data loss": every copy gone)."""
    pair: tuple[int, int]
    for pair in committed:
        if all(_missing(log, (pair,)) is not None for log in logs):
            return pair
    return None


def first_gap(leader_log: Sequence[Any], hw: int, member_log: Sequence[Any]) -> int | None:
    """First offset below ``hw`` where ``member_log`` differs from ``leader_log`` (whole
    records compared; ``leader_log`` must reach ``hw``), or None. Also used by the story."""
    for offset in range(hw):
        if offset >= len(member_log) or member_log[offset] != leader_log[offset]:
            return offset
    return None


def _isr_problem(acc: Replication, s: tuple[Any, ...], strong: bool) -> str | None:
    """Why some presumed leader's committed prefix is not on every (cached or controller)
    ISR member, or None when it is."""
    logs, hws = acc.logs(s), acc.hws(s)
    quorum_isr = acc.quorum(s)[2]
    for leader, cached_isr in acc.presumed_leaders(s):
        hw = hws[leader]
        if hw > len(logs[leader]):
            return f"leader {leader} has HW {hw} beyond its own LEO {len(logs[leader])}"
        for member in quorum_isr if strong else cached_isr:
            gap = first_gap(logs[leader], hw, logs[member])
            if gap is not None:
                which = "controller's" if strong else "its own"
                mine = logs[member][gap] if gap < len(logs[member]) else None
                return (
                    f"leader {leader} has HW {hw} but {which} ISR member {member} "
                    f"differs from it at offset {gap} ({record_text(logs[leader][gap])} "
                    f"vs {record_text(mine)})"
                )
    return None


def _isr_holds(acc: Replication, s: tuple[Any, ...], strong: bool) -> bool:
    """Fast form of ``_isr_problem(...) is None`` (tuple slices compare in C)."""
    logs, hws = acc.logs(s), acc.hws(s)
    quorum_isr = acc.quorum(s)[2]
    for leader, cached_isr in acc.presumed_leaders(s):
        hw = hws[leader]
        if hw == 0:
            continue
        prefix = logs[leader][:hw]
        if len(prefix) < hw:  # the spec asks for an entry at every offset below the HW
            return False
        for member in quorum_isr if strong else cached_isr:
            if logs[member][:hw] != prefix:
                return False
    return True


def live_leader(acc: Replication, s: tuple[Any, ...]) -> int | None:
    """The controller's leader when its replica is up, else None: a committed record is
    lost when the leader that serves lacks it, or when no replica holds it; a leader that is
    down (crashed, or lost power, and not yet fenced) serves nothing (``epochs`` gives None
    for a replica that is down)."""
    leader = acc.quorum(s)[0]
    return leader if leader is not None and acc.epochs(s)[1 + leader] is not None else None


def properties(
    acc: Replication, committed_history: bool = True, divergence: bool = True
) -> list[Property]:
    """The safety invariants over ``acc``; NoCommittedLoss only with ``committed_history``,
    NoDivergence only with ``divergence``."""

    def no_committed_loss(s: tuple[Any, ...]) -> bool:
        """Every committed record is in the current leader's log at its offset (with no
        leader, or one that is down: in some replica's log)."""
        leader = live_leader(acc, s)
        if leader is not None:
            return _missing(acc.logs(s)[leader], acc.committed(s)) is None
        return _nowhere(acc.logs(s), acc.committed(s)) is None

    def explain_loss(s: tuple[Any, ...]) -> str:
        named, epoch, _ = acc.quorum(s)
        leader = live_leader(acc, s)
        if leader is None:
            nowhere = _nowhere(acc.logs(s), acc.committed(s) or ())
            if nowhere is None:
                return "every committed record is still held"
            offset, record_id = nowhere
            return (
                f"record m{record_id} was committed at offset {offset} but the partition "
                f"has no {'live ' if named is not None else ''}leader and no replica holds "
                "it there"
            )
        log = acc.logs(s)[leader]
        missing = _missing(log, acc.committed(s) or ())
        if missing is None:
            return f"the leader {leader} holds every committed record"
        offset, record_id = missing
        held = (
            f"{record_text(log[offset])} there"
            if offset < len(log)
            else f"nothing there (its LEO is {len(log)})"
        )
        return (
            f"record m{record_id} was committed at offset {offset} but the leader of "
            f"epoch {epoch}, replica {leader}, holds {held}"
        )

    def no_divergence(s: tuple[Any, ...]) -> bool:
        """Any two replicas hold the same records below both of their HWs."""
        logs, hws = acc.logs(s), acc.hws(s)
        n = len(logs)
        for a in range(n - 1):
            ha = hws[a]
            if not ha:
                continue
            log = logs[a]
            for b in range(a + 1, n):
                h = hws[b]
                h = min(h, ha)
                if h and log[:h] != logs[b][:h]:
                    return False
        return True

    def explain_divergence(s: tuple[Any, ...]) -> str:
        logs, hws = acc.logs(s), acc.hws(s)
        for a in range(len(logs)):
            for b in range(a + 1, len(logs)):
                h = min(hws[a], hws[b])
                gap = first_gap(logs[a], h, logs[b])
                if gap is not None:
                    return (
                        f"replicas {a} and {b} hold different records at offset {gap} "
                        f"({record_text(logs[a][gap])} vs {record_text(logs[b][gap])}), "
                        f"below both HWs ({hws[a]} and {hws[b]})"
                    )
        return ""

    def weak_isr(s: tuple[Any, ...]) -> bool:
        """Each presumed leader's committed prefix is on every member of its own ISR."""
        return _isr_holds(acc, s, strong=False)

    def strong_isr(s: tuple[Any, ...]) -> bool:
        """Each presumed leader's committed prefix is on every member of the controller's ISR."""
        return _isr_holds(acc, s, strong=True)

    props = []
    if committed_history:
        props.append(
            Property(
                "NoCommittedLoss",
                no_committed_loss.__doc__ or "",
                INVARIANT,
                no_committed_loss,
                explain_loss,
            )
        )
    if divergence:
        props.append(
            Property(
                "NoDivergence",
                no_divergence.__doc__ or "",
                INVARIANT,
                no_divergence,
                explain_divergence,
            )
        )
    props += [
        Property(
            "WeakIsr",
            weak_isr.__doc__ or "",
            INVARIANT,
            weak_isr,
            lambda s: _isr_problem(acc, s, strong=False),
        ),
        Property(
            "StrongIsr",
            strong_isr.__doc__ or "",
            INVARIANT,
            strong_isr,
            lambda s: _isr_problem(acc, s, strong=True),
        ),
    ]
    return props
