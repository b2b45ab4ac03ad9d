"""The truncation step of a story in words: which rule ran, its inputs and its answer.

A follower that applies a LeaderAndIsr truncates its log before it fetches. The rules, as
protocol.md and the model state them (offsets 0-based, LEO and HW exclusive):

- ``hw`` (Kafka < 0.11): to the follower's own HW.
- ``kip101`` (Kafka 0.11 - 1.1): OffsetsForLeaderEpoch for the follower's latest epoch E; the
  leader answers its LEO when E is its own latest epoch, else the start offset of its first
  epoch above E (``LeaderEpochFileCache.endOffsetFor``), else nothing (the follower falls back
  to its HW); the follower truncates to ``min(answer, its LEO)``.
- ``kip279`` and later: just after the largest offset where follower and leader hold the same
  record (KIP-279; KIP-320 asks only a leader already in the request's epoch).

The story mirrors these rules on the views of a trace (``spec.view``: logs as ``[id, epoch]``
lists), so it explains any trace file; it never changes what the model does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from invariants.safety import first_gap, record_text
from spec.kafka.variants import PRESETS

_RULES = {
    "+hw-truncation": "hw",
    "+leader-epoch-truncation": "epoch",
    "+last-match-truncation": "match",
    "+diverging-epoch-truncation": "diverging",
}


_TLA_ONLY_RULES = {"kip320-first-try": "match", "kip320-kip279": "match"}
"""The TLA+ port's presets that the Kafka model has not (``spec.tla.config.TLA_VARIANTS``):
both truncate after the last record follower and leader share."""


def _preset_rule(preset: str) -> str:
    """The rule of a preset of either model, read off its truncation mechanism
    (``spec.kafka.variants.PRESETS``, releases and registered presets included); ``other``
    for a rule of a team's own."""
    if preset in _TLA_ONLY_RULES:
        return _TLA_ONLY_RULES[preset]
    variant = PRESETS.get(preset)
    return "other" if variant is None else _RULES.get("+" + variant.rule.name, "other")


def rule_of(variant: str) -> str:
    """``hw``, ``epoch`` (KIP-101's lookup), ``match`` (KIP-279 to Kafka 2.7, the TLA+
    port's ``kip320-first-try`` and ``kip320-kip279`` included) or ``diverging``
    (truncation on the fetch response, Kafka >= 2.8).

    ``variant`` is a variant name as ``spec.kafka.variants.resolve`` writes it: a preset,
    then ``+mechanism`` / ``-mechanism`` changes (``kip101 +last-match-truncation``); a
    ``+...-truncation`` change names the rule. Any other rule (a user's) reads as ``other``."""
    words = variant.split()
    for word in words[1:]:
        if word in _RULES:
            return _RULES[word]
        if word.startswith("+") and word.endswith("-truncation"):
            return "other"
    return _preset_rule(words[0] if words else variant)


def fenced_lookup(variant: str) -> bool:
    """OffsetsForLeaderEpoch is fenced by the current epoch in ``variant`` (KIP-320)."""
    words = variant.split()
    if "-fenced-lookup" in words:
        return False
    return "+fenced-lookup" in words or (bool(words) and words[0].startswith("kip320"))


def end_offset_for_epoch(log: Sequence[Any], epoch: int) -> int | None:
    """The leader's OffsetsForLeaderEpoch answer for ``epoch`` on ``log`` (KIP-101): its LEO
    when ``epoch`` is its latest, else the start of its first larger epoch, else None."""
    if not log:
        return None
    if log[-1][1] == epoch:
        return len(log)
    return next((o for o, rec in enumerate(log) if rec[1] > epoch), None)


def last_match_end(mine: Sequence[Any], theirs: Sequence[Any]) -> int:
    """One past the largest offset where both logs hold the same record; 0 if none."""
    for offset in range(min(len(mine), len(theirs)) - 1, -1, -1):
        if mine[offset] == theirs[offset]:
            return offset + 1
    return 0


def explain(variant: str, before: dict[str, Any], after: dict[str, Any], r: int) -> str:
    """Replica ``r``'s truncation on becoming follower between the views ``before`` and
    ``after``: the rule's inputs, its answer, what was kept, and, when it kept a record the
    leader does not hold, why the rule's answer was wrong (a clause without a final period).
    """
    mine = before["replicas"][r]["log"]
    cut = len(after["replicas"][r]["log"])
    leader = after["replicas"][r].get("leader")
    theirs = before["replicas"][leader]["log"] if isinstance(leader, int) else None
    rule = rule_of(variant)
    if rule == "diverging":
        epoch = f"last fetched epoch {mine[-1][1]}" if mine else "no last fetched epoch"
        return (
            f"kept its log: it fetches from its LEO {len(mine)} with {epoch} and truncates only "
            "when a fetch response carries a DivergingEpoch (KAFKA-10554)"
        ) + _kept(mine, theirs, cut, leader)
    if rule in ("hw", "other") or theirs is None or not mine:
        hw = before["replicas"][r]["hw"]
        said = (
            f"truncated its log to its own HW {hw} (pre-KIP-101 rule: the follower's HW, "
            "which lags the leader's, decides)"
            if rule == "hw"
            else f"truncated its log to offset {cut}"
        )
        return said + _kept(mine, theirs, cut, leader)
    if rule == "epoch":
        epoch = mine[-1][1]
        answer = end_offset_for_epoch(theirs, epoch)
        asked = (
            f"asked leader {leader} where its latest epoch {epoch} ends "
            f"(OffsetsForLeaderEpoch, KIP-101)"
        )
        if answer is None:
            told = (
                f"; the leader has no epoch up to {epoch} and gave no offset, so it fell "
                f"back to its own HW {before['replicas'][r]['hw']}"
            )
        else:
            how = (
                f"its LEO, as {epoch} is its latest epoch"
                if theirs[-1][1] == epoch
                else f"the start of its next epoch {theirs[answer][1]}"
            )
            told = (
                f"; the leader answered {answer} ({how}), so it truncated to "
                f"min({answer}, its LEO {len(mine)}) = {cut}"
            )
        wrong = first_gap(mine, min(cut, len(mine)), theirs)
        why = (
            ""
            if wrong is None
            else (
                f". That answer was wrong for this log: the leader's end offset for epoch {epoch} "
                "says where that epoch ends in the leader's log, not that the records before it "
                "are the leader's (KIP-101's hole, closed by KIP-279)"
            )
        )
        return asked + told + _kept(mine, theirs, cut, leader) + why
    fence = " in the request's epoch (KIP-320 fences the lookup)" if fenced_lookup(variant) else ""
    answer = last_match_end(mine, theirs)
    where = (
        "no offset holds the same record in both logs"
        if answer == 0
        else f"the last offset where both hold the same record is {answer - 1} "
        f"({record_text(mine[answer - 1])})"
    )
    return (
        f"compared its log with leader {leader}'s{fence} (KIP-279): {where}, so it "
        f"truncated to {cut}"
    ) + _kept(mine, theirs, cut, leader)


def _kept(mine: Sequence[Any], theirs: Sequence[Any] | None, cut: int, leader: int) -> str:
    """``, keeping m.. at offset o, where the leader holds ..`` for the first record kept that
    the leader does not hold there (empty when there is none or no leader is known)."""
    if theirs is None:
        return ""
    wrong = first_gap(mine, min(cut, len(mine)), theirs)
    if wrong is None:
        return ""
    other = theirs[wrong] if wrong < len(theirs) else None
    return (
        f", keeping {record_text(mine[wrong])} at offset {wrong}, where leader {leader} "
        f"holds {record_text(other)}"
    )


def _cache(log: Sequence[Any], epoch: int | None = None) -> list[tuple[int, int]]:
    """The leader-epoch cache of ``log`` (``(epoch, start offset)`` per epoch), with
    ``epoch`` from the LEO on when the log has no record of it (a leader's current epoch)."""
    cache: list[tuple[int, int]] = []
    for offset, (_, e) in enumerate(log):
        while cache and cache[-1][0] > e:
            cache.pop()
        if not cache or cache[-1][0] != e:
            cache.append((e, offset))
    if epoch is not None and (not cache or cache[-1][0] < epoch):
        cache.append((epoch, len(log)))
    return cache


def diverging_epoch(
    leader_log: Sequence[Any], leader_epoch: int, offset: int, fetch_epoch: int
) -> tuple[int, int] | None:
    """The DivergingEpoch ``(epoch, end offset)`` a leader with ``leader_log`` in
    ``leader_epoch`` answers a fetch at ``offset`` carrying ``fetch_epoch``, or None when the
    logs do not diverge there (``LeaderEpochFileCache.endOffsetFor`` as
    ``Partition.readRecords`` asks it)."""
    cache = _cache(leader_log, leader_epoch)
    if cache and cache[-1][0] == fetch_epoch:
        answer = (fetch_epoch, len(leader_log))
    else:
        higher = next((entry for entry in cache if entry[0] > fetch_epoch), None)
        if higher is None:
            return None
        floor = [entry[0] for entry in cache if entry[0] <= fetch_epoch]
        answer = (floor[-1] if floor else fetch_epoch, higher[1])
    diverges = answer[0] < fetch_epoch or answer[1] < offset
    return answer if diverges else None
