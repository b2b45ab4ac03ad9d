"""Truncation rules: what a follower does to its log when it applies a LeaderAndIsr.

A rule is ``rule(log, hw, leader_log) -> offset | None`` (``spec.kafka.variants`` explains
the arguments and what None means); ``RULES`` holds every rule by mechanism name, exactly one
per variant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spec.log import end_offset_for_epoch, last_epoch, last_match_end

RuleFunction = Callable[[tuple[Any, ...], int, "tuple[Any, ...] | None"], "int | None"]


def to_hw(log: tuple[Any, ...], hw: int, leader_log: tuple[Any, ...] | None) -> int | None:
    """Kafka < 0.11: truncate to the follower's own HW (the rule behind KAFKA-1211)."""
    return hw


def by_leader_epoch(
    log: tuple[Any, ...], hw: int, leader_log: tuple[Any, ...] | None
) -> int | None:
    """KIP-101 (Kafka 0.11): OffsetsForLeaderEpoch for the follower's latest epoch.

    The leader answers ``end_offset_for_epoch`` (its LEO if that epoch is its latest, else the
    start of its next larger epoch); with no answer the follower falls back to its HW.
    Source: KIP-101; ``ReplicaFetcherThread.maybeTruncate`` and
    ``LeaderEpochFileCache.endOffsetFor`` in 0.11."""
    assert leader_log is not None  # a rule that asks the leader is given its log
    answer = end_offset_for_epoch(leader_log, last_epoch(log))
    return hw if answer is None else answer


def after_last_match(
    log: tuple[Any, ...], hw: int, leader_log: tuple[Any, ...] | None
) -> int | None:
    """KIP-279 (Kafka 2.0): just after the largest offset where follower and leader hold the
    same record. Source: KIP-279; protocol.md; Kip279.tla of the public TLA+ spec."""
    assert leader_log is not None  # a rule that asks the leader is given its log
    return last_match_end(log, leader_log)


@dataclass(frozen=True)
class TruncationRule:
    """A truncation rule: its mechanism ``name``, the ``function`` (see the module docstring),
    whether it ``asks_leader`` (OffsetsForLeaderEpoch) and a one-line ``description``."""

    name: str
    function: RuleFunction
    asks_leader: bool
    description: str


def to_log_end(log: tuple[Any, ...], hw: int, leader_log: tuple[Any, ...] | None) -> int | None:
    """Kafka >= 2.8 (KAFKA-10554, IBP 2.7-IV1): nothing is truncated on becoming follower. A
    follower whose log has a latest epoch starts fetching at its LEO with that epoch as its
    last fetched epoch, and truncates when a fetch response says where the logs diverge
    (``spec.kafka.diverging``); one with an empty log has nothing to truncate. Source:
    ``ReplicaManager.initialFetchOffset`` and ``AbstractFetcherThread.partitionFetchState``."""
    return len(log)


RULES = {
    "hw-truncation": TruncationRule(
        "hw-truncation", to_hw, False, "truncate to the follower's own HW (Kafka < 0.11)"
    ),
    "leader-epoch-truncation": TruncationRule(
        "leader-epoch-truncation",
        by_leader_epoch,
        True,
        "truncate to the leader's end offset for the follower's latest epoch (KIP-101)",
    ),
    "last-match-truncation": TruncationRule(
        "last-match-truncation",
        after_last_match,
        True,
        "truncate after the last record follower and leader share (KIP-279)",
    ),
    "diverging-epoch-truncation": TruncationRule(
        "diverging-epoch-truncation",
        to_log_end,
        False,
        "every fetch carries the last fetched epoch; the follower truncates on the response's "
        "DivergingEpoch (KAFKA-10554, Kafka >= 2.8)",
    ),
}
"""Every truncation rule, by mechanism name (exactly one per variant)."""
