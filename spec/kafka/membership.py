"""Controller decisions and the broker lifecycle: elections, the controller's ISR shrink,
crash, restart, and applying a LeaderAndIsr (become leader / become follower).

Same conventions as ``spec.kafka.actions``: ``action(ctx, state, out)`` appends
``(Label, next state)`` to ``out``, guards first; the guards are in
``spec.kafka.guards_controller`` and ``guards_broker``.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.actions import record_isr
from spec.kafka.context import ModelContext
from spec.kafka.diverging import on_become_follower
from spec.kafka.elr import decide, fence_unclean
from spec.kafka.guards import epochs_left, up
from spec.kafka.guards_broker import (
    crashes_left,
    names_a_leader,
    names_it,
    not_named,
)
from spec.kafka.guards_controller import (
    candidates,
    fenceable,
    in_epoch,
    isr_stays,
    none_up,
    not_leader,
    not_replaceable,
    shrink_epoch,
    unclean,
    without_elr,
)
from spec.kafka.guards_isr import true_leader
from spec.kafka.state import (
    C_EPOCH,
    C_ISR,
    C_LEADER,
    CONTROLLER,
    DURABLE,
    G_CRASHES,
    GHOST,
    HW,
    LOG,
    NO_VIEW,
    REMOTE,
    REPLICAS,
    REQUESTS,
    V_EPOCH,
    VIEW,
    commit,
    leader_hw,
    maximal_isr,
    put,
    put_at,
    truncated,
    without_flights,
    without_member,
)
from spec.kafka.variants import truncation_point


def controller_shrink_isr(
    ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """ControllerShrinkIsr(replica): the controller handles a failed or fenced ISR member.

    ControllerShrinkIsr(replica): the controller saw the broker of an ISR member die (with
    ``fence-live`` also: stop heartbeating while it runs, paused or cut off from the
    controller, and be fenced as a dead one is). A follower leaves the ISR, which it never
    empties: in a new leader epoch, or with ``shrink-in-epoch`` (KAFKA-15021, KRaft from
    metadata version 3.6-IV0) in the same epoch (``shrink_in_epoch``; before the first
    election, epoch -1, there is none to keep). The leader, when no
    other live replica can be elected in its place (else Elect replaces it, as both
    controllers do in the same step), loses its leadership in a new epoch: the partition has
    no leader, and the ISR keeps the leader only if it was the last member (ZooKeeper, and
    KRaft without ELR, never write an empty ISR; with ``elr``, KIP-966, the ISR may empty and
    the leader joins the ELR below min ISR). Until then a crashed leader cannot restart
    (``restart``), so it never leads again in its old epoch; a fenced live leader keeps its
    view until a newer LeaderAndIsr names a leader. Sources: ZooKeeper's
    ``ReplicaStateMachine.doRemoveReplicasFromIsr`` (leader -1, the ISR kept when it has one
    member, epoch + 1; ``Election.leaderForOffline`` first elects a live ISR member); KRaft's
    ``ReplicationControlManager.handleBrokerFenced`` and ``PartitionChangeBuilder`` (a fenced
    leader is replaced or becomes -1, and a new leader, -1 included, takes the next leader
    epoch; ``triggerLeaderEpochBumpIfNeeded``: an ISR shrink alone takes none when
    ``MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink`` is false); protocol.md action 3.
    The same step in the TLA+ specs: hachikuji's ``ControllerShrinkIsr``. Observed on Kafka
    3.9.1 and 4.1.0 by ``hwcheck conform`` (docs/explanation/conformance.md)."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    isr = ctrl[C_ISR]
    for r in isr:  # in_controller_isr
        # enabled when (guards_controller.CONTROLLER_SHRINK_ISR, the cheapest first): r is
        # fenced (crashed; fence-live: any); a follower of an ISR of 2 or more, or the leader;
        # an epoch for it (the same with shrink-in-epoch, else one left); the leader only
        # when nobody else can be elected in its place
        if not fenceable(ctx, s, r) or not isr_stays(ctx, s, r):
            continue
        if not shrink_epoch(ctx, s, r) or not not_replaceable(ctx, s, r):
            continue
        fewer = without_member(isr, r)
        if r != ctrl[C_LEADER]:
            if in_epoch(ctx, s, r):
                out.append((ctx.labels.controller_shrink[r], shrink_in_epoch(ctx, s, fewer)))
                continue
            decision, requests = decide(ctx, s, ctrl[C_LEADER], fewer)
        else:
            elr = ctx.variant.elr
            decision, requests = decide(ctx, s, None, fewer if fewer or elr else isr)
        out.append(
            (
                ctx.labels.controller_shrink[r],
                (replicas, decision, requests, s[GHOST]) + s[DURABLE:],
            )
        )


def shrink_in_epoch(ctx: ModelContext, s: tuple[Any, ...], isr: tuple[Any, ...]) -> tuple[Any, ...]:
    """The state once the controller set the ISR to ``isr`` (a follower left it) in the same
    leader epoch (``shrink-in-epoch``): the latest LeaderAndIsr is rewritten, as for the
    leader's own ISR change (``actions.record_isr``), and the ELR follows the ISR. A live
    leader of that epoch takes the new ISR at once and recomputes its HW (in KRaft it reads
    the partition change from the metadata log: ``Partition.makeLeader`` with the same epoch
    ends in ``maybeIncrementLeaderHW``; an ISR change it proposed from the older state is
    rejected by the partition epoch). Source: KAFKA-15021 (PR 13765, Kafka 3.6.0)."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    epoch, leader = ctrl[C_EPOCH], ctrl[C_LEADER]
    ghost = s[GHOST]
    if leader is not None and true_leader(ctx, s, leader):
        rep = replicas[leader]
        view = (leader, epoch, isr)
        counted = isr if ctx.alter_at is None else maximal_isr(view, s[ctx.alter_at][leader])
        hw = leader_hw(
            len(rep[LOG]), rep[HW], leader, counted, rep[REMOTE], ctx.hw_min_isr, len(isr)
        )
        ghost = commit(ghost, rep[LOG], rep[HW], hw)
        replicas = put(replicas, leader, (rep[LOG], hw, True, view, rep[REMOTE]))
    controller, requests = record_isr(ctx, s, leader, isr)
    return (replicas, controller, requests, ghost) + s[DURABLE:]


def elect(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """Elect(leader): the controller elects a live ISR member in a new epoch.

    Elect(leader): clean election. The controller picks a live ISR member other than the
    current leader (the leader may be down, or up: preferred-leader election, controlled
    shutdown), takes the next epoch and keeps the live ISR members as the new ISR.
    Source: protocol.md action 6; ``PartitionLeaderElectionAlgorithms`` and the ZooKeeper
    controller's offline election (new ISR = live ISR members). With the ``elr`` mechanism
    (KIP-966), when no ISR member is up, a live ELR member, whose ISR is then itself; while
    ISR and ELR are both empty, the last known leader once it is up, whose ISR is then
    itself (``spec.kafka.elr``). Bounded by max_epoch."""
    replicas = s[REPLICAS]
    # enabled when (guards_controller.ELECT): an epoch left, c a candidate (taken from
    # them), not the leader already
    if not epochs_left(ctx, s):
        return
    for c, isr in candidates(ctx, s):
        if not not_leader(ctx, s, c):
            continue
        decision, requests = decide(ctx, s, c, isr)
        out.append((ctx.labels.elect[c], (replicas, decision, requests, s[GHOST]) + s[DURABLE:]))


def unclean_elect(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """UncleanElect(leader): with no ISR member up, any live replica is elected.

    UncleanElect(leader): with unclean.leader.election.enable, when no ISR member is up,
    the controller picks any live replica; the new ISR is that replica alone. Loses committed
    data by design. With the ``elr`` mechanism ``elr.unclean_recovery`` replaces it.
    Source: protocol.md action 6."""
    replicas = s[REPLICAS]
    # enabled when (guards_controller.UNCLEAN_ELECT): --unclean, an epoch left, no elr, no
    # live ISR member, c up
    if not unclean(ctx, s) or not epochs_left(ctx, s) or not without_elr(ctx, s):
        return
    if not none_up(ctx, s):
        return
    for c in range(len(replicas)):
        if up(ctx, s, c):
            decision, requests = decide(ctx, s, c, (c,))
            out.append(
                (
                    ctx.labels.unclean_elect[c],
                    (replicas, decision, requests, s[GHOST]) + s[DURABLE:],
                )
            )


def crash(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """Crash(replica): a broker stops and loses its volatile state.

    Crash(replica): the broker stops; its volatile state (view, remote LEOs) is lost, its
    log and HW checkpoint stay; with ``split-fetch``, fetch responses in flight to or from it
    are dropped; its fetch state (a pending truncation, a cleared last fetched epoch) is
    gone. Bounded by max_crashes. Source: protocol.md action 4."""
    ghost = s[GHOST]
    # enabled when (guards_broker.CRASH): crashes left, the replica up
    if not crashes_left(ctx, s):
        return
    replicas = s[REPLICAS]
    new_ghost = put(ghost, G_CRASHES, ghost[G_CRASHES] + 1)
    split = ctx.variant.split_fetch
    for r, rep in enumerate(replicas):
        if up(ctx, s, r):
            crashed = (rep[LOG], rep[HW], False, NO_VIEW, ())
            extra = without_flights(s[DURABLE:], r) if split else s[DURABLE:]
            state = (put(replicas, r, crashed), s[CONTROLLER], s[REQUESTS], new_ghost) + extra
            out.append((ctx.labels.crash[r], put_at(state, ctx.fetcher_at, r, None)))


def restart(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """Restart(replica): a crashed broker comes back with no view.

    Restart(replica): the broker comes back with no leader in its view; a crashed leader only
    once the controller has taken its leadership away in a newer epoch (``Elect`` or
    ``ControllerShrinkIsr``): Kafka fences the broker first (KRaft refuses a registration while
    the old session lives, ``DuplicateBrokerRegistrationException``, and a fenced leader is
    replaced; ZooKeeper's ephemeral node outlives the process until the session expires, and
    since KIP-380, 2.2, a bounce is handled as a failure, then a startup), so a returning
    leader never leads again in its old epoch. It must apply a
    LeaderAndIsr before it serves or fetches, and it only applies those sent from now on:
    on broker startup the controller sends the current LeaderAndIsr, and requests in flight
    before the crash died with the old connection (``KafkaController.onBrokerStartup``). The
    view's epoch is set just below the controller's epoch to say exactly that. With
    ``async-isr``, its AlterPartition request still in flight is dropped: the broker comes
    back with a new broker epoch, and the controller rejects a request of an older one
    (AlterPartition's broker epoch, KIP-497 and KIP-903). Until the restart the controller
    may still accept it. With the ``elr`` mechanism the broker registers without a clean
    shutdown's epoch and the controller takes it out of ISR and ELR (``elr.fence_unclean``;
    Kafka 4.1.0, seen by ``hwcheck conform``). Source: protocol.md action 5."""
    replicas, ctrl, at = s[REPLICAS], s[CONTROLLER], ctx.alter_at
    for r, rep in enumerate(replicas):
        # enabled when (guards_broker.RESTART): r down, not the controller's leader
        if not up(ctx, s, r) and not_named(ctx, s, r):
            back = (rep[LOG], rep[HW], True, (None, max(ctrl[C_EPOCH] - 1, -1), ()), ())
            fenced, controller, requests = fence_unclean(ctx, s, put(replicas, r, back), r)
            state = put_at((fenced, controller, requests) + s[REQUESTS + 1 :], at, r, None)
            out.append((ctx.labels.restart[r], state))


def become_leader(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """BecomeLeader(replica, epoch): a replica applies a LeaderAndIsr naming it leader.

    BecomeLeader(replica, epoch): a live replica applies a LeaderAndIsr newer than its view
    that names it leader. It keeps its log and its own HW (usually behind the old leader's),
    forgets remote LEOs (unknown until followers fetch), then recomputes its HW (a sole ISR
    member commits its whole log). Its fetcher stops: a pending truncation or a cleared last
    fetched epoch goes with it. Source: protocol.md action 7; ``Partition.makeLeader``."""
    replicas = s[REPLICAS]
    n = len(replicas)
    for r, rep in enumerate(replicas):
        # enabled when (guards_broker.BECOME_LEADER): r up, a request issued after its view
        # (taken from them) that names it leader (so it names one)
        if not up(ctx, s, r):
            continue
        for epoch, _, isr in s[REQUESTS][rep[VIEW][V_EPOCH] + 1 :]:
            if not names_it(ctx, s, r, epoch):
                continue
            remote = (-1,) * n
            log = rep[LOG]
            hw = leader_hw(len(log), rep[HW], r, isr, remote, ctx.hw_min_isr)
            ghost = commit(s[GHOST], log, rep[HW], hw)
            new_rep = (log, hw, True, (r, epoch, isr), remote)
            state = (put(replicas, r, new_rep), s[CONTROLLER], s[REQUESTS], ghost) + s[DURABLE:]
            out.append((ctx.labels.become_leader[r][epoch], put_at(state, ctx.fetcher_at, r, None)))


def become_follower(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """BecomeFollower(replica, epoch): a replica follows a new leader and truncates.

    BecomeFollower(replica, epoch): a live replica applies a LeaderAndIsr newer than its
    view that names another replica leader, and truncates its log by the variant's rule
    (``spec.kafka.variants``); its HW drops to the truncation point if above it. Disabled while
    the rule cannot answer (the leader to ask is not ready). A request naming no leader is
    never applied. The fetcher starts afresh: with truncation on fetch (Kafka >= 2.8) nothing
    is truncated here and the first fetch carries the last record's epoch
    (``AbstractFetcherThread.partitionFetchState``). Source: protocol.md action 7;
    ``ReplicaFetcherThread.maybeTruncate``."""
    replicas = s[REPLICAS]
    variant = ctx.variant
    fresh = on_become_follower(variant.empty_clears_epoch)
    for r, rep in enumerate(replicas):
        # enabled when (guards_broker.BECOME_FOLLOWER): r up, a request issued after its view
        # (taken from them) that names another replica leader, and an answer from the rule
        if not up(ctx, s, r):
            continue
        for epoch, leader, isr in s[REQUESTS][rep[VIEW][V_EPOCH] + 1 :]:
            if not names_a_leader(ctx, s, epoch) or names_it(ctx, s, r, epoch):
                continue
            offset = truncation_point(variant, replicas, r, leader, epoch)
            if offset is None:  # rule_answers
                continue
            log = rep[LOG]
            new_rep = (log[:offset], min(rep[HW], offset), True, (leader, epoch, isr), ())
            state = (
                (put(replicas, r, new_rep),) + s[1:DURABLE] + truncated(s, r, offset, ctx.durable)
            )
            state = put_at(state, ctx.fetcher_at, r, fresh)
            out.append((ctx.labels.become_follower[r][epoch], state))
