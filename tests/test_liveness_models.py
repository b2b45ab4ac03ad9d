"""Liveness verdicts of both models, against TLC's and against what Kafka promises.

TLC 2.18 on Kip320.tla's ``Spec`` at 2 replicas, LogSize = MaxRecords = MaxLeaderEpoch = 2:
``NamedLeaderTakesOver`` holds, ``CommitProgress`` is violated by a behaviour that ends
stuttering (TLC prints 8 states; hwcheck's prefix is a shortest one, 6 states: two writes
use up MaxRecords, so LeaderWrite, strongly fair, is disabled, and the follower's
FencedFollowerFetch, which nothing makes fair, is the only way the HW could move).
"""

from __future__ import annotations

import pytest

from checker.composition import compose
from checker.liveness import run as live
from checker.native.layout import compiled_model


def judged(model: str, fair: tuple[str, ...] = (), unfair: tuple[str, ...] = (), **bounds):
    """The liveness pass: the tla port on the reference core, the kafka model on the compiled
    one (tests/test_liveness_compiled.py proves the two cores give the same answers)."""
    config = compose.make_config(model, bounds)
    spec, _ = compose.build_model(model, config)
    rules = live.fairness_of(spec, fair, unfair)
    if model == "tla":
        found = live.check(spec, spec.liveness(), rules)
    else:
        compiled, _ = compiled_model(spec)
        found = live.check(spec, spec.liveness(), rules, core="compiled", model=compiled)
        assert found.core == "compiled"
    return found, {v.prop.name: v for v in found.verdicts}


def labels(found: live.Liveness, name: str) -> list[str]:
    return [str(label) for label, _ in found.lassos[name][1:]]


def test_the_tla_port_gives_tlcs_verdicts():
    found, verdicts = judged("tla", replicas=2)
    assert found.states == 5973  # TLC's distinct states for these constants
    assert verdicts["NamedLeaderTakesOver"].verdict == "holds"
    commit = verdicts["CommitProgress"]
    assert commit.verdict == "violated" and commit.lasso is not None and commit.lasso.stutter
    assert labels(found, "CommitProgress") == [
        "ControllerElectLeader(newLeader=0)",
        "BecomeLeader(leader=0, epoch=0)",
        "LeaderWrite(replica=0)",
        "LeaderWrite(replica=0)",
        "FencedBecomeFollowerAndTruncate(leader=0, replica=1, epoch=0)",
    ]
    assert "FencedFollowerFetch(follower=1, leader=0)" in commit.never_taken


def test_fairness_makes_the_difference():
    _, verdicts = judged("tla", unfair=("BecomeLeader",), replicas=2)
    assert verdicts["NamedLeaderTakesOver"].verdict == "violated"
    _, verdicts = judged("tla", fair=("WF(each FencedFollowerFetch)",), replicas=2)
    assert verdicts["CommitProgress"].verdict == "holds"


def test_kafka_41_keeps_every_progress_promise_the_epoch_budget_lets_it_keep():
    """A leader that crashes, or is fenced while it runs, in the last epoch the bound allows
    cannot come back: Kafka would
    take its leadership away in a new epoch first (issue 62). So LeaderElected and, with it,
    ReplicasConverge are unknown at these bounds, their only lassos cut by ``--max-epoch``."""
    found, verdicts = judged("kafka", replicas=2)
    # the plain graph is the one explore --replicas 2 --no-symmetry counts
    assert (found.states, found.edges) == (23667, 61958)
    assert {name: v.verdict for name, v in verdicts.items()} == {
        "AckedReachesIsr": "holds",
        "HwReachesLeo": "holds",
        "LeaderElected": "unknown",
        "FollowerCatchesUp": "holds",
        "ReplicasConverge": "unknown",
    }
    # the shortest such lasso fences the live leader (fence-live) in the last epoch
    assert verdicts["LeaderElected"].cut == (
        "the partition has no leader and --max-epoch 2 forbids the next election"
    )


def test_hw_truncation_never_repairs_a_diverged_follower():
    found, verdicts = judged("kafka", replicas=2, truncation="hw")
    assert verdicts["AckedReachesIsr"].verdict == "violated"
    assert verdicts["ReplicasConverge"].verdict == "violated"
    assert verdicts["HwReachesLeo"].verdict == "holds"
    follower = verdicts["FollowerCatchesUp"]
    assert follower.verdict == "violated" and follower.lasso is not None
    last = found.lassos["FollowerCatchesUp"][-1][1]
    (log0, *_), (log1, *_) = last[0]
    assert len(log0) == len(log1) and log0 != log1  # same LEO, different records: diverged


@pytest.mark.parametrize("unclean", [False, True])
def test_kip966_elects_the_last_known_leader_after_a_power_loss(unclean):
    """Kafka 4.1 elects the last known leader once ISR and ELR are empty (KAFKA-15584), with
    or without unclean election: a partition whose last ISR member lost power comes back
    when that broker does. Only the epoch budget stops LeaderElected (the model without the
    last known leader left such a partition offline for ever)."""
    bounds = {"replicas": 2, "max_records": 1, "max_unclean_shutdowns": 1}
    _, verdicts = judged("kafka", unclean_election=unclean, **bounds)
    elected = verdicts["LeaderElected"]
    assert elected.verdict == "unknown"
    assert "--max-epoch 2 forbids the " in elected.cut
