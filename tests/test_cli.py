"""The command line through click's CliRunner: exit codes, bad input, reports, --json."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import cli


def run(*args, tmp_path=None):
    extra = ["--out", str(tmp_path / "run")] if tmp_path is not None else []
    return CliRunner().invoke(cli, [*args, *extra], catch_exceptions=False)


def test_clean_epoch_run_exits_0_and_hints_at_hw(tmp_path):
    result = run(
        "explore",
        "--replicas",
        "2",
        "--truncation",
        "kip320",
        "--max-epoch",
        "1",
        "--no-symmetry",
        "--no-progress",
        tmp_path=tmp_path,
    )
    assert result.exit_code == 0, result.output
    assert "✓ holds" in result.stdout and "--truncation hw" in result.stdout
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["status"] == "OK" and summary["stats"]["distinct"] == 3360
    assert summary["properties"]["NoCommittedLoss"]["verdict"] == "holds"


def test_hw_run_exits_12_and_writes_replayable_traces(tmp_path):
    result = run(
        "explore",
        "--replicas",
        "2",
        "--max-epoch",
        "1",
        "--no-symmetry",
        "--truncation",
        "hw",
        tmp_path=tmp_path,
    )
    assert result.exit_code == 12
    assert "Why: record" in result.stdout
    trace = json.loads((tmp_path / "run" / "NoCommittedLoss" / "trace.json").read_text())
    assert trace["format"] == "hwcheck-trace" and trace["version"] == 1
    assert trace["length"] == len(trace["steps"]) == 11
    assert trace["steps"][0]["action"] is None
    assert trace["steps"][-1]["action"].startswith("BecomeFollower(")
    assert trace["variant"] == "hw" and "committed" in trace["explanation"]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["properties"]["HwLeLeo"]["verdict"] == "holds"
    assert summary["properties"]["NoDivergence"]["length"] == 14


def test_json_output_parses(tmp_path):
    result = run(
        "explore",
        "--replicas",
        "2",
        "--max-epoch",
        "1",
        "--no-symmetry",
        "--truncation",
        "hw",
        "--json",
        "--invariant",
        "NoCommittedLoss",
        tmp_path=tmp_path,
    )
    assert result.exit_code == 12
    summary = json.loads(result.stdout)
    assert summary["status"] == "VIOLATED" and summary["exit_code"] == 12
    assert next(iter(summary["properties"])) == "NoCommittedLoss"
    assert summary["properties"]["NoCommittedLoss"]["length"] == 11


@pytest.mark.parametrize(
    "args, option",
    [
        (["--replicas", "0"], "--replicas"),
        (["--replicas", "8"], "--replicas"),
        (["--replicas", "2", "--max-epoch", "1", "--no-symmetry", "--min-isr", "3"], "--min-isr"),
        (["--truncation", "kip999"], "--truncation"),
        (["--max-records", "-1"], "--max-records"),
        (["--invariant", "NoSuchThing"], "--invariant"),
        (["--time-limit", "0"], "--time-limit"),
        (["--bogus"], "--bogus"),
    ],
)
def test_bad_input_is_one_message_and_exit_2(tmp_path, args, option):
    result = run("explore", *args, tmp_path=tmp_path)
    assert result.exit_code == 2
    assert option in result.output and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def test_min_isr_message_names_the_allowed_range(tmp_path):
    result = run(
        "explore",
        "--replicas",
        "2",
        "--max-epoch",
        "1",
        "--no-symmetry",
        "--min-isr",
        "3",
        tmp_path=tmp_path,
    )
    assert "between 1 and --replicas (2)" in result.output


def test_depth_bound_exits_3_and_says_so(tmp_path):
    result = run(
        "explore",
        "--replicas",
        "2",
        "--max-epoch",
        "1",
        "--no-symmetry",
        "--max-depth",
        "4",
        tmp_path=tmp_path,
    )
    assert result.exit_code == 3
    assert "INCOMPLETE" in result.stdout and "depth bound 4" in result.stdout
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["status"] == "INCOMPLETE" and not summary["exhausted"]
    assert summary["properties"]["NoCommittedLoss"]["verdict"] == "unknown"


def test_unreachable_guard_exits_13(tmp_path):
    result = run(
        "explore",
        "--replicas",
        "2",
        "--max-epoch",
        "1",
        "--no-symmetry",
        "--max-crashes",
        "0",
        tmp_path=tmp_path,
    )
    assert result.exit_code == 13
    assert "never reached" in result.stdout and "VACUOUS" in result.stdout


def test_unwritable_report_folder_exits_5(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = CliRunner().invoke(
        cli, ["explore", "--replicas", "1", "--max-crashes", "0", "--out", str(blocker / "sub")]
    )
    assert result.exit_code == 5
    assert "cannot write the reports" in result.output and "Traceback" not in result.output


def test_list_shows_variants_actions_properties_and_bounds():
    result = run("list", "all")
    assert result.exit_code == 0
    for word in ("kip320", "BecomeFollower", "NoCommittedLoss", "SecondElection", "--max-epoch"):
        assert word in result.stdout


def test_default_report_folder_is_under_reports(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("explore", "--replicas", "1", "--max-crashes", "0")
    assert result.exit_code == 13
    folders = list(Path("reports").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith("kafka-4.1-r1-")
