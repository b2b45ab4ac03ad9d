"""`hwcheck gate` and `hwcheck compare`: expectations, outcomes, config errors, outputs."""

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from click.testing import CliRunner

from checker.cli import cli
from checker.gate import config
from checker.gate import policy as gate

ROOT = Path(__file__).resolve().parents[1]


def write(tmp_path, text):
    path = tmp_path / "gate.toml"
    path.write_text(text)
    return path


def run_gate(tmp_path, text, *extra, env=None):
    path = write(tmp_path, text)
    return CliRunner().invoke(
        cli, ["gate", "--config", str(path), "--out", str(tmp_path / "reports"), *extra], env=env
    )


HW_PINNED = """
[[tool.hwcheck.gate]]
name = "hw pinned"
truncation = "hw"
replicas = 2
max_epoch = 1
violates = ["NoCommittedLoss", "NoAckedLoss", "NoDivergence", "WeakIsr", "StrongIsr"]

[[tool.hwcheck.gate]]
name = "kip320 holds"
truncation = "kip320"
replicas = 2
max_epoch = 1
expect = "holds"
"""


def test_met_expectations_pass_and_write_junit(tmp_path):
    result = run_gate(tmp_path, HW_PINNED, "--junit-xml", str(tmp_path / "j.xml"))
    assert result.exit_code == 0, result.output
    assert result.stdout.count("PASS") == 2
    suite = ElementTree.parse(tmp_path / "j.xml").getroot()
    assert suite.get("failures") == "0" and suite.get("errors") == "0"
    assert int(suite.get("tests")) == 30  # 15 properties per check (NoUncommittedRead added)
    assert not (tmp_path / "reports").exists()  # nothing unexpected, nothing written


def test_a_variant_that_stops_failing_fails_the_gate(tmp_path):
    text = """
[[tool.hwcheck.gate]]
name = "kip320 pinned as buggy"
truncation = "kip320"
replicas = 2
max_epoch = 1
violates = ["NoCommittedLoss"]
"""
    result = run_gate(tmp_path, text)
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "expected violation not found" in result.stdout


def test_unexpected_violation_fails_with_traces_junit_and_github_output(tmp_path):
    text = """
[[tool.hwcheck.gate]]
name = "hw expected to hold"
truncation = "hw"
replicas = 2
max_epoch = 1
expect = "holds"
"""
    summary = tmp_path / "summary.md"
    result = run_gate(
        tmp_path,
        text,
        "--junit-xml",
        str(tmp_path / "j.xml"),
        env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.exit_code == 1
    # the annotation points at the check's header line in the config (line 2)
    assert (
        f"::error file={tmp_path / 'gate.toml'},line=2,title=hwcheck gate%3A hw expected "
        "to hold::FAIL: expected to hold"
    ) in result.stdout
    assert "## hwcheck gate" in summary.read_text() and "❌ FAIL" in summary.read_text()
    traces = list((tmp_path / "reports").glob("*/NoCommittedLoss/trace.json"))
    assert len(traces) == 1
    suite = ElementTree.parse(tmp_path / "j.xml").getroot()
    failures = suite.findall(".//failure")
    assert {f.get("message") for f in failures} >= {"NoCommittedLoss violated unexpectedly"}
    loss = next(f for f in failures if f.get("message").startswith("NoCommittedLoss"))
    assert "record" in loss.text and "1. (initial state)" in loss.text


def test_time_limit_is_incomplete_never_pass(tmp_path):
    text = """
[[tool.hwcheck.gate]]
truncation = "kip320"
replicas = 3
time_limit = 0.5
expect = "holds"
"""
    result = run_gate(tmp_path, text, "--junit-xml", str(tmp_path / "j.xml"))
    assert result.exit_code == 3
    assert "INCOMPLETE" in result.stdout and "PASS" not in result.stdout
    suite = ElementTree.parse(tmp_path / "j.xml").getroot()
    assert int(suite.get("errors")) > 0


@pytest.mark.parametrize(
    "text, where",
    [
        (
            (
                '[[tool.hwcheck.gate]]\ntruncation = "hw"\nreplicas = 2\ncolour = "red"\n'
                'expect = "holds"\n'
            ),
            ":4: gate check 1, key 'colour'",
        ),
        (
            '[[tool.hwcheck.gate]]\ntruncation = "hw"\nreplicas = "two"\nexpect = "holds"\n',
            ":3: gate check 1, key 'replicas'",
        ),
        ('[[tool.hwcheck.gate]]\ntruncation = "hw"\n', ":1: gate check 1"),
        (
            (
                '[[tool.hwcheck.gate]]\ntruncation = "hw"\nexpect = "holds"\n\n'
                '[[tool.hwcheck.gate]]\ntruncation = "hw"\nexpect = "maybe"\n'
            ),
            ":7: gate check 2, key 'expect'",
        ),
        ('[[tool.hwcheck.gate]\ntruncation = "hw"\n', "not valid TOML"),
        ("[tool.other]\nx = 1\n", "no [[tool.hwcheck.gate]] checks found"),
        (
            '[[tool.hwcheck.gate]]\ntruncation = "nope"\nexpect = "holds"\n',
            ":2: gate check 1, key 'truncation'",
        ),
    ],
)
def test_malformed_config_names_line_and_key_exit_4(tmp_path, text, where):
    result = run_gate(tmp_path, text)
    assert result.exit_code == 4
    assert where in result.output and "Traceback" not in result.output


def test_judge_rules():
    check = gate.Check("c", "kafka", "hw", {}, violates=frozenset({"A"}))
    assert check.expectation == "violates A"
    assert gate.exit_code([]) == 0


def test_project_gate_config_parses():
    checks = config.load_checks(ROOT / "pyproject.toml")
    assert any(c.violates is None and c.bounds.get("replicas") == 3 for c in checks)
    assert any(c.model == "tla" for c in checks)


@pytest.mark.parametrize("name", ["github-actions.yml", "gitlab-ci.yml"])
def test_ci_examples_parse_and_run_the_gate(name):
    document = yaml.safe_load((ROOT / "examples" / "ci" / name).read_text())
    text = json.dumps(document)
    assert "hwcheck gate --config pyproject.toml --junit-xml hwcheck-gate.xml" in text
    tutorial = (ROOT / "docs" / "tutorials" / "gate-check.md").read_text()
    assert (ROOT / "examples" / "ci" / name).read_text().strip() in tutorial
    result = CliRunner().invoke(cli, ["gate", "--help"])
    assert result.exit_code == 0 and "--junit-xml" in result.stdout


def test_compare_matrix_json_markdown(tmp_path):
    args = ["compare", "--kips", "--replicas", "2", "--max-epoch", "1"]
    args += ["--out", str(tmp_path / "cmp")]
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)["rows"]
    assert [r["variant"] for r in rows] == ["hw", "kip101", "kip279", "kip320", "kip966"]
    hw = rows[0]["properties"]["NoCommittedLoss"]
    assert hw["verdict"] == "violated" and hw["length"] == 11
    assert Path(hw["trace"]).is_file()
    assert rows[3]["properties"]["NoCommittedLoss"]["verdict"] == "holds"
    # kip966 = kip320 with durable logs and min ISR 1, but a restart leaves the ISR (Kafka 4.1)
    assert (rows[3]["states"], rows[4]["states"]) == (1681, 1703)
    markdown = CliRunner().invoke(cli, [*args, "--markdown"]).stdout
    assert "| hw |" in markdown and "[✗ 11](" in markdown
    table = CliRunner().invoke(cli, args).stdout
    assert "NoCommittedLoss" in table and "✗ 11" in table


def test_compare_crosses_unclean_and_min_isr(tmp_path):
    result = CliRunner().invoke(
        cli,
        [
            "compare",
            "--kips",
            "--replicas",
            "2",
            "--max-epoch",
            "1",
            "--cross-unclean",
            "--min-isr",
            "1",
            "--min-isr",
            "2",
            "--json",
            "--out",
            str(tmp_path / "cmp"),
        ],
    )
    assert result.exit_code == 0
    rows = json.loads(result.stdout)["rows"]
    assert len(rows) == 20
    unclean_kip320 = next(
        r for r in rows if r["variant"] == "kip320" and r["unclean"] and r["min_isr"] == 1
    )
    assert unclean_kip320["properties"]["NoCommittedLoss"]["verdict"] == "violated"
