"""Truncation on the fetch response (the ``diverging-epoch-truncation`` rule, Kafka >= 2.8).

Since KAFKA-10554 (apache/kafka PR 9382, IBP 2.7-IV1; a release's followers from 2.8.0) a follower does not truncate when it
becomes follower. Every fetch carries its *last fetched epoch* (the epoch of the last record
in its log: ``LastFetchedEpoch``); the leader looks that epoch up in its leader-epoch cache
and, where the logs diverge, answers with a ``DivergingEpoch`` (an epoch and its end offset)
instead of records. The follower truncates when it processes that response, and its next
fetch carries the epoch of its new last record, so the leader tells it again while the logs
still disagree. OffsetsForLeaderEpoch is left for a follower with no last fetched epoch,
which here means an empty log, with nothing to truncate.

This module holds the pure rules (the leader's and the follower's epoch-cache lookups, the
leader's answer, the truncation offset) and the ``fetcher`` component that two historical
orderings need (``state.py`` describes it): ``hw-before-truncation`` (before KAFKA-14704's
fix the follower applied the response's HW first and truncated in a later step,
``TruncateOnFetchResponse``) and ``empty-clears-epoch`` (KAFKA-15510: a response with no
records cleared the last fetched epoch, in Kafka 3.5.1 to 3.6.2). The fetch actions themselves are in
``spec.kafka.fetching``. Offsets are 0-based, LEO and HW exclusive; epochs are ints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from spec.log import Record

EPOCH_CLEARED = -1
"""A ``fetcher`` value: the follower's last fetched epoch is empty although its log is not
(KAFKA-15510); its next fetch carries no epoch. ``None`` means "the epoch of its last
record"; an offset >= 0 means "a truncation to that offset is pending" (KAFKA-14704)."""

FRESH = -2
"""A ``fetcher`` value (with ``empty-clears-epoch`` only): the fetch state is new (the
replica became follower) and no response has set its lag yet; the last fetched epoch is its
last record's. KAFKA-15510 clears the epoch on the first empty response of such a state
only: PR 13843 updated the fetch state on a response with no records only while its lag was
unknown (``validBytes > 0 || lag.isEmpty``)."""

DIVERGING = 5
"""Index of a fetch response's sixth field, present only on a diverging response: the
``DivergingEpoch`` ``(epoch, end offset)`` (``state.py``: the flight component)."""


def epoch_cache(log: Sequence[Record]) -> list[tuple[int, int]]:
    """The leader-epoch cache a log implies: ``(epoch, start offset)`` for the first record of
    each epoch, oldest first. A record of a lower epoch than the last entry removes the
    entries of its epoch and later, as ``LeaderEpochFileCache.assign`` does
    (``removeConflictingEntries``)."""
    cache: list[tuple[int, int]] = []
    for offset, (_, epoch) in enumerate(log):
        if cache and cache[-1][0] == epoch:
            continue
        while cache and cache[-1][0] >= epoch:
            cache.pop()
        cache.append((epoch, offset))
    return cache


def end_offset_for(
    cache: Sequence[tuple[int, int]], requested: int, leo: int
) -> tuple[int, int] | None:
    """``LeaderEpochFileCache.endOffsetFor(requested, leo)``: ``(epoch, end offset)``.

    The latest epoch ends at the LEO. Otherwise the answer is the largest cached epoch at or
    below ``requested`` (or ``requested`` itself when none is) and the start offset of the
    first cached epoch above it. None (UNDEFINED_EPOCH_OFFSET) when no cached epoch is above
    ``requested`` and it is not the latest, e.g. for an empty cache."""
    if cache and cache[-1][0] == requested:
        return requested, leo
    higher = next((entry for entry in cache if entry[0] > requested), None)
    if higher is None:
        return None
    floor = [entry[0] for entry in cache if entry[0] <= requested]
    return (floor[-1] if floor else requested), higher[1]


def leader_cache(log: Sequence[Record], epoch: int) -> list[tuple[int, int]]:
    """A leader's epoch cache: its log's, with its own leader ``epoch`` from its LEO on when
    it wrote no record in that epoch yet (``Partition.makeLeader`` assigns the new epoch's
    start offset before any write: ``UnifiedLog.maybeAssignEpochStartOffset``)."""
    cache = epoch_cache(log)
    if not cache or cache[-1][0] < epoch:
        cache.append((epoch, len(log)))
    return cache


def leader_answer(
    leader_log: Sequence[Record], leader_epoch: int, fetch_offset: int, fetch_epoch: int | None
) -> tuple[int, int] | None | Literal[False]:
    """How the leader answers a fetch at ``fetch_offset`` carrying ``fetch_epoch``.

    Returns False to read records as usual, ``(epoch, end offset)`` for a DivergingEpoch (the
    leader's end offset for ``fetch_epoch`` is below the fetch offset, or its epoch is lower),
    or None for OFFSET_OUT_OF_RANGE (the epoch has no end offset on the leader, or, with no
    epoch, the fetch offset is past the leader's LEO). Source: ``Partition.readRecords``
    (``lastOffsetForLeaderEpoch`` before the read) and ``UnifiedLog.read``."""
    leo = len(leader_log)
    if fetch_epoch is None:
        return None if fetch_offset > leo else False
    answer = end_offset_for(leader_cache(leader_log, leader_epoch), fetch_epoch, leo)
    if answer is None:
        return None
    if answer[0] < fetch_epoch or answer[1] < fetch_offset:
        return answer
    return False


def truncation_offset(log: Sequence[Record], epoch: int, end: int) -> int:
    """Where a follower with ``log`` truncates on a DivergingEpoch ``(epoch, end)``: its own
    end offset for the leader's ``epoch``, when it has that epoch the smaller of it and
    ``end``; ``end`` when it has no answer; never past its LEO. When its answer is for another
    (lower) epoch the truncation is partial and the next fetch carries the epoch it kept.
    Source: ``AbstractFetcherThread.getOffsetTruncationState``."""
    leo = len(log)
    own = end_offset_for(epoch_cache(log), epoch, leo)
    if own is None:
        return min(end, leo)
    if own[0] != epoch:
        return min(own[1], leo)
    return min(own[1], end, leo)


def fetch_epoch(log: Sequence[Record], fetcher: Any) -> int | None:
    """The last fetched epoch a follower's fetch carries: its last record's epoch, None for
    an empty log or a cleared one (``fetcher`` is ``EPOCH_CLEARED``). Source:
    ``AbstractFetcherThread.partitionFetchState`` (``latestEpoch``) and the fetch request
    builder (``LastFetchedEpoch``)."""
    if not log or fetcher == EPOCH_CLEARED:  # FRESH and None carry the last record's epoch
        return None
    epoch: int = log[-1][1]
    return epoch


def after_records(log: Sequence[Record], records: Sequence[Record], before: Any) -> Any:
    """The ``fetcher`` value once a follower with (new) ``log``, whose value was ``before``,
    applied a response carrying ``records``. Records set the last fetched epoch (None). An
    empty response to a ``FRESH`` fetch state clears it (``EPOCH_CLEARED``, KAFKA-15510:
    ``lastFetchedEpoch`` taken from the empty batch) when the log is not empty; any other
    empty response leaves the fetch state as it was (``AbstractFetcherThread
    .processFetchRequest`` in 3.5.1 - 3.6.2)."""
    if records or not log:
        return None
    return EPOCH_CLEARED if before in (FRESH, EPOCH_CLEARED) else None


def on_become_follower(clears: bool) -> Any:
    """The ``fetcher`` value of a replica that just became follower: ``FRESH`` with
    ``empty-clears-epoch`` (``clears``), else None."""
    return FRESH if clears else None
