"""A preset per Kafka release where the modelled replication behaviour changed.

Each ``Release`` names the mechanisms (``spec.kafka.variants``) a release runs, the
versions that ran them, the tickets and PRs that set them, and what of those versions the
model does not have.
``spec.kafka.variants`` turns the rows into presets beside the KIP-named ones
(``kafka-2.1`` has the mechanisms of ``kip320``). Plain data: this module imports nothing of
the model. Versions are from the fix commits' release tags in apache/kafka.
"""

from __future__ import annotations

from dataclasses import dataclass

FENCES = ("fenced-lookup", "fenced-fetch", "fenced-expand")
"""KIP-320's three fences (Kafka 2.1)."""

LIVE_ISR = ("live-isr",)
"""KIP-841 (Kafka 3.3): a crashed replica cannot join the ISR."""

BROKER_EPOCH = ("broker-epoch",)
"""KIP-903 (Kafka 3.5, KRaft): a stale broker epoch's fetch state does not join the ISR."""

_IBP = (
    "the preset assumes inter.broker.protocol.version 2.7-IV1 or later (the default); with it "
    "pinned lower these brokers truncate before fetching, as kafka-2.1 does"
)

_ZK_NO_KIP_903 = (
    "with ZooKeeper KIP-903 is not in force (the ZooKeeper controller ignores broker epochs): "
    "--without broker-epoch models such a cluster"
)

FENCE_LIVE = ("fence-live",)
"""KRaft's broker fencing (KIP-631): a broker that stops heartbeating, crashed or not, is
fenced and leaves the ISR or its leadership."""

SHRINK_IN_EPOCH = ("shrink-in-epoch",)
"""KAFKA-15021 (Kafka 3.6.0, metadata version 3.6-IV0): the KRaft controller shrinks an ISR
without a new leader epoch."""

KRAFT_36 = FENCES + LIVE_ISR + BROKER_EPOCH + FENCE_LIVE + SHRINK_IN_EPOCH
"""The rules every KRaft release from 3.6 on runs (metadata version 3.6-IV0)."""

_KRAFT_BUMP = (
    "KRaft before metadata version 3.6-IV0 takes a new leader epoch on every ISR shrink, the "
    "leader's own AlterPartition included (PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded"
    "); the model's ShrinkIsr keeps the epoch, as ZooKeeper's controller did"
)

_KRAFT_FENCED = (
    "a fenced broker stays out of the ISR until its heartbeats come back, which may be at once: "
    "the model lets ExpandIsr add it back whenever it has caught up"
)

_ZK_SESSION = (
    "a broker fenced while it runs (its ZooKeeper session expired or, in KRaft, its heartbeats "
    "stopped: a long pause, or cut off from the controller) is handled by the controller as a "
    "failed one: --with fence-live models it (it "
    "changes no verdict of compare --replicas 3; kafka-0.10's shortest counterexamples are a "
    "step shorter)"
)


@dataclass(frozen=True)
class Release:
    """One release preset: its ``name`` (``kafka-X.Y``), truncation ``rule`` and ``switches``
    (mechanism names, ``spec.kafka.variants``), the ``kafka`` versions it models, a
    ``description``, the ``source`` (tickets and PRs that set its mechanisms) and what of
    those versions the model leaves out (``left_out``, empty when nothing)."""

    name: str
    rule: str
    switches: tuple[str, ...]
    kafka: str
    description: str
    source: str
    left_out: str = ""


RELEASES = (
    Release(
        name="kafka-0.10",
        rule="hw-truncation",
        switches=(),
        kafka="0.10.x and earlier",
        description="a new follower truncates to its own HW",
        source="the HW rule of replication before KIP-101; its holes: KAFKA-1211",
        left_out=_ZK_SESSION,
    ),
    Release(
        name="kafka-0.11",
        rule="leader-epoch-truncation",
        switches=(),
        kafka="0.11 - 1.1",
        description=(
            "OffsetsForLeaderEpoch for the follower's latest epoch (leader epochs in the log)"
        ),
        source="KIP-101 (KAFKA-1211's fix)",
        left_out=_ZK_SESSION,
    ),
    Release(
        name="kafka-2.0",
        rule="last-match-truncation",
        switches=(),
        kafka="2.0",
        description="OffsetsForLeaderEpoch repeated until follower and leader agree",
        source="KIP-279 (KAFKA-6361)",
        left_out=_ZK_SESSION,
    ),
    Release(
        name="kafka-2.1",
        rule="last-match-truncation",
        switches=FENCES,
        kafka="2.1 - 2.7",
        description=(
            "as 2.0, with fetch, OffsetsForLeaderEpoch and ISR expansion fenced by leader epoch"
        ),
        source=(
            "KIP-320 (KAFKA-6880, KAFKA-7128, KAFKA-7415); 2.7 has only the leader's half of "
            "KAFKA-10554: its followers never send a last fetched epoch"
        ),
        left_out=_ZK_SESSION,
    ),
    Release(
        name="kafka-2.8",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("diverging-fetch-state", "hw-before-truncation"),
        kafka="2.8.0",
        description=(
            "truncation on the fetch response's DivergingEpoch, with two bugs: a diverging fetch "
            "moves the leader's record of the follower (KAFKA-13141) and the follower applies the"
            " HW before it truncates (KAFKA-14704)"
        ),
        source="KAFKA-10554 (PR 9382, commit 7ecc3a5, IBP 2.7-IV1; schema KAFKA-10487, PR 9290)",
        left_out=(
            _ZK_SESSION
            + "; "
            + _IBP
            + "; KAFKA-13141's window is open in a mixed cluster too (a 2.7.0 leader with "
            "2.8.0 followers behaves as this preset)"
        ),
    ),
    Release(
        name="kafka-3.0",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("hw-before-truncation",),
        kafka="2.8.1 - 2.8.2, 3.0 - 3.2",
        description=(
            "as 2.8 with KAFKA-13141 fixed; the HW still comes before the truncation (KAFKA-14704: "
            "for a step a former leader's HW covers a record never committed, which both "
            "NoUncommittedRead and NoDivergence see)"
        ),
        source="KAFKA-13141 fixed (PR 11136: 2.7.2, 2.8.1, 3.0.0)",
        left_out=_ZK_SESSION + "; " + _IBP,
    ),
    Release(
        name="kafka-3.3",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("hw-before-truncation",) + LIVE_ISR,
        kafka="3.3 - 3.4.0",
        description="as 3.0, and a crashed (fenced or offline) replica cannot join the ISR",
        source=(
            "KIP-841 (KRaft, 3.3.0: Partition.isReplicaIsrEligible, the controller's "
            "INELIGIBLE_REPLICA); KAFKA-14140 (ZooKeeper, 3.3.0 and 3.4.0)"
        ),
        left_out=_ZK_SESSION + "; " + _IBP,
    ),
    Release(
        name="kafka-3.4.1",
        rule="diverging-epoch-truncation",
        switches=FENCES + LIVE_ISR,
        kafka="3.4.1",
        description="as 3.3 with KAFKA-14704 fixed: the follower truncates before it takes the HW",
        source=(
            "KAFKA-14704 fixed (PR 13230: 3.4.1, 3.5.0; the 3.3 and older branches got it in PR "
            "13245 but no release since)"
        ),
        left_out=_ZK_SESSION + "; " + _IBP,
    ),
    Release(
        name="kafka-3.5",
        rule="diverging-epoch-truncation",
        switches=FENCES + LIVE_ISR + BROKER_EPOCH + FENCE_LIVE,
        kafka="3.5.0",
        description=(
            "as 3.4.1, and a leader forgets a replica's fetch state when the replica comes back "
            "from an unclean shutdown with a new broker epoch"
        ),
        source=(
            "KIP-903 (3.5.0, KRaft from MV 3.5-IV1: Partition.isBrokerEpochIsrEligible, the "
            "controller's broker-epoch check of AlterPartition); KIP-631 (a broker that stops "
            "heartbeating is fenced, crashed or not: ReplicationControlManager.handleBrokerFenced)"
        ),
        left_out=_ZK_NO_KIP_903 + "; " + _IBP + "; " + _KRAFT_BUMP + "; " + _KRAFT_FENCED,
    ),
    Release(
        name="kafka-3.5.1",
        rule="diverging-epoch-truncation",
        switches=FENCES + LIVE_ISR + BROKER_EPOCH + FENCE_LIVE + ("empty-clears-epoch",),
        kafka="3.5.1 - 3.5.2",
        description=(
            "as 3.5, but the first response with no records to a new fetch state clears the last "
            "fetched epoch (KAFKA-15510)"
        ),
        source="KAFKA-15510: the regression of KAFKA-15080 (PR 13843)",
        left_out=_ZK_NO_KIP_903 + "; " + _IBP + "; " + _KRAFT_BUMP + "; " + _KRAFT_FENCED,
    ),
    Release(
        name="kafka-3.6",
        rule="diverging-epoch-truncation",
        switches=KRAFT_36 + ("empty-clears-epoch",),
        kafka="3.6.0 - 3.6.2",
        description=(
            "as 3.5.1, and the controller takes a failed or fenced follower out of the ISR in the "
            "same leader epoch (KAFKA-15021)"
        ),
        source=(
            "KAFKA-15510 (the regression of KAFKA-15080, PR 13843); KAFKA-15021 (PR 13765, "
            "metadata version 3.6-IV0: MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink)"
        ),
        left_out=(
            _ZK_NO_KIP_903
            + "; "
            + _IBP
            + "; a cluster upgraded from an older metadata version keeps the new epoch until "
            "its metadata version reaches 3.6-IV0 (--without shrink-in-epoch); " + _KRAFT_FENCED
        ),
    ),
    Release(
        name="kafka-3.7",
        rule="diverging-epoch-truncation",
        switches=KRAFT_36 + ("strict-min-isr",),
        kafka="3.7 - 3.9",
        description="as 3.6: KAFKA-15510 fixed; a leader's HW advances only with min ISR members",
        source="KAFKA-15510 fixed (PR 14457, 3.7.0); KAFKA-15583 (HW needs min ISR, 3.7.0)",
        left_out=(
            "3.9.1 drops a fetch response of an older leader epoch (KAFKA-18991): --with "
            "fenced-response, which matters only with --with split-fetch; "
            + _ZK_NO_KIP_903
            + "; "
            + _IBP
            + "; "
            + _KRAFT_FENCED
        ),
    ),
    Release(
        name="kafka-4.0",
        rule="diverging-epoch-truncation",
        switches=KRAFT_36 + ("strict-min-isr",),
        kafka="4.0; 4.1 - 4.4 upgraded, ELR not enabled",
        description=(
            "as 3.7 on KRaft alone (ZooKeeper removed); eligible leader replicas off by default"
        ),
        source=(
            "KIP-833 (ZooKeeper removed); KIP-966's ELR a preview, off by default; KAFKA-18106 "
            "(4.0.0: a broker that registers again with a new incarnation is handled as fenced "
            "first, so a leader it was comes back in a new leader epoch, as the model's Restart "
            "has it in every release)"
        ),
        left_out=(
            "4.0.1 drops a fetch response of an older leader epoch (KAFKA-18991): --with "
            "fenced-response, which matters only with --with split-fetch; " + _KRAFT_FENCED
        ),
    ),
    Release(
        name="kafka-4.1",
        rule="diverging-epoch-truncation",
        switches=KRAFT_36 + ("strict-min-isr", "elr", "fenced-response"),
        kafka="4.1 - 4.4 (new clusters, or ELR enabled)",
        description=(
            "as 4.0 with KIP-966's eligible leader replicas: a broker back from a crash or a "
            "power loss leaves ISR and ELR until it catches up, and with both empty the last "
            "known leader is elected"
        ),
        source=(
            "KIP-966 (ELR on by default from MV 4.1-IV0); KAFKA-15586 and KAFKA-18635 (unclean "
            "shutdown detected by broker epoch: every restart after a crash is one); KAFKA-15584 "
            "(the last known leader elected once ISR and ELR are empty, even after an unclean "
            "shutdown), read in 4.1.0; 4.2, 4.3 and 4.4 change no rule the model has "
            "(their metadata versions add share and streams groups, cordoned log dirs and "
            "controller unregistration; ELR's latest version is still 1); KAFKA-18991 (a fetch "
            "response of an older leader epoch dropped, 4.1.0)"
        ),
        left_out=(
            "KIP-704's RECOVERING state after an unclean election (no ISR expansion until "
            "recovery) is not modelled; " + _KRAFT_FENCED
        ),
    ),
)
"""Every release preset, oldest first."""
