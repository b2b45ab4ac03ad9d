"""The follower truncation rules, one per Kafka generation.

Each rule answers: when replica ``r`` applies a LeaderAndIsr of ``epoch`` naming ``leader``,
to which offset does it truncate its log? ``None`` means the answer cannot be had yet (the
leader it must ask is down or not ready), so becoming follower waits, as Kafka's fetcher
retries OffsetsForLeaderEpoch until the leader answers. A follower with an empty log has
nothing to truncate and needs no leader (Kafka truncates partitions without epochs to the HW,
which is 0 there). The result is at most the follower's LEO.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spec.kafka.state import ALIVE, HW, LOG, V_EPOCH, V_LEADER, VIEW
from spec.log import end_offset_for_epoch, last_epoch, last_match_end

Rule = Callable[[tuple, int, int, int], int | None]


def _ready(replicas: tuple, leader: int) -> bool:
    """The leader is up and presumes leadership (any epoch): it answers OffsetsForLeaderEpoch."""
    state = replicas[leader]
    return state[ALIVE] and state[VIEW][V_LEADER] == leader


def truncate_to_hw(replicas: tuple, r: int, leader: int, epoch: int) -> int | None:
    """Kafka < 0.11: truncate to the follower's own HW (the rule behind both canonical bugs)."""
    return replicas[r][HW]


def truncate_kip101(replicas: tuple, r: int, leader: int, epoch: int) -> int | None:
    """KIP-101 (Kafka 0.11): OffsetsForLeaderEpoch for the follower's latest epoch.

    The leader answers with ``end_offset_for_epoch`` (its LEO if that epoch is its latest, else
    the start of the next epoch it has); with no answer the follower falls back to its HW.
    Source: KIP-101; ``ReplicaFetcherThread.maybeTruncate`` in 0.11.
    """
    log = replicas[r][LOG]
    if not log:
        return 0
    if not _ready(replicas, leader):
        return None
    answer = end_offset_for_epoch(replicas[leader][LOG], last_epoch(log))
    if answer is None:
        return replicas[r][HW]
    return min(answer, len(log))


def truncate_kip279(replicas: tuple, r: int, leader: int, epoch: int) -> int | None:
    """KIP-279 (Kafka 2.0): truncate just after the largest offset at which follower and
    leader hold the same record, asking the leader whatever epoch the leader is in.
    Source: KIP-279; protocol.md; Kip279.tla of the public TLA+ spec."""
    log = replicas[r][LOG]
    if not log:
        return 0
    if not _ready(replicas, leader):
        return None
    return last_match_end(log, replicas[leader][LOG])


def truncate_kip320(replicas: tuple, r: int, leader: int, epoch: int) -> int | None:
    """KIP-320 (Kafka 2.1): as KIP-279, but only against a leader already in the request's
    epoch (the OffsetsForLeaderEpoch request carries the current leader epoch and is fenced).
    Source: KIP-320; Kip320.tla ``FencedBecomeFollowerAndTruncate``."""
    log = replicas[r][LOG]
    if not log:
        return 0
    if not _ready(replicas, leader) or replicas[leader][VIEW][V_EPOCH] != epoch:
        return None
    return last_match_end(log, replicas[leader][LOG])


@dataclass(frozen=True)
class Variant:
    """A truncation variant: its ``rule``; ``fenced_fetch`` (KIP-320: a fetch is rejected
    unless the follower's leader epoch equals the leader's); ``fenced_expand`` (KIP-320 /
    KAFKA-7128: ISR expansion waits until the leader's HW reaches the start of its epoch);
    ``kafka``, the versions that used it. The two fences are separate switches so that a
    protocol change (or a test) can remove one."""

    name: str
    rule: Rule
    fenced_fetch: bool
    kafka: str
    description: str
    fenced_expand: bool = False

    @property
    def fenced(self) -> bool:
        """Both KIP-320 fences are on."""
        return self.fenced_fetch and self.fenced_expand


VARIANTS = {
    "hw": Variant("hw", truncate_to_hw, False, "< 0.11",
                  "truncate to the follower's own HW"),
    "kip101": Variant("kip101", truncate_kip101, False, "0.11 - 1.1",
                      "truncate to the leader's end offset for the follower's latest epoch"),
    "kip279": Variant("kip279", truncate_kip279, False, "2.0",
                      "truncate after the last record follower and leader share"),
    "kip320": Variant("kip320", truncate_kip320, True, ">= 2.1",
                      "as kip279 against a leader in the same epoch; fetch and ISR fenced",
                      fenced_expand=True),
}
