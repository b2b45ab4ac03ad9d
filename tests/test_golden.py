"""Golden distinct-state counts, and where each number comes from.

- 1 replica, default bounds: 16 states, depth 7, derived by hand below and confirmed by the
  engine and by ``reference.enumerate_states``.
- 2 replicas, default bounds, every variant: numbers printed by ``checker.search.bfs`` and confirmed
  by the naive reference enumerator, which stores whole states rather than fingerprints.
- 3 replicas, kip320, default bounds: see ``test_verdicts.py`` (slow).

Hand enumeration for 1 replica (max_records 2, max_epoch 1, max_crashes 1): with one replica
there is never a second election (the only candidate is the current leader) nor a
truncation. The states are: initial; elected (controller epoch 0); leader with 0, 1, 2
records (3 states); crashed before the election; restarted before the election (= the
initial state with one crash used); elected after that crash (this is also the state of a
leader that crashed and restarted with an empty log, which has not yet re-applied its
request); leader after the crash with 0, 1, 2 records (3); crashed leader with 0, 1, 2
records (3); restarted leader with 1 or 2 records awaiting its request (2). Total
1+1+3+1+1+1+3+3+2 = 16; the longest shortest path is elect, become leader, produce, produce,
crash, restart: 7 states.
"""

import pytest
from conftest import check, kafka
from reference import enumerate_states


def test_one_replica_matches_hand_count():
    spec = kafka(replicas=1)
    result = check(spec)
    assert (result.stats.distinct, result.stats.depth) == (16, 7)
    assert enumerate_states(spec) == (16, 7)
    assert result.exhausted


GOLDEN_TWO = {
    "hw": (5198, 20),
    "kip101": (4254, 18),
    "kip279": (4254, 18),
    "kip320": (4230, 18),
    "kip966": (4230, 18),
}
"""kip966 at min ISR 1 with durable logs is kip320 with an ELR that stays empty: same count."""


@pytest.mark.parametrize("variant", sorted(GOLDEN_TWO))
def test_two_replicas_counts(variant):
    spec = kafka(replicas=2, truncation=variant)
    result = check(spec, "HwLeLeo")  # an invariant that holds: the whole graph is explored
    assert (result.stats.distinct, result.stats.depth) == GOLDEN_TWO[variant]
    assert enumerate_states(spec) == GOLDEN_TWO[variant]


def test_generated_counts_every_successor():
    result = check(kafka(replicas=2), "HwLeLeo")
    actions = result.stats.actions
    assert sum(g for g, _ in actions.values()) + 1 == result.stats.generated
    assert sum(d for _, d in actions.values()) + 1 == result.stats.distinct
    assert actions["UncleanElect"] == [0, 0]
