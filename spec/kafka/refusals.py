"""Why a data-path action is not enabled (``spec.kafka.disabled`` dispatches here): Produce,
the fetch actions and the ISR changes.

Each function takes the ``KafkaSpec``, a state and the label's arguments, tests the guards of
its action in the order ``spec.kafka.actions``, ``fetching``, ``flight`` and ``alter`` test
them, and returns a ``Refusal`` naming the first that is false, in the model's words (its
source is the action's: a Kafka class or a KIP), or None when every guard holds. The words
helpers are shared with ``spec.kafka.refusals_control``.
"""

from __future__ import annotations

from typing import Any

from checker.model import Refusal
from spec.kafka.actions import epoch_start
from spec.kafka.context import ModelContext
from spec.kafka.diverging import fetch_epoch, leader_answer
from spec.kafka.state import (
    AL_EPOCH,
    ALIVE,
    C_EPOCH,
    C_LEADER,
    CONTROLLER,
    G_NEXT_ID,
    GHOST,
    HW,
    LOG,
    REMOTE,
    REPLICAS,
    V_EPOCH,
    V_ISR,
    V_LEADER,
    VIEW,
)


def members(isr: tuple[Any, ...]) -> str:
    """An ISR as ``show`` draws it: ``{0,1}``."""
    return "{" + ",".join(map(str, isr)) + "}"


def counted(n: int, noun: str, plural: str = "") -> str:
    """``1 record``, ``2 records``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def down(r: int) -> Refusal:
    return Refusal(f"replica {r} is down")


def view_of(r: int, rep: tuple[Any, ...]) -> str:
    """What replica ``r``'s view (its last LeaderAndIsr applied) says of the leader."""
    leader, epoch, _ = rep[VIEW]
    if leader is None:
        return "it applied no LeaderAndIsr since it started"
    if leader == r:
        return f"it leads epoch {epoch} in its view"
    return f"it follows replica {leader} in epoch {epoch}"


def produce(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """Produce(leader): records left, the replica up, presuming it leads, and (acks=all) an
    ISR of at least min.insync.replicas (``Partition.appendRecordsToLeader``)."""
    produced, limit = s[GHOST][G_NEXT_ID], ctx.config.max_records
    if produced >= limit:
        return Refusal(
            f"{counted(produced, 'record')} already produced (max_records={limit})",
            "max_records",
        )
    rep = s[REPLICAS][r]
    if not rep[ALIVE]:
        return down(r)
    view = rep[VIEW]
    if view[V_LEADER] != r:
        return Refusal(f"replica {r} does not presume it leads: {view_of(r, rep)}")
    if len(view[V_ISR]) < ctx.produce_min_isr:
        return Refusal(
            f"replica {r}'s ISR {members(view[V_ISR])} is smaller than min_isr="
            f"{ctx.config.min_isr} (acks=all: NotEnoughReplicas)"
        )
    return None


def may_fetch(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> Refusal | None:
    """``actions.fetch_leader``'s guards for ``f`` fetching from ``leader``, then a
    truncation pending on ``f`` (``hw-before-truncation``: KAFKA-14704's window)."""
    replicas = s[REPLICAS]
    rep = replicas[f]
    if not rep[ALIVE]:
        return down(f)
    followed, epoch, _ = rep[VIEW]
    if followed is None or followed == f:
        return Refusal(f"replica {f} follows no leader: {view_of(f, rep)}")
    if followed != leader:
        return Refusal(
            f"replica {f} follows replica {followed} in epoch {epoch}, not replica {leader}"
        )
    lrep = replicas[leader]
    if not lrep[ALIVE]:
        return Refusal(f"replica {leader}, the leader replica {f} follows, is down")
    if lrep[VIEW][V_LEADER] != leader:
        return Refusal(f"replica {leader} does not presume it leads: {view_of(leader, lrep)}")
    if ctx.variant.fenced_fetch and lrep[VIEW][V_EPOCH] != epoch:
        return Refusal(
            f"fenced fetch (KIP-320): replica {f} fetches in epoch {epoch}, replica {leader} "
            f"leads epoch {lrep[VIEW][V_EPOCH]}"
        )
    pending = fetcher(ctx, s, f)
    if pending is not None and pending >= 0:
        return Refusal(
            f"replica {f} has a truncation to offset {pending} pending "
            "(TruncateOnFetchResponse first; KAFKA-14704)"
        )
    return None


def fetcher(ctx: ModelContext, s: tuple[Any, ...], f: int) -> Any:
    """Replica ``f``'s ``fetcher`` value (None without the component)."""
    return None if ctx.fetcher_at is None else s[ctx.fetcher_at][f]


def fetch(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> Refusal | None:
    """Fetch(follower, leader): ``may_fetch``; with truncation on fetch, also a response that
    changes something (``fetching.fetch`` skips an OFFSET_OUT_OF_RANGE whose leader LEO is not
    below the follower's)."""
    refusal = may_fetch(ctx, s, f, leader)
    if refusal is not None or not ctx.variant.truncate_on_fetch:
        return refusal
    log, llog = s[REPLICAS][f][LOG], s[REPLICAS][leader][LOG]
    epoch = fetch_epoch(log, fetcher(ctx, s, f))
    answer = leader_answer(llog, s[REPLICAS][leader][VIEW][V_EPOCH], len(log), epoch)
    if answer is None and len(log) <= len(llog):
        return Refusal(
            f"nothing to fetch or truncate: replica {leader} answers OFFSET_OUT_OF_RANGE (it has "
            f"no end offset for last fetched epoch {epoch}), and its LEO {len(llog)} is not "
            f"below replica {f}'s LEO {len(log)}"
        )
    return None


def fetch_request(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> Refusal | None:
    """FetchRequest(follower, leader) (split fetch): nothing in flight to the follower, then
    ``may_fetch``."""
    if s[-1][0][f] is not None:
        return Refusal(
            f"a fetch response to replica {f} is in flight (FetchResponse or LoseResponse first)"
        )
    return may_fetch(ctx, s, f, leader)


def fetch_response(ctx: ModelContext, s: tuple[Any, ...], f: int) -> Refusal | None:
    """FetchResponse(follower): a response in flight to it."""
    if s[-1][0][f] is None:
        return Refusal(f"no fetch response is in flight to replica {f} (FetchRequest first)")
    return None


def lose_response(ctx: ModelContext, s: tuple[Any, ...], f: int) -> Refusal | None:
    """LoseResponse(follower): the budget of lost responses, then a response in flight."""
    lost, limit = s[-1][1], ctx.config.max_lost_responses
    if lost >= limit:
        return Refusal(
            f"{counted(lost, 'response')} already lost (max_lost_responses={limit})",
            "max_lost_responses",
        )
    return fetch_response(ctx, s, f)


def truncate_on_fetch_response(ctx: ModelContext, s: tuple[Any, ...], f: int) -> Refusal | None:
    """TruncateOnFetchResponse(follower): a truncation pending on it."""
    pending = fetcher(ctx, s, f)
    if pending is None or pending < 0:
        return Refusal(
            f"replica {f} has no truncation pending (a DivergingEpoch response leaves one)"
        )
    return None


def changes_isr(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """Who may change the ISR: the true leader (``actions.true_leader``: up, presuming it
    leads, named by the controller in the same epoch); with ``async-isr`` any replica that
    presumes it leads, with no AlterPartition of its epoch in flight (KIP-497)."""
    rep, ctrl = s[REPLICAS][r], s[CONTROLLER]
    if ctx.alter_at is None and ctrl[C_LEADER] != r:
        named = "no leader" if ctrl[C_LEADER] is None else f"replica {ctrl[C_LEADER]} leader"
        return Refusal(
            f"the controller names {named}, not replica {r}: only the true leader changes the ISR"
        )
    if not rep[ALIVE]:
        return down(r)
    view = rep[VIEW]
    if view[V_LEADER] != r:
        return Refusal(f"replica {r} does not presume it leads: {view_of(r, rep)}")
    if ctx.alter_at is None and view[V_EPOCH] != ctrl[C_EPOCH]:
        return Refusal(
            f"replica {r} leads epoch {view[V_EPOCH]} in its view, the controller is at epoch "
            f"{ctrl[C_EPOCH]}: only the true leader changes the ISR"
        )
    request = None if ctx.alter_at is None else s[ctx.alter_at][r]
    if request is not None and request[AL_EPOCH] == view[V_EPOCH]:
        return Refusal(
            f"replica {r} has an AlterPartition request in flight (AlterPartition first; KIP-497)"
        )
    return None


def shrink_isr(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> Refusal | None:
    """ShrinkIsr(leader, follower): ``changes_isr``, then a follower of the ISR behind the
    leader's LEO (``actions.lagging``; ``Partition.getOutOfSyncReplicas``)."""
    refusal = changes_isr(ctx, s, r)
    if refusal is not None:
        return refusal
    rep = s[REPLICAS][r]
    isr, leo = rep[VIEW][V_ISR], len(rep[LOG])
    if f == r:
        return Refusal(f"replica {r} is the leader: it never drops itself from the ISR")
    if f not in isr:
        return Refusal(f"replica {f} is not in replica {r}'s ISR {members(isr)}")
    if rep[REMOTE][f] >= leo:
        return Refusal(
            f"replica {f} is caught up: its fetches reached replica {r}'s LEO {leo} (only a "
            "follower behind the leader's LEO is dropped)"
        )
    return None


def expand_isr(ctx: ModelContext, s: tuple[Any, ...], r: int, f: int) -> Refusal | None:
    """ExpandIsr(leader, follower): ``changes_isr``, then ``actions.caught_up``: a replica
    outside the ISR, live with ``live-isr`` (KIP-841), whose fetches in this leadership
    reached the leader's HW and, with ``fenced-expand`` (KAFKA-7128), the start offset of its
    epoch (``Partition.isFollowerInSync``)."""
    refusal = changes_isr(ctx, s, r)
    if refusal is not None:
        return refusal
    rep = s[REPLICAS][r]
    hw, view = rep[HW], rep[VIEW]
    if f in view[V_ISR]:
        return Refusal(f"replica {f} is already in replica {r}'s ISR {members(view[V_ISR])}")
    if ctx.variant.live_isr and not s[REPLICAS][f][ALIVE]:
        return Refusal(f"live ISR (KIP-841): replica {f} is down, so it cannot join the ISR")
    reached = rep[REMOTE][f]
    if reached < 0:
        return Refusal(
            f"replica {r} has seen no fetch from replica {f} since it became leader"
            + (
                f" or since replica {f} came back from an unclean shutdown (KIP-903)"
                if ctx.variant.broker_epoch and ctx.durable
                else ""
            )
        )
    if reached < hw:
        return Refusal(
            f"replica {f}'s fetches reached offset {reached}, below replica {r}'s HW {hw}"
        )
    start = epoch_start(rep)
    if ctx.variant.fenced_expand and reached < start:
        return Refusal(
            f"fenced expand (KAFKA-7128): replica {f}'s fetches reached offset {reached}, below "
            f"{start}, where replica {r}'s epoch {view[V_EPOCH]} starts"
        )
    return None


def alter_partition(ctx: ModelContext, s: tuple[Any, ...], r: int) -> Refusal | None:
    """AlterPartition(leader): a request of it in flight."""
    assert ctx.alter_at is not None  # only in the model with async-isr
    if s[ctx.alter_at][r] is None:
        return Refusal(f"replica {r} has no AlterPartition request in flight")
    return None
