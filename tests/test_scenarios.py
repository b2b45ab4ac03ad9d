"""protocol.md's two canonical scenarios (``spec.kafka.seeds``), replayed as explicit label
sequences.

Two replicas: A = 0, B = 1; min.insync.replicas = 1. Under ``hw`` each ends in a state that
violates its invariant; under ``kip320`` the very same schedule is enabled step by step and
every invariant holds in every state along it.
"""

import pytest
from conftest import holds, kafka, play

from spec.kafka import seeds

LOSS, DIVERGENCE, BOUNDS = list(seeds.LOSS), list(seeds.DIVERGENCE), seeds.SEED_BOUNDS
ALL = ["HwLeLeo", "LeaderInIsr", "NoCommittedLoss", "NoDivergence", "WeakIsr", "StrongIsr"]


def test_loss_under_hw_truncation():
    spec = kafka(truncation="hw", **BOUNDS)
    states = play(spec, LOSS)
    after_fetches = states[8]
    assert after_fetches[0][0][1] == 2 and after_fetches[0][1][1] == 1  # A HW 2, B HW 1
    assert states[11][0][1][0] == ((0, 0),)  # B truncated m1 away
    final = states[-1]
    assert final[0][0][0] == ((0, 0),) and final[0][1][0] == ((0, 0),)  # m1 gone from both
    assert (1, 1) in final[3][2]  # ... although it was committed
    assert not holds(spec, "NoCommittedLoss", final)
    first_bad = next(i for i, s in enumerate(states) if not holds(spec, "NoCommittedLoss", s))
    assert LOSS[first_bad - 1] == "Elect(leader=1)"  # fails as soon as B is elected


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
