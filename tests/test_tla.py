"""The port of the public TLA+ spec reproduces TLC's results exactly.

Golden numbers: TLC 2.18 on hachikuji/kafka-specification with two replicas and
LogSize = MaxRecords = MaxLeaderEpoch = 2 (the figures of issue #3). "Depth" counts the
initial state as 1, as TLC does. A count that does not match means the port is wrong.
"""

import json

import pytest
from click.testing import CliRunner
from reference import enumerate_states

from checker.cli import cli
from checker.composition.compose import build_model
from checker.result import Status
from checker.search.reference.bfs import Limits, explore
from spec.tla import TlaConfig

TLC_HW_LE_LEO = {
    "hw": (10131, 20),
    "kip101": (9045, 18),
    "kip279": (9027, 18),
    "kip320-first-try": (8429, 18),
    "kip320": (5973, 18),
    "kip320-kip279": (6765, 18),
}
TLC_STRONG_ISR = {
    "hw": 10,
    "kip101": 12,
    "kip279": None,
    "kip320-first-try": None,
    "kip320": None,
    "kip320-kip279": None,
}


def run(variant, *names, replicas=2):
    spec, props = build_model("tla", TlaConfig(replicas=replicas, truncation=variant))
    return explore(spec, [p for p in props if p.name in names])


@pytest.mark.parametrize("variant", sorted(TLC_HW_LE_LEO))
def test_distinct_states_and_depth_match_tlc(variant):
    result = run(variant, "HwLeLeo")
    assert result.status == Status.OK
    assert (result.stats.distinct, result.stats.depth) == TLC_HW_LE_LEO[variant]


@pytest.mark.parametrize("variant", sorted(TLC_STRONG_ISR))
def test_strong_isr_verdicts_match_tlc(variant):
    result = run(variant, "StrongIsr")
    expected = TLC_STRONG_ISR[variant]
    if expected is None:
        assert result.status == Status.OK
    else:
        assert result.status == Status.VIOLATED
        assert result.violations[0].length == expected


def test_reference_enumerator_agrees():
    spec, _ = build_model("tla", TlaConfig(replicas=2, truncation="hw"))
    assert enumerate_states(spec) == TLC_HW_LE_LEO["hw"]


def test_type_ok_holds_and_leader_in_isr_fails_at_init():
    result = run("kip320", "TypeOk", "LeaderInIsr", "LeaderInIsrOrNone", "WeakIsr", "StrongIsr")
    assert [(v.prop.name, v.length) for v in result.violations] == [("LeaderInIsr", 1)]
    assert result.exhausted and result.stats.distinct == 5973
    assert {p.name for p in result.checked} - {"LeaderInIsr"} == {
        "TypeOk",
        "LeaderInIsrOrNone",
        "WeakIsr",
        "StrongIsr",
    }


def test_the_default_run_checks_what_holds_and_the_strict_form_only_when_named(tmp_path):
    """Issue 64: ``explore --model tla`` exited 12 on every run, on LeaderInIsr's 1-state
    trace. TLC checks only the invariants a .cfg names; the default run leaves the strict
    form out (exit 0 at kip320: every invariant holds, every guard reached) and checks it
    when named (a 1-state trace, exit 12)."""
    runner = CliRunner()
    base = ["explore", "--model", "tla", "--no-progress", "--show", "none", "--json"]
    plain = runner.invoke(cli, [*base, "--out", str(tmp_path / "a")])
    assert plain.exit_code == 0, plain.output
    checked = json.loads(plain.stdout)["properties"]
    assert "LeaderInIsr" not in checked and checked["LeaderInIsrOrNone"]["verdict"] == "holds"
    named = runner.invoke(cli, [*base, "--invariant", "LeaderInIsr", "--out", str(tmp_path / "b")])
    assert named.exit_code == 12, named.output
    strict = json.loads(named.stdout)["properties"]["LeaderInIsr"]
    assert (strict["verdict"], strict["length"]) == ("violated", 1)


def test_a_gate_check_expecting_the_strict_form_to_fail_must_name_it(tmp_path):
    config = tmp_path / "gate.toml"
    check = '[[tool.hwcheck.gate]]\nmodel = "tla"\ntruncation = "kip320"\nreplicas = 2\n'
    config.write_text(check + 'violates = ["LeaderInIsr"]\n')
    refused = CliRunner().invoke(cli, ["gate", "--config", str(config)])
    assert refused.exit_code == 4
    assert refused.output.strip().splitlines()[-1] == (
        f"Error: {config}:5: gate check 1, key 'violates': LeaderInIsr is not among the "
        "checked invariants; it is checked only when named in invariants"
    )


def test_type_ok_rejects_a_badly_typed_state():
    spec, props = build_model("tla", TlaConfig(replicas=2))
    type_ok = next(p for p in props if p.name == "TypeOk").predicate
    init = spec.init_states()[0]
    assert type_ok(init)
    too_long = (((0, 0), (1, 0), (0, 0)),) + init[0][1:]
    assert not type_ok((too_long,) + init[1:])
    assert not type_ok(init[:2] + (3,) + init[3:])  # nextRecordId beyond MaxRecords


def test_violation_traces_replay_through_the_labels():
    result = run("hw", "StrongIsr")
    trace = result.violations[0].trace
    assert trace[0].label is None
    assert all(step.label is not None for step in trace[1:])
    assert {step.label.action for step in trace[1:]} <= {
        "ControllerElectLeader",
        "ControllerShrinkIsr",
        "BecomeLeader",
        "LeaderWrite",
        "LeaderIncHighWatermark",
        "LeaderExpandIsr",
        "LeaderShrinkIsr",
        "BecomeFollowerTruncateToHighWatermark",
        "FollowerReplicate",
    }


def test_limits_apply_to_the_tla_model():
    spec, props = build_model("tla", TlaConfig(replicas=2))
    result = explore(spec, props[:1], Limits(max_depth=3))
    assert result.status == Status.INCOMPLETE and result.stats.depth == 3


def test_cli_runs_the_tla_model(tmp_path):
    args = [
        "explore",
        "--model",
        "tla",
        "--truncation",
        "kip101",
        "--replicas",
        "2",
        "--log-size",
        "2",
        "--max-records",
        "2",
        "--max-epoch",
        "2",
        "--invariant",
        "StrongIsr",
        "--out",
        str(tmp_path / "run"),
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 12
    assert "✗ violated (12 states)" in result.stdout


@pytest.mark.parametrize(
    "args, option",
    [
        (["--model", "tla", "--max-crashes", "1"], "--max-crashes"),
        (["--model", "tla", "--unclean"], "--unclean"),
        (["--log-size", "2"], "--log-size"),
        (["--truncation", "kip320-first-try"], "--truncation"),
        (["--model", "tla", "--log-size", "-1"], "--log-size"),
    ],
)
def test_options_of_the_other_model_are_rejected(tmp_path, args, option):
    result = CliRunner().invoke(cli, ["explore", *args, "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert option in result.output and "Traceback" not in result.output


def test_list_shows_both_models():
    result = CliRunner().invoke(cli, ["list", "all"])
    assert result.exit_code == 0
    for word in (
        "kafka model:",
        "tla model:",
        "kip320-first-try",
        "FencedFollowerFetch",
        "TypeOk",
        "LeaderInIsrOrNone",
        "--log-size",
    ):
        assert word in result.stdout
