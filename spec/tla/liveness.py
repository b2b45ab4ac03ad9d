"""Liveness for the tla port: two progress properties stated exactly as in TLA+, under the
fairness of each module's own ``Spec``.

Kip320.tla's ``Spec`` (hachikuji/kafka-specification, also Kip101, Kip279 and
KafkaTruncateToHighWatermark with their own operator names) is ``Init /\\ [][Next]_vars /\\
SF_vars(FencedLeaderIncHighWatermark) /\\ SF_vars(FencedLeaderExpandIsr) /\\ SF_vars(LeaderWrite)
/\\ WF_vars(FencedBecomeFollowerAndTruncate) /\\ WF_vars(BecomeLeader)``: fairness on each action
as a whole, none on ControllerElectLeader, ControllerShrinkIsr, the ISR shrink or the
follower's fetch. TLC 2.18 at 2 replicas, LogSize = MaxRecords = MaxLeaderEpoch = 2, finds
``NamedLeaderTakesOver`` holds and ``CommitProgress`` violated (8 states, then stuttering:
nothing forces the follower to fetch).
"""

from __future__ import annotations

from typing import Any

from checker.properties import LEADS_TO, STRONG, WEAK, Fairness, Property
from spec.tla.state import EPOCH, HW, LEADER, LOGS, QUORUM, RSTATES

NAMED_LEADER = (
    "NamedLeaderTakesOver == \\A e \\in LeaderEpochSeq!IdSet, r \\in Replicas : "
    "(quorumState.leader = r /\\ quorumState.leaderEpoch = e) ~> "
    "(replicaState[r].leaderEpoch >= e)"
)
COMMIT_PROGRESS = (
    "CommitProgress == \\A r \\in Replicas : (replicaState[r].leader = r /\\ "
    "replicaState[r].hw < replicaLog[r].endOffset) ~> (replicaState[r].hw = "
    "replicaLog[r].endOffset \\/ replicaState[r].leader # r)"
)


def _named(state: tuple[Any, ...]) -> list[tuple[int, int]]:
    epoch, leader, _ = state[QUORUM]
    return [] if leader is None or epoch < 0 else [(epoch, leader)]


def _took_over(state: tuple[Any, ...], key: tuple[int, int]) -> bool:
    epoch, replica = key
    return bool(state[RSTATES][replica][EPOCH] >= epoch)


def _behind(state: tuple[Any, ...]) -> list[int]:
    return [
        r for r, rs in enumerate(state[RSTATES]) if rs[LEADER] == r and rs[HW] < len(state[LOGS][r])
    ]


def _caught_up(state: tuple[Any, ...], replica: int) -> bool:
    rs = state[RSTATES][replica]
    return bool(rs[HW] == len(state[LOGS][replica]) or rs[LEADER] != replica)


def properties() -> list[Property]:
    """``NamedLeaderTakesOver`` and ``CommitProgress``, as the issue states them in TLA+."""
    return [
        Property(
            "NamedLeaderTakesOver",
            "A replica the quorum names leader in epoch e eventually reaches epoch e itself "
            "(it applies its LeaderAndIsr).",
            LEADS_TO,
            _named,
            goal=_took_over,
            explain=lambda key: f"replica {key[1]}, named leader in epoch {key[0]}",
            key_ids=(1,),
            formula=NAMED_LEADER,
        ),
        Property(
            "CommitProgress",
            "A leader whose HW is below its log end eventually has HW = log end, or stops "
            "being leader.",
            LEADS_TO,
            _behind,
            goal=_caught_up,
            explain=lambda key: f"leader {key}",
            key_ids=(0,),  # the key is the leader's id itself
            formula=COMMIT_PROGRESS,
        ),
    ]


def fairness(names: dict[str, str]) -> tuple[Fairness, ...]:
    """The module's ``Spec`` fairness, over the variant's operator names (``names`` as
    ``spec.tla.model._names`` gives them): SF on the HW increment, ISR expansion and
    LeaderWrite; WF on the become-follower action and BecomeLeader; each on the action as a
    whole."""
    return (
        Fairness(names["inc_hw"], STRONG, each=False),
        Fairness(names["expand"], STRONG, each=False),
        Fairness("LeaderWrite", STRONG, each=False),
        Fairness(names["follow"], WEAK, each=False),
        Fairness("BecomeLeader", WEAK, each=False),
    )


PERTURBATIONS = ("ControllerElectLeader", "ControllerShrinkIsr")
"""The controller's moves: no module's Spec makes them fair (elections are budgeted by
MaxLeaderEpoch)."""
