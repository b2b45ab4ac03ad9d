"""A team's own variants (issue 14): ``--variant-file``, the ``hwcheck.variants`` entry point
group, and every command that takes them: list, explore, compare, gate, replay.

The example file (``examples/variant_rules.py``) registers the rule ``to-leader-leo``
(truncate to the leader's LEO, comparing no epochs) and the variant ``leo-fenced`` (that rule
with KIP-320's fences). Its shortest fork at 2 replicas, epoch 1, as the story tells it:
two elections leave both replicas presuming leadership (0 in the stale epoch 0), each writes
a record (m0 on 0, m1 on 1), 0 follows 1 and the rule keeps m0 (the leader's LEO is 1), and a
fetch moves 0's HW past it: 10 states, NoDivergence.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import check

from checker.cli import cli
from spec.kafka import Config, ConfigError, KafkaSpec, plugins

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "variant_rules.py")


@pytest.fixture(autouse=True)
def _clean_registry(variant_registry):
    """Each test starts from the built-in variants and leaves them as it found them
    (``conftest.variant_registry``); the example file is trusted, as the user's own
    ``--variant-file`` is (``test_untrusted_files`` shows what an untrusted one gets)."""
    plugins.trust(EXAMPLE)


def _kafka(**bounds):
    return KafkaSpec(Config(**{"replicas": 2, "max_epoch": 1, "truncation": "kip320", **bounds}))


def test_a_variant_file_registers_its_rule_and_variant():
    assert plugins.load_file(EXAMPLE) == ("to-leader-leo", "leo-fenced")
    assert plugins.registered() == {"rules": ["to-leader-leo"], "variants": ["leo-fenced"]}
    assert plugins.load_file(EXAMPLE) == ("to-leader-leo", "leo-fenced")  # once per file
    spec = _kafka(truncation="leo-fenced", variant_file=EXAMPLE)
    assert spec.variant.mechanisms == (
        "to-leader-leo",
        "fenced-lookup",
        "fenced-fetch",
        "fenced-expand",
    )


def test_the_example_variant_forks_the_log_and_its_rule_swaps_into_any_preset():
    spec = _kafka(truncation="leo-fenced", variant_file=EXAMPLE)
    assert [v.length for v in check(spec, "NoDivergence").violations] == [10]
    swapped = _kafka(with_mechanisms=("to-leader-leo",), variant_file=EXAMPLE)
    assert swapped.variant_name == "kip320 +to-leader-leo"
    assert [v.length for v in check(swapped, "NoDivergence").violations] == [10]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("raise RuntimeError('boom')", "failed to import: RuntimeError: boom"),
        ("x = 1", "defines no TruncationRule or Variant"),
        (
            (
                "from spec.kafka.variants import Variant, RULES\n"
                "V = Variant('kip320', RULES['hw-truncation'], frozenset())"
            ),
            "'kip320' is already",
        ),
        (
            (
                "from spec.kafka.variants import Variant, RULES\n"
                "V = Variant('Ours', RULES['hw-truncation'], frozenset())"
            ),
            "not lowercase",
        ),
        (
            (
                "from spec.kafka.variants import Variant, RULES\n"
                "V = Variant('ours', RULES['hw-truncation'], frozenset({'fenced-fench'}))"
            ),
            "unknown switch 'fenced-fench'",
        ),
    ],
)
def test_a_bad_variant_file_is_one_config_error(tmp_path, text, message):
    path = tmp_path / "rules.py"
    if text is not None:
        path.write_text(text)
    plugins.trust(path)
    with pytest.raises(ConfigError, match="--variant-file") as error:
        Config(variant_file=str(path)).validate()
    assert message in str(error.value)


def test_a_variant_file_python_cannot_load_is_one_config_error(tmp_path):
    """A file without a Python suffix has no module loader (``spec_from_file_location``
    gives None): the error names it, not an AttributeError."""
    path = tmp_path / "rules.txt"
    path.write_text(Path(EXAMPLE).read_text())
    plugins.trust(path)
    with pytest.raises(ConfigError, match="cannot be imported as a Python module"):
        Config(variant_file=str(path)).validate()
    failed = CliRunner().invoke(cli, ["explore", "--variant-file", str(path)])
    assert failed.exit_code == 2 and "Traceback" not in failed.output


def test_an_entry_point_registers_a_list_of_variants(tmp_path, monkeypatch):
    (tmp_path / "team_rules.py").write_text(
        Path(EXAMPLE).read_text() + "\nVARIANTS = [TO_LEADER_LEO, LEO_FENCED]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    point = EntryPoint("ours", "team_rules:VARIANTS", plugins.GROUP)
    monkeypatch.setattr(plugins, "entry_points", lambda group: [point])
    assert Config(truncation="leo-fenced").validate().variant.rule.name == "to-leader-leo"


def test_list_shows_the_teams_variants_and_a_broken_file_is_exit_2(tmp_path):
    runner = CliRunner()
    shown = runner.invoke(cli, ["list", "all", "--variant-file", EXAMPLE], terminal_width=200)
    assert shown.exit_code == 0
    assert "leo-fenced" in shown.output and "truncation rule (yours)" in shown.output
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('boom')")
    failed = runner.invoke(cli, ["list", "--variant-file", str(bad)])
    assert failed.exit_code == 2 and "RuntimeError: boom" in failed.output
    assert "Traceback" not in failed.output


def test_explore_writes_a_trace_that_replays_in_a_fresh_process(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        [
            "explore",
            "--replicas",
            "2",
            "--max-epoch",
            "1",
            "--variant-file",
            EXAMPLE,
            "--truncation",
            "leo-fenced",
            "--invariant",
            "NoDivergence",
            "--no-progress",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 12, result.output
    trace = next(out.rglob("trace*.json"))
    document = json.loads(trace.read_text())
    assert document["variant"] == "leo-fenced"
    assert document["config"]["variant_file"] == EXAMPLE
    replayed = subprocess.run(
        [sys.executable, "-m", "checker.cli", "replay", str(trace), "--variant-file", EXAMPLE],
        env={k: v for k, v in os.environ.items() if k != plugins.TRUST_ENV},
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stderr
    assert "the last state violates NoDivergence" in replayed.stdout


def test_compare_adds_a_column_and_the_gate_reads_a_relative_variant_file(tmp_path):
    runner = CliRunner()
    matrix = runner.invoke(
        cli,
        [
            "compare",
            "--replicas",
            "2",
            "--max-epoch",
            "1",
            "--variant-file",
            EXAMPLE,
            "--kips",
            "--json",
            "--no-progress",
            "--out",
            str(tmp_path / "cmp"),
        ],
    )
    assert matrix.exit_code != 2, matrix.output
    rows = {row["variant"]: row for row in json.loads(matrix.stdout)["rows"]}
    assert list(rows) == ["hw", "kip101", "kip279", "kip320", "kip966", "leo-fenced"]
    assert rows["leo-fenced"]["properties"]["NoDivergence"]["verdict"] == "violated"
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "ours.py").write_text(Path(EXAMPLE).read_text())
    (tmp_path / "pyproject.toml").write_text(
        '[[tool.hwcheck.gate]]\nname = "ours forks"\ntruncation = "leo-fenced"\n'
        'variant_file = "rules/ours.py"\nreplicas = 2\nmax_epoch = 1\n'
        'invariants = ["NoDivergence"]\nviolates = ["NoDivergence"]\n'
    )
    gate = runner.invoke(
        cli,
        [
            "gate",
            "--config",
            str(tmp_path / "pyproject.toml"),
            "--no-progress",
            "--out",
            str(tmp_path / "gate"),
        ],
    )
    assert gate.exit_code == 0, gate.output
