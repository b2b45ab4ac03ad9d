"""protocol.md's two canonical scenarios, replayed as explicit label sequences.

Two replicas: A = 0, B = 1; min.insync.replicas = 1. Under ``hw`` each ends in a state that
violates its invariant; under ``kip320`` the very same schedule is enabled step by step and
every invariant holds in every state along it.
"""

import pytest
from conftest import holds, kafka, play

COMMON = [
    "Elect(leader=0)", "BecomeLeader(replica=0, epoch=0)", "BecomeFollower(replica=1, epoch=0)",
    "Produce(leader=0)",                      # m0 at offset 0
    "Fetch(follower=1, leader=0)",            # B copies m0
    "Produce(leader=0)",                      # m1 at offset 1
    "Fetch(follower=1, leader=0)",            # B copies m1; A's HW becomes 1
    "Fetch(follower=1, leader=0)",            # A's HW becomes 2; B learns only HW 1
    "Crash(replica=1)", "Restart(replica=1)",
    "BecomeFollower(replica=1, epoch=0)",     # hw: B truncates to its HW 1, deleting m1
    "Crash(replica=0)",
    "Elect(leader=1)",                        # B, the only live ISR member, leads epoch 1
]
LOSS = COMMON + [
    "BecomeLeader(replica=1, epoch=1)", "Restart(replica=0)",
    "BecomeFollower(replica=0, epoch=1)",     # hw: A truncates to its HW 2: nothing
    "Fetch(follower=0, leader=1)",            # offset 2 > B's LEO 1: OFFSET_OUT_OF_RANGE
]
DIVERGENCE = COMMON + [
    "BecomeLeader(replica=1, epoch=1)",
    "Produce(leader=1)",                      # m2 at offset 1 on B
    "Restart(replica=0)", "BecomeFollower(replica=0, epoch=1)",
    "Fetch(follower=0, leader=1)",            # offset 2 = B's LEO: nothing out of range
]
BOUNDS = {"replicas": 2, "max_records": 3, "max_epoch": 1, "max_crashes": 2, "min_isr": 1}
ALL = ["HwLeLeo", "LeaderInIsr", "NoCommittedLoss", "NoDivergence", "WeakIsr", "StrongIsr"]


def test_loss_under_hw_truncation():
    spec = kafka(truncation="hw", **BOUNDS)
    states = play(spec, LOSS)
    after_fetches = states[8]
    assert after_fetches[0][0][1] == 2 and after_fetches[0][1][1] == 1  # A HW 2, B HW 1
    assert states[11][0][1][0] == ((0, 0),)     # B truncated m1 away
    final = states[-1]
    assert final[0][0][0] == ((0, 0),) and final[0][1][0] == ((0, 0),)  # m1 gone from both
    assert (1, 1) in final[3][2]                # ... although it was committed
    assert not holds(spec, "NoCommittedLoss", final)
    first_bad = next(i for i, s in enumerate(states) if not holds(spec, "NoCommittedLoss", s))
    assert LOSS[first_bad - 1] == "Elect(leader=1)"   # fails as soon as B is elected


def test_divergence_under_hw_truncation():
    spec = kafka(truncation="hw", **BOUNDS)
    final = play(spec, DIVERGENCE)[-1]
    assert final[0][0][0] == ((0, 0), (1, 0)) and final[0][1][0] == ((0, 0), (2, 1))
    assert final[0][0][1] == 2 and final[0][1][1] == 2
    assert not holds(spec, "NoDivergence", final)


@pytest.mark.parametrize("schedule", [LOSS, DIVERGENCE], ids=["loss", "divergence"])
def test_same_schedule_is_safe_under_kip320(schedule):
    # Enabled step by step (play() would raise otherwise), and ends with no violation: B keeps
    # m1 when it restarts because the leader is in the same epoch and holds the same records.
    spec = kafka(truncation="kip320", **BOUNDS)
    states = play(spec, schedule)
    for name in ALL:
        assert all(holds(spec, name, s) for s in states), name
    assert states[11][0][1][0] == ((0, 0), (1, 0))
    final = states[-1]
    assert final[0][0][0] == final[0][1][0]
