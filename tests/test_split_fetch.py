"""The split-fetch mechanism (issue 26): a fetch as a request and a response in flight, the
rules on hand-built states, then its equivalence with the one-step fetch, its symmetry and
KAFKA-7128.

Records are ``(id, epoch)``; offsets 0-based; LEO and HW exclusive. Replica 0 leads epoch 0
with ISR {0, 1} unless a test says otherwise. A response in flight is ``(leader, leader epoch,
fetch offset, records or None for OFFSET_OUT_OF_RANGE, HW or the leader's LEO)``.
"""

from __future__ import annotations

import json
import marshal
from itertools import permutations
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import kafka
from reference import reachable
from test_actions import FOLLOWER, LEADER, moves, rep, state

from checker.cli import cli
from checker.composition.compose import Recipe, build_model, make_config
from checker.formats import schedule
from checker.model import Refusal
from checker.native.layout import compiled_model
from checker.search.compiled import search as native_engine
from checker.search.reference.bfs import explore
from checker.simulate.scenario import play
from checker.simulate.simulation import simulate
from checker.simulate.walks import WalkPlan
from checker.web import effects
from spec.kafka import Config, ConfigError

SPLIT = ("split-fetch",)


def split(**bounds):
    return kafka(replicas=bounds.pop("replicas", 2), with_mechanisms=SPLIT, **bounds)


def flying(s, responses, lost=0):
    """``s`` with the flight component: ``responses`` per follower, ``lost`` so far."""
    return s + ((tuple(responses), lost),)


def responses(s):
    return s[-1][0]


CAUGHT_UP_ONCE = state(
    [
        rep(log=[(0, 0), (1, 0)], hw=0, view=LEADER, remote=(-1, 0)),
        rep(log=[(0, 0)], view=FOLLOWER),
    ]
)
"""The leader holds m0 and m1, HW 0; the follower fetched from 0 once and holds m0."""


# -- the two halves ----------------------------------------------------------------------------
def test_a_request_moves_the_leader_and_puts_the_records_in_flight():
    spec = split(truncation="hw")
    s = flying(CAUGHT_UP_ONCE, [None, None])
    nxt = moves(spec, s, "FetchRequest")["FetchRequest(follower=1, leader=0)"]
    leader, follower = nxt[0]
    assert leader[4] == (-1, 1)  # remote LEO = fetch offset 1
    assert leader[1] == 1  # HW = min(LEO 2, remote 1): m0 committed ...
    assert nxt[3][2] == ((0, 0),)
    assert follower == CAUGHT_UP_ONCE[0][1]  # ... while the follower has nothing new yet
    # m1 from offset 1, with the HW read before the update (0), from leader 0 in epoch 0
    assert responses(nxt) == (None, (0, 0, 1, ((1, 0),), 0))
    assert "Fetch" not in {label.action for label, _ in spec.successors(s)}


def test_the_response_appends_and_takes_the_hw_it_carries():
    spec = split(truncation="hw")
    s = flying(CAUGHT_UP_ONCE, [None, (0, 0, 1, ((1, 0),), 1)])
    nxt = moves(spec, s, "FetchResponse")["FetchResponse(follower=1)"]
    assert nxt[0][1][0] == ((0, 0), (1, 0))
    assert nxt[0][1][1] == 1  # min(response HW 1, new LEO 2)
    assert nxt[0][0] == s[0][0]  # the leader is not involved
    assert responses(nxt) == (None, None)


def test_one_request_in_flight_per_follower():
    spec = split(truncation="hw")
    s = flying(CAUGHT_UP_ONCE, [None, (0, 0, 1, ((1, 0),), 0)])
    assert moves(spec, s, "FetchRequest") == {}


def test_offset_out_of_range_travels_as_the_leaders_leo():
    spec = split(truncation="hw")
    s = flying(
        state(
            [
                rep(log=[(0, 0)], hw=1, view=LEADER, remote=(-1, -1)),
                rep(log=[(0, 0), (1, 0)], hw=2, view=FOLLOWER),
            ]
        ),
        [None, None],
    )
    sent = moves(spec, s, "FetchRequest")["FetchRequest(follower=1, leader=0)"]
    assert sent[0] == s[0]  # the leader records nothing for a rejected fetch
    assert responses(sent) == (None, (0, 0, 2, None, 1))
    applied = moves(spec, sent, "FetchResponse")["FetchResponse(follower=1)"]
    assert applied[0][1][:2] == (((0, 0),), 1)  # truncated to the leader's LEO 1


# -- a response that no longer applies ---------------------------------------------------------
EPOCH_1 = (0, 1, (0, 1))


def _moved_on(truncation, follower_view, follower_log=((0, 0),)):
    """The follower's response from leader 0 in epoch 0 at offset 1, once the follower has
    ``follower_view`` and ``follower_log``: the follower's next state on FetchResponse."""
    spec = split(truncation=truncation)
    s = flying(
        state(
            [
                rep(log=[(0, 0), (1, 0)], view=EPOCH_1, remote=(-1, -1)),
                rep(
                    log=follower_log,
                    view=follower_view,
                    remote=(-1, -1) if follower_view[0] == 1 else (),
                ),
            ],
            controller=(1, 0, (0, 1)),
            requests=((0, 0, (0, 1)), (1, 0, (0, 1))),
        ),
        [None, (0, 0, 1, ((1, 0),), 1)],
    )
    nxt = moves(spec, s, "FetchResponse")["FetchResponse(follower=1)"]
    assert responses(nxt) == (None, None)  # received either way
    return nxt[0][1]


def test_a_fenced_follower_drops_a_response_of_another_epoch():
    assert _moved_on("kip320", EPOCH_1)[0] == ((0, 0),)  # dropped: epoch 1 now
    assert _moved_on("hw", EPOCH_1)[0] == ((0, 0), (1, 0))  # no fence before KIP-320


def test_a_response_is_dropped_after_a_truncation_or_a_change_of_leader():
    assert _moved_on("hw", EPOCH_1, follower_log=())[0] == ()  # LEO 0, not the fetch offset 1
    assert _moved_on("hw", (1, 1, (0, 1)))[0] == ((0, 0),)  # it leads now


# -- crashes and lost responses ----------------------------------------------------------------
def test_a_crash_drops_what_is_in_flight_to_or_from_the_replica():
    spec = split(replicas=3, truncation="hw")
    follow = (0, 0, (0, 1, 2))
    s = flying(
        state(
            [
                rep(log=[(0, 0)], view=follow, remote=(-1, 0, 0)),
                rep(view=follow),
                rep(view=follow),
            ],
            controller=(0, 0, (0, 1, 2)),
            requests=((0, 0, (0, 1, 2)),),
        ),
        [None, (0, 0, 0, ((0, 0),), 0), (0, 0, 0, ((0, 0),), 0)],
    )
    crashed = moves(spec, s, "Crash")
    assert responses(crashed["Crash(replica=0)"]) == (None, None, None)  # the sender
    assert responses(crashed["Crash(replica=1)"]) == (None, None, (0, 0, 0, ((0, 0),), 0))
    assert responses(crashed["Crash(replica=2)"]) == (None, (0, 0, 0, ((0, 0),), 0), None)


def test_the_network_drops_at_most_max_lost_responses():
    in_flight = [None, (0, 0, 1, ((1, 0),), 0)]
    spec = split(truncation="hw", max_lost_responses=1)
    nxt = moves(spec, flying(CAUGHT_UP_ONCE, in_flight), "LoseResponse")
    assert nxt["LoseResponse(follower=1)"][-1] == ((None, None), 1)
    assert moves(spec, flying(CAUGHT_UP_ONCE, in_flight, lost=1), "LoseResponse") == {}
    assert "LoseResponse" not in split().action_names()  # default 0: no such action


def test_lost_responses_need_split_fetch():
    with pytest.raises(ConfigError, match="add --with split-fetch"):
        Config(max_lost_responses=1).validate()
    result = CliRunner().invoke(cli, ["explore", "--max-lost-responses", "1"])
    assert result.exit_code == 2
    assert "--max-lost-responses needs fetch responses in flight" in result.output
    assert "Traceback" not in result.output


# -- the whole model ---------------------------------------------------------------------------
def _atomic_spec(spec):
    config = spec.config
    return kafka(
        replicas=config.replicas,
        truncation=config.truncation,
        max_records=config.max_records,
        max_epoch=config.max_epoch,
        max_crashes=config.max_crashes,
    )


@pytest.mark.parametrize("truncation", ["hw", "kip320"])
def test_a_request_answered_at_once_is_the_one_step_fetch(truncation):
    """In every reachable state, FetchRequest(f, l) followed at once by FetchResponse(f) gives
    exactly the replicas and ghost of the one-step Fetch(f, l) of the model without the
    mechanism, and it is enabled exactly where Fetch is (when nothing is in flight to f)."""
    spec = split(truncation=truncation, max_records=2, max_epoch=1, max_crashes=1)
    atomic = _atomic_spec(spec)
    seen, _ = reachable(spec)
    compared = 0
    for s in seen:
        plain = s[:-1]
        one_step = moves(atomic, plain, "Fetch")
        requests = moves(spec, s, "FetchRequest")
        idle = {f for f, x in enumerate(responses(s)) if x is None}
        assert set(requests) == {
            k.replace("Fetch", "FetchRequest") for k in one_step if int(k[15]) in idle
        }
        for label, sent in requests.items():
            answered = moves(spec, sent, "FetchResponse")[f"FetchResponse(follower={label[22]})"]
            assert answered[:-1] == one_step[label.replace("FetchRequest", "Fetch")]
            compared += 1
    assert compared > 1000


def test_orbits_are_the_classes_of_the_naive_enumeration():
    """Symmetry with responses in flight: explore's orbit count equals the number of classes
    of every reachable state under all renamings of 3 replicas (the naive enumerator's)."""
    spec = split(replicas=3, truncation="kip320", max_records=1, max_epoch=0, max_crashes=1)
    seen, depth = reachable(spec)
    orbits = {
        min(marshal.dumps(spec.permute(s, perm), 2) for perm in permutations(range(3)))
        for s in seen
    }
    result = explore(spec, [], symmetry=True)
    plain = explore(spec, [], symmetry=False)
    assert plain.stats.distinct == len(seen) and plain.stats.depth == depth
    assert result.stats.distinct == len(orbits)
    assert len(orbits) < len(seen)


# -- KAFKA-7128 --------------------------------------------------------------------------------
KAFKA_7128 = {
    "replicas": 3,
    "truncation": "kip320",
    "max_records": 1,
    "max_epoch": 2,
    "max_crashes": 0,
}

SHORTEST_7128 = [
    "Elect(leader=0)",
    "BecomeLeader(replica=0, epoch=0)",
    "ShrinkIsr(leader=0, follower=1)",  # 1 has not fetched: it leaves the ISR
    "BecomeFollower(replica=2, epoch=0)",
    "Produce(leader=0)",
    "FetchRequest(follower=2, leader=0)",
    "FetchResponse(follower=2)",  # 2 holds m0
    "FetchRequest(follower=2, leader=0)",  # m0 committed on {0, 2}; 2's HW still 0
    "Elect(leader=2)",  # preferred-leader election, 0 still up: ISR {0, 2}
    "BecomeFollower(replica=1, epoch=1)",
    "BecomeLeader(replica=2, epoch=1)",  # HW 0 < LEO 1: m0 is above its HW
    "FetchRequest(follower=1, leader=2)",  # m0 in flight to 1; 1's fetch offset 0 >= HW 0
    "ExpandIsr(leader=2, follower=1)",  # so 1 joins the ISR without m0
    "Elect(leader=1)",  # and is elected before the response arrives
]
"""The shortest KAFKA-7128 counterexample (15 states), as read off Kafka's own comment on
``Partition.maybeExpandIsr``: committed data between the new leader's HW and LEO, a replica
added to the ISR below the leader's epoch start, elected before it fetches the data."""


def _compiled_run(names=(), **options):
    spec, props = build_model("kafka", Config(**{**KAFKA_7128, **options}))
    props = [p for p in props if p.name in names]
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    return native_engine.explore(compiled, spec, props, symmetry=True, threads=2)


def test_kafka_7128_needs_split_fetch_and_fenced_expand_fixes_it():
    """Without fenced-expand, kip320 loses m0 in 15 states once a response can be in flight;
    with one-step fetches it holds, and with fenced-expand it holds (orbit counts measured
    here; the compiled core's counts are the reference core's, tests/test_compiled.py)."""
    bug = _compiled_run(
        ["NoCommittedLoss"], with_mechanisms=SPLIT, without_mechanisms=("fenced-expand",)
    )
    (found,) = bug.violations
    assert [str(step.label) for step in found.trace[1:]] == SHORTEST_7128
    assert found.length == 15
    atomic = _compiled_run(["NoCommittedLoss"], without_mechanisms=("fenced-expand",))
    assert atomic.status.name == "OK" and atomic.stats.distinct == 58_344
    fixed = _compiled_run(["NoCommittedLoss"], with_mechanisms=SPLIT)
    assert fixed.status.name == "OK" and fixed.stats.distinct == 613_265


def test_simulate_finds_kafka_7128_and_shrinks_it_to_the_shortest():
    given = {**KAFKA_7128, "with_mechanisms": SPLIT, "without_mechanisms": ("fenced-expand",)}
    run = Recipe("kafka", make_config("kafka", given), ("NoCommittedLoss",))
    result = simulate(run, WalkPlan(seed=1, depth=50), walks=60_000, core="compiled")
    assert result.status == "violated"
    (found,) = result.shrunk
    assert found.walk > found.violation.length == 15


def test_stories_tell_what_a_response_did(tmp_path):
    """The stories name the leader of a response from the response itself (its label names
    only the follower): an OFFSET_OUT_OF_RANGE answer that truncates (in the loss's
    aftermath), a copy that forks."""
    result = CliRunner().invoke(
        cli,
        [
            "explore",
            *("--replicas", "2", "--truncation", "hw", "--with", "split-fetch"),
            *("--max-epoch", "2", "--out", str(tmp_path)),
        ],
    )
    assert result.exit_code == 12, result.output
    loss = json.loads((tmp_path / "NoCommittedLoss" / "trace.json").read_text())
    assert any(
        "received leader 1's answer to its fetch at an offset past its LEO: "
        "OFFSET_OUT_OF_RANGE, so it truncated to the leader's LEO, removing m0" in line
        for line in loss["aftermath"]["story"]
    ), loss["aftermath"]["story"]
    fork = json.loads((tmp_path / "NoDivergence" / "trace.json").read_text())
    assert any("replica 1 copied m0 from leader 0" in line for line in fork["story"])


ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "scenarios" / "kafka-7128.txt"


def test_the_example_schedule_is_the_shortest_trace_and_fenced_expand_stops_it(tmp_path):
    """``examples/scenarios/kafka-7128.txt`` is ``SHORTEST_7128``: played as written it loses
    m0 at state 15 (exit 12); under kip320 as shipped its ExpandIsr is not enabled."""
    read = schedule.load(EXAMPLE)
    assert [step.text for step in read.steps] == SHORTEST_7128
    result = CliRunner().invoke(cli, ["scenario", str(EXAMPLE), "--out", str(tmp_path)])
    assert result.exit_code == 12, result.output
    assert "NoCommittedLoss" in result.output and "fails at state 15" in result.output
    spec, props = build_model("kafka", Config(**KAFKA_7128, with_mechanisms=SPLIT))
    played = play(spec, props, [step.label for step in read.steps])
    assert played.disabled is not None
    assert str(played.disabled.label) == "ExpandIsr(leader=2, follower=1)"
    assert played.disabled.refusal == Refusal(  # what scenario prints after "is not enabled"
        "fenced expand (KAFKA-7128): replica 1's fetches reached offset 0, below 1, where "
        "replica 2's epoch 1 starts"
    )
    assert played.first == {}  # nothing failed before it


def test_the_explorer_and_the_aftermath_say_what_is_in_flight():
    """The explorer's one-line effects name a response put in flight, received or dropped; the
    aftermath of the zoo entry says the loss is possible, not decided, while the elected
    replica's missing record is still in flight to it."""
    spec, props = build_model(
        "kafka", Config(**KAFKA_7128, with_mechanisms=SPLIT, without_mechanisms=("fenced-expand",))
    )
    played = play(spec, props, [step.label for step in schedule.load(EXAMPLE).steps])
    views = [spec.view(step.state) for step in played.steps]
    assert effects.describe(views[11], views[12]) == (
        "replica 1: response in flight: m0/0, HW 0, from 2 (epoch 1)"
    )
    last = played.steps[-1].state
    after = {str(label): spec.view(s) for label, s in spec.successors(last)}
    assert effects.describe(views[-1], after["FetchResponse(follower=2)"]) == (
        "replica 2: response dropped"  # it leads epoch 1 now: not the fetcher of that response
    )
    assert effects.describe(views[-1], after["FetchResponse(follower=1)"]) == (
        "replica 1: appends m0/e0, LEO 0→1, response received"  # it does not know it leads yet
    )
    trace = json.loads((ROOT / "reports/gallery/lagging-hw-expansion/trace.json").read_text())
    assert trace["aftermath"]["story"][0].startswith("State 15 makes the loss possible")
