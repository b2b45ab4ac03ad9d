"""Controller decisions and the broker lifecycle: elections, the controller's ISR shrink,
crash, restart, and applying a LeaderAndIsr (become leader / become follower).

Same conventions as ``spec.kafka.actions``: ``action(ctx, state, out)`` appends
``(Label, next state)`` to ``out``, guards first.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.actions import record_isr, true_leader
from spec.kafka.context import ModelContext
from spec.kafka.diverging import on_become_follower
from spec.kafka.elr import decide, elr_choices, fence_unclean, last_known_choice
from spec.kafka.state import (
    ALIVE,
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
    ctrl, replicas, variant = s[CONTROLLER], s[REPLICAS], ctx.variant
    budget = ctrl[C_EPOCH] < ctx.config.max_epoch
    isr = ctrl[C_ISR]
    for r in isr:
        # enabled when: r is a crashed (fence-live: or any) ISR member; a follower of an ISR
        # of 2 or more (an epoch left unless shrink-in-epoch), or the leader when nobody else
        # can be elected in its place (an epoch left)
        if replicas[r][ALIVE] and not variant.fence_live:
            continue
        fewer = without_member(isr, r)
        if r != ctrl[C_LEADER]:
            if len(isr) < 2:
                continue
            if variant.shrink_in_epoch and ctrl[C_EPOCH] >= 0:
                out.append((ctx.labels.controller_shrink[r], shrink_in_epoch(ctx, s, fewer)))
                continue
            if not budget:
                continue
            decision, requests = decide(ctx, s, ctrl[C_LEADER], fewer)
        else:
            if not budget or replaceable(ctx, s, r):
                continue
            decision, requests = decide(ctx, s, None, fewer if fewer or variant.elr else isr)
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
    if leader is not None and true_leader(s, leader):
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


def replaceable(ctx: ModelContext, s: tuple[Any, ...], fenced: int | None = None) -> bool:
    """Whether the controller could elect a live replica other than ``fenced`` now: a live
    ISR member, a live ELR member (``elr``), or with ``--unclean`` any live replica
    (``Elect``, ``UncleanElect``, ``UncleanRecovery``; their epoch budget aside). A fenced
    broker is never elected (``handleBrokerFenced`` elects among the others). With
    ``fence-live`` only a live ISR member counts: a live replica outside the ISR (in the ELR,
    or any for an unclean election) may be a fenced broker the controller cannot elect, so the
    partition may go leaderless though ``Elect`` could also pick it (KIP-966: an ELR member
    is elected only while unfenced; seen on Kafka 4.1.0 by ``hwcheck conform``)."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]

    def live(m: int) -> bool:
        return m != fenced and bool(replicas[m][ALIVE])

    if any(live(m) for m in ctrl[C_ISR]):
        return True
    if ctx.variant.fence_live:
        return False
    if any(live(m) for m in elr_choices(ctx, s)):
        return True
    return bool(ctx.config.unclean_election) and any(live(m) for m in range(len(replicas)))


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
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    if ctrl[C_EPOCH] >= ctx.config.max_epoch:
        return
    live = tuple(m for m in ctrl[C_ISR] if replicas[m][ALIVE])
    choices = [(c, live) for c in live] or [(c, (c,)) for c in elr_choices(ctx, s)]
    if not choices and (lkl := last_known_choice(ctx, s)) is not None:
        choices = [(lkl, (lkl,))]
    for c, isr in choices:
        if c == ctrl[C_LEADER]:
            continue
        decision, requests = decide(ctx, s, c, isr)
        out.append((ctx.labels.elect[c], (replicas, decision, requests, s[GHOST]) + s[DURABLE:]))


def unclean_elect(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """UncleanElect(leader): with no ISR member up, any live replica is elected.

    UncleanElect(leader): with unclean.leader.election.enable, when no ISR member is up,
    the controller picks any live replica; the new ISR is that replica alone. Loses committed
    data by design. With the ``elr`` mechanism ``elr.unclean_recovery`` replaces it.
    Source: protocol.md action 6."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    if not ctx.config.unclean_election or ctrl[C_EPOCH] >= ctx.config.max_epoch:
        return
    if ctx.variant.elr:
        return
    if any(replicas[m][ALIVE] for m in ctrl[C_ISR]):
        return
    for c, rep in enumerate(replicas):
        if rep[ALIVE]:
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
    if ghost[G_CRASHES] >= ctx.config.max_crashes:
        return
    replicas = s[REPLICAS]
    new_ghost = put(ghost, G_CRASHES, ghost[G_CRASHES] + 1)
    split = ctx.variant.split_fetch
    for r, rep in enumerate(replicas):
        if rep[ALIVE]:
            down = (rep[LOG], rep[HW], False, NO_VIEW, ())
            extra = without_flights(s[DURABLE:], r) if split else s[DURABLE:]
            state = (put(replicas, r, down), s[CONTROLLER], s[REQUESTS], new_ghost) + extra
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
        if not rep[ALIVE] and r != ctrl[C_LEADER]:
            up = (rep[LOG], rep[HW], True, (None, max(ctrl[C_EPOCH] - 1, -1), ()), ())
            fenced, controller, requests = fence_unclean(ctx, s, put(replicas, r, up), r)
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
        if not rep[ALIVE]:
            continue
        for epoch, leader, isr in s[REQUESTS][rep[VIEW][V_EPOCH] + 1 :]:
            if leader != r:
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
        if not rep[ALIVE]:
            continue
        for epoch, leader, isr in s[REQUESTS][rep[VIEW][V_EPOCH] + 1 :]:
            if leader is None or leader == r:
                continue
            offset = truncation_point(variant, replicas, r, leader, epoch)
            if offset is None:
                continue
            log = rep[LOG]
            new_rep = (log[:offset], min(rep[HW], offset), True, (leader, epoch, isr), ())
            state = (
                (put(replicas, r, new_rep),) + s[1:DURABLE] + truncated(s, r, offset, ctx.durable)
            )
            state = put_at(state, ctx.fetcher_at, r, fresh)
            out.append((ctx.labels.become_follower[r][epoch], state))
