"""Replica-id symmetry of the Kafka model: per-replica keys and renaming (see
``checker.symmetry``).

Every action is enabled for every replica id alike, the initial state names every replica
alike, and no property names a replica, so the model is symmetric under any renaming of the
replica ids. Replica ids occur in: the position of each replica in ``replicas``, a view's
leader and ISR, a leader's remote LEOs (indexed by id), the controller's leader and ISR, and
every LeaderAndIsr request, the controller's ELR (with the elr mechanism), (with unclean
shutdowns) the flushed offsets, indexed by id, (with the ``fetcher`` component) the fetch
states, indexed by id, and (with split-fetch) the responses in flight, indexed by follower
id, each naming the leader that sent it.
Record ids, epochs and offsets are not replica ids.
"""

from __future__ import annotations

from typing import Any

from spec.kafka.state import (
    C_ELR,
    C_ISR,
    C_LEADER,
    C_LKL,
    CONTROLLER,
    D_FLUSHED,
    DURABLE,
    F_RESPONSES,
    R_LEADER,
    R_OFFSET,
    REPLICAS,
)


def replica_keys(
    state: tuple[Any, ...],
    split_fetch: bool = False,
    alter_at: int | None = None,
    fetcher_at: int | None = None,
) -> list[tuple[Any, ...]]:
    """Per replica a key that renaming does not change: ``(log, HW, alive, view epoch, role,
    is the controller's leader, in the controller's ISR)``, role 0 = no leader known,
    1 = presumes it leads, 2 = follows another; then, when the state has them, ELR
    membership, the flushed offset and (``split_fetch``: the state's last component is
    ``flight``) the fetch offset of the response in flight to it (-1: none), and
    (``alter_at``: the index of the ``alter`` component) the leader epoch of its
    AlterPartition request in flight (-1: none). (Cheap rather than complete: replicas whose
    keys tie are ordered by trying their renamings; ``fetcher_at``, the index of the
    ``fetcher`` component, only tells where the components are.)"""
    replicas, ctrl = state[REPLICAS], state[CONTROLLER]
    c_leader, c_isr = ctrl[C_LEADER], ctrl[C_ISR]
    keys: list[tuple[Any, ...]] = []
    for r, (log, hw, alive, view, _) in enumerate(replicas):
        leader = view[0]
        keys.append(
            (
                log,
                hw,
                alive,
                view[1],
                0 if leader is None else 1 if leader == r else 2,
                r == c_leader,
                r in c_isr,
            )
        )
    if len(ctrl) > C_ELR:  # so do ELR membership and the last known leader (KIP-966)
        keys = [key + (r in ctrl[C_ELR], r == ctrl[C_LKL]) for r, key in enumerate(keys)]
    optional = split_fetch + (alter_at is not None) + (fetcher_at is not None)
    durable = len(state) > DURABLE + optional
    if durable and state[DURABLE][D_FLUSHED]:  # the flushed offsets count too
        flushed = state[DURABLE][D_FLUSHED]
        keys = [key + (flushed[r],) for r, key in enumerate(keys)]
    if alter_at is not None:
        keys = [
            key + (-1 if x is None else x[0],) for key, x in zip(keys, state[alter_at], strict=True)
        ]
    if split_fetch:
        responses = state[-1][F_RESPONSES]
        keys = [
            key + (-1 if x is None else x[R_OFFSET],)
            for key, x in zip(keys, responses, strict=True)
        ]
    return keys


_SORTED: dict[Any, Any] = {}
"""``(perm, isr) -> renamed sorted ISR`` and ``(perm, requests) -> renamed requests``: a
model has few distinct ISRs and request lists, and each is renamed many times."""


def permute(
    state: tuple[Any, ...],
    perm: tuple[int, ...],
    split_fetch: bool = False,
    alter_at: int | None = None,
    fetcher_at: int | None = None,
) -> tuple[Any, ...]:
    """``state`` with replica ``r`` renamed ``perm[r]``; ISRs stay sorted tuples.
    ``split_fetch``: the state's last component is ``flight``; ``alter_at`` / ``fetcher_at``:
    the index of the ``alter`` / ``fetcher`` component."""
    replicas, ctrl, requests, ghost = state if len(state) == DURABLE else state[:DURABLE]
    n = len(replicas)
    inverse = [0] * n
    for old, new in enumerate(perm):
        inverse[new] = old
    moved = []
    for old in inverse:
        log, hw, alive, (leader, epoch, isr), remote = replicas[old]
        view = (None if leader is None else perm[leader], epoch, _isr(perm, isr))
        if remote:
            remote = tuple([remote[j] for j in inverse])
        moved.append((log, hw, alive, view, remote))
    key = (perm, requests)
    renamed = _SORTED.get(key)
    if renamed is None:
        renamed = _SORTED[key] = tuple([_decision(request, perm) for request in requests])
    moved_state: tuple[Any, ...] = (tuple(moved), _decision(ctrl, perm), renamed, ghost)
    if len(state) == DURABLE:
        return moved_state
    if len(state) > DURABLE + split_fetch + (alter_at is not None) + (fetcher_at is not None):
        flushed, unclean = state[DURABLE]
        if flushed:
            flushed = tuple([flushed[j] for j in inverse])
        moved_state += ((flushed, unclean),)
    if alter_at is not None:
        alters = state[alter_at]
        moved_state += (
            tuple(
                [
                    None if x is None else (x[0], _isr(perm, x[1]), _isr(perm, x[2]))
                    for x in (alters[j] for j in inverse)
                ]
            ),
        )
    if fetcher_at is not None:
        moved_state += (tuple([state[fetcher_at][j] for j in inverse]),)
    if split_fetch:
        responses, lost = state[-1]
        moved_state += (
            (
                tuple(
                    [
                        None if x is None else (perm[x[R_LEADER]],) + x[R_LEADER + 1 :]
                        for x in (responses[j] for j in inverse)
                    ]
                ),
                lost,
            ),
        )
    return moved_state


def _isr(perm: tuple[int, ...], isr: tuple[Any, ...]) -> tuple[Any, ...]:
    key = (perm, isr)
    renamed = _SORTED.get(key)
    if renamed is None:
        renamed = _SORTED[key] = tuple(sorted([perm[m] for m in isr]))
    return renamed


def _decision(decision: tuple[Any, ...], perm: tuple[int, ...]) -> tuple[Any, ...]:
    """A controller state or LeaderAndIsr ``(epoch, leader, isr[, elr, last known leader])``
    renamed."""
    renamed: tuple[Any, ...] = (
        decision[0],
        None if decision[1] is None else perm[decision[1]],
        _isr(perm, decision[2]),
    )
    if len(decision) > C_ELR:
        lkl = decision[C_LKL]
        renamed += (_isr(perm, decision[C_ELR]), None if lkl is None else perm[lkl])
    return renamed
