"""Random walks (hypothesis) far beyond the exhaustive bounds: every state reached by a walk
of the fenced protocol satisfies the safety invariants, and every state is well formed.

This is the cheap complement of exhaustive search that Stateright and hypothesis users rely
on: it reaches 3 replicas with 4 records, 4 epochs and 3 crashes, which BFS cannot.
"""

from conftest import kafka, props_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BIG = {"replicas": 3, "max_records": 4, "max_epoch": 4, "max_crashes": 3}
SAFETY = ["HwLeLeo", "LeaderInIsr", "NoCommittedLoss", "NoDivergence", "WeakIsr", "StrongIsr"]


def well_formed(state, n):
    replicas, (epoch, leader, isr), requests, (next_id, _crashes, committed) = state
    assert len(replicas) == n and list(isr) == sorted(set(isr)) and isr
    assert [r[0] for r in requests] == list(range(len(requests))) and epoch == len(requests) - 1
    assert leader is None or 0 <= leader < n
    for log, hw, alive, (v_leader, v_epoch, v_isr), remote in replicas:
        assert 0 <= hw <= len(log) and all(0 <= rid < next_id for rid, _ in log)
        assert v_epoch <= epoch and list(v_isr) == sorted(set(v_isr))
        assert len(remote) in (0, n)
        if not alive:
            assert (v_leader, v_isr, remote) == (None, (), ())
    assert list(committed) == sorted(set(committed))


def walk(truncation, choices):
    spec = kafka(truncation=truncation, **BIG)
    invariants = props_of(spec, *SAFETY)
    state = spec.init_states()[0]
    for choice in choices:
        well_formed(state, BIG["replicas"])
        for prop in invariants:
            assert prop.predicate(state), (prop.name, state)
        moves = list(spec.successors(state))
        if not moves:
            break
        state = moves[choice % len(moves)][1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 10_000), min_size=10, max_size=80))
def test_kip320_random_walks_stay_safe(choices):
    walk("kip320", choices)
