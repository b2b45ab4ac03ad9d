"""KafkaReplication's shared actions and the unfenced actions of the older variants.

Each action is ``action(ctx, s, out)`` and appends ``(Label, next state)`` for every way it
is enabled, exactly as the corresponding TLA+ operator (named in each docstring) is: same
enabling conditions, same effect. ``ctx`` is the ``TlaSpec`` (constants and labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checker.model import Label
from spec.log import end_offset_for_epoch, last_match_end
from spec.tla.context import TlaContext
from spec.tla.state import (
    EPOCH,
    HW,
    ISR,
    LEADER,
    LOGS,
    NEXT_EPOCH,
    NEXT_ID,
    Q_EPOCH,
    Q_ISR,
    Q_LEADER,
    QUORUM,
    REQUESTS,
    RSTATES,
)
from spec.tuples import put, with_member, without_member


def _update_isr(
    ctx: TlaContext,
    s: tuple[Any, ...],
    out: list[tuple[Label, Any]],
    label: Label,
    leader: int | None,
    isr: Any,
) -> None:
    """``ControllerUpdateIsr(leader, isr)``: take the next epoch, overwrite the quorum state,
    add the same record to the request set. Disabled once the epochs are used up."""
    epoch = s[NEXT_EPOCH]
    if epoch > ctx.config.max_epoch:
        return
    decision = (epoch, leader, isr)
    out.append(
        (label, (s[LOGS], s[RSTATES], s[NEXT_ID], epoch + 1, s[REQUESTS] + (decision,), decision))
    )


def controller_elect_leader(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """ControllerElectLeader: any quorum ISR member other than the quorum leader, same ISR."""
    quorum = s[QUORUM]
    for leader in quorum[Q_ISR]:
        if leader != quorum[Q_LEADER]:
            _update_isr(ctx, s, out, ctx.labels.elect[leader], leader, quorum[Q_ISR])


def controller_shrink_isr(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """ControllerShrinkIsr: for a replica x, (a) x leads and is alone in the ISR: no leader,
    same ISR; (b) x leads with others: no leader, ISR without x; (c) x is a non-leader ISR
    member: same leader, ISR without x (may empty the ISR when there is no leader)."""
    _, q_leader, q_isr = s[QUORUM]
    for x in range(ctx.config.replicas):
        label = ctx.labels.controller_shrink[x]
        if q_leader == x:
            isr = q_isr if q_isr == (x,) else without_member(q_isr, x)
            _update_isr(ctx, s, out, label, None, isr)
        elif x in q_isr:
            _update_isr(ctx, s, out, label, q_leader, without_member(q_isr, x))


def become_leader(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """BecomeLeader: a request naming leader L with an epoch above L's; L takes the epoch and
    the ISR, keeps its HW and log."""
    rstates = s[RSTATES]
    for epoch, leader, isr in s[REQUESTS]:
        if leader is None or epoch <= rstates[leader][EPOCH]:
            continue
        new = (rstates[leader][HW], epoch, leader, isr)
        out.append(
            (ctx.labels.become_leader[leader][epoch], (s[LOGS], put(rstates, leader, new)) + s[2:])
        )


def leader_write(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """LeaderWrite: a presumed leader (stale ones too) appends ``[next id, its epoch]`` at its
    end offset, if ids are left and its log is not full."""
    if s[NEXT_ID] > ctx.config.max_records - 1:
        return
    logs, rstates = s[LOGS], s[RSTATES]
    for r in range(ctx.config.replicas):
        if rstates[r][LEADER] == r and len(logs[r]) < ctx.config.log_size:
            log = logs[r] + ((s[NEXT_ID], rstates[r][EPOCH]),)
            out.append((ctx.labels.write[r], (put(logs, r, log), rstates, s[NEXT_ID] + 1) + s[3:]))


def quorum_update(
    ctx: TlaContext,
    s: tuple[Any, ...],
    out: list[tuple[Label, Any]],
    label: Label,
    leader: int,
    isr: Any,
) -> None:
    """``QuorumUpdateLeaderAndIsr``: only the true leader (quorum leader, presumes
    leadership, at the quorum's epoch) writes the ISR to the quorum and its own state; no
    epoch bump and no request."""
    quorum, rstates = s[QUORUM], s[RSTATES]
    mine = rstates[leader]
    if quorum[Q_LEADER] != leader or mine[LEADER] != leader or mine[EPOCH] != quorum[Q_EPOCH]:
        return
    new = (mine[HW], mine[EPOCH], leader, isr)
    out.append(
        (label, (s[LOGS], put(rstates, leader, new)) + s[2:5] + ((quorum[Q_EPOCH], leader, isr),))
    )


def _caught_up(s: tuple[Any, ...], leader: int, follower: int, end: Any) -> bool:
    """``IsFollowerCaughtUp``: follows ``leader`` and, if ``end > 0``, both hold an entry at
    ``end - 1`` (contents not compared)."""
    if s[RSTATES][follower][LEADER] != leader:
        return False
    matches: bool = end == 0 or (
        end - 1 < len(s[LOGS][leader]) and end - 1 < len(s[LOGS][follower])
    )
    return matches


def leader_shrink_isr(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """LeaderShrinkIsr: a leader drops a cached-ISR member not caught up to its end offset."""
    for leader in range(ctx.config.replicas):
        isr = s[RSTATES][leader][ISR]
        end = len(s[LOGS][leader])
        for member in isr:
            if member != leader and not _caught_up(s, leader, member, end):
                quorum_update(
                    ctx,
                    s,
                    out,
                    ctx.labels.shrink[leader][member],
                    leader,
                    without_member(isr, member),
                )


def leader_expand_isr(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """LeaderExpandIsr: a leader adds a replica caught up to its HW."""
    for leader in range(ctx.config.replicas):
        isr, hw = s[RSTATES][leader][ISR], s[RSTATES][leader][HW]
        for replica in range(ctx.config.replicas):
            if replica not in isr and _caught_up(s, leader, replica, hw):
                quorum_update(
                    ctx,
                    s,
                    out,
                    ctx.labels.expand[leader][replica],
                    leader,
                    with_member(isr, replica),
                )


def leader_inc_high_watermark(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """LeaderIncHighWatermark: a presumed leader whose every cached-ISR member follows it (any
    epoch) and has an entry at the HW moves the HW up by one (HW < LogSize)."""
    logs, rstates = s[LOGS], s[RSTATES]
    for leader in range(ctx.config.replicas):
        mine = rstates[leader]
        hw = mine[HW]
        if mine[LEADER] != leader or hw >= ctx.config.log_size:
            continue
        if all(rstates[f][LEADER] == leader and hw < len(logs[f]) for f in mine[ISR]):
            inc_hw(ctx, s, out, leader)


def inc_hw(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]], leader: int) -> None:
    """The effect shared by every HW-increment action: the leader's HW goes up by one."""
    rstates = s[RSTATES]
    new = (rstates[leader][HW] + 1,) + rstates[leader][1:]
    out.append((ctx.labels.inc_hw[leader], (s[LOGS], put(rstates, leader, new)) + s[2:]))


def become_follower_truncate(
    ctx: TlaContext,
    s: tuple[Any, ...],
    out: list[tuple[Label, Any]],
    leader: int,
    replica: int,
    offset: Any,
    label: Sequence[Sequence[Label]],
) -> None:
    """``BecomeFollowerAndTruncateTo(leader, replica, offset)`` for every request naming
    ``leader`` with an epoch above the replica's; disabled when ``offset`` is above the
    replica's end offset. HW becomes ``min(offset, hw)``."""
    log, mine = s[LOGS][replica], s[RSTATES][replica]
    if leader == replica or offset > len(log):
        return
    for epoch, req_leader, isr in s[REQUESTS]:
        if req_leader == leader and epoch > mine[EPOCH]:
            new = (min(offset, mine[HW]), epoch, leader, isr)
            out.append(
                (
                    label[replica][epoch],
                    (put(s[LOGS], replica, log[:offset]), put(s[RSTATES], replica, new)) + s[2:],
                )
            )


def truncate_to_high_watermark(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """BecomeFollowerTruncateToHighWatermark (KafkaTruncateToHighWatermark): to its own HW."""
    for leader in range(ctx.config.replicas):
        for replica in range(ctx.config.replicas):
            become_follower_truncate(
                ctx, s, out, leader, replica, s[RSTATES][replica][HW], ctx.labels.follow[leader]
            )


def lookup_offset_for_epoch(leader_log: tuple[Any, ...], follower_hw: Any, epoch: int) -> int:
    """Kip101's ``LookupOffsetForEpoch``: the follower's HW if the leader's log is empty or
    has no larger epoch; the leader's end offset if its last record has ``epoch``; else the
    first offset with a larger epoch."""
    answer = end_offset_for_epoch(leader_log, epoch)
    return follower_hw if answer is None else answer


def truncate_kip101(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """BecomeFollowerTruncateKip101: an empty replica truncates to 0; else to the named
    leader's answer for the epoch of its last record (whatever state that leader is in)."""
    logs = s[LOGS]
    for leader in range(ctx.config.replicas):
        for replica in range(ctx.config.replicas):
            log = logs[replica]
            offset = (
                0
                if not log
                else lookup_offset_for_epoch(logs[leader], s[RSTATES][replica][HW], log[-1][1])
            )
            become_follower_truncate(
                ctx, s, out, leader, replica, offset, ctx.labels.follow[leader]
            )


def truncate_kip279(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """BecomeFollowerTruncateKip279: truncate after the largest offset where the replica and
    the named leader hold the same record (0 if none), whatever state the leader is in."""
    logs = s[LOGS]
    for leader in range(ctx.config.replicas):
        for replica in range(ctx.config.replicas):
            offset = last_match_end(logs[replica], logs[leader])
            become_follower_truncate(
                ctx, s, out, leader, replica, offset, ctx.labels.follow[leader]
            )


def replicate(
    ctx: TlaContext,
    s: tuple[Any, ...],
    out: list[tuple[Label, Any]],
    follower: int,
    leader: int,
    label: Label,
) -> None:
    """``ReplicateTo(leader, follower)`` plus the follower HW rule: copy exactly one record,
    the leader's entry at the follower's end offset, if the follower's log is not full; then
    ``hw := min(leader hw, new end offset)``."""
    logs, rstates = s[LOGS], s[RSTATES]
    end = len(logs[follower])
    if end >= len(logs[leader]) or end >= ctx.config.log_size:
        return
    hw = min(rstates[leader][HW], end + 1)
    new_state = (hw,) + rstates[follower][1:]
    out.append(
        (
            label,
            (
                put(logs, follower, logs[follower] + (logs[leader][end],)),
                put(rstates, follower, new_state),
            )
            + s[2:],
        )
    )


def follower_replicate(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FollowerReplicate: a follower of a presumed leader copies one record; no epoch check,
    no prefix check."""
    rstates = s[RSTATES]
    for follower in range(ctx.config.replicas):
        leader = rstates[follower][LEADER]
        if leader is not None and leader != follower and rstates[leader][LEADER] == leader:
            replicate(ctx, s, out, follower, leader, ctx.labels.replicate[follower][leader])
