"""Truncation on the fetch response (issue 39): the epoch-cache lookups, the fetch rules on
hand-built states, the historical orderings (KAFKA-13141, KAFKA-14704, KAFKA-15510), the
release presets and their verdicts at 2 replicas.

Records are ``(id, epoch)``; offsets 0-based; LEO and HW exclusive. The hand-built states
follow the KAFKA-14704 ticket's picture: replica 1 leads epoch 1 holding m1 (epoch 1) at
offset 0, committed (ISR {1}, HW 1); replica 0, the old leader of epoch 0, follows it and
still holds its own uncommitted m0 (epoch 0) at offset 0.
"""

from __future__ import annotations

import marshal
import re
from itertools import pairwise, permutations

import pytest
from conftest import kafka, props_of
from reference import reachable
from test_actions import moves, rep, state

from checker.search.reference.bfs import explore
from spec.kafka import Config
from spec.kafka.diverging import (
    EPOCH_CLEARED,
    FRESH,
    end_offset_for,
    epoch_cache,
    leader_answer,
    truncation_offset,
)
from spec.kafka.releases import RELEASES
from spec.kafka.variants import PRESETS, SWITCHES

M0, M1, M2 = (0, 0), (1, 1), (2, 1)


# -- the epoch cache (LeaderEpochFileCache) -------------------------------------------------
def test_the_cache_starts_each_epoch_at_its_first_record():
    assert epoch_cache(()) == []
    assert epoch_cache(((0, 0), (1, 0), (2, 2), (3, 2), (4, 3))) == [(0, 0), (2, 2), (3, 4)]


def test_end_offset_for_follows_leader_epoch_file_cache():
    cache = [(0, 0), (2, 2), (3, 4)]
    assert end_offset_for(cache, 3, 5) == (3, 5)  # the latest epoch ends at the LEO
    assert end_offset_for(cache, 0, 5) == (0, 2)  # ends where the next epoch starts
    assert end_offset_for(cache, 1, 5) == (0, 2)  # unknown epoch: the floor epoch's end
    assert end_offset_for([(2, 3)], 1, 5) == (1, 3)  # below every epoch: the first start
    assert end_offset_for(cache, 4, 5) is None  # above every epoch: UNDEFINED
    assert end_offset_for([], 0, 0) is None


def test_the_leader_answers_a_diverging_epoch_only_where_the_logs_part():
    # leader 1 (epoch 1) holds m1/1 at 0; its cache is {1: 0}
    assert leader_answer((M1,), 1, 1, 0) == (0, 0)  # the follower's epoch 0 ends at 0 there
    assert leader_answer((M1,), 1, 1, 1) is False  # same last epoch, at its end: read
    assert leader_answer((M1,), 1, 0, None) is False  # an empty follower reads from 0
    assert leader_answer((M1,), 1, 3, None) is None  # no epoch and past the LEO
    assert leader_answer((M1,), 1, 1, 2) is None  # an epoch the leader never had
    # a new leader that wrote nothing yet still has its own epoch in its cache
    assert leader_answer((M0,), 2, 1, 0) is False
    assert leader_answer((M0,), 2, 2, 0) == (0, 1)


def test_the_follower_truncates_to_its_own_end_of_the_leaders_epoch():
    log = (M0, (1, 0), (2, 2))
    assert truncation_offset(log, 0, 1) == 1  # it has epoch 0: min(its end 2, 1)
    assert truncation_offset(log, 1, 2) == 2  # epoch 1 unknown here: its floor 0 ends at 2
    assert truncation_offset(log, 3, 5) == 3  # nothing above: the end, clamped to the LEO
    assert truncation_offset((M1,), 0, 0) == 0  # below its first epoch


# -- the fetch rules -------------------------------------------------------------------------
FOLLOWS_1 = (1, 1, (1,))
LEADS_1 = (1, 1, (1,))
TICKET = state(
    [
        rep(log=[M0], hw=0, view=FOLLOWS_1),
        rep(log=[M1], hw=1, view=LEADS_1, remote=(-1, 1)),
    ],
    controller=(1, 1, (1,)),
    requests=((0, 0, (0, 1)), (1, 1, (1,))),
    ghost=(2, 0, ((0, 1),)),
)
"""KAFKA-14704's picture: 0 holds its uncommitted m0; 1 leads epoch 1 with m1 committed."""


def with_fetcher(s, values):
    return s + (tuple(values),)


def release(name, **bounds):
    return kafka(replicas=2, truncation=name, **bounds)


def test_a_diverging_fetch_truncates_and_leaves_the_leader_alone():
    after = moves(release("kafka-3.5"), TICKET, "Fetch")["Fetch(follower=0, leader=1)"]
    assert after[0][0] == ((), 0, True, FOLLOWS_1, ())  # truncated, no records, HW 0
    assert after[0][1] == TICKET[0][1]  # KAFKA-13141: the leader's remote LEO is untouched
    again = moves(release("kafka-3.5"), after, "Fetch")["Fetch(follower=0, leader=1)"]
    assert again[0][0][:2] == ((M1,), 1)  # the next fetch reads m1 and the HW


def test_kafka_13141_a_diverging_fetch_moves_the_leaders_record_of_the_follower():
    shared = state(
        [
            rep(log=[M0], hw=0, view=(1, 1, (0, 1))),
            rep(log=[M1], hw=0, view=(1, 1, (0, 1)), remote=(-1, -1)),
        ],
        controller=(1, 1, (0, 1)),
        requests=((0, 0, (0, 1)), (1, 1, (0, 1))),
        ghost=(2, 0, ()),
    )
    buggy = moves(release("kafka-2.8"), with_fetcher(shared, (None, None)), "Fetch")
    after = buggy["Fetch(follower=0, leader=1)"]
    assert after[0][1][4] == (1, -1) and after[0][1][1] == 1  # remote LEO 1, HW 1
    assert after[3][2] == ((0, 1),)  # m1 committed though 0 holds m0 at offset 0
    fixed = moves(release("kafka-3.0"), with_fetcher(shared, (None, None)), "Fetch")
    assert fixed["Fetch(follower=0, leader=1)"][0][1] == shared[0][1]


def test_kafka_14704_the_hw_comes_first_and_the_truncation_is_a_step_of_its_own():
    spec = release("kafka-3.0")
    after = moves(spec, with_fetcher(TICKET, (None, None)), "Fetch")["Fetch(follower=0, leader=1)"]
    assert after[0][0][:2] == ((M0,), 1)  # HW 1 covers m0, which was never committed
    assert after[-1] == (0, None)  # the truncation to 0 is still to come
    assert moves(spec, after, "Fetch") == {}  # no fetch before it
    done = moves(spec, after, "TruncateOnFetchResponse")["TruncateOnFetchResponse(follower=0)"]
    assert done[0][0][:2] == ((), 0) and done[-1] == (None, None)
    crashed = moves(spec, after, "Crash")["Crash(replica=0)"]
    assert crashed[-1] == (None, None)  # a crash drops the pending truncation


def test_kafka_15510_an_empty_response_to_a_new_fetch_state_clears_the_epoch():
    spec = release("kafka-3.6")
    caught_up = state(
        [rep(log=[M1], hw=1, view=FOLLOWS_1), rep(log=[M1], hw=1, view=LEADS_1, remote=(1, 1))],
        controller=(1, 1, (0, 1)),
        requests=((0, 0, (0, 1)), (1, 1, (0, 1))),
        ghost=(2, 0, ((0, 1),)),
    )
    fresh = moves(spec, with_fetcher(caught_up, (FRESH, None)), "Fetch")
    assert fresh["Fetch(follower=0, leader=1)"][-1] == (EPOCH_CLEARED, None)
    known = moves(spec, with_fetcher(caught_up, (None, None)), "Fetch")
    assert known["Fetch(follower=0, leader=1)"][-1] == (None, None)  # only a new state's lag
    # a cleared follower's fetch carries no epoch, so a diverged log is not caught: it reads
    # nothing past its LEO and takes the HW over its own m0 (were such a state reachable)
    cleared = with_fetcher(TICKET, (EPOCH_CLEARED, None))
    read = moves(spec, cleared, "Fetch")["Fetch(follower=0, leader=1)"]
    assert read[0][0][:2] == ((M0,), 1)
    became = moves(spec, with_fetcher(TICKET, (None, None)), "BecomeFollower")
    assert all(s[-1][0] in (FRESH, None) for s in became.values())


def test_become_follower_truncates_nothing_under_truncation_on_fetch():
    s = state(
        [rep(log=[M0], hw=0, view=(0, 0, (0, 1))), rep(log=[M1], hw=0, view=LEADS_1)],
        controller=(1, 1, (0, 1)),
        requests=((0, 0, (0, 1)), (1, 1, (0, 1))),
        ghost=(2, 0, ()),
    )
    after = moves(release("kafka-3.7"), s, "BecomeFollower")["BecomeFollower(replica=0, epoch=1)"]
    assert after[0][0][0] == (M0,)  # kept: the first fetch will say where it diverges
    kip320 = moves(release("kafka-2.1"), s, "BecomeFollower")["BecomeFollower(replica=0, epoch=1)"]
    assert kip320[0][0][0] == ()  # KIP-279's lookup against leader 1 truncates at once


# -- presets, versions, symmetry -------------------------------------------------------------
def test_each_mechanism_a_release_changes_is_cited_by_that_release():
    """The release table (``spec.kafka.releases``) is the one place that says which release
    runs which mechanism; read against the mechanisms' own texts (``SWITCHES``), every
    switch a release turns on or off relative to the release before names, in that
    release's source or description, a KIP or ticket its text cites, and every release
    that changes the truncation rule cites that rule's KIP or tickets."""
    cited = re.compile(r"\b(?:KIP|KAFKA)-\d+")
    rule_tickets = {
        "leader-epoch-truncation": {"KIP-101"},
        "last-match-truncation": {"KIP-279"},
        "diverging-epoch-truncation": {"KAFKA-10554"},  # truncation on the fetch response
    }
    uncited = []
    for before, after in pairwise(RELEASES):
        says = set(cited.findall(after.source + " " + after.description))
        for switch in sorted(set(before.switches) ^ set(after.switches)):
            if not set(cited.findall(SWITCHES[switch])) & says:
                uncited.append((after.name, switch))
        if before.rule != after.rule and not rule_tickets[after.rule] & says:
            uncited.append((after.name, after.rule))
    assert uncited == []
    assert [PRESETS[r.name].mechanisms[0] for r in RELEASES] == [r.rule for r in RELEASES]
    assert RELEASES[0].rule == "hw-truncation" and not RELEASES[0].switches


@pytest.mark.parametrize(
    ("asked", "preset"),
    [
        ("kafka-2.7", "kafka-2.1"),  # 2.7's followers never send a last fetched epoch
        ("kafka-2.8.1", "kafka-3.0"),  # KAFKA-13141 fixed in 2.8.1
        ("kafka-3.4.1", "kafka-3.4.1"),  # KAFKA-14704 fixed in 3.4.1, before KIP-903
        ("kafka-3.5.1", "kafka-3.5.1"),  # KAFKA-15510's regression reached 3.5.1
        ("kafka-3.6.1", "kafka-3.6"),  # KAFKA-15021: no new epoch on an ISR shrink
        ("kafka-3.9", "kafka-3.7"),
        ("epoch", "kip320"),
    ],
)
def test_a_kafka_version_names_the_release_preset_that_models_it(asked, preset):
    assert Config(truncation=asked).validate().truncation == preset


def test_orbits_with_a_pending_truncation_are_the_naive_enumerations_classes():
    spec = kafka(
        replicas=3,
        truncation="kafka-2.8",
        with_mechanisms=("empty-clears-epoch",),
        max_records=1,
        max_epoch=1,
        max_crashes=0,
    )
    seen, _ = reachable(spec)
    orbits = {
        min(marshal.dumps(spec.permute(s, perm), 2) for perm in permutations(range(3)))
        for s in seen
    }
    assert explore(spec, [], symmetry=False).stats.distinct == len(seen)
    assert explore(spec, [], symmetry=True).stats.distinct == len(orbits) < len(seen)


# -- verdicts at 2 replicas ------------------------------------------------------------------
def test_the_history_at_two_replicas():
    """kafka-2.8 loses m0 (KAFKA-13141) and exposes an uncommitted record (KAFKA-14704),
    kafka-3.0 only the latter, kafka-3.5 neither (2 replicas, 2 records, epoch 2, 1 crash:
    the counterexamples are 10 states, the ticket's picture above reached from the start)."""
    lengths = {}
    for name in ("kafka-2.8", "kafka-3.0", "kafka-3.5", "kafka-3.6"):
        spec = release(name, max_epoch=2)
        props = props_of(spec, "NoCommittedLoss", "NoUncommittedRead")
        result = explore(spec, props, symmetry=True)
        lengths[name] = {v.prop.name: v.length for v in result.violations}
    assert lengths == {
        "kafka-2.8": {"NoCommittedLoss": 10, "NoUncommittedRead": 10},
        "kafka-3.0": {"NoUncommittedRead": 10},
        "kafka-3.5": {},
        "kafka-3.6": {},
    }
