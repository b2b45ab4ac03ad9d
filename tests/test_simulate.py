"""``hwcheck simulate``: seeded walks, their determinism over workers, shrinking, the CLI, the
gate's simulate mode and Ctrl-C.

Golden lengths come from exhaustive search (``checker.search.reference.bfs.explore`` at the same
bounds), never from the simulation itself.
"""

from __future__ import annotations

import json
import signal

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.composition.compose import Recipe, make_config
from checker.fingerprint import fingerprint
from checker.search.reference.bfs import explore
from checker.simulate.shrink import delete_blocks, drop_loops, shrink, violates_at
from checker.simulate.simulation import simulate
from checker.simulate.walks import WalkPlan, run_batch, run_walk

HW2 = {"replicas": 2, "truncation": "hw", "max_records": 2, "max_epoch": 3, "max_crashes": 2}
BIG = {"max_records": 4, "max_epoch": 6, "max_crashes": 3}


def recipe(names=(), **given):
    return Recipe("kafka", make_config("kafka", given), tuple(names))


def comparable(result):
    """Everything a simulation found except timings and the engine's name."""
    batch = result.batch
    return (
        result.status,
        result.reason,
        batch.walks,
        batch.steps,
        batch.distinct,
        batch.ends,
        batch.lengths,
        batch.actions,
        sorted(batch.guards),
        batch.first,
        batch.violating,
        [
            (
                s.violation.prop.name,
                s.walk,
                s.loops,
                s.deletion,
                s.search,
                [(str(step.label), step.fingerprint) for step in s.violation.trace],
            )
            for s in result.shrunk
        ],
    )


def test_hw_loss_is_found_and_shrunk_to_near_the_shortest_counterexample():
    run = recipe(["NoCommittedLoss"], **HW2)
    spec, props = run.build()
    shortest = explore(spec, props).violations[0].length  # exhaustive: 11 states
    assert shortest == 11
    # about 1 walk in 2,000 loses m0 (a crashed leader returns only in a new epoch)
    result = simulate(run, WalkPlan(seed=0, depth=50), walks=5000)
    assert result.status == "violated" and result.exit_code == 12
    (found,) = result.shrunk
    assert found.violation.prop.name == "NoCommittedLoss"
    assert found.violation.length <= shortest + 2
    assert found.walk > found.violation.length  # the walk was longer: shrinking did work
    assert found.walk >= found.loops >= found.deletion >= found.search == found.violation.length
    # a real behaviour that violates the property at its last state, and nowhere before
    labels = [str(step.label) for step in found.violation.trace[1:]]
    assert violates_at(spec, props[0], labels) == found.violation.length


def test_same_seed_same_walks_on_one_and_two_workers():
    run = recipe(replicas=3, truncation="kip101", **BIG)
    one = simulate(run, WalkPlan(seed=5, depth=40), walks=130, workers=1)
    two = simulate(run, WalkPlan(seed=5, depth=40), walks=130, workers=2)
    assert comparable(one) == comparable(two)
    assert one.batch.walks == 130 and one.batch.steps > 0


def test_a_walk_depends_only_on_seed_and_index():
    spec, props = recipe(replicas=3, **BIG).build()
    plan = WalkPlan(seed=3, depth=30)
    first, again = run_walk(spec, props, plan, 17), run_walk(spec, props, plan, 17)
    assert first.labels == again.labels and first.fps == again.fps
    other = run_walk(spec, props, WalkPlan(seed=4, depth=30), 17)
    assert other.labels != first.labels
    assert len(first.fps) == 30 and first.end == "depth"


def test_batches_merged_in_order_equal_one_batch():
    spec, props = recipe(replicas=3, truncation="kip279", **BIG).build()
    plan = WalkPlan(seed=9, depth=40)
    whole = run_batch(spec, props, plan, 0, 60)
    parts = run_batch(spec, props, plan, 0, 25)
    parts.merge(run_batch(spec, props, plan, 25, 35))
    assert (
        whole.walks,
        whole.steps,
        whole.ends,
        whole.lengths,
        whole.actions,
        whole.first,
        whole.violating,
        whole.distinct,
    ) == (
        parts.walks,
        parts.steps,
        parts.ends,
        parts.lengths,
        parts.actions,
        parts.first,
        parts.violating,
        parts.distinct,
    )


def test_weight_zero_never_takes_the_action():
    spec, props = recipe(replicas=3, **BIG).build()
    batch = run_batch(spec, props, WalkPlan(seed=1, depth=40, weights=(("Crash", 0.0),)), 0, 30)
    assert batch.actions["Crash"][0] > 0 and batch.actions["Crash"][1] == 0
    assert batch.actions["Restart"] == [0, 0]


def test_kip320_with_four_replicas_and_large_bounds_has_no_violation_in_300_walks():
    result = simulate(
        recipe(replicas=4, truncation="kip320", **BIG),
        WalkPlan(seed=0, depth=50),
        walks=300,
        workers=2,
    )
    assert result.status == "none found" and result.exit_code == 0
    assert result.batch.walks == 300 and result.unreached == []


def states_of(spec, labels):
    """Fingerprints of the states a label sequence visits (it must replay)."""
    state = spec.init_states()[0]
    fps = [fingerprint(state)]
    for text in labels:
        state = next(after for label, after in spec.successors(state) if label.text == text)
        fps.append(fingerprint(state))
    return fps


def test_loop_removal_keeps_the_end_state_and_visits_no_state_twice():
    spec, props = recipe(**HW2).build()
    walk = run_walk(spec, props, WalkPlan(seed=0, depth=50), 0)
    assert len(set(walk.fps)) < len(walk.fps)  # this walk has loops (a no-op fetch, ...)
    kept = drop_loops(spec, walk.labels)
    fps = states_of(spec, kept)
    assert len(set(fps)) == len(fps) and fps[-1] == walk.fps[-1]
    assert len(kept) < len(walk.labels)


def test_deletion_leaves_every_step_needed():
    run = recipe(["NoCommittedLoss"], **HW2)
    spec, props = run.build()
    prop = props[0]
    result = simulate(run, WalkPlan(seed=2, depth=50), walks=200)
    walk = list(result.batch.first["NoCommittedLoss"][1])
    minimal = delete_blocks(spec, prop, walk)
    assert violates_at(spec, prop, minimal) == len(minimal) + 1
    for index in range(len(minimal)):  # 1-minimal: no single step can go
        assert violates_at(spec, prop, minimal[:index] + minimal[index + 1 :]) is None


def test_shrink_refuses_a_walk_that_does_not_violate():
    spec, props = recipe(["NoCommittedLoss"], **HW2).build()
    with pytest.raises(ValueError, match="does not violate NoCommittedLoss"):
        shrink(spec, props[0], ["Elect(leader=0)"])


def invoke(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_writes_a_shrunk_trace_that_replay_accepts(tmp_path):
    out = tmp_path / "sim"
    run = invoke(
        "simulate",
        "--replicas",
        "2",
        "--truncation",
        "hw",
        "--max-records",
        "2",
        "--max-epoch",
        "3",
        "--max-crashes",
        "2",
        "--invariant",
        "NoCommittedLoss",
        "--walks",
        "5000",
        "--seed",
        "0",
        "--workers",
        "1",
        "--out",
        str(out),
    )
    assert run.exit_code == 12, run.output
    assert "found by walk" in run.output and "NoCommittedLoss violated (11 states)" in run.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["format"] == "hwcheck-simulation" and summary["status"] == "violated"
    entry = summary["properties"]["NoCommittedLoss"]
    assert entry["verdict"] == "violated" and entry["length"] == 11
    trace = out / "NoCommittedLoss" / "trace.json"
    assert json.loads(trace.read_text())["found_by"]["seed"] == 0
    page = (out / "NoCommittedLoss" / "trace.html").read_text()
    assert "found by hwcheck simulate: walk" in page and "of seed 0" in page
    replayed = invoke("replay", str(trace))
    assert replayed.exit_code == 0, replayed.output


def test_cli_says_simulation_proves_nothing_and_exits_0(tmp_path):
    run = invoke(
        "simulate",
        "--replicas",
        "3",
        "--walks",
        "40",
        "--workers",
        "1",
        "--out",
        str(tmp_path / "s"),
    )
    assert run.exit_code == 0, run.output
    assert "NONE FOUND" in run.output and "it proves nothing" in " ".join(run.output.split())
    as_json = invoke(
        "simulate",
        "--replicas",
        "3",
        "--walks",
        "40",
        "--workers",
        "1",
        "--json",
        "--out",
        str(tmp_path / "j"),
    )
    summary = json.loads(as_json.output)
    assert summary["stats"]["walks"] == 40 and summary["exit_code"] == 0
    assert summary["config"]["max_records"] == 4  # simulate's larger default bounds


@pytest.mark.parametrize(
    "args, words",
    [
        (["--weight", "Teleport=2"], "no action 'Teleport'"),
        (["--weight", "Crash=-1"], "is not ACTION=WEIGHT"),
        (["--replicas", "8"], "1<=x<=7"),
        (["--invariant", "NoSuchProp"], "unknown property 'NoSuchProp'"),
        (["--partitions", "2"], "--partitions applies only to --engine spark"),
        (["--model", "tla", "--replicas", "6"], "--replicas must be between 1 and 5"),
    ],
)
def test_cli_usage_errors_are_one_message_exit_2(args, words):
    run = invoke("simulate", "--walks", "5", *args)
    assert run.exit_code == 2 and words in run.output and "Traceback" not in run.output


def test_seven_replicas_walk(tmp_path):
    run = invoke(
        "simulate",
        "--replicas",
        "7",
        "--truncation",
        "kip320",
        "--walks",
        "20",
        "--depth",
        "30",
        "--workers",
        "1",
        "--json",
        "--out",
        str(tmp_path / "r7"),
    )
    assert run.exit_code == 0, run.output
    assert json.loads(run.output)["config"]["replicas"] == 7


GATE = """
[[tool.hwcheck.gate]]
name = "kip101 loses and forks, simulated"
truncation = "kip101"
replicas = 3
mode = "simulate"
seed = 1
walks = 2000
invariants = ["NoCommittedLoss", "NoDivergence"]
violates = ["NoCommittedLoss", "NoDivergence"]

[[tool.hwcheck.gate]]
name = "kip320 holds, simulated"
truncation = "kip320"
replicas = 3
mode = "simulate"
walks = 200
expect = "holds"
"""


def test_gate_simulate_checks_pass_and_a_missing_violation_fails(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(GATE)
    run = invoke("gate", "--config", str(config), "--workers", "1", "--out", str(tmp_path / "g"))
    assert run.exit_code == 0, run.output
    assert "no violation in 200 walks" in " ".join(run.output.split())
    config.write_text(GATE.replace('expect = "holds"', 'violates = ["NoCommittedLoss"]'))
    xml = tmp_path / "g.xml"
    run = invoke(
        "gate",
        "--config",
        str(config),
        "--workers",
        "1",
        "--junit-xml",
        str(xml),
        "--out",
        str(tmp_path / "g2"),
    )
    assert run.exit_code == 1
    assert "no walk of 200 violated it" in xml.read_text()


def test_gate_refuses_walk_keys_outside_simulate_mode(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(GATE.replace('mode = "simulate"\nwalks = 200\n', "walks = 200\n"))
    run = invoke("gate", "--config", str(config))
    assert run.exit_code == 4
    assert "key 'walks': applies only to mode = \"simulate\"" in run.output


def test_ctrl_c_ends_once_with_the_walks_so_far(tmp_path):
    from test_interrupts import SIMULATE_ON_WORKERS, WORKERS_UP
    from test_signals import signal_parent_after

    code, stdout, stderr, left = signal_parent_after(
        SIMULATE_ON_WORKERS, WORKERS_UP, tmp_path, signal.SIGINT
    )
    assert code == 3, stderr
    assert "Traceback" not in stderr + stdout
    assert "Interrupted (Ctrl-C): the results below are partial:" in stderr
    assert not left
    summary = json.loads((tmp_path / "s" / "summary.json").read_text())
    assert summary["status"] == "incomplete" and summary["interrupted"] is True
    assert 0 < summary["stats"]["walks"] < 10_000_000
