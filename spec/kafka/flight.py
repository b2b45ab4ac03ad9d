"""Split fetch (the ``split-fetch`` mechanism): a fetch request and its response are two steps.

Without it, ``actions.fetch`` is one step: the leader reads, records the follower's fetch
offset, and the follower applies the records, all at once. In Kafka the response travels
back on its own, and much can happen before the follower applies it, or instead: the leader
adds the follower to the ISR on the request alone, the leader crashes, the network drops the
response, the follower moves on to another leader or epoch. KAFKA-7128 lives in that gap.

With the mechanism on, ``Fetch`` is replaced by three actions, in this order of successors:

- ``FetchRequest(follower, leader)``: the leader's half (``fetch_request``);
- ``FetchResponse(follower)``: the follower's half (``fetch_response``);
- ``LoseResponse(follower)``: the network drops the response (only with
  ``--max-lost-responses`` N > 0, and at most N times in a run).

At most one response is in flight per follower (Kafka's fetcher sends the next fetch request
only once the last one was answered). A crash or unclean shutdown of either side drops what
is in flight between them (``state.without_flights``). The state's ``flight`` component is
described in ``spec.kafka.state``, the actions' guards in ``spec.kafka.guards_data``. Same
conventions as ``spec.kafka.actions``.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.actions import counted_isr
from spec.kafka.context import ModelContext
from spec.kafka.fetching import apply_response
from spec.kafka.guards_data import (
    SAME_EPOCH,
    fetch_leader,
    in_flight,
    responses_left,
)
from spec.kafka.state import (
    GHOST,
    HW,
    LOG,
    R_EPOCH,
    R_HW,
    R_LEADER,
    R_OFFSET,
    R_RECORDS,
    REMOTE,
    REPLICAS,
    V_EPOCH,
    V_ISR,
    V_LEADER,
    VIEW,
    commit,
    leader_hw,
    put,
    truncated,
)


def fetch_request(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FetchRequest(follower, leader): the leader answers a fetch; the response goes in flight.

    FetchRequest(follower, leader): enabled as the one-step Fetch is (follower up and
    following ``leader``, which is up and presumes leadership; with ``fenced-fetch`` both in
    the same leader epoch, KIP-320), and when nothing is in flight to the follower. If the
    fetch offset (the follower's LEO) is past the leader's LEO the response is
    OFFSET_OUT_OF_RANGE carrying the leader's LEO, and the leader changes nothing. Otherwise the
    leader reads its records from the fetch offset on and its HW as it is before this fetch,
    then records the remote LEO (= the fetch offset) and recomputes its HW; the response
    carries the records, that HW and the leader's epoch. Source:
    ``ReplicaManager.fetchMessages`` (``readFromLocalLog``, then
    ``Partition.updateFollowerFetchState``, which may expand the ISR on the request alone)."""
    replicas, extra = s[REPLICAS], s[GHOST + 1 :]
    responses, lost = extra[-1]
    fenced = SAME_EPOCH.applies(ctx)
    for f, rep in enumerate(replicas):
        # enabled when (guards_data.FETCH_REQUEST): nothing in flight to f, and f may fetch
        # (fetch_leader; no truncation is ever pending without truncation on fetch)
        if in_flight(ctx, s, f):
            continue
        leader = fetch_leader(ctx, s, f, fenced)
        if leader is None:
            continue
        # effect
        lrep = replicas[leader]
        lview = lrep[VIEW]
        llog = lrep[LOG]
        offset, lleo = len(rep[LOG]), len(llog)
        label = ctx.labels.fetch_request[f][leader]
        if offset > lleo:  # OFFSET_OUT_OF_RANGE: the follower will truncate to lleo
            response = (leader, lview[V_EPOCH], offset, None, lleo)
            flight = (put(responses, f, response), lost)
            out.append((label, s[:-1] + (flight,)))
            continue
        response_hw = lrep[HW]
        remote = put(lrep[REMOTE], f, offset)
        counted = counted_isr(ctx, s, leader)
        hw = leader_hw(
            lleo, response_hw, leader, counted, remote, ctx.hw_min_isr, len(lview[V_ISR])
        )
        new_leader = (llog, hw, True, lview, remote)
        response = (leader, lview[V_EPOCH], offset, llog[offset:], response_hw)
        flight = (put(responses, f, response), lost)
        ghost = commit(s[GHOST], llog, response_hw, hw)
        out.append(
            (label, (put(replicas, leader, new_leader), s[1], s[2], ghost) + extra[:-1] + (flight,))
        )


def applies(ctx: ModelContext, rep: tuple[Any, ...], response: tuple[Any, ...]) -> bool:
    """Whether follower ``rep`` applies ``response`` (else it drops it): it still follows the
    leader that answered, its LEO is still the fetch offset, and it is still in the
    response's leader epoch where the release checks it: with ``fenced-fetch`` before truncation
    on fetch (2.1 to 2.7: a new epoch puts the partition back to truncating), and with
    truncation on fetch only with ``fenced-response`` (KAFKA-18991: 3.9.1, 4.0.1, 4.1; 2.8.0 to
    3.9.0 and 4.0.0 compare the fetch offset alone). Source:
    ``AbstractFetcherThread.processFetchRequest`` (a response is processed only if the
    partition's fetch state is ready and its fetch offset is the one requested, and since
    KAFKA-18991 its ``currentLeaderEpoch`` the request's; a partition that changed leader has
    moved to another fetcher)."""
    view, variant = rep[VIEW], ctx.variant
    checked = variant.fenced_response if variant.truncate_on_fetch else variant.fenced_fetch
    return (
        view[V_LEADER] == response[R_LEADER]
        and len(rep[LOG]) == response[R_OFFSET]
        and (not checked or view[V_EPOCH] == response[R_EPOCH])
    )


def fetch_response(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """FetchResponse(follower): the follower receives its fetch response, and applies or drops it.

    FetchResponse(follower): enabled when a response is in flight to the follower. It is
    taken out of flight; if it still applies (``applies``) the follower appends its records
    and sets ``HW = min(response HW, new LEO)``, or, for OFFSET_OUT_OF_RANGE, truncates to the
    leader's LEO (its HW to at most that). A response that no longer applies changes nothing
    else. With truncation on fetch (Kafka >= 2.8) a response is applied as
    ``fetching.apply_response`` says. Source: ``ReplicaFetcherThread.processPartitionData``
    (append, then ``updateHighWatermark``), ``AbstractFetcherThread.processFetchRequest``."""
    replicas, extra = s[REPLICAS], s[GHOST + 1 :]
    responses, lost = extra[-1]
    durable = ctx.durable
    for f, response in enumerate(responses):
        # enabled when (guards_data.FETCH_RESPONSE): a response is in flight to f
        if not in_flight(ctx, s, f):
            continue
        # effect
        state = s[:-1] + ((put(responses, f, None), lost),)
        rep = replicas[f]
        if not applies(ctx, rep, response):
            pass  # dropped: nothing else changes
        elif ctx.variant.truncate_on_fetch:
            state = apply_response(ctx, state, f, response)  # Kafka >= 2.8
        else:
            log, records = rep[LOG], response[R_RECORDS]
            if records is None:  # OFFSET_OUT_OF_RANGE
                leo = response[R_HW]
                new_rep = (log[:leo], min(rep[HW], leo), True, rep[VIEW], ())
                tail = truncated(state, f, leo, durable)
            else:
                log += records
                new_rep = (log, min(response[R_HW], len(log)), True, rep[VIEW], ())
                tail = state[GHOST + 1 :]
            state = (put(replicas, f, new_rep),) + state[1 : GHOST + 1] + tail
        out.append((ctx.labels.fetch_response[f], state))


def lose_response(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """LoseResponse(follower): the network drops the fetch response in flight to the follower.

    LoseResponse(follower): enabled when a response is in flight to the follower and fewer
    than ``--max-lost-responses`` were lost so far. The response is gone; the follower's next
    fetch asks again from the same offset (Kafka's fetcher retries after a request timeout or
    a broken connection)."""
    responses, lost = s[-1]
    # enabled when (guards_data.LOSE_RESPONSE): responses left to lose, one in flight to f
    if not responses_left(ctx, s):
        return
    for f in range(len(responses)):
        if in_flight(ctx, s, f):
            out.append(
                (ctx.labels.lose_response[f], s[:-1] + ((put(responses, f, None), lost + 1),))
            )


def describe(response: tuple[Any, ...] | None) -> dict[str, Any] | None:
    """A JSON-friendly picture of a response in flight (None for none): the leader and epoch
    that answered, the fetch offset, and either the records (``[id, epoch]`` each) with the HW,
    or ``out_of_range`` with the leader's LEO, or (truncation on fetch) ``diverging_epoch``
    ``[epoch, end offset]`` with the HW."""
    if response is None:
        return None
    leader, epoch, offset, records, hw = response[:5]
    picture: dict[str, Any] = {"leader": leader, "epoch": epoch, "fetch_offset": offset}
    if len(response) > 5:
        picture["diverging_epoch"] = list(response[5])
        picture["hw"] = hw
    elif records is None:
        picture["out_of_range"] = True
        picture["leader_leo"] = hw
    else:
        picture["records"] = [list(record) for record in records]
        picture["hw"] = hw
    return picture
