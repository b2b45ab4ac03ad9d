"""KIP-966 (issue 14): strict min ISR, the ELR, fencing after an unclean shutdown, the
election order and unclean recovery; one mechanism at a time on hand-built states, then the
verdict of every combination of the two switches, and counts.

Records are ``(id, epoch)``; offsets 0-based; LEO and HW exclusive. With the ``elr``
mechanism the controller is ``(epoch, leader, isr, elr)``.
"""

from __future__ import annotations

import pytest
from conftest import check, kafka, props_of
from reference import enumerate_states
from test_actions import FOLLOWER, LEADER, moves, rep, state
from test_mechanisms import durable

from checker import search
from checker.limits import NO_LIMITS
from checker.search.bfs import explore
from spec.kafka.state import controller_after
from spec.kafka.symmetry import permute

KIP966 = {"truncation": "kip966", "min_isr": 2}


def elr_state(replicas, controller, requests=None):
    return state(replicas, controller=controller, requests=requests)


# -- strict min ISR ---------------------------------------------------------------------------
def test_strict_min_isr_holds_the_hw_while_the_isr_is_below_min_isr():
    """Leader 0 holds m0 that follower 1 never fetched; dropping 1 leaves ISR {0}: the HW
    jumps to 1 in kip320 but stays at 0 with strict min ISR (min.insync.replicas 2)."""
    s = state([rep(log=[(0, 0)], view=LEADER, remote=(-1, 0)), rep(view=FOLLOWER)])
    loose = moves(kafka(replicas=2, min_isr=2), s, "ShrinkIsr")["ShrinkIsr(leader=0, follower=1)"]
    assert loose[0][0][1] == 1
    strict = moves(
        kafka(replicas=2, min_isr=2, with_mechanisms=("strict-min-isr",)), s, "ShrinkIsr"
    )["ShrinkIsr(leader=0, follower=1)"]
    assert strict[0][0][1] == 0
    assert strict[3][2] == ()  # nothing committed


# -- the ELR ----------------------------------------------------------------------------------
def test_members_dropped_below_min_isr_join_the_elr_and_leave_it_on_return():
    assert controller_after((0, 0, (0, 1, 2), ()), 1, 0, (0, 1), 2) == (1, 0, (0, 1), ())
    assert controller_after((1, 0, (0, 1), ()), 2, 0, (0,), 2) == (2, 0, (0,), (1,))
    assert controller_after((2, 0, (0,), (1, 2)), 2, 0, (0, 2), 2) == (2, 0, (0, 2), ())
    assert controller_after((2, 0, (0,), (1, 2)), 3, 1, (1,), 3) == (3, 1, (1,), (0, 2))
    assert controller_after((0, 0, (0, 1)), 1, 0, (0,), 2) == (1, 0, (0,))  # no elr field


def test_the_controller_shrink_below_min_isr_puts_the_crashed_member_in_the_elr():
    s = elr_state(
        [
            rep(log=[(0, 0)], hw=1, view=LEADER, remote=(-1, 1)),
            rep(log=[(0, 0)], hw=1, alive=False),
        ],
        (0, 0, (0, 1), ()),
    )
    after = moves(kafka(replicas=2, **KIP966), s, "ControllerShrinkIsr")
    assert after["ControllerShrinkIsr(replica=1)"][1] == (1, 0, (0,), (1,))


def test_elect_takes_a_live_elr_member_only_when_no_isr_member_is_live():
    """Election order (Kafka 4.x operations guide): a live ISR member, else a live ELR member.
    The crashed last ISR member then joins the ELR (the new ISR is below min ISR)."""
    spec = kafka(replicas=3, max_epoch=2, **KIP966)
    down = rep(log=[(0, 0)], hw=1, alive=False)
    up = rep(log=[(0, 0)], hw=1)
    s = elr_state([down, up, rep()], (0, 0, (0,), (1,)), ((0, 0, (0,)),))
    assert list(moves(spec, s, "Elect")) == ["Elect(leader=1)"]  # 2 is in neither
    assert moves(spec, s, "Elect")["Elect(leader=1)"][1:3] == (
        (1, 1, (1,), (0,)),
        ((0, 0, (0,)), (1, 1, (1,))),
    )
    isr_live = elr_state([down, up, rep()], (0, 0, (0, 2), (1,)), ((0, 0, (0, 2)),))
    assert list(moves(spec, isr_live, "Elect")) == ["Elect(leader=2)"]
    without_elr = kafka(replicas=3, max_epoch=2, truncation="kip320", min_isr=2)
    assert (
        moves(without_elr, state([down, up, rep()], (0, 0, (0,)), ((0, 0, (0,)),)), "Elect") == {}
    )


def test_an_unclean_shutdown_fences_the_replica_out_of_isr_and_elr():
    spec = kafka(replicas=2, max_unclean_shutdowns=1, **KIP966)
    s = durable(
        elr_state(
            [
                rep(log=[(0, 0)], hw=1, view=(0, 0, (0, 1)), remote=(-1, 1)),
                rep(log=[(0, 0)], hw=1, view=FOLLOWER),
            ],
            (0, 0, (0, 1), ()),
        ),
        (0, 0),
    )
    after = moves(spec, s, "UncleanShutdown")
    leader_gone = after["UncleanShutdown(replica=0)"]
    assert leader_gone[1] == (0, None, (1,), ())  # no leader, no new epoch
    assert leader_gone[2] == ((0, None, (1,)),)  # the latest LeaderAndIsr rewritten
    follower_gone = after["UncleanShutdown(replica=1)"]
    assert follower_gone[1] == (0, 0, (0,), ())  # not put in the ELR
    assert follower_gone[2] == ((0, 0, (0,)),)
    assert follower_gone[0][0][3:] == ((0, 0, (0,)), (-1, -1))  # the leader's view and LEOs


def test_a_leader_that_learned_of_the_fencing_cannot_add_the_fenced_replica_back():
    """Regression (3 replicas, min ISR 2, found by search at 15 states): leader 0 still listed
    1 in its own ISR after the controller fenced 1, so adding 2 wrote {0, 1, 2} back and 1,
    with an empty log, won the next election. The leader's view now follows the controller."""
    spec = kafka(replicas=3, max_unclean_shutdowns=1, **KIP966)
    s = durable(
        elr_state(
            [
                rep(log=[(0, 0)], hw=1, view=(0, 0, (0, 1)), remote=(-1, 1, 1)),
                rep(log=[(0, 0)], view=(0, 0, (0, 1))),
                rep(log=[(0, 0)], hw=1, view=(0, 0, (0, 1))),
            ],
            (0, 0, (0, 1), ()),
            ((0, 0, (0, 1)),),
        ),
        (0, 0, 0),
    )
    fenced = moves(spec, s, "UncleanShutdown")["UncleanShutdown(replica=1)"]
    assert fenced[0][0][3] == (0, 0, (0,))
    expanded = moves(spec, fenced, "ExpandIsr")["ExpandIsr(leader=0, follower=2)"]
    assert expanded[1] == (0, 0, (0, 2), ())


def test_without_elr_an_unclean_shutdown_changes_nothing_on_the_controller():
    spec = kafka(replicas=2, max_unclean_shutdowns=1, min_isr=2)
    s = durable(
        state(
            [
                rep(log=[(0, 0)], hw=1, view=LEADER, remote=(-1, 1)),
                rep(log=[(0, 0)], hw=1, view=FOLLOWER),
            ]
        ),
        (0, 0),
    )
    gone = moves(spec, s, "UncleanShutdown")["UncleanShutdown(replica=1)"]
    assert gone[1:3] == s[1:3]
    assert gone[0][0][4] == (-1, 1)  # kip320 (2.1 to 2.7), before KIP-903: the LEO is kept
    epochs = kafka(
        replicas=2, max_unclean_shutdowns=1, min_isr=2, with_mechanisms=("broker-epoch",)
    )
    gone = moves(epochs, s, "UncleanShutdown")["UncleanShutdown(replica=1)"]
    assert gone[0][0][4] == (-1, -1)  # KIP-903's broker epoch: the leader forgets 1's LEO


def test_unclean_recovery_elects_the_longest_log_and_replaces_unclean_election():
    spec = kafka(replicas=3, max_epoch=2, unclean_election=True, **KIP966)
    s = elr_state(
        [rep(log=[(0, 0)], hw=1, alive=False), rep(log=[(0, 0)]), rep()],
        (0, 0, (0,), ()),
        ((0, 0, (0,)),),
    )
    assert list(moves(spec, s, "UncleanRecovery")) == ["UncleanRecovery(leader=1)"]
    assert moves(spec, s, "UncleanElect") == {}
    old = kafka(replicas=3, max_epoch=2, unclean_election=True, min_isr=2)
    assert sorted(moves(old, state(s[0], (0, 0, (0,)), s[2]), "UncleanElect")) == [
        "UncleanElect(leader=1)",
        "UncleanElect(leader=2)",
    ]


def test_symmetry_renames_the_elr():
    s = elr_state([rep(), rep(), rep()], (1, 0, (0,), (1, 2)), ((0, 0, (0, 1, 2)),))
    assert permute(s, (2, 0, 1))[1] == (1, 2, (2,), (0, 1))


# -- verdicts: each switch is needed ----------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "loss"),
    [
        ({"truncation": "kip320"}, 6),
        ({"truncation": "kip966", "without_mechanisms": ("elr",)}, 8),
        ({"truncation": "kip966", "without_mechanisms": ("strict-min-isr",)}, 6),
        ({"truncation": "kip966"}, None),
    ],
)
def test_last_replica_standing_needs_both_kip966_mechanisms(variant, loss):
    """2 replicas, 1 record, epoch 2, 1 crash, 1 unclean shutdown, min.insync.replicas 2.
    kip320: the leader, alone in the ISR, commits m0 and loses it in a power loss (6 states).
    Strict min ISR alone: m0 is committed on both, the leader loses it and leads again with
    an empty log (8). ELR alone: as kip320, and the fenced leader leaves no copy (6).
    Both: holds."""
    spec = kafka(
        replicas=2, max_records=1, max_epoch=2, min_isr=2, max_unclean_shutdowns=1, **variant
    )
    result = check(spec, "NoCommittedLoss")
    assert [v.length for v in result.violations] == ([] if loss is None else [loss])


def test_kip966_tolerates_no_unclean_shutdown_at_min_isr_1():
    """KIP-966 promises MinISR-1 tolerance: with min.insync.replicas 1 a power loss of the
    last ISR member still loses a committed record (the partition is left with no leader
    and no copy: 6 states)."""
    spec = kafka(
        replicas=2, max_records=1, max_crashes=0, max_unclean_shutdowns=1, truncation="kip966"
    )
    assert [v.length for v in check(spec, "NoCommittedLoss").violations] == [6]


# -- counts -----------------------------------------------------------------------------------
def test_kip966_counts_match_an_independent_count_and_are_symmetric():
    spec = kafka(replicas=2, max_unclean_shutdowns=1, **KIP966)
    assert enumerate_states(spec)[0] == 101_784
    # the engine on the compiled core (proven equal to the reference by tests/test_compiled.py);
    # the naive enumerator above is the independent side
    for symmetry, count in ((False, 101_784), (True, 50_893)):
        result = search.explore(spec, props_of(spec), NO_LIMITS, None, symmetry, workers=2)
        assert result.stats.core == "compiled", result.stats.core
        assert result.stats.distinct == count


def test_kip966_adds_no_state_when_nothing_drops_below_min_isr():
    """At min.insync.replicas 1 with durable logs no ISR falls below min ISR and nothing is
    fenced: kip966 reaches exactly kip320's 3,360 states (its live-isr adds nothing at 2
    replicas: the state a crashed follower's ExpandIsr reaches is also reached by its crash
    inside the ISR)."""
    assert (
        explore(kafka(replicas=2, truncation="kip966"), [], symmetry=False).stats.distinct
        == explore(kafka(replicas=2), [], symmetry=False).stats.distinct
        == 3_360
    )
