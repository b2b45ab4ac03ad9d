"""Why a controller or lifecycle action is not enabled (``spec.kafka.disabled`` dispatches
here): elections, the controller's ISR shrink, crash and restart, applying a LeaderAndIsr,
and the durability actions.

Same conventions as ``spec.kafka.refusals``: the guards of the action in
``spec.kafka.membership``, ``elr`` and ``durability``, in their order; the first that is false
as a ``Refusal``, or None when every guard holds.
"""

from __future__ import annotations

from typing import Any

from checker.model import Refusal
from spec.kafka.context import ModelContext
from spec.kafka.elr import last_known_choice
from spec.kafka.membership import replaceable
from spec.kafka.refusals import counted, down, members
from spec.kafka.state import (
    ALIVE,
    C_ELR,
    C_EPOCH,
    C_ISR,
    C_LEADER,
    CONTROLLER,
    D_FLUSHED,
    D_UNCLEAN,
    DURABLE,
    G_CRASHES,
    GHOST,
    HW,
    LOG,
    REPLICAS,
    REQUESTS,
    V_EPOCH,
    V_LEADER,
    VIEW,
    last_known_leader,
)
from spec.log import last_epoch


def epochs_left(ctx: ModelContext, s: tuple[Any, ...]) -> Refusal | None:
    """The epoch budget: every controller decision but an ISR change takes a new epoch."""
    epoch, limit = s[CONTROLLER][C_EPOCH], ctx.config.max_epoch
    if epoch >= limit:
        return Refusal(
            f"the controller is at epoch {epoch}, the last one (max_epoch={limit})", "max_epoch"
        )
    return None


def controller_shrink_isr(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """ControllerShrinkIsr(replica): ``r`` a crashed (``fence-live``: any) ISR member; a
    follower of an ISR of 2 or more, with an epoch left unless ``shrink-in-epoch`` keeps a
    decided one; or the leader, with an epoch left, when no other live replica can be elected
    in its place (``membership.controller_shrink_isr``)."""
    ctrl = s[CONTROLLER]
    isr = ctrl[C_ISR]
    follower = r in isr and r != ctrl[C_LEADER]
    in_epoch = follower and ctx.variant.shrink_in_epoch and ctrl[C_EPOCH] >= 0
    if not in_epoch and (refusal := epochs_left(ctx, s)) is not None:
        return refusal
    if r not in isr:
        return Refusal(f"replica {r} is not in the controller's ISR {members(isr)}")
    if s[REPLICAS][r][ALIVE] and not ctx.variant.fence_live:
        return Refusal(
            f"replica {r} is up: the controller handles only a crashed member (--with "
            "fence-live: a live one too)"
        )
    if r == ctrl[C_LEADER]:
        if replaceable(ctx, s, r):
            return Refusal(
                f"replica {r} is the controller's leader and another live replica can take "
                "over: an election replaces it"
            )
        return None
    if len(isr) < 2:
        return Refusal(f"the controller's ISR {members(isr)} has fewer than 2 members")
    return None


def elect(ctx: ModelContext, s: tuple[Any, ...], c: int) -> Refusal | None:
    """Elect(leader): epochs left; ``c`` a live ISR member, or with ``elr`` (KIP-966), when
    no ISR member is up, a live ELR member, or while ISR and ELR are empty the last known
    leader, up; not the current leader."""
    if (refusal := epochs_left(ctx, s)) is not None:
        return refusal
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    isr = ctrl[C_ISR]
    if any(replicas[m][ALIVE] for m in isr):
        if c not in isr:
            return Refusal(f"replica {c} is not in the controller's ISR {members(isr)}")
        if not replicas[c][ALIVE]:
            return down(c)
    elif not ctx.variant.elr:
        return Refusal(
            f"no member of the controller's ISR {members(isr)} is up: a clean election needs "
            "one (UncleanElect, with --unclean, does not)"
        )
    elif (c not in ctrl[C_ELR] or not replicas[c][ALIVE]) and last_known_choice(ctx, s) != c:
        lkl = last_known_leader(ctrl)
        known = "" if lkl is None else f"; the last known leader is replica {lkl}, down"
        return Refusal(
            f"no member of the controller's ISR {members(isr)} is up and replica {c} is not a "
            f"live member of its ELR {members(ctrl[C_ELR])} (KIP-966){known}"
        )
    if c == ctrl[C_LEADER]:
        return Refusal(f"replica {c} is the controller's leader already (epoch {ctrl[C_EPOCH]})")
    return None


def no_live_isr(s: tuple[Any, ...], also: tuple[Any, ...] = ()) -> Refusal | None:
    """The last-resort elections' guard: no member of the controller's ISR (or ``also``, the
    ELR) is up."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    up = [m for m in ctrl[C_ISR] + also if replicas[m][ALIVE]]
    if up:
        where = "ISR" if up[0] in ctrl[C_ISR] else "ELR"
        return Refusal(
            f"replica {up[0]} of the controller's {where} is up: a last-resort election only "
            "happens when none is"
        )
    return None


def unclean_elect(ctx: ModelContext, s: tuple[Any, ...], c: int) -> Refusal | None:
    """UncleanElect(leader): ``--unclean``, epochs left, not the ``elr`` mechanism, no live
    ISR member, ``c`` up (``membership.unclean_elect``)."""
    if not ctx.config.unclean_election:
        return Refusal("unclean leader election is off (--unclean turns it on)")
    if (refusal := epochs_left(ctx, s)) is not None:
        return refusal
    if ctx.variant.elr:
        return Refusal("with the elr mechanism (KIP-966) UncleanRecovery replaces UncleanElect")
    return no_live_isr(s) or (None if s[REPLICAS][c][ALIVE] else down(c))


def unclean_recovery(ctx: ModelContext, s: tuple[Any, ...], c: int) -> Refusal | None:
    """UncleanRecovery(leader): ``--unclean``, epochs left, no live ISR or ELR member, no
    last known leader up, ``c`` up with the longest log, by (last epoch, LEO) (``elr.unclean_recovery``, KIP-966)."""
    if not ctx.config.unclean_election:
        return Refusal("unclean recovery is off (--unclean turns it on)")
    if (refusal := epochs_left(ctx, s)) is not None:
        return refusal
    if (refusal := no_live_isr(s, s[CONTROLLER][C_ELR])) is not None:
        return refusal
    if (lkl := last_known_choice(ctx, s)) is not None:
        return Refusal(f"replica {lkl}, the last known leader, is up: Elect picks it first")
    replicas = s[REPLICAS]
    if not replicas[c][ALIVE]:
        return down(c)
    ends = {r: (last_epoch(rep[LOG]), len(rep[LOG])) for r, rep in enumerate(replicas)}
    best = max((r for r, rep in enumerate(replicas) if rep[ALIVE]), key=lambda r: ends[r])
    if ends[c] < ends[best]:
        return Refusal(
            f"replica {c}'s log ends at epoch {ends[c][0]}, LEO {ends[c][1]}; replica {best}'s "
            f"at epoch {ends[best][0]}, LEO {ends[best][1]}: the longest log is elected"
        )
    return None


def crash(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """Crash(replica): crashes left, the replica up."""
    crashes, limit = s[GHOST][G_CRASHES], ctx.config.max_crashes
    if crashes >= limit:
        return Refusal(
            f"{counted(crashes, 'crash', 'crashes')} already (max_crashes={limit})", "max_crashes"
        )
    return None if s[REPLICAS][r][ALIVE] else Refusal(f"replica {r} is down already")


def restart(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """Restart(replica): the replica down, and not the leader the controller still names
    (``membership.restart``)."""
    if s[REPLICAS][r][ALIVE]:
        return Refusal(f"replica {r} is up")
    if s[CONTROLLER][C_LEADER] == r:
        return Refusal(
            f"replica {r} is the controller's leader of epoch {s[CONTROLLER][C_EPOCH]}: its "
            "broker comes back only once the controller has fenced it and taken its "
            "leadership away in a new epoch (Elect or ControllerShrinkIsr)"
        )
    return None


def become(
    ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int, leads: bool
) -> Refusal | None:
    """BecomeLeader / BecomeFollower(replica, epoch): the replica up, a LeaderAndIsr of
    ``epoch`` issued, newer than its view, naming it leader (``leads``) or another replica;
    for a follower, an answer from its truncation rule (``variants.truncation_point``)."""
    rep, requests = s[REPLICAS][r], s[REQUESTS]
    if not rep[ALIVE]:
        return down(r)
    if epoch >= len(requests):
        at = s[CONTROLLER][C_EPOCH]
        return Refusal(
            f"the controller issued no LeaderAndIsr of epoch {epoch} "
            + (f"(it is at epoch {at})" if at >= 0 else "(it issued none yet: Elect first)")
        )
    if epoch <= rep[VIEW][V_EPOCH]:
        return Refusal(
            f"replica {r}'s view is at epoch {rep[VIEW][V_EPOCH]}: it applies only a later "
            "LeaderAndIsr"
        )
    leader = requests[epoch][1]
    if leader is None:
        return Refusal(f"the LeaderAndIsr of epoch {epoch} names no leader: it is never applied")
    if leads and leader != r:
        return Refusal(
            f"the LeaderAndIsr of epoch {epoch} names replica {leader} leader, not replica {r}"
        )
    if not leads and leader == r:
        return Refusal(f"the LeaderAndIsr of epoch {epoch} names replica {r} itself leader")
    return None if leads else _rule_answers(ctx, s, r, leader, epoch)


def _rule_answers(
    ctx: ModelContext, s: tuple[Any, ...], r: int, leader: int, epoch: int
) -> Refusal | None:
    """Whether the truncation rule answers (``variants.truncation_point``): one that asks the
    leader (OffsetsForLeaderEpoch, KIP-101) needs it up, presuming it leads, and with
    ``fenced-lookup`` (KIP-320) in ``epoch``; a replica with an empty log asks nothing."""
    rule, replicas = ctx.variant.rule, s[REPLICAS]
    log, lrep = replicas[r][LOG], replicas[leader]
    if not rule.asks_leader:
        answered = rule.function(log, replicas[r][HW], None) is not None
    elif not log:
        return None
    elif not lrep[ALIVE] or lrep[VIEW][V_LEADER] != leader:
        state = "down" if not lrep[ALIVE] else "not presuming it leads"
        return Refusal(
            f"the truncation rule {rule.name} asks replica {leader}, the new leader, for its "
            f"end offset (OffsetsForLeaderEpoch), and it is {state}"
        )
    elif ctx.variant.fenced_lookup and lrep[VIEW][V_EPOCH] != epoch:
        return Refusal(
            f"fenced lookup (KIP-320): replica {leader} must answer in epoch {epoch}, and it is "
            f"in epoch {lrep[VIEW][V_EPOCH]}"
        )
    else:
        answered = rule.function(log, replicas[r][HW], lrep[LOG]) is not None
    return None if answered else Refusal(f"the truncation rule {rule.name} has no answer")


def flush(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """Flush(replica): ``--flush background``, the replica up with an unflushed tail."""
    flushed, rep = s[DURABLE][D_FLUSHED], s[REPLICAS][r]
    if not flushed:
        return Refusal("with --flush always every append is on disk already")
    if not rep[ALIVE]:
        return down(r)
    if flushed[r] >= len(rep[LOG]):
        return Refusal(f"replica {r}'s log is flushed to its LEO {len(rep[LOG])} already")
    return None


def unclean_shutdown(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """UncleanShutdown(replica): unclean shutdowns left, the replica up."""
    done, limit = s[DURABLE][D_UNCLEAN], ctx.config.max_unclean_shutdowns
    if done >= limit:
        return Refusal(
            f"{counted(done, 'unclean shutdown')} already (max_unclean_shutdowns={limit})",
            "max_unclean_shutdowns",
        )
    return None if s[REPLICAS][r][ALIVE] else Refusal(f"replica {r} is down already")
