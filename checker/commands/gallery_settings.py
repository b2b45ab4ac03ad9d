"""The gallery entries of what a cluster's settings trade: unclean leader election, acks=1,
unflushed data under a power loss, and what KIP-966's eligible leader replicas change at
min.insync.replicas 2 (``checker.commands.gallery_entries`` has the ``Entry`` and the
protocol's bugs)."""

from __future__ import annotations

from checker.commands.gallery_entries import R2, Entry

SETTINGS = (
    Entry(
        "unclean-election",
        "Unclean leader election loses committed data even with KIP-320 (2 replicas)",
        (("replicas", 2), ("truncation", "kip320"), ("unclean_election", True), ("max_epoch", 1)),
        "NoCommittedLoss",
        ticket="unclean.leader.election.enable",
        fixed=(("unclean_election", False),),
        fix="With unclean.leader.election.enable=false the controller waits for an ISR "
        "member instead of electing a replica that lacks committed records.",
    ),
    Entry(
        "acks-1-loss",
        "acks=1 loses an acknowledged write (kip320, 2 replicas)",
        (*R2, ("truncation", "kip320"), ("acks", "1")),
        "NoAckedLoss",
        ticket="acks=1",
        fixed=(("acks", "all"),),
        fix="With acks=all the leader acknowledges a write only once it is committed, on "
        "every ISR member.",
    ),
    Entry(
        "unclean-shutdown-loss",
        "The last ISR member loses its unflushed tail in a power "
        "loss (kip320, 2 replicas, 1 unclean shutdown)",
        (*R2, ("truncation", "kip320"), ("max_unclean_shutdowns", 1)),
        "NoCommittedLoss",
        ticket="unflushed data",
        fixed=(("flush", "always"),),
        fix="With an fsync on every append (flush always) a power loss keeps the whole log. "
        "KIP-966 (kip966) does not help here: with min.insync.replicas 1 it tolerates "
        "min ISR - 1 = 0 unclean shutdowns.",
    ),
    Entry(
        "last-replica-standing",
        "KIP-966's last replica standing: below min ISR the last "
        "ISR member commits alone and loses it in a power loss (kip320, 2 replicas, "
        "min ISR 2, 1 unclean shutdown)",
        (
            *R2,
            ("truncation", "kip320"),
            ("max_records", 1),
            ("max_crashes", 0),
            ("min_isr", 2),
            ("max_unclean_shutdowns", 1),
        ),
        "NoCommittedLoss",
        ticket="KIP-966",
        fixed=(("truncation", "kip966"),),
        fix="KIP-966 (kip966) lets the HW advance only while the ISR has min.insync.replicas "
        "members, so m0 is not committed on one copy; a replica dropped from an ISR "
        "below min ISR stays electable in the ELR, and one back from a crash or an "
        "unclean shutdown leaves ISR and ELR until it catches up.",
    ),
    Entry(
        "last-known-leader",
        "KIP-966 at min ISR 2 after a crash and a power loss: the leader crashes, the "
        "follower loses m0 in a power loss and is left the ISR's last member; both restart "
        "out of ISR and ELR, and the follower, the last known leader, is elected (kafka-4.1, "
        "2 replicas, epoch 2, 1 crash, 1 unclean shutdown)",
        (
            ("replicas", 2),
            ("max_epoch", 2),
            ("truncation", "kafka-4.1"),
            ("max_records", 1),
            ("max_crashes", 1),
            ("min_isr", 2),
            ("max_unclean_shutdowns", 1),
        ),
        "NoCommittedLoss",
        ticket="KAFKA-15584",
        fixed=(("flush", "always"),),
        fix="Kafka 4.1 elects the last known leader once ISR and ELR are empty, whatever it "
        "lost: KIP-966 tolerates min ISR - 1 unclean shutdowns, and a killed broker is one "
        "too. With an fsync on every append (flush always) the power loss keeps m0.",
    ),
)
"""The settings' entries, in the order the gallery shows them."""
