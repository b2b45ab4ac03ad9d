"""The gallery's entries (``python -m checker.commands.gallery`` builds them): each names a
model configuration and the property whose shortest counterexample it shows; the bug-zoo
entries (those with a ``ticket``) also name the fix under which the property holds. The
protocol's bugs (``HISTORY``) and the liveness lassos (``LIVENESS``) are here, what a
cluster's settings trade in ``checker.commands.gallery_settings``; ``gallery.ENTRIES`` puts
them in order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spec.kafka import seeds


@dataclass(frozen=True)
class Entry:
    """One gallery item: ``folder`` name, ``title``, the model ``options`` (``MODEL_OPTIONS``
    names), the violated ``prop`` to show and the ``model`` (``kafka`` or ``tla``). A bug-zoo
    entry also names its Kafka ``ticket``, the ``fixed`` options (changed from ``options``)
    under which ``prop`` holds at the same bounds, and ``fix``: what the fix changed (the
    story's last sentence). An entry with a ``schedule`` (action labels) is that
    hand-written schedule up to the first state violating ``prop``, not a search."""

    folder: str
    title: str
    options: tuple[tuple[str, Any], ...]
    prop: str
    model: str = "kafka"
    ticket: str = ""
    fixed: tuple[tuple[str, Any], ...] = ()
    fix: str = ""
    schedule: tuple[str, ...] = ()

    def fixed_options(self) -> dict[str, Any]:
        """The options of the fixed variant (empty when the entry has none)."""
        return {**dict(self.options), **dict(self.fixed)} if self.fixed else {}


R2 = (("replicas", 2), ("max_epoch", 1))
"""Two replicas, leader epochs 0 and 1: the bounds most entries start from."""

HISTORY = (
    Entry(
        "hw-truncation-loss",
        "HW truncation loses a committed record: a follower restarts "
        "with a lagging HW, truncates to it, and is elected (2 replicas)",
        (
            ("replicas", 2),
            ("truncation", "hw"),
            ("max_records", 2),
            ("max_epoch", 1),
            ("max_crashes", 2),
        ),
        "NoCommittedLoss",
        ticket="KAFKA-1211",
        fixed=(("truncation", "kip101"),),
        fix="KIP-101 (kip101) truncates to the leader's end offset for the follower's "
        "latest epoch instead of the follower's own HW, so the follower keeps m1.",
        schedule=seeds.LOSS,
    ),
    Entry(
        "hw-truncation-divergence",
        "HW truncation forks the committed log (2 replicas)",
        (("replicas", 2), ("truncation", "hw"), ("max_epoch", 1)),
        "NoDivergence",
        ticket="KIP-101",
        fixed=(("truncation", "kip101"),),
        fix="KIP-101 (kip101) asks the new leader where the follower's epoch ends, so the "
        "follower drops the record the leader does not hold instead of keeping it "
        "below its HW.",
    ),
    Entry(
        "textbook-divergence",
        "HW truncation forks the committed log: the seed articles' schedule, the new leader "
        "writes over the offset it truncated (2 replicas)",
        (
            ("replicas", 2),
            ("truncation", "hw"),
            ("max_records", 3),
            ("max_epoch", 1),
            ("max_crashes", 2),
            ("min_isr", 1),
        ),
        "NoDivergence",
        schedule=seeds.DIVERGENCE,
    ),
    Entry(
        "kip101-hole",
        "KIP-101's epoch lookup still diverges after fast leader changes "
        "(2 replicas, 3 records, epoch 2, 2 crashes)",
        (
            ("replicas", 2),
            ("truncation", "kip101"),
            ("max_records", 3),
            ("max_epoch", 2),
            ("max_crashes", 2),
        ),
        "NoDivergence",
        ticket="KAFKA-6361",
        fixed=(("truncation", "kip279"),),
        fix="KIP-279 (kip279) truncates after the last record both logs share, not at the "
        "end offset of an epoch, so records of different epochs at the same offset "
        "are never kept.",
    ),
    Entry(
        "kip279-hole",
        "KIP-279 matches against a stale leader and loses a committed record "
        "(3 replicas, 1 record, epoch 3, no crash)",
        (
            ("replicas", 3),
            ("truncation", "kip279"),
            ("max_records", 1),
            ("max_epoch", 3),
            ("max_crashes", 0),
        ),
        "NoCommittedLoss",
        ticket="KIP-320",
        fixed=(("truncation", "kip320"),),
        fix="KIP-320 (kip320) fences OffsetsForLeaderEpoch with the current leader epoch: "
        "a leader not yet in the request's epoch does not answer, so no follower "
        "truncates against a stale leader.",
    ),
    Entry(
        "kip279-divergence",
        "KIP-279 without fenced fetch forks the committed log "
        "(3 replicas, 2 records, epoch 2, no crash)",
        (
            ("replicas", 3),
            ("truncation", "kip279"),
            ("max_records", 2),
            ("max_epoch", 2),
            ("max_crashes", 0),
        ),
        "NoDivergence",
    ),
    Entry(
        "zombie-follower",
        "A zombie follower's unfenced fetch forks the committed log "
        "(kip320 without fenced-fetch; 3 replicas, 2 records, epoch 2, no crash)",
        (
            ("replicas", 3),
            ("truncation", "kip320"),
            ("without_mechanisms", ("fenced-fetch",)),
            ("max_records", 2),
            ("max_epoch", 2),
            ("max_crashes", 0),
        ),
        "NoDivergence",
        ticket="KAFKA-6880",
        fixed=(("without_mechanisms", ()),),
        fix="KIP-320's fetch fence (fenced-fetch) rejects a fetch whose leader epoch is not "
        "the leader's, so a follower of an old epoch cannot count towards the HW.",
    ),
    Entry(
        "lagging-hw-expansion",
        "A follower joins the ISR on a fetch whose records are still in flight, and is "
        "elected without a committed record (kip320 without fenced-expand, split fetch; "
        "3 replicas, 1 record, epoch 2, no crash)",
        (
            ("replicas", 3),
            ("truncation", "kip320"),
            ("with_mechanisms", ("split-fetch",)),
            ("without_mechanisms", ("fenced-expand",)),
            ("max_records", 1),
            ("max_epoch", 2),
            ("max_crashes", 0),
        ),
        "NoCommittedLoss",
        ticket="KAFKA-7128",
        fixed=(("without_mechanisms", ()),),
        fix="KIP-320's expansion fence (fenced-expand, Partition.isFollowerInSync) keeps a "
        "follower out of the ISR until its fetch offset has reached the start of the leader's "
        "epoch, so a follower joins only once it has fetched past every record an earlier "
        "leader may have committed.",
    ),
    Entry(
        "diverging-fetch-state",
        "A fetch answered with a DivergingEpoch still moves the leader's HW over a record the "
        "follower does not hold, and the follower is elected without it (kafka-2.8; 2 "
        "replicas, 2 records, epoch 2, no crash)",
        (
            ("replicas", 2),
            ("truncation", "kafka-2.8"),
            ("max_records", 2),
            ("max_epoch", 2),
            ("max_crashes", 0),
        ),
        "NoCommittedLoss",
        ticket="KAFKA-13141",
        fixed=(("truncation", "kafka-3.0"),),
        fix="KAFKA-13141's fix (2.7.2, 2.8.1, 3.0) leaves the leader's record of a follower "
        "alone when it answers a DivergingEpoch (Partition.fetchRecords), so a fetch offset "
        "past the point where the logs part never counts towards the HW.",
    ),
    Entry(
        "hw-before-truncation",
        "A former leader takes the HW of a DivergingEpoch response before it truncates, and "
        "its HW covers a record that was never committed (kafka-3.0; 2 replicas, 2 records, "
        "epoch 1, no crash)",
        (
            ("replicas", 2),
            ("truncation", "kafka-3.0"),
            ("max_records", 2),
            ("max_epoch", 1),
            ("max_crashes", 0),
        ),
        "NoUncommittedRead",
        ticket="KAFKA-14704",
        fixed=(("truncation", "kafka-3.5"),),
        fix="KAFKA-14704's fix (3.4.1, 3.5.0) truncates on a DivergingEpoch without applying "
        "that response's HW (AbstractFetcherThread.processFetchRequest skips "
        "processPartitionData): the next response brings the HW, after the truncation.",
    ),
    Entry(
        "stale-diverging-response",
        "A DivergingEpoch answered in an old epoch reaches the follower after the same leader "
        "leads again, and truncates a committed record from the replica elected next "
        "(kafka-3.7, split fetch; 2 replicas, 1 record, epoch 4, no crash)",
        (
            ("replicas", 2),
            ("truncation", "kafka-3.7"),
            ("with_mechanisms", ("split-fetch",)),
            ("max_records", 1),
            ("max_epoch", 4),
            ("max_crashes", 0),
        ),
        "NoCommittedLoss",
        ticket="KAFKA-18991",
        fixed=(("with_mechanisms", ("split-fetch", "fenced-response")),),
        fix="KAFKA-18991's fix (3.9.1, 4.0.1, 4.1) processes a fetch response only while the "
        "partition's fetch state is in the leader epoch the request was sent in "
        "(AbstractFetcherThread.processFetchRequest compares currentLeaderEpoch), so an answer "
        "from an earlier leadership of the same broker is dropped, whatever its fetch offset.",
    ),
    Entry(
        "kip279-hole-tla",
        "The same KIP-279 hole in the public TLA+ spec: StrongIsr fails (tla model, 3 replicas)",
        (("replicas", 3), ("truncation", "kip279")),
        "StrongIsr",
        model="tla",
    ),
)
"""The protocol's bugs and the fixes Kafka's history shipped, oldest first."""

LIVENESS = (
    Entry(
        "hw-follower-never-repaired",
        "HW truncation never repairs a diverged follower: same LEO as the leader, other "
        "records, and no fetch brings anything, for ever (a liveness lasso, 2 replicas)",
        (("replicas", 2), ("truncation", "hw")),
        "FollowerCatchesUp",
    ),
    Entry(
        "tla-commit-progress",
        "Kip320.tla's own Spec lets a leader's HW stay below its log end for ever: nothing "
        "makes the follower's fetch fair (a liveness lasso, 2 replicas, TLC's verdict)",
        (("replicas", 2),),
        "CommitProgress",
        model="tla",
    ),
)
"""Liveness lassos: what never happens, for ever."""
