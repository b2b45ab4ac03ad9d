"""The fetch actions under truncation on the fetch response (``diverging-epoch-truncation``).

``actions.fetch`` and ``flight.fetch_request`` / ``fetch_response`` hand over to these when
the variant truncates on fetch (``Variant.truncate_on_fetch``); the rules they apply are in
``spec.kafka.diverging``, their guards in ``spec.kafka.guards_data``. Same conventions as
``spec.kafka.actions``: ``action(ctx, state, out)`` appends ``(Label, next state)``, guards
first. A follower whose fetcher still has a
truncation pending (``hw-before-truncation``) does not fetch until ``TruncateOnFetchResponse``.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.actions import counted_isr
from spec.kafka.context import ModelContext
from spec.kafka.diverging import DIVERGING, FRESH, after_records, truncation_offset
from spec.kafka.guards_data import (
    SAME_EPOCH,
    answer_changes,
    fetch_answer,
    fetch_leader,
    fetcher,
    in_flight,
    truncation_pending,
)
from spec.kafka.state import (
    DURABLE,
    GHOST,
    HW,
    LOG,
    R_HW,
    R_RECORDS,
    REMOTE,
    REPLICAS,
    V_EPOCH,
    V_ISR,
    VIEW,
    commit,
    leader_hw,
    put,
    put_at,
    truncated,
)


def _leader_reads(
    ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int, offset: int
) -> tuple[tuple[Any, ...], int]:
    """The state after the leader recorded ``f``'s fetch offset and recomputed its HW (what
    that commits included), and the HW it had before: the one its response carries. Source:
    ``Partition.updateFollowerFetchState`` after ``readFromLocalLog``."""
    replicas = s[REPLICAS]
    lrep = replicas[leader]
    llog, response_hw = lrep[LOG], lrep[HW]
    remote = put(lrep[REMOTE], f, offset)
    hw = leader_hw(
        len(llog),
        response_hw,
        leader,
        counted_isr(ctx, s, leader),
        remote,
        ctx.hw_min_isr,
        len(lrep[VIEW][V_ISR]),
    )
    new_leader = (llog, hw, True, lrep[VIEW], remote)
    ghost = commit(s[GHOST], llog, response_hw, hw)
    return (put(replicas, leader, new_leader), s[1], s[2], ghost) + s[DURABLE:], response_hw


def _truncate(ctx: ModelContext, s: tuple[Any, ...], f: int, offset: int) -> tuple[Any, ...]:
    """``s`` once follower ``f`` truncated its log to ``offset`` (its HW to at most that) and
    its fetcher went back to fetching with its last record's epoch (a ``FRESH`` fetch state
    stays fresh: the truncation keeps its lag). Source:
    ``AbstractFetcherThread.truncateOnFetchResponse`` (``UnifiedLog.truncateTo``)."""
    replicas = s[REPLICAS]
    log, hw, alive, view, remote = replicas[f]
    state = (put(replicas, f, (log[:offset], min(hw, offset), alive, view, remote)),) + s[1:]
    state = state[:DURABLE] + truncated(state, f, offset, ctx.durable)
    before = fetcher(ctx, s, f)
    return put_at(state, ctx.fetcher_at, f, FRESH if before == FRESH else None)


def _out_of_range(ctx: ModelContext, s: tuple[Any, ...], f: int, leo: int) -> tuple[Any, ...]:
    """``s`` once follower ``f`` handled OFFSET_OUT_OF_RANGE from a leader whose LEO is
    ``leo`` (at most its own): it truncates to it and starts a fetch state of known lag.
    Source: ``AbstractFetcherThread.fetchOffsetAndTruncate``."""
    return put_at(_truncate(ctx, s, f, leo), ctx.fetcher_at, f, None)


def _diverged(
    ctx: ModelContext, s: tuple[Any, ...], f: int, response_hw: int, epoch: int, end: int
) -> tuple[Any, ...]:
    """``s`` once follower ``f`` processed a DivergingEpoch ``(epoch, end)`` whose response
    carried ``response_hw``. As Kafka >= 3.5 does, it truncates and leaves its HW to the next
    response (``AbstractFetcherThread.processFetchRequest`` skips ``processPartitionData``).
    With ``hw-before-truncation`` (before KAFKA-14704's fix) it first sets its HW to
    ``min(response HW, LEO)`` as for any response and only records the truncation, which
    ``TruncateOnFetchResponse`` does in a step of its own."""
    replicas = s[REPLICAS]
    log, _, alive, view, remote = replicas[f]
    offset = truncation_offset(log, epoch, end)
    if not ctx.variant.hw_before_truncation:
        return _truncate(ctx, s, f, offset)
    new_rep = (log, min(response_hw, len(log)), alive, view, remote)
    state = (put(replicas, f, new_rep),) + s[1:]
    return put_at(state, ctx.fetcher_at, f, offset)


def _appended(
    ctx: ModelContext, s: tuple[Any, ...], f: int, records: tuple[Any, ...], response_hw: int
) -> tuple[Any, ...]:
    """``s`` once follower ``f`` appended ``records`` and set ``HW = min(response HW, new
    LEO)``. Source: ``ReplicaFetcherThread.processPartitionData``."""
    replicas = s[REPLICAS]
    log, _, alive, view, remote = replicas[f]
    log += records
    state = (put(replicas, f, (log, min(response_hw, len(log)), alive, view, remote)),) + s[1:]
    value = after_records(log, records, fetcher(ctx, s, f))
    return put_at(state, ctx.fetcher_at, f, value)


def _respond(
    ctx: ModelContext, s: tuple[Any, ...], f: int, leader: int, answer: Any
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The leader's half of a fetch by ``f``: the state once the leader answered, and its
    response ``(leader, leader epoch, fetch offset, records, HW[, DivergingEpoch])``. The
    fetch carries ``f``'s last fetched epoch (``diverging.fetch_epoch``) and the leader
    answers as ``diverging.leader_answer`` says (``answer``, from
    ``guards_data.fetch_answer``): records and the HW before its update (then
    it records the fetch offset and moves its HW); OFFSET_OUT_OF_RANGE (no records) with its
    LEO in the HW field; or, where the logs diverge, no records, its HW and the
    DivergingEpoch, changing nothing of its own (KAFKA-13141; with ``diverging-fetch-state``
    it records the fetch offset as for any fetch). Source: ``ReplicaManager.fetchMessages``,
    ``Partition.fetchRecords``."""
    rep, lrep = s[REPLICAS][f], s[REPLICAS][leader]
    llog, lepoch = lrep[LOG], lrep[VIEW][V_EPOCH]
    offset = len(rep[LOG])
    if answer is None:
        return s, (leader, lepoch, offset, None, len(llog))
    if answer is not False:
        if ctx.variant.diverging_fetch_state:
            state, response_hw = _leader_reads(ctx, s, f, leader, offset)
            return state, (leader, lepoch, offset, None, response_hw, answer)
        return s, (leader, lepoch, offset, None, lrep[HW], answer)
    state, response_hw = _leader_reads(ctx, s, f, leader, offset)
    return state, (leader, lepoch, offset, llog[offset:], response_hw)


def fetch(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """Fetch(follower, leader) with truncation on the fetch response (Kafka >= 2.8).

    Fetch(follower, leader), request and response in one step: enabled as without the rule
    (``guards_data.fetch_leader``) and when no truncation is pending. The leader answers as
    ``_respond`` says and the follower applies the response at once (``apply_response``):
    where the logs diverge it truncates (``diverging.truncation_offset``);
    OFFSET_OUT_OF_RANGE truncates it to the leader's LEO when it is past it
    (``AbstractFetcherThread.fetchOffsetAndTruncate``; a response that changes nothing is not
    a step); otherwise as ``actions.fetch``. Source: ``Partition.fetchRecords``,
    ``AbstractFetcherThread.processFetchRequest``."""
    replicas = s[REPLICAS]
    fenced = SAME_EPOCH.applies(ctx)
    for f, rep in enumerate(replicas):
        # enabled when (guards_data.FETCH): f may fetch (fetch_leader), has no truncation
        # pending, and the leader's answer changes something
        leader = fetch_leader(ctx, s, f, fenced)
        if leader is None or truncation_pending(ctx, s, f):
            continue
        answer = fetch_answer(ctx, s, f, leader)
        if not answer_changes(answer, len(rep[LOG]), len(replicas[leader][LOG])):
            continue
        # effect
        state, response = _respond(ctx, s, f, leader, answer)
        out.append((ctx.labels.fetch[f][leader], apply_response(ctx, state, f, response)))


def fetch_request(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FetchRequest(follower, leader) with truncation on the fetch response (split fetch).

    FetchRequest(follower, leader): enabled as ``fetch`` is and when nothing is in flight to
    the follower. The leader answers as ``_respond`` says, and the response goes in flight
    (a diverging one with a sixth field, the DivergingEpoch ``(epoch, end offset)``).
    Source: ``ReplicaManager.fetchMessages``, ``Partition.fetchRecords``."""
    responses, lost = s[-1]
    fenced = SAME_EPOCH.applies(ctx)
    for f in range(len(responses)):
        # enabled when (guards_data.FETCH_REQUEST): nothing in flight to f, f may fetch
        # (fetch_leader), no truncation pending
        if in_flight(ctx, s, f):
            continue
        leader = fetch_leader(ctx, s, f, fenced)
        if leader is None or truncation_pending(ctx, s, f):
            continue
        # effect
        state, response = _respond(ctx, s, f, leader, fetch_answer(ctx, s, f, leader))
        flight = (put(responses, f, response), lost)
        out.append((ctx.labels.fetch_request[f][leader], state[:-1] + (flight,)))


def apply_response(
    ctx: ModelContext, s: tuple[Any, ...], f: int, response: tuple[Any, ...]
) -> tuple[Any, ...]:
    """``s`` (the response already out of flight) once follower ``f`` applied ``response``,
    which ``flight.applies`` accepted: a divergence as in ``fetch``, OFFSET_OUT_OF_RANGE
    truncates to the leader's LEO (when past it), records are appended. Source:
    ``AbstractFetcherThread.processFetchRequest``."""
    if len(response) > DIVERGING:
        return _diverged(ctx, s, f, response[R_HW], *response[DIVERGING])
    if response[R_RECORDS] is None:
        return _out_of_range(ctx, s, f, min(response[R_HW], len(s[REPLICAS][f][LOG])))
    return _appended(ctx, s, f, response[R_RECORDS], response[R_HW])


def truncate_on_fetch_response(
    ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]
) -> None:
    """TruncateOnFetchResponse(follower): the fetcher truncates where a DivergingEpoch said.

    TruncateOnFetchResponse(follower): only with ``hw-before-truncation`` (Kafka 2.8.0 to 3.4.0):
    enabled when the follower processed a DivergingEpoch and has set its HW from that
    response but not truncated yet. It truncates its log to the recorded offset (its HW to at
    most that) and fetches again with its new last epoch. Between the two steps its HW can
    cover records of its own that were never committed, which a consumer fetching from it
    (KIP-392) could read: KAFKA-14704. A crash, or a newer LeaderAndIsr the replica applies,
    drops the pending truncation. Source: ``AbstractFetcherThread.processFetchRequest`` and
    ``truncateOnFetchResponse`` before apache/kafka PR 13230."""
    at = ctx.fetcher_at
    if at is None:
        return
    for f, offset in enumerate(s[at]):
        # enabled when (guards_data.TRUNCATE_ON_FETCH_RESPONSE): a truncation pending for f
        if truncation_pending(ctx, s, f):
            out.append((ctx.labels.truncate_on_fetch_response[f], _truncate(ctx, s, f, offset)))


def describe(value: Any) -> dict[str, Any] | None:
    """A JSON-friendly picture of a replica's ``fetcher`` value: None (its last fetched epoch
    is its last record's), ``{"truncate_to": offset}`` (KAFKA-14704's pending truncation) or
    ``{"last_fetched_epoch": None}`` (KAFKA-15510's cleared epoch) or ``{"fresh": True}`` (a
    new fetch state whose lag no response has set yet, ``diverging.FRESH``)."""
    if value is None:
        return None
    if value >= 0:
        return {"truncate_to": value}
    if value == FRESH:
        return {"fresh": True}
    return {"last_fetched_epoch": None}
