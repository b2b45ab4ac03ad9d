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
from checker.model import Label
from checker.search.reference.bfs import explore
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
    after = controller_after((0, 0, (0, 1, 2), (), None), 1, 0, (0, 1), 2)
    assert after == (1, 0, (0, 1), (), None)
    assert controller_after((1, 0, (0, 1), (), None), 2, 0, (0,), 2) == (2, 0, (0,), (1,), None)
    after = controller_after((2, 0, (0,), (1, 2), None), 2, 0, (0, 2), 2)
    assert after == (2, 0, (0, 2), (), None)
    after = controller_after((2, 0, (0,), (1, 2), None), 3, 1, (1,), 3)
    assert after == (3, 1, (1,), (0, 2), None)
    assert controller_after((0, 0, (0, 1)), 1, 0, (0,), 2) == (1, 0, (0,))  # no elr field


def test_the_last_known_leader_is_the_last_isr_member_until_a_leader_is_named():
    """KIP-966 in Kafka 4.1 (``maybeUpdateLastKnownLeader``): the ISR empties, its last member
    is remembered; decisions without a leader keep it; naming any leader clears it."""
    emptied = controller_after((1, 0, (0,), (1,), None), 2, None, (), 2)
    assert emptied == (2, None, (), (0, 1), 0)
    assert controller_after(emptied, 3, None, (), 2) == (3, None, (), (0, 1), 0)
    assert controller_after(emptied, 3, 1, (1,), 2) == (3, 1, (1,), (0,), None)


def test_the_controller_shrink_below_min_isr_puts_the_crashed_member_in_the_elr():
    s = elr_state(
        [
            rep(log=[(0, 0)], hw=1, view=LEADER, remote=(-1, 1)),
            rep(log=[(0, 0)], hw=1, alive=False),
        ],
        (0, 0, (0, 1), ()),
    )
    after = moves(kafka(replicas=2, **KIP966), s, "ControllerShrinkIsr")
    assert after["ControllerShrinkIsr(replica=1)"][1] == (1, 0, (0,), (1,), None)


def test_elect_takes_a_live_elr_member_only_when_no_isr_member_is_live():
    """Election order (Kafka 4.x operations guide): a live ISR member, else a live ELR member.
    The crashed last ISR member then joins the ELR (the new ISR is below min ISR)."""
    spec = kafka(replicas=3, max_epoch=2, **KIP966)
    down = rep(log=[(0, 0)], hw=1, alive=False)
    up = rep(log=[(0, 0)], hw=1)
    s = elr_state([down, up, rep()], (0, 0, (0,), (1,), None), ((0, 0, (0,)),))
    assert list(moves(spec, s, "Elect")) == ["Elect(leader=1)"]  # 2 is in neither
    assert moves(spec, s, "Elect")["Elect(leader=1)"][1:3] == (
        (1, 1, (1,), (0,), None),
        ((0, 0, (0,)), (1, 1, (1,))),
    )
    isr_live = elr_state([down, up, rep()], (0, 0, (0, 2), (1,), None), ((0, 0, (0, 2)),))
    assert list(moves(spec, isr_live, "Elect")) == ["Elect(leader=2)"]
    without_elr = kafka(replicas=3, max_epoch=2, truncation="kip320", min_isr=2)
    assert (
        moves(without_elr, state([down, up, rep()], (0, 0, (0,)), ((0, 0, (0,)),)), "Elect") == {}
    )


def test_a_power_loss_is_fenced_as_a_crash_and_leaves_isr_and_elr_on_restart():
    """The controller learns of a power loss as of a crash (the broker's session lapses);
    the broker leaves ISR and ELR when it registers again (Kafka 4.1.0: ``conform``'s
    ``power_loss`` showed the ELR keeping the replica until then)."""
    spec = kafka(replicas=2, max_unclean_shutdowns=1, **KIP966)
    s = durable(
        elr_state(
            [
                rep(log=[(0, 0)], hw=1, view=(0, 0, (0, 1)), remote=(-1, 1)),
                rep(log=[(0, 0)], hw=1, view=FOLLOWER),
            ],
            (0, 0, (0, 1), (), None),
        ),
        (0, 0),
    )
    after = moves(spec, s, "UncleanShutdown")
    leader_gone = after["UncleanShutdown(replica=0)"]
    assert leader_gone[1:3] == s[1:3]  # the controller has not noticed
    follower_gone = after["UncleanShutdown(replica=1)"]
    assert follower_gone[1:3] == s[1:3]
    assert follower_gone[0][0][4] == (-1, -1)  # KIP-903: the leader forgets 1's LEO
    back = moves(spec, follower_gone, "Restart")["Restart(replica=1)"]
    assert back[1] == (0, 0, (0,), (), None)  # out of the ISR, not put in the ELR
    assert back[2] == ((0, 0, (0,)),)  # the latest LeaderAndIsr rewritten
    assert back[0][0][3] == (0, 0, (0,))  # the leader's view follows


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
            (0, 0, (0, 1), (), None),
            ((0, 0, (0, 1)),),
        ),
        (0, 0, 0),
    )
    down = moves(spec, s, "UncleanShutdown")["UncleanShutdown(replica=1)"]
    fenced = moves(spec, down, "Restart")["Restart(replica=1)"]
    assert fenced[0][0][3] == (0, 0, (0,))
    expanded = moves(spec, fenced, "ExpandIsr")["ExpandIsr(leader=0, follower=2)"]
    assert expanded[1] == (0, 0, (0, 2), (), None)


def test_a_restart_after_a_crash_takes_the_broker_out_of_isr_and_elr():
    """Kafka 4.1 with ELR: a killed broker registers again without a clean shutdown's broker
    epoch (``ClusterControlManager.registerBroker``), and the controller takes it out of ISR
    and ELR in the same epoch (``handleBrokerShutdown``); seen on real brokers (seed 1028)."""
    spec = kafka(replicas=3, max_epoch=2, **KIP966)
    s = elr_state(
        [
            rep(log=[(0, 0)], hw=1, view=(0, 0, (0, 1)), remote=(-1, 1, 1)),
            rep(log=[(0, 0)], hw=1, alive=False),
            rep(log=[(0, 0)], hw=1, alive=False),
        ],
        (0, 0, (0, 1), (2,), None),
        ((0, 0, (0, 1)),),
    )
    after = moves(spec, s, "Restart")
    assert after["Restart(replica=1)"][1] == (0, 0, (0,), (2,), None)
    assert after["Restart(replica=1)"][0][0][3] == (0, 0, (0,))  # the leader's view follows
    assert after["Restart(replica=2)"][1] == (0, 0, (0, 1), (), None)
    assert after["Restart(replica=2)"][2] == s[2]
    without_elr = kafka(replicas=3, max_epoch=2, truncation="kip320", min_isr=2)
    plain = state(s[0], (0, 0, (0, 1)), s[2])
    assert moves(without_elr, plain, "Restart")["Restart(replica=1)"][1] == (0, 0, (0, 1))


def test_the_last_known_leader_is_elected_once_isr_and_elr_are_empty():
    """Kafka 4.1's ``canElectLastKnownLeader`` (KAFKA-15584): with ISR and ELR empty the last
    known leader is elected once it is up (unfenced), whatever its log, without unclean
    election; while an ELR member is left, even a crashed one, it is not."""
    spec = kafka(replicas=2, max_epoch=2, **KIP966)
    s = elr_state(
        [rep(), rep(log=[(0, 0)], hw=1, alive=False)], (1, None, (), (), 0), ((0, 0, (0,)),)
    )
    assert moves(spec, s, "Elect")["Elect(leader=0)"][1] == (2, 0, (0,), (), None)
    waiting = elr_state(s[0], (1, None, (), (1,), 0), s[2])
    assert moves(spec, waiting, "Elect") == {}
    refusal = spec.why_disabled(waiting, Label.parse("Elect(leader=1)"))
    assert refusal is not None
    assert refusal.reason.endswith("replica 1 is not a live member of its ELR {1} (KIP-966)")


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
    s = elr_state([rep(), rep(), rep()], (1, 0, (0,), (1, 2), None), ((0, 0, (0, 1, 2)),))
    assert permute(s, (2, 0, 1))[1] == (1, 2, (2,), (0, 1), None)
    known = elr_state(s[0], (1, None, (), (), 1), s[2])
    assert permute(known, (2, 0, 1))[1] == (1, None, (), (), 0)


# -- verdicts: each switch is needed ----------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "loss"),
    [
        ({"truncation": "kip320"}, 6),
        ({"truncation": "kip966", "without_mechanisms": ("elr",)}, 10),
        ({"truncation": "kip966", "without_mechanisms": ("strict-min-isr",)}, 6),
        ({"truncation": "kip966"}, None),
    ],
)
def test_last_replica_standing_needs_both_kip966_mechanisms(variant, loss):
    """2 replicas, 1 record, epoch 2, no crash, 1 unclean shutdown, min.insync.replicas 2.
    kip320: the leader, alone in the ISR, commits m0 and loses it in a power loss (6 states).
    Strict min ISR alone: m0 is committed on both, the leader loses it and leads again with
    an empty log (10). ELR alone: as kip320, and the fenced leader leaves no copy (6).
    Both: holds."""
    spec = kafka(
        replicas=2,
        max_records=1,
        max_epoch=2,
        min_isr=2,
        max_crashes=0,
        max_unclean_shutdowns=1,
        **variant,
    )
    result = check(spec, "NoCommittedLoss")
    assert [v.length for v in result.violations] == ([] if loss is None else [loss])


def test_a_crash_and_a_power_loss_are_two_unclean_shutdowns_to_kip966():
    """As above with 1 crash: KIP-966 tolerates min ISR - 1 = 1 unclean shutdown, and to Kafka
    4.1 a killed broker's is one too. The leader crashes and the follower loses m0 in a power
    loss; the controller fences the leader, leaving the follower the ISR's last member, and
    both restart out of ISR and ELR; the follower, the last known leader, is elected with an
    empty log (13 states; Kafka 4.1's ``canElectLastKnownLeader``)."""
    spec = kafka(replicas=2, max_records=1, max_epoch=2, max_unclean_shutdowns=1, **KIP966)
    [violation] = check(spec, "NoCommittedLoss").violations
    actions = [str(step.label) for step in violation.trace[1:]]
    assert len(violation.trace) == 13
    assert [a.split("(")[0] for a in actions if a.startswith(("Crash", "Restart", "Unclean"))] == [
        "Crash",
        "UncleanShutdown",
        "Restart",
        "Restart",
    ]
    assert actions[-1].startswith("Elect(")
    at_epoch_1 = kafka(replicas=2, max_records=1, max_epoch=1, max_unclean_shutdowns=1, **KIP966)
    assert check(at_epoch_1, "NoCommittedLoss").violations == []  # the election needs epoch 2


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
    assert enumerate_states(spec)[0] == 81_632
    # the engine on the compiled core (proven equal to the reference by tests/test_compiled.py);
    # the naive enumerator above is the independent side
    for symmetry, count in ((False, 81_632), (True, 40_817)):
        result = search.explore(spec, props_of(spec), NO_LIMITS, None, symmetry, workers=2)
        assert result.stats.core == "compiled", result.stats.core
        assert result.stats.distinct == count


def test_kip966_adds_no_state_when_nothing_drops_below_min_isr():
    """At min.insync.replicas 1 with durable logs and no crash no ISR falls below min ISR and
    nothing is fenced: kip966 reaches exactly kip320's 727 states. With a crash it does not:
    the restart takes the broker out of the ISR (3,405 states against 3,360)."""
    for crashes, count in ((0, 727), (1, 3_360)):
        plain = kafka(replicas=2, max_crashes=crashes)
        assert explore(plain, [], symmetry=False).stats.distinct == count
    kip966 = kafka(replicas=2, max_crashes=0, truncation="kip966")
    assert explore(kip966, [], symmetry=False).stats.distinct == 727
    kip966 = kafka(replicas=2, truncation="kip966")
    assert explore(kip966, [], symmetry=False).stats.distinct == 3_405
