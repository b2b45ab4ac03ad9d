"""The fenced actions of Kip320 and of Kip320FirstTry (same conventions as ``actions``)."""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.log import last_match_end
from spec.tla.actions import inc_hw, quorum_update, replicate
from spec.tla.context import TlaContext
from spec.tla.state import EPOCH, HW, ISR, LEADER, LOGS, REQUESTS, RSTATES
from spec.tuples import put, with_member, without_member


def following_epoch(s: tuple[Any, ...], leader: int, follower: int) -> bool:
    """``IsFollowingLeaderEpoch``: the leader presumes leadership and the follower follows it
    at the leader's epoch (a presumed leader follows itself)."""
    rstates = s[RSTATES]
    mine, theirs = rstates[leader], rstates[follower]
    following: bool = mine[LEADER] == leader and theirs[LEADER] == leader
    return following and theirs[EPOCH] == mine[EPOCH]


def fenced_follower_fetch(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """FencedFollowerFetch: as FollowerReplicate, but only at the leader's epoch."""
    for follower in range(ctx.config.replicas):
        leader = s[RSTATES][follower][LEADER]
        if leader is not None and following_epoch(s, leader, follower):
            replicate(ctx, s, out, follower, leader, ctx.labels.replicate[follower][leader])


def fenced_inc_high_watermark(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """FencedLeaderIncHighWatermark: the leader has an entry at its HW and every cached-ISR
    member follows it at its epoch and has an entry there. (No separate presumes-leadership
    test: the spec relies on the ISR members' check.)"""
    logs, rstates = s[LOGS], s[RSTATES]
    for leader in range(ctx.config.replicas):
        mine = rstates[leader]
        hw = mine[HW]
        if hw >= len(logs[leader]):
            continue
        if all(following_epoch(s, leader, f) and hw < len(logs[f]) for f in mine[ISR]):
            inc_hw(ctx, s, out, leader)


def fenced_shrink_isr(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FencedLeaderShrinkIsr: drop a cached-ISR member that does not follow at the leader's
    epoch or whose end offset is below the leader's."""
    logs = s[LOGS]
    for leader in range(ctx.config.replicas):
        isr = s[RSTATES][leader][ISR]
        for member in isr:
            if member == leader:
                continue
            if not following_epoch(s, leader, member) or len(logs[member]) < len(logs[leader]):
                quorum_update(
                    ctx,
                    s,
                    out,
                    ctx.labels.shrink[leader][member],
                    leader,
                    without_member(isr, member),
                )


def hw_reached_current_epoch(s: tuple[Any, ...], leader: int) -> bool:
    """``HasHighWatermarkReachedCurrentEpoch``: HW = end offset, or the record at the HW has
    the leader's epoch."""
    log, mine = s[LOGS][leader], s[RSTATES][leader]
    hw = mine[HW]
    reached: bool = hw == len(log) or (hw < len(log) and log[hw][1] == mine[EPOCH])
    return reached


def fenced_expand_isr(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FencedLeaderExpandIsr: add a replica that follows at the leader's epoch and has an
    entry at HW - 1, once the leader's HW has reached its current epoch."""
    logs = s[LOGS]
    for leader in range(ctx.config.replicas):
        mine = s[RSTATES][leader]
        isr, hw = mine[ISR], mine[HW]
        if not hw_reached_current_epoch(s, leader):
            continue
        for replica in range(ctx.config.replicas):
            if (
                replica not in isr
                and following_epoch(s, leader, replica)
                and (hw == 0 or hw - 1 < len(logs[replica]))
            ):
                quorum_update(
                    ctx,
                    s,
                    out,
                    ctx.labels.expand[leader][replica],
                    leader,
                    with_member(isr, replica),
                )


def fenced_become_follower(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """FencedBecomeFollowerAndTruncate: Kip279's truncation, but only against a leader that
    presumes leadership at the request's epoch. (Its None branch is unreachable: the leader
    ranges over Replicas.)"""
    logs, rstates = s[LOGS], s[RSTATES]
    for epoch, leader, isr in s[REQUESTS]:
        if leader is None or rstates[leader][LEADER] != leader or rstates[leader][EPOCH] != epoch:
            continue
        for replica in range(ctx.config.replicas):
            mine = rstates[replica]
            if replica == leader or epoch <= mine[EPOCH]:
                continue
            offset = last_match_end(logs[replica], logs[leader])
            new = (min(offset, mine[HW]), epoch, leader, isr)
            out.append(
                (
                    ctx.labels.follow[leader][replica][epoch],
                    (put(logs, replica, logs[replica][:offset]), put(rstates, replica, new))
                    + s[2:],
                )
            )


# -- Kip320FirstTry ---------------------------------------------------------------------------
def caught_up_to_epoch(s: tuple[Any, ...], leader: int, follower: int, end: Any) -> bool:
    """``IsFollowerCaughtUpToLeaderEpoch``: the leader presumes leadership, the follower
    follows it, and if ``end > 0`` both have an entry at ``end - 1`` with the same epoch."""
    rstates, logs = s[RSTATES], s[LOGS]
    if rstates[leader][LEADER] != leader or rstates[follower][LEADER] != leader:
        return False
    if end == 0:
        return True
    at = end - 1
    if at >= len(logs[leader]) or at >= len(logs[follower]):
        return False
    same: bool = logs[follower][at][1] == logs[leader][at][1]
    return same


def first_try_fetch(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FollowerFetch (Kip320FirstTry): replicate only if caught up to the leader's epoch at the
    follower's end offset (leader identity checked, not the leader epoch)."""
    for follower in range(ctx.config.replicas):
        leader = s[RSTATES][follower][LEADER]
        if leader is not None and caught_up_to_epoch(s, leader, follower, len(s[LOGS][follower])):
            replicate(ctx, s, out, follower, leader, ctx.labels.replicate[follower][leader])


def first_try_inc_high_watermark(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """ImprovedLeaderIncHighWatermark: the presumed leader has an entry at its HW and every
    cached-ISR member is caught up to its epoch at HW + 1."""
    logs, rstates = s[LOGS], s[RSTATES]
    for leader in range(ctx.config.replicas):
        mine = rstates[leader]
        hw = mine[HW]
        if mine[LEADER] != leader or hw >= len(logs[leader]):
            continue
        if all(caught_up_to_epoch(s, leader, f, hw + 1) for f in mine[ISR]):
            inc_hw(ctx, s, out, leader)


def first_try_shrink_isr(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """LeaderShrinkIsrBetterFencing: drop a member not caught up to the leader's epoch at the
    leader's end offset."""
    for leader in range(ctx.config.replicas):
        isr, end = s[RSTATES][leader][ISR], len(s[LOGS][leader])
        for member in isr:
            if member != leader and not caught_up_to_epoch(s, leader, member, end):
                quorum_update(
                    ctx,
                    s,
                    out,
                    ctx.labels.shrink[leader][member],
                    leader,
                    without_member(isr, member),
                )


def first_try_expand_isr(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """LeaderExpandIsrBetterFencing: add a replica caught up to the leader's epoch at its HW,
    once the HW has reached the leader's current epoch."""
    for leader in range(ctx.config.replicas):
        mine = s[RSTATES][leader]
        if not hw_reached_current_epoch(s, leader):
            continue
        for replica in range(ctx.config.replicas):
            if replica not in mine[ISR] and caught_up_to_epoch(s, leader, replica, mine[HW]):
                quorum_update(
                    ctx,
                    s,
                    out,
                    ctx.labels.expand[leader][replica],
                    leader,
                    with_member(mine[ISR], replica),
                )


def first_try_become_follower(
    ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """BecomeFollower (Kip320FirstTry): adopt a newer request naming another replica as
    leader; no truncation, HW kept."""
    rstates = s[RSTATES]
    for epoch, leader, isr in s[REQUESTS]:
        if leader is None:
            continue
        for replica in range(ctx.config.replicas):
            mine = rstates[replica]
            if replica != leader and epoch > mine[EPOCH]:
                new = (mine[HW], epoch, leader, isr)
                out.append(
                    (
                        ctx.labels.follow[leader][replica][epoch],
                        (s[LOGS], put(rstates, replica, new)) + s[2:],
                    )
                )


def first_try_truncate(ctx: TlaContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FollowerTruncate (Kip320FirstTry): a follower of a presumed leader whose end offset is
    past the leader's, or whose last record's epoch differs from the leader's record at that
    offset, truncates by Kip279's rule; ``hw := min(offset, hw)``."""
    logs, rstates = s[LOGS], s[RSTATES]
    for follower in range(ctx.config.replicas):
        leader = rstates[follower][LEADER]
        if leader is None or rstates[leader][LEADER] != leader:
            continue
        flog, llog = logs[follower], logs[leader]
        last = len(flog) - 1
        needs = len(flog) > len(llog) or (
            flog and last < len(llog) and llog[last][1] != flog[last][1]
        )
        if not needs:
            continue
        offset = last_match_end(flog, llog)
        new = (min(offset, rstates[follower][HW]),) + rstates[follower][1:]
        out.append(
            (
                ctx.labels.truncate[follower][leader],
                (put(logs, follower, flog[:offset]), put(rstates, follower, new)) + s[2:],
            )
        )
