"""The guards of the data path's Produce and fetch actions (``spec.kafka.guards`` says what a
guard is): ``actions.produce`` and ``fetch``, ``fetching`` (truncation on fetch) and
``flight`` (split fetch) test them by these predicates, ``spec.kafka.disabled`` says the
first that is false. Each action's guards, in order: ``PRODUCE``, ``FETCH``,
``FETCH_REQUEST``, ``FETCH_RESPONSE``, ``LOSE_RESPONSE``, ``TRUNCATE_ON_FETCH_RESPONSE``.
"""

from __future__ import annotations

from typing import Any

from spec.kafka.context import ModelContext
from spec.kafka.diverging import fetch_epoch, leader_answer
from spec.kafka.guards import LEADS, UP, Guard, budget, leads, members, unless, up, view_of
from spec.kafka.state import G_NEXT_ID, GHOST, LOG, REPLICAS, V_EPOCH, V_ISR, V_LEADER, VIEW


def records_left(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """Fewer than ``max_records`` records were produced."""
    holds: bool = s[GHOST][G_NEXT_ID] < ctx.config.max_records
    return holds


def isr_large_enough(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """Replica ``r``'s ISR has ``ctx.produce_min_isr`` members (min.insync.replicas with
    acks=all, else 1). Source: ``Partition.appendRecordsToLeader`` (NotEnoughReplicas)."""
    return len(s[REPLICAS][r][VIEW][V_ISR]) >= ctx.produce_min_isr


PRODUCE = (
    budget(
        records_left, "max_records", lambda s: s[GHOST][G_NEXT_ID], "record", "already produced"
    ),
    UP,
    LEADS,
    Guard(
        isr_large_enough,
        lambda ctx, s, r: (
            f"replica {r}'s ISR {members(s[REPLICAS][r][VIEW][V_ISR])} is "
            f"smaller than min_isr={ctx.config.min_isr} (acks=all: NotEnoughReplicas)"
        ),
    ),
)
"""Produce(leader): records left, the replica up, presuming it leads, its ISR large enough."""


# -- fetching -----------------------------------------------------------------------------------


def follows_a_leader(ctx: ModelContext, s: tuple[Any, ...], f: int) -> bool:
    """Replica ``f``'s view names a leader other than itself."""
    followed = s[REPLICAS][f][VIEW][V_LEADER]
    return followed is not None and followed != f


def follows(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> bool:
    """Replica ``f``'s view names ``leader`` (a generator takes that leader: it is the one
    ``f`` fetches from)."""
    holds: bool = s[REPLICAS][f][VIEW][V_LEADER] == leader
    return holds


def same_epoch(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> bool:
    """Follower ``f`` and ``leader`` are in the same leader epoch (``fenced-fetch``,
    KIP-320: a fetch carries the follower's epoch and a leader of another rejects it)."""
    replicas = s[REPLICAS]
    holds: bool = replicas[leader][VIEW][V_EPOCH] == replicas[f][VIEW][V_EPOCH]
    return holds


def fetcher(ctx: ModelContext, s: tuple[Any, ...], f: int) -> Any:
    """Replica ``f``'s ``fetcher`` value (None without the component; ``spec.kafka.state``)."""
    return None if ctx.fetcher_at is None else s[ctx.fetcher_at][f]


def truncation_pending(ctx: ModelContext, s: tuple[Any, ...], f: int) -> bool:
    """Replica ``f``'s fetcher has a truncation pending (``hw-before-truncation``: KAFKA-14704's
    window, between a DivergingEpoch response and ``TruncateOnFetchResponse``)."""
    at = ctx.fetcher_at
    return at is not None and s[at][f] is not None and s[at][f] >= 0


def fetch_answer(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> Any:
    """How ``leader`` answers a fetch by ``f`` with truncation on fetch: its
    ``diverging.leader_answer`` to ``f``'s LEO and last fetched epoch."""
    log, lrep, at = s[REPLICAS][f][LOG], s[REPLICAS][leader], ctx.fetcher_at
    epoch = fetch_epoch(log, None if at is None else s[at][f])  # (``fetcher``)
    return leader_answer(lrep[LOG], lrep[VIEW][V_EPOCH], len(log), epoch)


def answer_changes(answer: Any, leo: int, leader_leo: int) -> bool:
    """Whether a follower of LEO ``leo`` changes anything on ``answer`` from a leader of LEO
    ``leader_leo``: an OFFSET_OUT_OF_RANGE (None) changes nothing unless the leader's LEO is
    below the follower's (``AbstractFetcherThread.fetchOffsetAndTruncate`` truncates to it)."""
    return answer is not None or leader_leo < leo


def fetch_changes(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> bool:
    """The one-step Fetch with truncation on fetch changes something (``answer_changes``)."""
    answer = fetch_answer(ctx, s, f, leader)
    return answer_changes(answer, len(s[REPLICAS][f][LOG]), len(s[REPLICAS][leader][LOG]))


def _nothing_to_fetch(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> str:
    log, llog = s[REPLICAS][f][LOG], s[REPLICAS][leader][LOG]
    epoch = fetch_epoch(log, fetcher(ctx, s, f))
    return (
        f"nothing to fetch or truncate: replica {leader} answers OFFSET_OUT_OF_RANGE (it has "
        f"no end offset for last fetched epoch {epoch}), and its LEO {len(llog)} is not "
        f"below replica {f}'s LEO {len(log)}"
    )


def _not_following(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> str:
    followed, epoch, _ = s[REPLICAS][f][VIEW]
    return f"replica {f} follows replica {followed} in epoch {epoch}, not replica {leader}"


def _fenced(ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int) -> str:
    epoch, leads_epoch = s[REPLICAS][f][VIEW][V_EPOCH], s[REPLICAS][leader][VIEW][V_EPOCH]
    return (
        f"fenced fetch (KIP-320): replica {f} fetches in epoch {epoch}, replica {leader} "
        f"leads epoch {leads_epoch}"
    )


SAME_EPOCH = Guard(same_epoch, _fenced, on=(0, 1), when=lambda ctx: ctx.variant.fenced_fetch)

NO_TRUNCATION_PENDING = Guard(
    truncation_pending,
    lambda ctx, s, f: (
        f"replica {f} has a truncation to offset {fetcher(ctx, s, f)} pending "
        "(TruncateOnFetchResponse first; KAFKA-14704)"
    ),
    when=lambda ctx: ctx.fetcher_at is not None,
    negated=True,
)

MAY_FETCH = (
    UP,
    Guard(
        follows_a_leader,
        lambda ctx, s, f: f"replica {f} follows no leader: {view_of(f, s[REPLICAS][f])}",
    ),
    Guard(follows, _not_following, on=(0, 1)),
    Guard(
        up,
        lambda ctx, s, f, leader: f"replica {leader}, the leader replica {f} follows, is down",
        on=(1,),
        says_on=(0, 1),
    ),
    LEADS.at(1),
    SAME_EPOCH,
)
"""Whether follower ``f`` may fetch from ``leader`` (``fetch_leader``)."""


def fetch_leader(ctx: ModelContext, s: tuple[Any, ...], f: int, fenced: bool) -> Any:
    """The leader replica ``f`` may fetch from, or None: ``MAY_FETCH``'s predicates in order
    (``f`` up, following a leader, which is up and presumes it leads, and in ``f``'s epoch
    when ``fenced``: ``SAME_EPOCH.applies(ctx)``, which the caller reads once). The leader
    is the one ``f`` follows, so ``follows`` holds."""
    if not up(ctx, s, f) or not follows_a_leader(ctx, s, f):
        return None
    leader = s[REPLICAS][f][VIEW][V_LEADER]
    if not up(ctx, s, leader) or not leads(ctx, s, leader):
        return None
    if fenced and not same_epoch(ctx, s, f, leader):
        return None
    return leader


FETCH = (
    *MAY_FETCH,
    NO_TRUNCATION_PENDING,
    Guard(
        fetch_changes,
        _nothing_to_fetch,
        on=(0, 1),
        when=lambda ctx: ctx.variant.truncate_on_fetch,
    ),
)
"""Fetch(follower, leader): ``MAY_FETCH``; with truncation on fetch no truncation pending and
a response that changes something."""


# -- split fetch ------------------------------------------------------------------------------


def in_flight(ctx: ModelContext, s: tuple[Any, ...], f: int) -> bool:
    """A fetch response is in flight to follower ``f`` (the ``flight`` component, last)."""
    return s[-1][0][f] is not None


def responses_left(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """Fewer than ``max_lost_responses`` responses were lost."""
    holds: bool = s[-1][1] < ctx.config.max_lost_responses
    return holds


IN_FLIGHT = Guard(
    in_flight,
    lambda ctx, s, f: f"no fetch response is in flight to replica {f} (FetchRequest first)",
)

FETCH_REQUEST = (
    unless(
        in_flight,
        lambda ctx, s, f: (
            f"a fetch response to replica {f} is in flight (FetchResponse or LoseResponse first)"
        ),
    ),
    *MAY_FETCH,
    NO_TRUNCATION_PENDING,
)
"""FetchRequest(follower, leader): nothing in flight to the follower, then as ``FETCH``
(a response that changes nothing still goes in flight)."""

FETCH_RESPONSE = (IN_FLIGHT,)
"""FetchResponse(follower): a response in flight to it."""

LOSE_RESPONSE = (
    budget(responses_left, "max_lost_responses", lambda s: s[-1][1], "response", "already lost"),
    IN_FLIGHT,
)
"""LoseResponse(follower): the budget of lost responses, then a response in flight."""

TRUNCATE_ON_FETCH_RESPONSE = (
    Guard(
        truncation_pending,
        lambda ctx, s, f: (
            f"replica {f} has no truncation pending (a DivergingEpoch response leaves one)"
        ),
    ),
)
"""TruncateOnFetchResponse(follower): a truncation pending on it."""
