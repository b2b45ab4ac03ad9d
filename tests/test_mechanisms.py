"""Mechanisms as switches, unflushed data and acks (issue 14), one mechanism at a time on
hand-built states, then verdicts and counts.

Records are ``(id, epoch)``; offsets 0-based; LEO and HW exclusive. Replica 0 leads epoch 0
with ISR {0, 1} unless a test says otherwise.
"""

from __future__ import annotations

import pytest
from conftest import check, kafka, props_of
from reference import enumerate_states
from test_actions import FOLLOWER, LEADER, moves, rep, state

from checker import search
from checker.limits import NO_LIMITS
from spec.kafka import Config, ConfigError, KafkaSpec
from spec.kafka.variants import KIP_PRESETS, PRESETS, resolve, truncation_point


def durable(s, flushed, unclean=0):
    """``s`` with the fifth component of a model with unclean shutdowns."""
    return s + ((tuple(flushed), unclean),)


# -- presets and switches -------------------------------------------------------------------
def test_presets_are_fixed_combinations_of_mechanisms():
    assert {name: PRESETS[name].mechanisms for name in KIP_PRESETS} == {
        "hw": ("hw-truncation",),
        "kip101": ("leader-epoch-truncation",),
        "kip279": ("last-match-truncation",),
        "kip320": ("last-match-truncation", "fenced-lookup", "fenced-fetch", "fenced-expand"),
        "kip966": (
            "last-match-truncation",
            "fenced-lookup",
            "fenced-fetch",
            "fenced-expand",
            "live-isr",
            "broker-epoch",
            "strict-min-isr",
            "elr",
        ),
    }


def test_with_and_without_change_one_mechanism_and_name_the_change():
    assert resolve("kip320", (), ("fenced-fetch",)).name == "kip320 -fenced-fetch"
    assert resolve("kip101", ("last-match-truncation",)).name == "kip101 +last-match-truncation"
    assert (
        resolve("kip279", ("fenced-lookup", "fenced-fetch", "fenced-expand")).mechanisms
        == PRESETS["kip320"].mechanisms
    )
    assert resolve("kip320", (), ("fenced-fetch",)) == resolve("kip320", (), ("fenced-fetch",))
    assert resolve("hw", (), ("fenced-fetch",)) is PRESETS["hw"]  # nothing to remove


@pytest.mark.parametrize(
    ("enable", "disable", "message"),
    [
        (("fenced-fench",), (), "unknown mechanism 'fenced-fench'"),
        (("fenced-fetch",), ("fenced-fetch",), "fenced-fetch is both enabled and disabled"),
        ((), ("last-match-truncation",), "a variant needs one truncation rule"),
        (("hw-truncation", "last-match-truncation"), (), "one truncation rule per variant"),
    ],
)
def test_impossible_switches_are_config_errors(enable, disable, message):
    with pytest.raises(ConfigError, match=message) as caught:
        Config(with_mechanisms=enable, without_mechanisms=disable).validate()
    assert caught.value.option == "--with"


def test_fenced_lookup_waits_for_a_leader_in_the_request_epoch():
    """Leader 0 still presumes epoch 0; the follower applies the request of epoch 1."""
    replicas = (
        rep(log=[(0, 0)], view=LEADER, remote=(-1, -1)),
        rep(log=[(0, 0), (1, 0)], hw=1, view=FOLLOWER),
    )
    fenced, unfenced = PRESETS["kip320"], resolve("kip320", (), ("fenced-lookup",))
    assert truncation_point(fenced, replicas, 1, 0, 1) is None
    assert truncation_point(unfenced, replicas, 1, 0, 1) == 1  # after m0, the last match
    assert truncation_point(fenced, replicas, 1, 0, 0) == 1


def test_fenced_fetch_refuses_a_follower_of_another_epoch():
    s = state(
        [rep(log=[(0, 1)], view=(0, 1, (0, 1)), remote=(-1, -1)), rep(view=FOLLOWER)]
    )  # the follower is still in epoch 0
    assert moves(kafka(replicas=2), s, "Fetch") == {}
    unfenced = kafka(replicas=2, without_mechanisms=("fenced-fetch",))
    assert list(moves(unfenced, s, "Fetch")) == ["Fetch(follower=1, leader=0)"]


def test_fenced_expand_waits_for_the_hw_to_reach_the_epoch_start():
    """Leader 0 of epoch 1 has HW 0 below m0 of epoch 0; follower 1 fetched at offset 0."""
    s = state(
        [rep(log=[(0, 0)], view=(0, 1, (0,)), remote=(-1, 0)), rep(view=(0, 1, (0,)))],
        controller=(1, 0, (0,)),
        requests=((0, 0, (0, 1)), (1, 0, (0,))),
    )
    assert moves(kafka(replicas=2), s, "ExpandIsr") == {}
    unfenced = kafka(replicas=2, without_mechanisms=("fenced-expand",))
    assert list(moves(unfenced, s, "ExpandIsr")) == ["ExpandIsr(leader=0, follower=1)"]


# -- unflushed data -------------------------------------------------------------------------
def test_defaults_keep_four_component_states_and_todays_counts():
    """With every new option at its default (and spelled out) the model is today's: 3,360
    distinct states at 2 replicas (the kip320 golden count, test_golden.py)."""
    for spec in (
        kafka(replicas=2),
        kafka(replicas=2, max_unclean_shutdowns=0, flush="background", acks="all"),
    ):
        assert len(spec.init_states()[0]) == 4
        assert "Flush" not in spec.action_names()
        assert enumerate_states(spec)[0] == 3360


def test_flush_makes_the_tail_durable():
    spec = kafka(replicas=2, max_unclean_shutdowns=1)
    s = durable(
        state([rep(log=[(0, 0), (1, 0)], hw=1, view=LEADER, remote=(-1, -1)), rep(view=FOLLOWER)]),
        (1, 0),
    )
    found = moves(spec, s, "Flush")
    assert list(found) == ["Flush(replica=0)"]
    assert found["Flush(replica=0)"][4] == ((2, 0), 0)


def test_unclean_shutdown_keeps_only_the_flushed_log_and_bounds_the_hw():
    spec = kafka(replicas=2, max_unclean_shutdowns=1)
    s = durable(
        state(
            [
                rep(log=[(0, 0), (1, 0)], hw=2, view=LEADER, remote=(-1, 2)),
                rep(log=[(0, 0)], hw=1, view=FOLLOWER),
            ]
        ),
        (1, 0),
    )
    after = moves(spec, s, "UncleanShutdown")
    down = after["UncleanShutdown(replica=0)"]
    assert down[0][0] == (((0, 0),), 1, False, (None, -1, ()), ())
    assert down[4] == ((1, 0), 1)
    assert down[3] == s[3]  # not counted as a (clean) crash
    assert after["UncleanShutdown(replica=1)"][0][1][:2] == ((), 0)
    assert moves(spec, down, "UncleanShutdown") == {}  # --max-unclean-shutdowns 1


def test_flush_always_loses_nothing_and_truncation_lowers_the_flushed_offset():
    always = kafka(replicas=2, max_unclean_shutdowns=1, flush="always")
    s = durable(
        state([rep(log=[(0, 0)], hw=1, view=LEADER, remote=(-1, -1)), rep(view=FOLLOWER)]), ()
    )
    assert moves(always, s, "Flush") == {}
    assert moves(always, s, "UncleanShutdown")["UncleanShutdown(replica=0)"][0][0][0] == ((0, 0),)
    spec = kafka(replicas=2, max_unclean_shutdowns=1)
    # follower 1 holds m9 flushed, leader 0 is empty: OFFSET_OUT_OF_RANGE truncates it to 0
    s = durable(
        state([rep(view=LEADER, remote=(-1, -1)), rep(log=[(9, 0)], view=FOLLOWER)]), (0, 1)
    )
    assert moves(spec, s, "Fetch")["Fetch(follower=1, leader=0)"][4] == ((0, 0), 0)


def test_unclean_shutdown_counts_are_symmetric_and_match_an_independent_count():
    """The fifth component is renamed with the replicas: the engine without symmetry and the
    naive enumerator agree, and symmetry finds the orbits (half, bar the symmetric states)."""
    spec = kafka(replicas=2, max_unclean_shutdowns=1)
    assert enumerate_states(spec)[0] == 63_261
    # the engine on the compiled core (proven equal to the reference by tests/test_compiled.py);
    # the naive enumerator above is the independent side
    for symmetry, count in ((False, 63_261), (True, 31_633)):
        result = search.explore(spec, props_of(spec), NO_LIMITS, None, symmetry, workers=2)
        assert result.stats.core == "compiled", result.stats.core
        assert result.stats.distinct == count


# -- acks -----------------------------------------------------------------------------------
def test_acks_1_takes_writes_below_min_isr():
    s = state([rep(view=(0, 0, (0,)), remote=(-1, -1)), rep(view=FOLLOWER)])
    assert moves(kafka(replicas=2, min_isr=2), s, "Produce") == {}
    assert list(moves(kafka(replicas=2, min_isr=2, acks="1"), s, "Produce")) == [
        "Produce(leader=0)"
    ]


def test_acked_writes_are_every_append_with_acks_1_and_the_committed_with_acks_all():
    s = state(
        [
            rep(log=[(0, 0), (1, 0)], hw=1, view=LEADER, remote=(-1, 1)),
            rep(log=[(0, 0)], view=FOLLOWER),
        ],
        ghost=(2, 0, ((0, 0),)),
    )
    assert kafka(replicas=2).acked(s) == (0,)
    assert kafka(replicas=2, acks="1").acked(s) == (0, 1)


def test_no_acked_loss_fails_with_acks_1_and_holds_with_acks_all():
    """Hand count of the shortest loss: elect 0, it becomes leader, takes m0 and acknowledges
    it at once, then the controller elects 1 (a preferred-leader election): 5 states."""
    lost = check(kafka(replicas=2, acks="1"), "NoAckedLoss")
    assert [v.length for v in lost.violations] == [5]
    assert check(kafka(replicas=2), "NoAckedLoss").violations == []


def test_config_dict_round_trips_through_reports():
    config = Config(
        replicas=2, truncation="kip320", without_mechanisms=("fenced-fetch",), acks="1"
    ).validate()
    again = Config(
        **{k: tuple(v) if isinstance(v, list) else v for k, v in config.to_dict().items()}
    ).validate()
    assert again == config
    assert KafkaSpec(again).variant_name == "kip320 -fenced-fetch"
