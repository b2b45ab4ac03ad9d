"""The data-path actions of the Kafka model: produce, fetch, ISR shrink and expand.

(protocol.md, "Actions"; the controller and broker lifecycle are in ``membership``.)

Each action is a function ``action(ctx, state, out)`` that appends ``(Label, next state)`` to
``out`` for every enabled choice: first the guards (``# enabled when``), then the effect.
(Appending to one list is cheaper than chaining generators on this, the hottest, path.) ``ctx`` is the
``KafkaSpec`` (config, variant, interned labels). Replica ids and epochs are ints; offsets are
0-based, LEO and HW exclusive.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.context import ModelContext
from spec.kafka.state import (
    ALIVE,
    C_EPOCH,
    C_LEADER,
    CONTROLLER,
    DURABLE,
    G_NEXT_ID,
    GHOST,
    HW,
    LOG,
    REMOTE,
    REPLICAS,
    REQUESTS,
    V_EPOCH,
    V_ISR,
    V_LEADER,
    VIEW,
    commit,
    controller_after,
    leader_hw,
    maximal_isr,
    put,
    truncated,
    with_member,
    without_member,
)


def produce(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """Produce(leader): a leader appends a new record (id, its epoch) to its log.

    Produce: a live replica that presumes it is leader (a stale one too) appends
    ``(next id, its epoch)``; with acks=all only while its ISR has >= min.insync.replicas
    members. Then it recomputes its HW. Source: protocol.md action 1; Kafka
    ``Partition.appendRecordsToLeader`` (NotEnoughReplicas check)."""
    replicas, ghost = s[REPLICAS], s[GHOST]
    next_id = ghost[G_NEXT_ID]
    # enabled when: records left, leader up, believes it leads, ISR large enough (acks=all)
    if next_id >= ctx.config.max_records:
        return
    for r, rep in enumerate(replicas):
        view = rep[VIEW]
        if not rep[ALIVE] or view[V_LEADER] != r or len(view[V_ISR]) < ctx.produce_min_isr:
            continue
        # effect
        log = rep[LOG] + ((next_id, view[V_EPOCH]),)
        counted = counted_isr(ctx, s, r)
        hw = leader_hw(len(log), rep[HW], r, counted, rep[REMOTE], ctx.hw_min_isr, len(view[V_ISR]))
        new_ghost = put(commit(ghost, log, rep[HW], hw), G_NEXT_ID, next_id + 1)
        new_rep = (log, hw, True, view, rep[REMOTE])
        out.append(
            (
                ctx.labels.produce[r],
                (put(replicas, r, new_rep), s[CONTROLLER], s[REQUESTS], new_ghost) + s[DURABLE:],
            )
        )


def counted_isr(ctx: ModelContext, s: tuple[Any, ...], leader: int) -> tuple[Any, ...]:
    """The ISR ``leader`` counts for its HW: its view's, or with ``async-isr`` the maximal
    one (``state.maximal_isr``)."""
    view = s[REPLICAS][leader][VIEW]
    if ctx.alter_at is None:
        isr: tuple[Any, ...] = view[V_ISR]
        return isr
    return maximal_isr(view, s[ctx.alter_at][leader])


def fetch_leader(replicas: tuple[Any, ...], f: int, rep: tuple[Any, ...], fenced: bool) -> Any:
    """The leader replica ``f`` (state ``rep``) may fetch from, or None: ``f`` is up and
    follows another replica, which is up and presumes leadership, and with ``fenced``
    (``fenced-fetch``, KIP-320) is in the same leader epoch as ``f``'s view."""
    view = rep[VIEW]
    leader = view[V_LEADER]
    if not rep[ALIVE] or leader is None or leader == f:
        return None
    lview = replicas[leader][VIEW]
    if not replicas[leader][ALIVE] or lview[V_LEADER] != leader:
        return None
    if fenced and lview[V_EPOCH] != view[V_EPOCH]:
        return None
    return leader


def fetch(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """Fetch(follower, leader): one fetch request and its response, with the HW rule.

    Fetch(follower, leader), request and response in one step.

    Enabled when the follower is up and follows ``leader``, which is up and presumes
    leadership (fenced variant: at the follower's epoch, KIP-320). If the fetch offset
    ``LEO_f`` is past ``LEO_L`` the leader answers OFFSET_OUT_OF_RANGE and the follower
    truncates to ``LEO_L`` (pre-KIP-101 handling). Otherwise the leader reads its records from
    ``LEO_f`` on together with its HW *as it is before this fetch*, then records
    ``remote LEO = LEO_f`` and recomputes its HW; the follower appends and sets
    ``HW_f = min(response HW, new LEO_f)``. Reading before updating is Kafka's order
    (``ReplicaManager.fetchMessages``: ``readFromLocalLog``, then
    ``updateFollowerFetchState``), and is why a follower learns a higher HW only on its next
    fetch. Source: protocol.md action 2; ``ReplicaFetcherThread.processPartitionData``.
    """
    replicas = s[REPLICAS]
    fenced = ctx.variant.fenced_fetch
    for f, rep in enumerate(replicas):
        # enabled when: as fetch_leader says
        leader = fetch_leader(replicas, f, rep, fenced)
        if leader is None:
            continue
        # effect
        lrep = replicas[leader]
        lview = lrep[VIEW]
        view = rep[VIEW]
        flog, llog = rep[LOG], lrep[LOG]
        offset, lleo = len(flog), len(llog)
        if offset > lleo:  # OFFSET_OUT_OF_RANGE: truncate to the leader's LEO
            new_rep = (flog[:lleo], min(rep[HW], lleo), True, view, ())
            out.append(
                (
                    ctx.labels.fetch[f][leader],
                    (put(replicas, f, new_rep),)
                    + s[1:DURABLE]
                    + truncated(s, f, lleo, ctx.durable),
                )
            )
            continue
        response_hw = lrep[HW]
        remote = put(lrep[REMOTE], f, offset)
        hw = leader_hw(
            lleo,
            response_hw,
            leader,
            counted_isr(ctx, s, leader),
            remote,
            ctx.hw_min_isr,
            len(lview[V_ISR]),
        )
        new_leader = (llog, hw, True, lview, remote)
        new_log = flog + llog[offset:] if offset < lleo else flog
        new_follower = (new_log, min(response_hw, lleo), True, view, ())
        new_replicas = put(put(replicas, leader, new_leader), f, new_follower)
        ghost = commit(s[GHOST], llog, response_hw, hw)
        out.append(
            (
                ctx.labels.fetch[f][leader],
                (new_replicas, s[CONTROLLER], s[REQUESTS], ghost) + s[DURABLE:],
            )
        )


def true_leader(s: tuple[Any, ...], r: int) -> Any:
    """``r`` is the true leader: up, presumes leadership, and the controller names it at the
    same epoch (only it may change the ISR; Kafka's ZooKeeper/KRaft ISR update is fenced by
    the leader epoch and version)."""
    rep, ctrl = s[REPLICAS][r], s[CONTROLLER]
    view = rep[VIEW]
    return (
        rep[ALIVE]
        and view[V_LEADER] == r
        and ctrl[C_LEADER] == r
        and ctrl[C_EPOCH] == view[V_EPOCH]
    )


def record_isr(ctx: ModelContext, s: tuple[Any, ...], leader: int, isr: Any) -> Any:
    """``(controller, requests)`` after the true leader changed the ISR to ``isr``.

    The epoch stays. The latest LeaderAndIsr is rewritten to carry the new ISR, because it
    stands for the partition state the controller sends from now on: to a broker that starts
    (``KafkaController.onBrokerStartup`` sends the current leader and ISR) and, in KRaft, to
    every replica through the metadata log. Without this a leader that crashed and restarted
    would re-apply its own old ISR. With the elr mechanism the ELR follows the ISR
    (``state.controller_after``)."""
    ctrl = s[CONTROLLER]
    epoch = ctrl[C_EPOCH]
    requests = s[REQUESTS][:-1] + ((epoch, leader, isr),)
    return controller_after(ctrl, epoch, leader, isr, ctx.config.min_isr), requests


def lagging(r: int, rep: tuple[Any, ...]) -> list[int]:
    """The members of leader ``r``'s ISR (``rep``: its replica) whose remote LEO is below its
    LEO: those ShrinkIsr may drop (``replica.lag.time.max.ms`` may expire at any moment).
    Source: ``Partition.getOutOfSyncReplicas``."""
    remote, leo = rep[REMOTE], len(rep[LOG])
    return [f for f in rep[VIEW][V_ISR] if f != r and remote[f] < leo]


def epoch_start(rep: tuple[Any, ...]) -> int:
    """The start offset of a leader's epoch (``rep``: its replica): the offset of its first
    record of that epoch, else its LEO (no record yet: Kafka's ``leaderEpochStartOffsetOpt``
    is the LEO when it became leader, and a leader's records of its epoch are its log's
    tail)."""
    log, epoch = rep[LOG], rep[VIEW][V_EPOCH]
    start: int = next((o for o, record in enumerate(log) if record[1] == epoch), len(log))
    return start


def in_sync_from(ctx: ModelContext, rep: tuple[Any, ...]) -> int:
    """The offset a follower's fetches must reach for ExpandIsr: the leader's HW, and with
    ``fenced-expand`` (KAFKA-7128, Kafka 2.0.1 and 2.1 on) also the start offset of the
    leader's epoch. Source: ``Partition.isFollowerInSync`` (2.4 to 4.1; ``maybeExpandIsr``
    before): the follower's LEO >= the HW and >= ``leaderEpochStartOffsetOpt``."""
    hw: int = rep[HW]
    return max(hw, epoch_start(rep)) if ctx.variant.fenced_expand else hw


def caught_up(ctx: ModelContext, replicas: tuple[Any, ...], r: int) -> list[int]:
    """The replicas outside leader ``r``'s ISR whose fetches in this leadership reached
    ``in_sync_from``: those ExpandIsr may add; with ``live-isr`` (KIP-841) only live ones.
    Source: ``Partition.isFollowerInSync`` and ``isReplicaIsrEligible``."""
    rep = replicas[r]
    remote, isr, least = rep[REMOTE], rep[VIEW][V_ISR], in_sync_from(ctx, rep)
    live = ctx.variant.live_isr
    return [
        f
        for f, leo in enumerate(remote)
        if f not in isr and leo >= 0 and leo >= least and (not live or replicas[f][ALIVE])
    ]


def shrink_isr(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """ShrinkIsr(leader, follower): the true leader drops a lagging follower from the ISR.

    ShrinkIsr(leader, follower): the true leader drops a follower that is not caught up
    (its remote LEO is below the leader's LEO; ``replica.lag.time.max.ms`` may expire at any
    moment). The controller's ISR changes with it, with no new epoch (other replicas' cached
    ISRs go stale until they apply a newer request); the leader then recomputes its HW. Never empties
    the ISR. Source: protocol.md action 3; ``Partition.maybeShrinkIsr``."""
    replicas, r = s[REPLICAS], s[CONTROLLER][C_LEADER]
    if r is not None and true_leader(s, r):  # only the controller's leader can be it
        rep = replicas[r]
        log, remote, view = rep[LOG], rep[REMOTE], rep[VIEW]
        for f in lagging(r, rep):  # enabled when: f is behind the leader's LEO
            # effect
            isr = without_member(view[V_ISR], f)
            hw = leader_hw(len(log), rep[HW], r, isr, remote, ctx.hw_min_isr)
            new_view = (r, view[V_EPOCH], isr)
            ghost = commit(s[GHOST], log, rep[HW], hw)
            ctrl, requests = record_isr(ctx, s, r, isr)
            out.append(
                (
                    ctx.labels.shrink[r][f],
                    (put(replicas, r, (log, hw, True, new_view, remote)), ctrl, requests, ghost)
                    + s[DURABLE:],
                )
            )


def expand_isr(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """ExpandIsr(leader, follower): the true leader adds a caught-up follower to the ISR.

    ExpandIsr(leader, follower): the true leader adds a follower whose fetches (in this
    leadership) have reached the leader's HW and, with ``fenced-expand`` (KAFKA-7128), the
    start offset of the leader's epoch; with ``live-isr`` (KIP-841) a live follower only
    (``caught_up``). Kafka checks on the fetch that the follower's LEO reached both; the model
    takes the step after any fetch, as a fetch's ISR change may lag it. The leader then
    recomputes its HW, as it does after every committed ISR change: with KIP-966's strict min
    ISR the HW, held while the ISR was below min ISR, moves once the ISR reaches it. Source:
    protocol.md action 3; ``Partition.isFollowerInSync``, ``maybeExpandIsr`` and
    ``handleAlterPartitionUpdate`` (which calls ``maybeIncrementLeaderHW``)."""
    replicas, r = s[REPLICAS], s[CONTROLLER][C_LEADER]
    if r is not None and true_leader(s, r):  # only the controller's leader can be it
        rep = replicas[r]
        log, hw, remote, view = rep[LOG], rep[HW], rep[REMOTE], rep[VIEW]
        for f in caught_up(ctx, replicas, r):  # enabled when: f reached the HW (and the fence)
            isr = with_member(view[V_ISR], f)
            new_hw = leader_hw(len(log), hw, r, isr, remote, ctx.hw_min_isr)
            new_rep = (log, new_hw, True, (r, view[V_EPOCH], isr), remote)
            ghost = commit(s[GHOST], log, hw, new_hw)
            ctrl, requests = record_isr(ctx, s, r, isr)
            out.append(
                (
                    ctx.labels.expand[r][f],
                    (put(replicas, r, new_rep), ctrl, requests, ghost) + s[DURABLE:],
                )
            )
