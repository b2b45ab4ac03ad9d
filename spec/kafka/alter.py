"""Asynchronous ISR changes (the ``async-isr`` mechanism, KIP-497): AlterPartition in flight.

Without it, ``actions.shrink_isr`` / ``expand_isr`` change the leader's ISR and the
controller's in one step, as the ZooKeeper-era leader did with its conditional write. Since
KIP-497 a leader sends an AlterPartition request and carries on; the controller accepts it
later, or rejects it when the leader epoch or the partition moved on. Until the answer, the
leader counts the *maximal* ISR for its HW: its committed ISR and every replica it asked to
add (``Partition.PendingExpandIsr`` / ``PendingShrinkIsr``: ``maximalIsr``), and it asks for
nothing else (``partitionState.isInflight``). Its committed ISR still decides min ISR.

With the mechanism on, ``ShrinkIsr`` and ``ExpandIsr`` become requests (same labels, same
conditions on the follower, but any live replica that presumes leadership may send one: only
the controller can tell a stale leader), and ``AlterPartition(leader)`` follows them: the
controller handles the leader's request and the leader gets the answer, in one step (a
simplification: between the two, the leader would behave exactly as while it waits).

The state's ``alter`` component (``spec.kafka.state``) holds per replica its request in
flight, ``(leader epoch, committed ISR it was based on, ISR asked for)`` or None; a request of
an epoch other than the replica's view's is stale (it will be rejected) and blocks nothing.
The actions' guards are in ``spec.kafka.guards_isr``.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.actions import record_isr
from spec.kafka.context import ModelContext
from spec.kafka.guards import leads, up
from spec.kafka.guards_isr import caught_up, lagging, no_request_in_flight, request_in_flight
from spec.kafka.state import (
    ALIVE,
    C_EPOCH,
    C_ISR,
    C_LEADER,
    CONTROLLER,
    GHOST,
    HW,
    LOG,
    REMOTE,
    REPLICAS,
    V_EPOCH,
    V_ISR,
    V_LEADER,
    VIEW,
    commit,
    leader_hw,
    put,
    with_member,
    without_member,
)


def _at(ctx: ModelContext) -> int:
    """The index of the state's ``alter`` component (the mechanism is on)."""
    at = ctx.alter_at
    assert at is not None  # only called with async-isr on
    return at


def _leaders(ctx: ModelContext, s: tuple[Any, ...]) -> Any:
    """Every live replica that presumes leadership and has no request of its epoch in flight
    (``guards_isr.CHANGES_ISR`` with async-isr)."""
    for r, rep in enumerate(s[REPLICAS]):
        if up(ctx, s, r) and leads(ctx, s, r) and no_request_in_flight(ctx, s, r):
            yield r, rep


def _ask(ctx: ModelContext, s: tuple[Any, ...], r: int, isr: tuple[Any, ...]) -> tuple[Any, ...]:
    view = s[REPLICAS][r][VIEW]
    at = _at(ctx)
    return s[:at] + (put(s[at], r, (view[V_EPOCH], view[V_ISR], isr)),) + s[at + 1 :]


def shrink_isr(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """ShrinkIsr(leader, follower): a leader asks the controller to drop a lagging follower.

    ShrinkIsr(leader, follower) with async-isr: a live replica that presumes leadership, with
    no AlterPartition of its epoch in flight, asks to drop a follower of its ISR that is not
    caught up; its HW still counts the follower until the answer. Source: KIP-497;
    ``Partition.maybeShrinkIsr`` (``prepareIsrShrink``)."""
    for r, rep in _leaders(ctx, s):
        for f in lagging(ctx, s, r):
            isr = without_member(rep[VIEW][V_ISR], f)
            out.append((ctx.labels.shrink[r][f], _ask(ctx, s, r, isr)))


def expand_isr(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """ExpandIsr(leader, follower): a leader asks the controller to add a caught-up follower.

    ExpandIsr(leader, follower) with async-isr: as the one-step ExpandIsr's conditions on the
    follower (``guards_isr.caught_up``), from a live replica that presumes leadership
    with no AlterPartition of its epoch in flight; its HW counts the follower at once (the
    maximal ISR). Source: KIP-497; ``Partition.maybeExpandIsr`` (``prepareIsrExpand``)."""
    for r, rep in _leaders(ctx, s):
        for f in caught_up(ctx, s, r):
            isr = with_member(rep[VIEW][V_ISR], f)
            out.append((ctx.labels.expand[r][f], _ask(ctx, s, r, isr)))


def alter_partition(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """AlterPartition(leader): the controller handles a leader's request; the leader learns.

    AlterPartition(leader): enabled when a request of ``leader`` is in flight. The controller
    accepts it only if it still names that leader in that leader epoch with the ISR the
    request was based on (KIP-497: a stale leader epoch or partition epoch is rejected); the
    ISR changes with no new epoch, as ShrinkIsr did (the latest LeaderAndIsr is rewritten;
    with ``elr`` the ELR follows). The leader, if still up in that epoch, then takes the new
    ISR and recomputes its HW. Rejected, the request is gone and the leader keeps its
    committed ISR. Source: ``QuorumController`` / ``ReplicationControlManager``
    (AlterPartition), ``Partition.handleAlterPartitionUpdate``."""
    at = _at(ctx)
    ctrl = s[CONTROLLER]
    for r, request in enumerate(s[at]):
        # enabled when (guards_isr.ALTER_PARTITION): a request of r in flight
        if not request_in_flight(ctx, s, r):
            continue
        epoch, base, isr = request
        asked = put(s[at], r, None)
        accepted = ctrl[C_EPOCH] == epoch and ctrl[C_LEADER] == r and ctrl[C_ISR] == base
        if not accepted:
            out.append((ctx.labels.alter_partition[r], s[:at] + (asked,) + s[at + 1 :]))
            continue
        decided, requests = record_isr(ctx, s, r, isr)
        replicas, ghost = s[REPLICAS], s[GHOST]
        rep = replicas[r]
        view = rep[VIEW]
        if rep[ALIVE] and view[V_LEADER] == r and view[V_EPOCH] == epoch:
            log = rep[LOG]
            hw = leader_hw(len(log), rep[HW], r, isr, rep[REMOTE], ctx.hw_min_isr)
            ghost = commit(ghost, log, rep[HW], hw)
            replicas = put(replicas, r, (log, hw, True, (r, epoch, isr), rep[REMOTE]))
        state = (replicas, decided, requests, ghost) + s[GHOST + 1 : at] + (asked,) + s[at + 1 :]
        out.append((ctx.labels.alter_partition[r], state))
