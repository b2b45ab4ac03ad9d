"""Pure helpers over a replica log, shared by the models.

A log is a tuple of records ``(record id, leader epoch)``; offsets are 0-based and the log end
offset (LEO) is exclusive, so a log's LEO is ``len(log)``. The leader-epoch cache of Kafka
(``LeaderEpochFileCache``: the first offset written in each epoch) is derived from the log, so
these functions read epochs straight off the records.
"""

from __future__ import annotations

from collections.abc import Sequence

Record = tuple[int, int]
Log = tuple[Record, ...]

UNDEFINED_EPOCH = -1


def last_epoch(log: Sequence[Record]) -> int:
    """Epoch of the last record, or ``UNDEFINED_EPOCH`` (-1) for an empty log."""
    return log[-1][1] if log else UNDEFINED_EPOCH


def end_offset_for_epoch(log: Sequence[Record], epoch: int) -> int | None:
    """The leader's answer to OffsetsForLeaderEpoch(``epoch``) as Kafka 0.11 gave it.

    Returns the LEO when ``epoch`` is the log's latest epoch, else the start offset of the
    first epoch greater than ``epoch``, else ``None`` (UNDEFINED_EPOCH_OFFSET: no answer; an
    empty log never answers). Source: KIP-101, ``LeaderEpochFileCache.endOffsetFor``.
    """
    if not log:
        return None
    if log[-1][1] == epoch:
        return len(log)
    for offset, (_, record_epoch) in enumerate(log):
        if record_epoch > epoch:
            return offset
    return None


def last_match_end(follower: Sequence[Record], leader: Sequence[Record]) -> int:
    """``1 + max{o : follower[o] == leader[o]}``, or 0 when no offset holds the same record.

    The truncation point of KIP-279 as protocol.md and the public TLA+ spec state it: the
    largest offset where both logs hold the same record (id and epoch), plus one. It is at most
    ``len(follower)``. Note: the *largest* match, not the longest common prefix.
    """
    for offset in range(min(len(follower), len(leader)) - 1, -1, -1):
        if follower[offset] == leader[offset]:
            return offset + 1
    return 0
