"""Each property on a hand-built violating state and a hand-built state where it holds."""

from conftest import holds, kafka, props_of
from test_actions import rep, state

SPEC = kafka(replicas=2)
A, B = (0, 0), (1, 0)  # records m0, m1 of epoch 0
C = (2, 1)  # record m2 of epoch 1
LEAD0 = (0, 0, (0, 1))
FOLLOW0 = (0, 0, (0, 1))


def test_hw_le_leo():
    assert holds(SPEC, "HwLeLeo", state([rep(log=[A], hw=1), rep()]))
    assert not holds(SPEC, "HwLeLeo", state([rep(log=[A], hw=2), rep()]))


def test_leader_in_isr_holds_without_leader():
    assert holds(SPEC, "LeaderInIsr", state([rep(), rep()], controller=(-1, None, (0, 1))))
    assert holds(SPEC, "LeaderInIsr", state([rep(), rep()], controller=(0, 1, (0, 1))))
    assert not holds(SPEC, "LeaderInIsr", state([rep(), rep()], controller=(0, 1, (0,))))


def test_no_committed_loss():
    good = state([rep(log=[A, B], hw=2), rep(log=[A, B])], ghost=(2, 0, ((0, 0), (1, 1))))
    assert holds(SPEC, "NoCommittedLoss", good)
    lost = state([rep(log=[A], hw=1), rep(log=[A, B])], ghost=(2, 0, ((0, 0), (1, 1))))
    assert not holds(SPEC, "NoCommittedLoss", lost)
    prop = props_of(SPEC, "NoCommittedLoss")[0]
    assert "record m1 was committed at offset 1" in prop.explain(lost)
    replaced = state([rep(log=[A, C], hw=2), rep()], ghost=(3, 0, ((0, 0), (1, 1))))
    assert not holds(SPEC, "NoCommittedLoss", replaced)


def test_no_divergence_only_below_both_hws():
    assert holds(SPEC, "NoDivergence", state([rep(log=[A, B], hw=2), rep(log=[A, C], hw=1)]))
    diverged = state([rep(log=[A, B], hw=2), rep(log=[A, C], hw=2)])
    assert not holds(SPEC, "NoDivergence", diverged)
    assert "offset 1" in props_of(SPEC, "NoDivergence")[0].explain(diverged)


def test_weak_and_strong_isr():
    ok = state([rep(log=[A, B], hw=2, view=LEAD0, remote=(-1, 2)), rep(log=[A, B], view=FOLLOW0)])
    assert holds(SPEC, "WeakIsr", ok) and holds(SPEC, "StrongIsr", ok)
    # leader's cached ISR is {0}; the controller's ISR still has 1, which lacks m1
    cached_small = state(
        [rep(log=[A, B], hw=2, view=(0, 0, (0,)), remote=(-1, 1)), rep(log=[A], view=FOLLOW0)],
        controller=(0, 0, (0, 1)),
    )
    assert holds(SPEC, "WeakIsr", cached_small)
    assert not holds(SPEC, "StrongIsr", cached_small)
    both = state([rep(log=[A, B], hw=2, view=LEAD0, remote=(-1, 1)), rep(log=[A], view=FOLLOW0)])
    assert not holds(SPEC, "WeakIsr", both) and not holds(SPEC, "StrongIsr", both)
    # a replica that does not presume leadership constrains nothing
    assert holds(SPEC, "StrongIsr", state([rep(log=[A, B], hw=2), rep(log=[])]))


def test_epoch_monotonic_is_a_transition_property():
    prop = props_of(SPEC, "EpochMonotonic")[0]
    before = state([rep(log=[C], view=(0, 1, (0, 1))), rep(view=(0, 1, (0, 1)))])
    went_back = state([rep(log=[C], view=(0, 0, (0, 1))), before[0][1]])
    assert not prop.predicate(before, None, went_back)
    assert "replica 0's leader epoch went back from 1 to 0" in prop.explain(before, None, went_back)
    crashed = state([rep(log=[C], alive=False), before[0][1]])
    assert prop.predicate(before, None, crashed)
    controller_back = state(before[0], controller=(-1, None, (0, 1)))
    assert not prop.predicate(before, None, controller_back)
    for after in (went_back, crashed, controller_back, before):
        assert prop.prepare(before)(None, after) == prop.predicate(before, None, after)


def test_record_epochs_monotonic():
    assert holds(SPEC, "RecordEpochsMonotonic", state([rep(log=[A, C]), rep()]))
    backwards = state([rep(log=[C, B]), rep()])
    assert not holds(SPEC, "RecordEpochsMonotonic", backwards)
    explain = props_of(SPEC, "RecordEpochsMonotonic")[0].explain(backwards)
    assert "epoch 1 at offset 0 followed by epoch 0" in explain
