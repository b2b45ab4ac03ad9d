"""``KafkaSpec.why_disabled`` (``spec.kafka.disabled``): the false guard of an action label that
is not enabled, in the model's words.

The main test is a cross-check against the actions themselves: on states of many variants
(every mechanism, every action family) and for every label the model can write, the
explanation is None exactly when the label is enabled. The others pin the words on states
built by hand from a schedule.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from checker.composition.compose import build_model, make_config
from checker.model import Label, Refusal
from spec.kafka import disabled

VARIANTS = [
    {"truncation": "hw"},
    {"truncation": "kip101", "replicas": 3, "max_records": 1},
    {"truncation": "kip320", "replicas": 3, "max_records": 1, "unclean_election": True},
    {"truncation": "kip320", "with_mechanisms": ("split-fetch",), "max_lost_responses": 1},
    {"truncation": "kip320", "with_mechanisms": ("async-isr",), "min_isr": 2},
    {"truncation": "kafka-2.8", "max_epoch": 3},
    {"truncation": "kafka-3.0", "with_mechanisms": ("split-fetch",)},
    {"truncation": "kafka-3.5", "without_mechanisms": ("fenced-fetch",), "max_records": 1},
    {"truncation": "kafka-3.6", "acks": "1", "min_isr": 2},
    {
        "truncation": "kafka-4.1",
        "unclean_election": True,
        "max_unclean_shutdowns": 1,
        "min_isr": 2,
    },
    {"truncation": "kip966", "max_unclean_shutdowns": 1, "flush": "always", "max_crashes": 2},
]


def _spec(options):
    spec, _ = build_model("kafka", make_config("kafka", {"replicas": 2, **options}))
    return spec


def _labels(spec):
    """Every label the model can write: each action's arguments over their ranges."""
    n, epochs = spec.config.replicas, spec.config.max_epoch + 1
    for action in spec.action_names():
        names = disabled.FAMILIES[action][0]
        ranges = [range(epochs) if name == "epoch" else range(n) for name in names]
        for values in product(*ranges):
            yield Label(action, tuple(zip(names, values)))


def _states(spec, first=600, walks=40, depth=30):
    """The first states of a breadth-first search, then the states of seeded random walks
    (deeper: crashes, elections, truncations)."""
    init = spec.init_states()[0]
    seen, queue = {init}, [init]
    while queue and len(seen) < first:
        for _, succ in spec.successors(queue.pop(0)):
            if succ not in seen:
                seen.add(succ)
                queue.append(succ)
    rng = random.Random(42)
    for _ in range(walks):
        state = init
        for _ in range(depth):
            successors = spec.successors(state)
            if not successors:
                break
            state = rng.choice(successors)[1]
            seen.add(state)
    return seen


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: o["truncation"])
def test_an_explanation_exactly_when_the_label_is_not_enabled(options):
    spec = _spec(options)
    labels = list(_labels(spec))
    said = set()
    for state in _states(spec):
        enabled = {label for label, _ in spec.successors(state)}
        for label in labels:
            why = disabled.why_disabled(spec, state, label)
            assert (why is None) == (label in enabled), (label, why, spec.view(state))
            if why is not None:
                said.add(why.reason.split(" ")[0])
    assert said  # some labels were disabled and explained


def _after(options, schedule):
    spec = _spec(options)
    state = spec.init_states()[0]
    for text in schedule:
        label = Label.parse(text)
        state = next(succ for lab, succ in spec.successors(state) if lab == label)
    return spec, state


def _why(spec, state, text):
    return spec.why_disabled(state, Label.parse(text))


LEAD = ["Elect(leader=0)", "BecomeLeader(replica=0, epoch=0)"]


def test_produce_names_the_record_budget_and_the_leader():
    spec, state = _after({"truncation": "hw"}, [*LEAD, "Produce(leader=0)", "Produce(leader=0)"])
    assert _why(spec, state, "Produce(leader=0)") == Refusal(
        "2 records already produced (max_records=2)", "max_records"
    )
    spec, state = _after({"truncation": "hw"}, LEAD)
    assert _why(spec, state, "Produce(leader=1)") == Refusal(
        "replica 1 does not presume it leads: it applied no LeaderAndIsr since it started"
    )
    assert _why(spec, state, "Produce(leader=0)") is None  # enabled
    spec, state = _after(
        {"truncation": "hw", "min_isr": 2}, [*LEAD, "ShrinkIsr(leader=0, follower=1)"]
    )
    assert _why(spec, state, "Produce(leader=0)") == Refusal(
        "replica 0's ISR {0} is smaller than min_isr=2 (acks=all: NotEnoughReplicas)"
    )


def test_fetch_names_whom_the_follower_follows():
    spec, state = _after({"truncation": "hw"}, LEAD)
    assert _why(spec, state, "Fetch(follower=1, leader=0)") == Refusal(
        "replica 1 follows no leader: it applied no LeaderAndIsr since it started"
    )
    assert _why(spec, state, "Fetch(follower=0, leader=0)") == Refusal(
        "replica 0 follows no leader: it leads epoch 0 in its view"
    )
    spec, state = _after({"truncation": "hw"}, [*LEAD, "BecomeFollower(replica=1, epoch=0)"])
    assert _why(spec, state, "Fetch(follower=1, leader=1)") == Refusal(
        "replica 1 follows replica 0 in epoch 0, not replica 1"
    )
    spec, state = _after(
        {"truncation": "hw"}, [*LEAD, "BecomeFollower(replica=1, epoch=0)", "Crash(replica=0)"]
    )
    assert _why(spec, state, "Fetch(follower=1, leader=0)") == Refusal(
        "replica 0, the leader replica 1 follows, is down"
    )


def test_fenced_fetch_and_the_epoch_budget():
    schedule = [*LEAD, "BecomeFollower(replica=1, epoch=0)", "Elect(leader=1)"]
    schedule += ["BecomeLeader(replica=1, epoch=1)", "BecomeFollower(replica=0, epoch=1)"]
    spec, state = _after({"truncation": "kip320", "max_epoch": 1}, schedule[:-1])
    assert _why(spec, state, "Fetch(follower=1, leader=0)") == Refusal(
        "replica 1 follows no leader: it leads epoch 1 in its view"
    )
    assert _why(spec, state, "Elect(leader=0)") == Refusal(
        "the controller is at epoch 1, the last one (max_epoch=1)", "max_epoch"
    )
    fenced = [*LEAD, "BecomeFollower(replica=1, epoch=0)", "Elect(leader=1)", "Elect(leader=0)"]
    spec, state = _after({"truncation": "kip320"}, [*fenced, "BecomeLeader(replica=0, epoch=2)"])
    assert _why(spec, state, "Fetch(follower=1, leader=0)") == Refusal(
        "fenced fetch (KIP-320): replica 1 fetches in epoch 0, replica 0 leads epoch 2"
    )
    spec, state = _after({"truncation": "kip320"}, schedule[:3] + ["Elect(leader=1)"])
    # replica 0 still leads epoch 0 in its view, its follower 1 applied nothing newer
    assert _why(spec, state, "BecomeLeader(replica=0, epoch=1)") == Refusal(
        "the LeaderAndIsr of epoch 1 names replica 1 leader, not replica 0"
    )
    assert _why(spec, state, "BecomeLeader(replica=1, epoch=2)") == Refusal(
        "the controller issued no LeaderAndIsr of epoch 2 (it is at epoch 1)"
    )


def test_labels_the_model_cannot_take():
    spec, state = _after({"truncation": "hw"}, [])
    assert _why(spec, state, "Produce(leader=7)") == Refusal(
        "there is no replica 7 (replicas=2: 0 to 1)", "replicas"
    )
    assert _why(spec, state, "Produce(replica=0)") == Refusal(
        "Produce is written Produce(leader=...)"
    )
    assert _why(spec, state, "BecomeLeader(replica=0, epoch=3)") == Refusal(
        "epoch 3 is past the last one (max_epoch=2)", "max_epoch"
    )
    assert _why(spec, state, "Flush(replica=0)") == Refusal(
        "this model (hw, these options) has no Flush"
    )


def test_truncation_on_fetch_a_pending_truncation_and_a_fetch_that_changes_nothing():
    """Kafka 3.0 (``hw-before-truncation``): replica 0 wrote m0 in epoch 0, then follows
    replica 1, which leads epoch 1 with an empty log; its first fetch gets a DivergingEpoch,
    sets its HW and leaves the truncation to offset 0 for TruncateOnFetchResponse."""
    schedule = ["Elect(leader=0)", "Elect(leader=1)", "BecomeLeader(replica=0, epoch=0)"]
    schedule += ["Produce(leader=0)", "BecomeLeader(replica=1, epoch=1)"]
    schedule += ["BecomeFollower(replica=0, epoch=1)", "Fetch(follower=0, leader=1)"]
    spec, state = _after({"truncation": "kafka-3.0"}, schedule)
    assert _why(spec, state, "Fetch(follower=0, leader=1)") == Refusal(
        "replica 0 has a truncation to offset 0 pending (TruncateOnFetchResponse first; "
        "KAFKA-14704)"
    )
    assert _why(spec, state, "TruncateOnFetchResponse(follower=1)") == Refusal(
        "replica 1 has no truncation pending (a DivergingEpoch response leaves one)"
    )
    # Without fenced-fetch a follower may fetch from a leader of an older epoch: replica 1
    # (m1 of epoch 1) follows replica 0 (m0 of epoch 0, still leading epoch 0), which has no
    # end offset for epoch 1 and answers OFFSET_OUT_OF_RANGE; nothing would change.
    schedule = ["Elect(leader=0)", "Elect(leader=1)", "Elect(leader=0)"]
    schedule += ["BecomeLeader(replica=0, epoch=0)", "Produce(leader=0)"]
    schedule += ["BecomeLeader(replica=1, epoch=1)", "Produce(leader=1)"]
    schedule += ["BecomeFollower(replica=1, epoch=2)"]
    options = {"truncation": "kafka-3.5", "without_mechanisms": ("fenced-fetch",)}
    spec, state = _after(options, schedule)
    assert _why(spec, state, "Fetch(follower=1, leader=0)") == Refusal(
        "nothing to fetch or truncate: replica 0 answers OFFSET_OUT_OF_RANGE (it has no end "
        "offset for last fetched epoch 1), and its LEO 1 is not below replica 1's LEO 1"
    )


def test_the_last_resort_elections():
    spec, state = _after(
        {"truncation": "kip320", "unclean_election": True},
        [*LEAD, "ShrinkIsr(leader=0, follower=1)", "Crash(replica=0)"],
    )
    assert _why(spec, state, "UncleanElect(leader=0)") == Refusal("replica 0 is down")
    assert _why(spec, state, "Elect(leader=1)") == Refusal(
        "no member of the controller's ISR {0} is up: a clean election needs one "
        "(UncleanElect, with --unclean, does not)"
    )
    options = {"truncation": "kafka-4.1", "unclean_election": True, "max_unclean_shutdowns": 1}
    schedule = [*LEAD, "Produce(leader=0)", "ShrinkIsr(leader=0, follower=1)"]
    schedule += ["Flush(replica=0)", "UncleanShutdown(replica=0)", "ControllerShrinkIsr(replica=0)"]
    schedule += ["Restart(replica=0)"]
    spec, state = _after(options, schedule)
    # 0 was the ISR's last member: Kafka 4.1 elects it (Elect) before any unclean election
    assert _why(spec, state, "UncleanRecovery(leader=1)") == Refusal(
        "replica 0, the last known leader, is up: Elect picks it first"
    )
    assert _why(spec, state, "UncleanShutdown(replica=1)") == Refusal(
        "1 unclean shutdown already (max_unclean_shutdowns=1)", "max_unclean_shutdowns"
    )
