"""The data-path actions of the Kafka model: produce, fetch, ISR shrink and expand.

(protocol.md, "Actions"; the controller and broker lifecycle are in ``membership``.)

Each action is a function ``action(ctx, state, out)`` that appends ``(Label, next state)`` to
``out`` for every enabled choice: first the guards (``# enabled when``), then the effect.
(Appending to one list is cheaper than chaining generators on this, the hottest, path.) The
guards are the named predicates of ``spec.kafka.guards`` and its family modules
(``guards_data``, ``guards_isr``, ...), called in the order of the action's guard list there,
which ``why_disabled`` walks; a choice the loop makes (the leader a follower fetches from, a
member of the ISR) stands for the guard it satisfies. ``ctx`` is the ``KafkaSpec`` (config,
variant, interned labels). Replica ids and epochs are ints; offsets are 0-based, LEO and HW
exclusive.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.context import ModelContext
from spec.kafka.guards import leads, up
from spec.kafka.guards_data import SAME_EPOCH, fetch_leader, isr_large_enough, records_left
from spec.kafka.guards_isr import caught_up, lagging, true_leader
from spec.kafka.state import (
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
    # enabled when (guards_data.PRODUCE): records left, leader up, presumes it leads, ISR
    # large enough (acks=all)
    if not records_left(ctx, s):
        return
    for r, rep in enumerate(replicas):
        if not up(ctx, s, r) or not leads(ctx, s, r) or not isr_large_enough(ctx, s, r):
            continue
        view = rep[VIEW]
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
    fenced = SAME_EPOCH.applies(ctx)
    for f, rep in enumerate(replicas):
        # enabled when (guards_data.FETCH): f may fetch from its leader (fetch_leader)
        leader = fetch_leader(ctx, s, f, fenced)
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


def shrink_isr(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """ShrinkIsr(leader, follower): the true leader drops a lagging follower from the ISR.

    ShrinkIsr(leader, follower): the true leader drops a follower that is not caught up
    (its remote LEO is below the leader's LEO; ``replica.lag.time.max.ms`` may expire at any
    moment). The controller's ISR changes with it, with no new epoch (other replicas' cached
    ISRs go stale until they apply a newer request); the leader then recomputes its HW. Never empties
    the ISR. Source: protocol.md action 3; ``Partition.maybeShrinkIsr``."""
    replicas, r = s[REPLICAS], s[CONTROLLER][C_LEADER]
    # enabled when (guards_isr.SHRINK_ISR): r is the true leader (only the controller's
    # leader can be it), f a member of its ISR behind its LEO
    if r is not None and true_leader(ctx, s, r):
        rep = replicas[r]
        log, remote, view = rep[LOG], rep[REMOTE], rep[VIEW]
        for f in lagging(ctx, s, r):
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
    (``guards_isr.caught_up``). Kafka checks on the fetch that the follower's LEO reached
    both; the model takes the step after any fetch, as a fetch's ISR change may lag it. The
    leader then recomputes its HW, as it does after every committed ISR change: with KIP-966's
    strict min ISR the HW, held while the ISR was below min ISR, moves once the ISR reaches
    it. Source:
    protocol.md action 3; ``Partition.isFollowerInSync``, ``maybeExpandIsr`` and
    ``handleAlterPartitionUpdate`` (which calls ``maybeIncrementLeaderHW``)."""
    replicas, r = s[REPLICAS], s[CONTROLLER][C_LEADER]
    # enabled when (guards_isr.EXPAND_ISR): r is the true leader (only the controller's
    # leader can be it), f caught up
    if r is not None and true_leader(ctx, s, r):
        rep = replicas[r]
        log, hw, remote, view = rep[LOG], rep[HW], rep[REMOTE], rep[VIEW]
        for f in caught_up(ctx, s, r):
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
