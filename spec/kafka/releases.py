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

_KRAFT_LEFT_OUT = (
    "KRaft's partition epoch is not modelled: since MV 3.6-IV0 (KAFKA-15021) the controller "
    "removes a failed broker from the ISR without a new leader epoch, where the model's "
    "ControllerShrinkIsr takes one as ZooKeeper's controller did"
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
    ),
    Release(
        name="kafka-2.0",
        rule="last-match-truncation",
        switches=(),
        kafka="2.0",
        description="OffsetsForLeaderEpoch repeated until follower and leader agree",
        source="KIP-279 (KAFKA-6361)",
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
    ),
    Release(
        name="kafka-3.0",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("hw-before-truncation",),
        kafka="2.8.1 - 2.8.2, 3.0 - 3.4.0",
        description=(
            "as 2.8 with KAFKA-13141 fixed; the HW still comes before the truncation (KAFKA-14704)"
        ),
        source="KAFKA-13141 fixed (PR 11136: 2.7.2, 2.8.1, 3.0.0)",
    ),
    Release(
        name="kafka-3.5",
        rule="diverging-epoch-truncation",
        switches=FENCES,
        kafka="3.4.1, 3.5.0",
        description="truncation on the fetch response, the truncation before the HW",
        source=(
            "KAFKA-14704 fixed (PR 13230: 3.4.1, 3.5.0; the 3.3 and older branches got it in PR "
            "13245 but no release since)"
        ),
        left_out=_KRAFT_LEFT_OUT,
    ),
    Release(
        name="kafka-3.6",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("empty-clears-epoch",),
        kafka="3.5.1 - 3.5.2, 3.6.0 - 3.6.2",
        description=(
            "as 3.5, but the first response with no records to a new fetch state clears the last "
            "fetched epoch (KAFKA-15510)"
        ),
        source="KAFKA-15510: the regression of KAFKA-15080 (PR 13843)",
        left_out=_KRAFT_LEFT_OUT,
    ),
    Release(
        name="kafka-3.7",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("strict-min-isr",),
        kafka="3.7 - 3.9",
        description="as 3.5: KAFKA-15510 fixed; a leader's HW advances only with min ISR members",
        source="KAFKA-15510 fixed (PR 14457, 3.7.0); KAFKA-15583 (HW needs min ISR, 3.7.0)",
        left_out=_KRAFT_LEFT_OUT,
    ),
    Release(
        name="kafka-4.0",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("strict-min-isr",),
        kafka="4.0",
        description=(
            "as 3.7 on KRaft alone (ZooKeeper removed); eligible leader replicas off by default"
        ),
        source="KIP-833 (ZooKeeper removed); KIP-966's ELR a preview, off by default",
        left_out=(
            "KAFKA-18106 (4.0.0: a broker back from an unclean shutdown is fenced, which bumps "
            "the leader epoch of the partitions it led) is not modelled; " + _KRAFT_LEFT_OUT
        ),
    ),
    Release(
        name="kafka-4.1",
        rule="diverging-epoch-truncation",
        switches=FENCES + ("strict-min-isr", "elr"),
        kafka="4.1 and later (new clusters)",
        description=(
            "as 4.0 with KIP-966's eligible leader replicas: a broker back from an unclean "
            "shutdown leaves ISR and ELR until it catches up"
        ),
        source=(
            "KIP-966 (ELR on by default from MV 4.1-IV0); KAFKA-15586 and KAFKA-18635 (unclean "
            "shutdown detected by broker epoch)"
        ),
        left_out=(
            "KIP-704's RECOVERING state after an unclean election (no ISR expansion until "
            "recovery) is not modelled; " + _KRAFT_LEFT_OUT
        ),
    ),
)
"""Every release preset, oldest first."""

VERSIONS = {
    **dict.fromkeys(("kafka-0.8", "kafka-0.9"), "kafka-0.10"),
    **dict.fromkeys(("kafka-1.0", "kafka-1.1"), "kafka-0.11"),
    **dict.fromkeys((f"kafka-2.{minor}" for minor in range(2, 8)), "kafka-2.1"),
    **dict.fromkeys(("kafka-2.8.0",), "kafka-2.8"),
    **dict.fromkeys(("kafka-2.8.1", "kafka-2.8.2", "kafka-3.1", "kafka-3.2"), "kafka-3.0"),
    **dict.fromkeys(("kafka-3.3", "kafka-3.4", "kafka-3.4.0"), "kafka-3.0"),
    **dict.fromkeys(("kafka-3.4.1", "kafka-3.5.0"), "kafka-3.5"),
    **dict.fromkeys(("kafka-3.5.1", "kafka-3.5.2"), "kafka-3.6"),
    **dict.fromkeys(("kafka-3.8", "kafka-3.9"), "kafka-3.7"),
    **dict.fromkeys(("kafka-4.2",), "kafka-4.1"),
}
"""Other Kafka versions ``--truncation`` accepts, and the release preset that models each
(``kafka-2.8`` and ``kafka-3.5`` name their first patch release; ``kafka-2.8.1`` is
``kafka-3.0``)."""
