"""Replica-id symmetry of the TLA+ port: per-replica keys and renaming (see
``checker.symmetry``), the reduction TLC applies for ``SYMMETRY Permutations(Replicas)``.

Replica ids occur in the position of each log and replica state, a replica state's leader and
ISR, every LeaderAndIsr request's leader and ISR, and the quorum's leader and ISR. Record ids
and epochs are not replica ids.
"""

from __future__ import annotations

from typing import Any

from spec.tla.state import LOGS, Q_ISR, Q_LEADER, QUORUM, RSTATES


def replica_keys(state: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Per replica a key that renaming does not change: ``(log, HW, epoch, role, is the
    quorum leader, in the quorum ISR, in its own cached ISR, size of its cached ISR)``,
    role 0 = no leader, 1 = presumes it leads, 2 = follows another."""
    quorum = state[QUORUM]
    q_leader, q_isr = quorum[Q_LEADER], quorum[Q_ISR]
    keys = []
    for r, (log, (hw, epoch, leader, isr)) in enumerate(zip(state[LOGS], state[RSTATES])):
        role = 0 if leader is None else 1 if leader == r else 2
        keys.append((log, hw, epoch, role, r == q_leader, r in q_isr, r in isr, len(isr)))
    return keys


def permute(state: tuple[Any, ...], perm: tuple[int, ...]) -> tuple[Any, ...]:
    """``state`` with replica ``r`` renamed ``perm[r]``; ISRs stay sorted tuples."""
    logs, rstates, next_id, next_epoch, requests, quorum = state
    n = len(logs)
    inverse = [0] * n
    for old, new in enumerate(perm):
        inverse[new] = old
    new_logs = tuple([logs[old] for old in inverse])
    new_states = []
    for old in inverse:
        hw, epoch, leader, isr = rstates[old]
        new_states.append(
            (
                hw,
                epoch,
                None if leader is None else perm[leader],
                tuple(sorted([perm[m] for m in isr])),
            )
        )
    return (
        new_logs,
        tuple(new_states),
        next_id,
        next_epoch,
        tuple([_decision(request, perm) for request in requests]),
        _decision(quorum, perm),
    )


def _decision(decision: tuple[Any, ...], perm: tuple[int, ...]) -> tuple[Any, ...]:
    """A quorum state or LeaderAndIsr ``(epoch, leader, isr)`` renamed."""
    epoch, leader, isr = decision
    return (epoch, None if leader is None else perm[leader], tuple(sorted([perm[m] for m in isr])))
