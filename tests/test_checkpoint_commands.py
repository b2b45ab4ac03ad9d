"""Checkpoints and resume from the command line (``--checkpoint``, ``--resume``) of the
commands made of several searches or of walks: compare resumes each cell, simulate takes the
walks of one long run and says what is wrong with a manifest as explore does, and gate keeps
the checks a Ctrl-C left finished and runs the rest. ``explore``'s are in
``tests/test_checkpoint_explore.py``, the engine-level guarantees (any moment, any engine) in
``tests/test_checkpoint.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from resuming import cli_run


def test_compare_resumes_each_cell(tmp_path):
    args = [
        "compare",
        "--replicas",
        "2",
        "--no-progress",
        "--json",
        "--core",
        "reference",
        "--workers",
        "1",
    ]
    first = cli_run(
        *args,
        "--time-limit",
        "0.2",
        "--checkpoint",
        "ck",
        "--checkpoint-every",
        "0.0001",
        "--out",
        "a",
        cwd=tmp_path,
    )
    assert "Resume with: the same hwcheck compare command and --resume ck" in first.output
    full = cli_run(*args, "--out", "b", cwd=tmp_path)
    again = cli_run(*args, "--resume", "ck", "--out", "c", cwd=tmp_path)

    def cells(text):
        rows = json.loads(text[text.index("{") : text.rindex("}") + 1])["rows"]
        rows = json.loads(
            json.dumps(rows),
            object_hook=lambda d: {
                k: v for k, v in d.items() if k not in ("seconds", "trace", "report")
            },
        )
        return json.dumps(rows, sort_keys=True)

    assert cells(again.output) == cells(full.output)


def test_simulate_resume_takes_the_walks_of_one_long_run(tmp_path):
    args = [
        "simulate",
        "--replicas",
        "3",
        "--seed",
        "5",
        "--no-progress",
        "--json",
        "--workers",
        "1",
    ]
    cut = cli_run(
        *args,
        "--walks",
        "300",
        "--checkpoint",
        "ck",
        "--checkpoint-every",
        "0.0001",
        "--out",
        "a",
        cwd=tmp_path,
    )
    assert cut.exit_code == 0
    saved = json.loads((tmp_path / "ck" / "checkpoint.json").read_text())
    assert saved["kind"] == "simulate" and saved["next_walk"] == 300
    full = cli_run(*args, "--walks", "700", "--out", "b", cwd=tmp_path)
    more = cli_run(*args, "--walks", "700", "--resume", "ck", "--out", "c", cwd=tmp_path)

    def stats(text):
        document = json.loads(text[text.index("{") : text.rindex("}") + 1])
        return (
            {
                k: v
                for k, v in document["stats"].items()
                if k in ("walks", "steps", "distinct", "ends", "lengths", "actions")
            },
            document["properties"],
            document["status"],
        )

    assert stats(more.output) == stats(full.output)
    assert stats(full.output)[0]["walks"] == 700


def test_simulate_resume_says_what_is_wrong_with_a_manifest_as_explore_does(tmp_path):
    """A manifest cut short, or not UTF-8: ``simulate --resume`` and ``explore --resume``
    say it in the same words (``checker.jsontext``), not in Python's."""
    args = ["simulate", "--replicas", "2", "--seed", "5", "--no-progress", "--workers", "1"]
    saved = ("--walks", "60", "--checkpoint", "ck", "--checkpoint-every", "0.0001")
    assert cli_run(*args, *saved, "--out", "a", cwd=tmp_path).exit_code == 0
    manifest = tmp_path / "ck" / "checkpoint.json"
    where = Path("ck", "checkpoint.json")
    for content, said in (
        (
            b'{"format": "hwcheck-checkp',  # cut short in a string
            (
                "not valid JSON: unterminated string starting at line 1 column 12 (the file "
                "ends early — truncated?)"
            ),
        ),
        (b"\xff{}", "not UTF-8 text (byte 0xff at offset 0)"),
    ):
        manifest.write_bytes(content)
        for command in (
            [*args, "--walks", "80", "--resume", "ck", "--out", "b"],
            ["explore", "--resume", "ck", "--no-progress"],
        ):
            result = cli_run(*command, cwd=tmp_path)
            assert result.exit_code == 4
            assert result.output.splitlines()[-1] == f"Error: cannot resume: {where}: {said}"


if sys.platform != "linux":  # fork, /proc
    pytestmark = pytest.mark.skip("Linux only")


GATE = """
[[tool.hwcheck.gate]]
name = "hw r2"
truncation = "hw"
replicas = 2
violates = ["NoCommittedLoss", "NoAckedLoss", "NoDivergence", "RecordEpochsMonotonic",
            "StrongIsr", "WeakIsr", "NoUncommittedRead"]

[[tool.hwcheck.gate]]
name = "kip320 r2"
truncation = "kip320"
replicas = 2
expect = "holds"
"""


def test_gate_resume_keeps_finished_checks_and_runs_the_rest(tmp_path, monkeypatch):
    """Ctrl-C while the second check runs; ``--resume`` takes the first from its final
    checkpoint (no search) and runs the second: the full gate's verdicts."""
    from checker.commands import gate as gate_run

    (tmp_path / "gate.toml").write_text(GATE)
    args = [
        "gate",
        "--config",
        "gate.toml",
        "--no-progress",
        "--core",
        "reference",
        "--workers",
        "1",
    ]
    full = cli_run(*args, "--update", "--out", "a", cwd=tmp_path)
    assert full.exit_code == 0, full.output
    real, calls = gate_run.run, []

    def cut_second(*a, **k):
        calls.append(a[0])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(gate_run, "run", cut_second)
    cut = cli_run(*args, "--out", "b", cwd=tmp_path)
    assert cut.exit_code == 3
    assert cut.output.strip().splitlines()[-1] == (
        "Resume with: the same hwcheck gate command and --resume b/checkpoint"
    )
    first = json.loads((tmp_path / "b/checkpoint/hw-r2/checkpoint.json").read_text())
    assert first["frontier_size"] == 0 or first["search"]["violations"]
    monkeypatch.setattr(gate_run, "run", real)
    again = cli_run(*args, "--resume", "b/checkpoint", "--out", "c", cwd=tmp_path)
    assert again.exit_code == 0, again.output  # the pins of the full run match
    assert again.output.count("│ PASS") == 2 and "9,574" in again.output
