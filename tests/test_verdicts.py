"""Search verdicts: hw is found broken with two replicas, kip320 holds at the default bounds.

Shortest means shortest: for each counterexample of length L (states, the initial one
included) a search bounded to depth L - 1 must not find that property violated.
"""

import pytest
from conftest import check, kafka

from checker.native.layout import compiled_model
from checker.result import Status

SAFETY = [
    "HwLeLeo",
    "LeaderInIsr",
    "NoCommittedLoss",
    "NoAckedLoss",
    "NoUncommittedRead",
    "NoDivergence",
    "WeakIsr",
    "StrongIsr",
    "RecordEpochsMonotonic",
    "EpochMonotonic",
]
GUARDS = [
    "HwAdvances",
    "CrashHappens",
    "RestartHappens",
    "TruncationRemovesRecord",
    "SecondElection",
]


def lengths(result):
    return {v.prop.name: v.length for v in result.violations}


def test_hw_with_two_replicas_loses_and_forks_committed_data():
    spec = kafka(replicas=2, truncation="hw")
    result = check(spec)
    assert result.status == Status.VIOLATED and result.exit_code == 12
    found = lengths(result)
    assert found == {
        "WeakIsr": 10,
        "StrongIsr": 10,
        "NoCommittedLoss": 11,
        "NoAckedLoss": 11,
        "NoDivergence": 14,
    }
    loss = next(v for v in result.violations if v.prop.name == "NoCommittedLoss")
    last = loss.trace[-1].state
    leader = last[1][1]
    committed = dict(last[3][2])
    assert any(
        offset >= len(last[0][leader][0]) or last[0][leader][0][offset][0] != rid
        for offset, rid in committed.items()
    )
    for name, length in found.items():
        bounded = check(spec, name, max_depth=length - 1)
        assert bounded.status == Status.INCOMPLETE and not bounded.violations, name


@pytest.mark.parametrize("replicas", [2, 3])
def test_kip320_holds_with_every_guard_reached(replicas):
    spec = kafka(replicas=replicas)
    if replicas == 2:
        result = check(spec)
    else:  # the compiled core, proven equal to checker.search.reference.bfs by tests/test_compiled.py: 2 s, not 45
        from conftest import props_of

        from checker.search.compiled import search as native_engine

        model, _ = compiled_model(spec)
        result = native_engine.explore(model, spec, props_of(spec), threads=2)
    assert result.status == Status.OK, result.reason
    assert result.exhausted and not result.violations and not result.unreached
    assert [p.name for p in result.checked] == SAFETY + GUARDS
    if replicas == 3:
        # golden: printed by the engine and equal to the naive reference enumeration
        # (tests/reference.py: 36 s on one core, run when this number was set)
        assert (result.stats.distinct, result.stats.depth) == (1300736, 27)


def test_unclean_election_loses_data_in_every_variant():
    for variant in ("hw", "kip320"):
        result = check(
            kafka(replicas=2, truncation=variant, unclean_election=True, max_crashes=2),
            "NoCommittedLoss",
            stop_on_first=True,
        )
        assert lengths(result).keys() == {"NoCommittedLoss"}, variant


def test_vacuous_when_a_guard_is_unreachable():
    result = check(kafka(replicas=2, max_crashes=0))
    assert result.status == Status.VACUOUS and result.exit_code == 13
    assert result.unreached == ["CrashHappens", "RestartHappens"]


def test_limits_make_the_run_incomplete():
    result = check(kafka(replicas=2), max_depth=5)
    assert result.status == Status.INCOMPLETE and result.exit_code == 3
    assert result.stats.depth == 5 and "depth bound 5" in result.reason
    timed = check(kafka(replicas=3), time_limit=0.2)
    assert timed.status == Status.INCOMPLETE and "time limit" in timed.reason
