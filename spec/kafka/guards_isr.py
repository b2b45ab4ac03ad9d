"""The guards of the ISR changes (``spec.kafka.guards`` says what a guard is):
``actions.shrink_isr`` / ``expand_isr`` and, with ``async-isr`` (KIP-497), ``alter``'s
requests and ``AlterPartition`` test them by these predicates, ``spec.kafka.disabled`` says
the first that is false. Each action's guards, in order: ``SHRINK_ISR``, ``EXPAND_ISR``,
``ALTER_PARTITION``; ``CHANGES_ISR``, who may change the ISR, opens the first two.
"""

from __future__ import annotations

from typing import Any

from spec.kafka.context import ModelContext
from spec.kafka.guards import LEADS, UP, Guard, leads, members, unless, up
from spec.kafka.state import (
    AL_EPOCH,
    C_EPOCH,
    C_LEADER,
    CONTROLLER,
    HW,
    LOG,
    REMOTE,
    REPLICAS,
    V_EPOCH,
    V_ISR,
    VIEW,
)


def _synchronous(ctx: ModelContext) -> bool:
    return ctx.alter_at is None


def named_by_controller(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """The controller names ``r`` leader (without ``async-isr``, only the true leader changes
    the ISR: Kafka's ZooKeeper/KRaft ISR update is fenced by the leader epoch and version)."""
    holds: bool = s[CONTROLLER][C_LEADER] == r
    return holds


def in_controller_epoch(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """Replica ``r``'s view is at the controller's epoch."""
    holds: bool = s[REPLICAS][r][VIEW][V_EPOCH] == s[CONTROLLER][C_EPOCH]
    return holds


def true_leader(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """``r`` is the true leader: up, presuming it leads, and the controller names it at the
    same epoch (``CHANGES_ISR`` without ``async-isr``)."""
    return (
        named_by_controller(ctx, s, r)
        and up(ctx, s, r)
        and leads(ctx, s, r)
        and in_controller_epoch(ctx, s, r)
    )


def no_request_in_flight(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """Replica ``r`` has no AlterPartition request of its view's epoch in flight (one of an
    older epoch will be rejected and blocks nothing; ``async-isr``)."""
    at = ctx.alter_at
    request = None if at is None else s[at][r]
    return request is None or request[AL_EPOCH] != s[REPLICAS][r][VIEW][V_EPOCH]


def _not_named(ctx: ModelContext, s: tuple[Any, ...], r: int) -> str:
    leader = s[CONTROLLER][C_LEADER]
    named = "no leader" if leader is None else f"replica {leader} leader"
    return f"the controller names {named}, not replica {r}: only the true leader changes the ISR"


def _other_epoch(ctx: ModelContext, s: tuple[Any, ...], r: int) -> str:
    return (
        f"replica {r} leads epoch {s[REPLICAS][r][VIEW][V_EPOCH]} in its view, the controller "
        f"is at epoch {s[CONTROLLER][C_EPOCH]}: only the true leader changes the ISR"
    )


CHANGES_ISR = (
    Guard(named_by_controller, _not_named, when=_synchronous),
    UP,
    LEADS,
    Guard(in_controller_epoch, _other_epoch, when=_synchronous),
    Guard(
        no_request_in_flight,
        lambda ctx, s, r: (
            f"replica {r} has an AlterPartition request in flight (AlterPartition first; KIP-497)"
        ),
        when=lambda ctx: ctx.alter_at is not None,
    ),
)
"""Who may change the ISR: the true leader (``true_leader``); with ``async-isr`` any live
replica that presumes it leads, with no request of its epoch in flight (KIP-497)."""


# -- the follower -----------------------------------------------------------------------------


def not_itself(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> bool:
    """The follower is not the leader: a leader never drops itself from the ISR."""
    return f != r


def in_isr(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> bool:
    """``f`` is in leader ``r``'s ISR."""
    return f in s[REPLICAS][r][VIEW][V_ISR]


def behind(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> bool:
    """``f``'s remote LEO on leader ``r`` is below ``r``'s LEO (``replica.lag.time.max.ms``
    may expire at any moment). Source: ``Partition.getOutOfSyncReplicas``."""
    rep = s[REPLICAS][r]
    holds: bool = rep[REMOTE][f] < len(rep[LOG])
    return holds


def lagging(ctx: ModelContext, s: tuple[Any, ...], r: int) -> list[int]:
    """The members of leader ``r``'s ISR that ShrinkIsr may drop: ``SHRINK_ISR``'s guards on
    the follower (``in_isr`` by taking them from the ISR)."""
    isr = s[REPLICAS][r][VIEW][V_ISR]
    return [f for f in isr if not_itself(ctx, s, r, f) and behind(ctx, s, r, f)]


def _itself(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> str:
    return f"replica {r} is the leader: it never drops itself from the ISR"


def _isr_of(s: tuple[Any, ...], r: int) -> str:
    return f"replica {r}'s ISR {members(s[REPLICAS][r][VIEW][V_ISR])}"


def _caught_up(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> str:
    leo = len(s[REPLICAS][r][LOG])
    return (
        f"replica {f} is caught up: its fetches reached replica {r}'s LEO {leo} (only a "
        "follower behind the leader's LEO is dropped)"
    )


PAIR = (0, 1)
"""A guard's arguments: the leader and the follower."""

SHRINK_ISR = (
    *CHANGES_ISR,
    Guard(not_itself, _itself, on=PAIR),
    Guard(in_isr, lambda ctx, s, r, f: f"replica {f} is not in {_isr_of(s, r)}", on=PAIR),
    Guard(behind, _caught_up, on=PAIR),
)
"""ShrinkIsr(leader, follower): ``CHANGES_ISR``, then a follower of the ISR behind the
leader's LEO."""


def fetched(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> bool:
    """Leader ``r`` has seen a fetch from ``f`` since it became leader (and, with
    ``broker-epoch``, since ``f`` came back from an unclean shutdown: KIP-903)."""
    holds: bool = s[REPLICAS][r][REMOTE][f] >= 0
    return holds


def reached_hw(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> bool:
    """``f``'s fetches reached leader ``r``'s HW. Source: ``Partition.isFollowerInSync``."""
    rep = s[REPLICAS][r]
    holds: bool = rep[REMOTE][f] >= rep[HW]
    return holds


def epoch_start(rep: tuple[Any, ...]) -> int:
    """The start offset of a leader's epoch (``rep``: its replica): the offset of its first
    record of that epoch, else its LEO (no record yet: Kafka's ``leaderEpochStartOffsetOpt``
    is the LEO when it became leader, and a leader's records of its epoch are its log's
    tail)."""
    log, epoch = rep[LOG], rep[VIEW][V_EPOCH]
    start: int = next((o for o, record in enumerate(log) if record[1] == epoch), len(log))
    return start


def reached_epoch_start(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> bool:
    """``f``'s fetches reached the start offset of leader ``r``'s epoch (``fenced-expand``,
    KAFKA-7128, Kafka 2.0.1 and 2.1 on). Source: ``Partition.isFollowerInSync`` (2.4 to 4.1;
    ``maybeExpandIsr`` before): the follower's LEO >= ``leaderEpochStartOffsetOpt``."""
    rep = s[REPLICAS][r]
    holds: bool = rep[REMOTE][f] >= epoch_start(rep)
    return holds


def _below_hw(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> str:
    rep = s[REPLICAS][r]
    return (
        f"replica {f}'s fetches reached offset {rep[REMOTE][f]}, below replica {r}'s HW {rep[HW]}"
    )


def _unseen(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> str:
    since = ""
    if ctx.variant.broker_epoch and ctx.durable:
        since = f" or since replica {f} came back from an unclean shutdown (KIP-903)"
    return f"replica {r} has seen no fetch from replica {f} since it became leader{since}"


def _before_epoch(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> str:
    rep = s[REPLICAS][r]
    return (
        f"fenced expand (KAFKA-7128): replica {f}'s fetches reached offset {rep[REMOTE][f]}, "
        f"below {epoch_start(rep)}, where replica {r}'s epoch {rep[VIEW][V_EPOCH]} starts"
    )


LIVE_FOLLOWER = Guard(
    up,
    lambda ctx, s, f: f"live ISR (KIP-841): replica {f} is down, so it cannot join the ISR",
    on=(1,),
    when=lambda ctx: ctx.variant.live_isr,
)

EPOCH_START = Guard(
    reached_epoch_start, _before_epoch, on=PAIR, when=lambda ctx: ctx.variant.fenced_expand
)


def caught_up(ctx: ModelContext, s: tuple[Any, ...], r: int) -> list[int]:
    """The replicas ExpandIsr may add to leader ``r``'s ISR: ``EXPAND_ISR``'s guards on the
    follower, in order. Source: ``Partition.isFollowerInSync`` and
    ``isReplicaIsrEligible``."""
    live, fenced = LIVE_FOLLOWER.applies(ctx), EPOCH_START.applies(ctx)
    return [
        f
        for f in range(len(s[REPLICAS][r][REMOTE]))  # every replica: the leader's remote LEOs
        if not in_isr(ctx, s, r, f)
        and (not live or up(ctx, s, f))
        and fetched(ctx, s, r, f)
        and reached_hw(ctx, s, r, f)
        and (not fenced or reached_epoch_start(ctx, s, r, f))
    ]


EXPAND_ISR = (
    *CHANGES_ISR,
    unless(in_isr, lambda ctx, s, r, f: f"replica {f} is already in {_isr_of(s, r)}", on=PAIR),
    LIVE_FOLLOWER,
    Guard(fetched, _unseen, on=PAIR),
    Guard(reached_hw, _below_hw, on=PAIR),
    EPOCH_START,
)
"""ExpandIsr(leader, follower): ``CHANGES_ISR``, then a replica outside the ISR, live with
``live-isr`` (KIP-841), whose fetches in this leadership reached the leader's HW and, with
``fenced-expand`` (KAFKA-7128), the start offset of its epoch."""


def request_in_flight(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """Replica ``r`` has an AlterPartition request in flight (``async-isr``), of any epoch."""
    at = ctx.alter_at
    return at is not None and s[at][r] is not None


ALTER_PARTITION = (
    Guard(
        request_in_flight,
        lambda ctx, s, r: f"replica {r} has no AlterPartition request in flight",
    ),
)
"""AlterPartition(leader): a request of it in flight."""
