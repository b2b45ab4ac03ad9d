"""What a new user reads: gate configuration errors, the JUnit file's folder, tables that wrap
instead of cutting, ``hwcheck list`` printing descriptions whole, counterexamples in catalog
order and the words of "Why" lines and the collision estimate."""

from __future__ import annotations

import re

from click.testing import CliRunner

from checker.cli import cli

HOLDS = """
[[tool.hwcheck.gate]]
name = "kip320 with two replicas, a check whose name is longer than its column"
truncation = "kip320"
replicas = 2
max_epoch = 1
expect = "holds"
"""


def invoke(*args, env=None):
    return CliRunner().invoke(cli, list(map(str, args)), env=env)


def test_violates_naming_an_unknown_property_is_a_configuration_error(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(
        HOLDS + '\n[[tool.hwcheck.gate]]\ntruncation = "hw"\nreplicas = 2\n'
        'violates = ["NoSuchProp"]\n'
    )
    run = invoke("gate", "--config", config)
    assert run.exit_code == 4
    assert (
        f"Error: {config}:12: gate check 2, key 'violates': the kafka model has no "
        "property NoSuchProp"
    ) in run.output
    assert "hwcheck gate" not in run.output  # refused before any check ran


def test_violates_a_property_that_invariants_leaves_out_is_refused(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(
        '[[tool.hwcheck.gate]]\ntruncation = "hw"\nreplicas = 2\n'
        'invariants = ["WeakIsr"]\nviolates = ["NoDivergence"]\n'
    )
    run = invoke("gate", "--config", config)
    assert run.exit_code == 4
    assert "key 'violates': NoDivergence is not among the checked invariants" in run.output


def test_a_bad_bound_names_its_key_and_line(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(
        '[[tool.hwcheck.gate]]\ntruncation = "kip320"\nmodel = "tla"\n'
        'replicas = 6\nexpect = "holds"\n'
    )
    run = invoke("gate", "--config", config)
    assert run.exit_code == 4
    assert f"{config}:4: gate check 1, key 'replicas'" in run.output


def test_junit_xml_gets_its_folder_created(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(HOLDS)
    xml = tmp_path / "new" / "deeper" / "junit.xml"
    run = invoke("gate", "--config", config, "--workers", "1", "--junit-xml", xml)
    assert run.exit_code == 0, run.output
    assert "<testsuite" in xml.read_text()


def test_an_unwritable_junit_xml_is_exit_5_in_one_line(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(HOLDS)
    blocker = tmp_path / "file"
    blocker.write_text("")
    run = invoke("gate", "--config", config, "--workers", "1", "--junit-xml", blocker / "junit.xml")
    assert run.exit_code == 5
    assert f"Error: cannot write the JUnit report to {blocker / 'junit.xml'}" in run.output
    assert (
        "Traceback" not in run.output
        and run.exception is None
        or isinstance(run.exception, SystemExit)
    )


def test_the_gate_table_wraps_at_the_columns_it_is_given(tmp_path):
    config = tmp_path / "gate.toml"
    config.write_text(HOLDS)
    run = invoke("gate", "--config", config, "--workers", "1", env={"COLUMNS": "80"})
    assert run.exit_code == 0
    lines = run.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in run.output
    text = re.sub(r"[│┃\s]+", " ", run.output)
    for word in ("kip320", "longer", "column", "PASS", "every", "property", "holds"):
        assert word in text


def test_list_prints_descriptions_whole_and_literally():
    run = invoke("list", "actions", env={"COLUMNS": "200"})
    assert run.exit_code == 0
    flat = " ".join(run.output.split())
    # LeaderWrite's description holds [brackets] and continues on a second docstring line
    assert (
        "LeaderWrite: a presumed leader (stale ones too) appends [next id, its epoch] at "
        "its end offset, if ids are left and its log is not full."
    ) in re.sub(r" ?│ ?", " ", flat)


def test_explore_prints_loss_and_divergence_before_the_isr_properties(tmp_path):
    run = invoke(
        "explore",
        "--replicas",
        "2",
        "--truncation",
        "hw",
        "--workers",
        "1",
        "--show",
        "all",
        "--out",
        tmp_path / "x",
        env={"COLUMNS": "120"},
    )
    assert run.exit_code == 12
    order = [
        m.group(1) for m in re.finditer(r"^(\w+) violated \(\d+ states\)", run.output, re.MULTILINE)
    ]
    # every distinct trace drawn in importance order, then one line per repeated trace
    assert order == [
        "NoCommittedLoss",
        "NoDivergence",
        "StrongIsr",
        "RecordEpochsMonotonic",
        "NoAckedLoss",
        "NoUncommittedRead",
        "WeakIsr",
    ]
    assert "NoAckedLoss violated (11 states): same trace as NoCommittedLoss" in run.output
    assert "WeakIsr violated (10 states): same trace as StrongIsr" in run.output
    # Why lines name records as the pictures do, not as raw tuples
    assert (
        "Why: replicas 0 and 1 hold different records at offset 0 (m1 (epoch 2) vs m0 (epoch 0))"
    ) in " ".join(run.output.split())
    assert "the chance that two distinct states shared the 64-bit row hash" in " ".join(
        run.output.replace("│", " ").split()
    )
