"""The guards of the broker lifecycle (``spec.kafka.guards`` says what a guard is):
``membership.crash``, ``restart``, ``become_leader`` and ``become_follower`` and
``durability.flush`` and ``unclean_shutdown`` test them by these predicates,
``spec.kafka.disabled`` says the first that is false. Each action's guards, in order:
``CRASH``, ``RESTART``, ``BECOME_LEADER``, ``BECOME_FOLLOWER``, ``FLUSH``,
``UNCLEAN_SHUTDOWN``.
"""

from __future__ import annotations

from typing import Any

from spec.kafka.context import ModelContext
from spec.kafka.guards import UP, UP_STILL, Guard, budget, unless, up
from spec.kafka.state import (
    ALIVE,
    C_EPOCH,
    C_LEADER,
    CONTROLLER,
    D_FLUSHED,
    D_UNCLEAN,
    DURABLE,
    G_CRASHES,
    GHOST,
    LOG,
    REPLICAS,
    REQUESTS,
    V_EPOCH,
    V_LEADER,
    VIEW,
)
from spec.kafka.variants import truncation_point


def crashes_left(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """Fewer than ``max_crashes`` crashes so far."""
    holds: bool = s[GHOST][G_CRASHES] < ctx.config.max_crashes
    return holds


CRASH = (
    budget(crashes_left, "max_crashes", lambda s: s[GHOST][G_CRASHES], "crash", plural="crashes"),
    UP_STILL,
)
"""Crash(replica): crashes left, the replica up."""


def not_named(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """The controller does not name ``r`` leader: a crashed leader comes back only once the
    controller fenced it and took its leadership away in a newer epoch."""
    holds: bool = s[CONTROLLER][C_LEADER] != r
    return holds


RESTART = (
    unless(up, lambda ctx, s, r: f"replica {r} is up"),
    Guard(
        not_named,
        lambda ctx, s, r: (
            f"replica {r} is the controller's leader of epoch "
            f"{s[CONTROLLER][C_EPOCH]}: its broker comes back only once the controller has fenced "
            "it and taken its leadership away in a new epoch (Elect or ControllerShrinkIsr)"
        ),
    ),
)
"""Restart(replica): the replica down, and not the leader the controller still names."""


# -- applying a LeaderAndIsr ------------------------------------------------------------------


def issued(ctx: ModelContext, s: tuple[Any, ...], epoch: int) -> bool:
    """The controller issued a LeaderAndIsr of ``epoch``."""
    return epoch < len(s[REQUESTS])


def newer(ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int) -> bool:
    """``epoch`` is past replica ``r``'s view (a generator takes the requests after it)."""
    holds: bool = epoch > s[REPLICAS][r][VIEW][V_EPOCH]
    return holds


def names_a_leader(ctx: ModelContext, s: tuple[Any, ...], epoch: int) -> bool:
    """The LeaderAndIsr of ``epoch`` names a leader (one naming none is never applied)."""
    return s[REQUESTS][epoch][1] is not None


def names_it(ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int) -> bool:
    """The LeaderAndIsr of ``epoch`` names ``r`` leader."""
    holds: bool = s[REQUESTS][epoch][1] == r
    return holds


def rule_answers(ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int) -> bool:
    """The variant's truncation rule answers for ``r`` on the LeaderAndIsr of ``epoch`` (its
    leader: another replica): ``variants.truncation_point`` is not None, where a generator
    takes the offset it truncates to."""
    leader = s[REQUESTS][epoch][1]
    return truncation_point(ctx.variant, s[REPLICAS], r, leader, epoch) is not None


def _no_answer(ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int) -> str:
    """Why the rule has no answer: one that asks the leader (OffsetsForLeaderEpoch, KIP-101)
    needs it up, presuming it leads, and with ``fenced-lookup`` (KIP-320) in ``epoch``
    (``variants.truncation_point``); else the rule itself found none."""
    rule, leader = ctx.variant.rule, s[REQUESTS][epoch][1]
    lrep = s[REPLICAS][leader]
    if rule.asks_leader and (not lrep[ALIVE] or lrep[VIEW][V_LEADER] != leader):
        state = "down" if not lrep[ALIVE] else "not presuming it leads"
        return (
            f"the truncation rule {rule.name} asks replica {leader}, the new leader, for its "
            f"end offset (OffsetsForLeaderEpoch), and it is {state}"
        )
    if rule.asks_leader and ctx.variant.fenced_lookup and lrep[VIEW][V_EPOCH] != epoch:
        return (
            f"fenced lookup (KIP-320): replica {leader} must answer in epoch {epoch}, and it is "
            f"in epoch {lrep[VIEW][V_EPOCH]}"
        )
    return f"the truncation rule {rule.name} has no answer"


def _not_issued(ctx: ModelContext, s: tuple[Any, ...], epoch: int) -> str:
    at = s[CONTROLLER][C_EPOCH]
    return f"the controller issued no LeaderAndIsr of epoch {epoch} " + (
        f"(it is at epoch {at})" if at >= 0 else "(it issued none yet: Elect first)"
    )


def _stale(ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int) -> str:
    view = s[REPLICAS][r][VIEW][V_EPOCH]
    return f"replica {r}'s view is at epoch {view}: it applies only a later LeaderAndIsr"


def _leaderless(ctx: ModelContext, s: tuple[Any, ...], epoch: int) -> str:
    return f"the LeaderAndIsr of epoch {epoch} names no leader: it is never applied"


def _names_other(ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int) -> str:
    leader = s[REQUESTS][epoch][1]
    return f"the LeaderAndIsr of epoch {epoch} names replica {leader} leader, not replica {r}"


def _names_itself(ctx: ModelContext, s: tuple[Any, ...], r: int, epoch: int) -> str:
    return f"the LeaderAndIsr of epoch {epoch} names replica {r} itself leader"


BOTH = (0, 1)
"""A guard's arguments: the replica and the epoch."""

APPLIES = (
    UP,
    Guard(issued, _not_issued, on=(1,)),
    Guard(newer, _stale, on=BOTH),
    Guard(names_a_leader, _leaderless, on=(1,)),
)
"""A replica applies a LeaderAndIsr: it is up, the request issued, newer than its view,
naming a leader."""

BECOME_LEADER = (*APPLIES, Guard(names_it, _names_other, on=BOTH))
"""BecomeLeader(replica, epoch): ``APPLIES``, naming it leader."""

BECOME_FOLLOWER = (
    *APPLIES,
    unless(names_it, _names_itself, on=BOTH),
    Guard(rule_answers, _no_answer, on=BOTH),
)
"""BecomeFollower(replica, epoch): ``APPLIES``, naming another replica leader, and an answer
from its truncation rule."""


# -- durability -------------------------------------------------------------------------------


def background_flush(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """``--flush background`` (with ``always`` every append is on disk: no flushed offsets)."""
    return bool(s[DURABLE][D_FLUSHED])


def unflushed(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """Replica ``r``'s log has a tail past its flushed offset."""
    holds: bool = s[DURABLE][D_FLUSHED][r] < len(s[REPLICAS][r][LOG])
    return holds


FLUSH = (
    Guard(
        background_flush,
        lambda ctx, s: "with --flush always every append is on disk already",
        on=(),
    ),
    UP,
    Guard(
        unflushed,
        lambda ctx, s, r: (
            f"replica {r}'s log is flushed to its LEO {len(s[REPLICAS][r][LOG])} already"
        ),
    ),
)
"""Flush(replica): ``--flush background``, the replica up with an unflushed tail."""


def unclean_left(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """Fewer than ``max_unclean_shutdowns`` unclean shutdowns so far."""
    holds: bool = s[DURABLE][D_UNCLEAN] < ctx.config.max_unclean_shutdowns
    return holds


UNCLEAN_SHUTDOWN = (
    budget(
        unclean_left, "max_unclean_shutdowns", lambda s: s[DURABLE][D_UNCLEAN], "unclean shutdown"
    ),
    UP_STILL,
)
"""UncleanShutdown(replica): unclean shutdowns left, the replica up."""
