"""Checkpoints and resume from the command line (``--checkpoint``, ``--resume``): explore,
compare, simulate and gate go on from a run that was cut short, a real SIGKILL included;
bounds or code that differ from the checkpoint's are refused with one message, exit 4; a
checkpoint that cannot be written is said once. The engine-level guarantees (any moment,
any engine) are in ``tests/test_checkpoint.py``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.checkpoint.format import sealed
from checker.cli import cli

# 30,797 orbits, depth 26, six properties violated on the way: traces must survive a resume


SMALL = ["--replicas", "2", "--truncation", "hw", "--max-records", "2", "--max-crashes", "2"]


def cli_run(*args: str, cwd: Path):
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(cli, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture()
def cut(tmp_path):
    """A run cut by a time limit right after its first levels, its checkpoint in ckpt/."""
    result = cli_run(
        "explore",
        *SMALL,
        "--core",
        "reference",
        "--workers",
        "1",
        "--max-depth",
        "30",
        "--checkpoint",
        "ckpt",
        "--checkpoint-every",
        "0.0001",
        "--out",
        "r1",
        "--no-progress",
        "--show",
        "none",
        "--time-limit",
        "0.05",
        cwd=tmp_path,
    )
    assert result.exit_code in (3, 12), result.output
    assert "Resume with: hwcheck explore --resume ckpt" in result.output.splitlines()[-1]
    return tmp_path


def test_explore_resume_on_the_command_line(cut):
    full = cli_run(
        "explore", *SMALL, "--max-depth", "30", "--json", "--out", "full", "--no-progress", cwd=cut
    )
    again = cli_run(
        "explore",
        "--resume",
        "ckpt",
        "--json",
        "--out",
        "r2",
        "--no-progress",
        "--workers",
        "2",
        cwd=cut,
    )
    strip = (
        "seconds",
        "distinct_per_second",
        "peak_rss_mb",
        "engine",
        "core",
        "key",  # what the seen set dedups on: the core's
        "workers_peak_rss_mb",
        "seen_bytes",  # the compiled core's memory (0 on the reference core)
        "parent_bytes",
        "seen_held",
        "parent_file_bytes",
        "trace",
        "report",
    )

    def same(text):
        document = json.loads(text[text.index("{") : text.rindex("}") + 1])
        return json.loads(
            json.dumps(document),
            object_hook=lambda d: {k: v for k, v in d.items() if k not in strip},
        )

    assert again.exit_code == full.exit_code == 12
    assert same(again.output) == same(full.output)


@pytest.mark.parametrize(
    "flags, says",
    [
        (["--max-records", "1"], "written with max_records = 2, this command has 1"),
        (["--no-symmetry"], "the checkpoint's symmetry is True, this command's False"),
        (["--max-depth", "12"], "the checkpoint's max_depth is 30, this command's 12"),
    ],
)
def test_resume_refuses_other_bounds(cut, flags, says):
    result = cli_run("explore", "--resume", "ckpt", *flags, "--no-progress", cwd=cut)
    assert result.exit_code == 4
    assert says in result.output and "Traceback" not in result.output


def test_resume_refuses_changed_code_damaged_files_and_other_files(cut):
    manifest = cut / "ckpt" / "checkpoint.json"
    original = manifest.read_text()
    for field in ("code", "frontier_size", "search"):  # any edit breaks the manifest's seal
        edited = json.loads(original)
        edited[field] = "0" + edited["code"] if field == "code" else {"distinct": 10**6}
        manifest.write_text(json.dumps(edited, indent=1))
        result = cli_run("explore", "--resume", "ckpt", "--no-progress", cwd=cut)
        assert result.exit_code == 4, result.output
        assert "its checksum does not match its fields (edited or damaged)" in result.output
    edited = json.loads(original)
    edited["code"] = "0" + edited["code"]
    manifest.write_bytes(sealed(edited))  # sealed again: the code digest itself differs
    result = cli_run("explore", "--resume", "ckpt", cwd=cut)
    assert result.exit_code == 4 and "the model's code changed" in result.output
    manifest.write_text(original)
    frontier = next((cut / "ckpt").glob("frontier-*.npy"))
    whole = frontier.read_bytes()
    frontier.write_bytes(whole[:-10])
    result = cli_run("explore", "--resume", "ckpt", "--no-progress", cwd=cut)
    assert result.exit_code == 4 and "is incomplete: frontier-" in result.output
    frontier.write_bytes(whole)
    # the last level file the time limit left (how many depends on the machine's speed)
    level = max((cut / "ckpt" / "levels").glob("L*.npy"))
    assert level.name >= "L0001.npy"
    data = bytearray(level.read_bytes())
    data[-3] ^= 0x40  # one bit of a parent fingerprint
    level.write_bytes(bytes(data))
    result = cli_run("explore", "--resume", "ckpt", "--no-progress", cwd=cut)
    assert result.exit_code == 4 and f"is damaged: levels/{level.name}" in result.output
    manifest.write_text(json.dumps({"format": "something-else"}))
    result = cli_run("explore", "--resume", "ckpt", cwd=cut)
    assert result.exit_code == 4 and "not an hwcheck checkpoint" in result.output
    manifest.write_text('{"format": "hwcheck-checkp')  # cut short in a string
    result = cli_run("explore", "--resume", "ckpt", cwd=cut)
    assert result.exit_code == 4 and result.output.splitlines()[-1] == (
        f"Error: cannot resume: {Path('ckpt', 'checkpoint.json')}: not valid JSON: unterminated "
        "string starting at line 1 column 12 (the file ends early — truncated?)"
    )
    result = cli_run("explore", "--resume", "nowhere", cwd=cut)
    assert result.exit_code == 4 and "holds no checkpoint" in result.output


def test_only_a_checkpoint_of_core_rows_needs_the_same_compiled_core(cut):
    """A checkpoint of the reference's fingerprints and states outlives an edit of the
    compiled core (``core_code`` differs: resumable); one that holds the core's rows does
    not, and says why."""
    from checker.checkpoint.format import CheckpointError
    from checker.checkpoint.read import load

    folder = cut / "ckpt"
    manifest = json.loads((folder / "checkpoint.json").read_text())
    assert manifest["frontier_kind"] == "states"
    keys = ("code", "core_code", "model", "config", "symmetry", "max_depth")
    identity = {key: manifest[key] for key in keys}
    identity["core_code"] = "0" + manifest["core_code"]
    assert load(folder, identity).level == manifest["level"]
    (folder / "checkpoint.json").write_bytes(sealed({**manifest, "frontier_kind": "rows"}))
    with pytest.raises(CheckpointError, match="the compiled core's code changed since"):
        load(folder, identity)
    identity["code"] = "0" + manifest["code"]
    with pytest.raises(CheckpointError, match="the model's code changed since"):
        load(folder, identity)


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


def test_sigkill_of_a_command_with_workers_resumes(tmp_path):
    """A real SIGKILL to ``explore --workers 2`` once it has a checkpoint: no worker left
    behind, and the resumed run's answers are the uninterrupted run's."""
    from test_interrupts import HWCHECK, alive, descendants

    proc = subprocess.Popen(
        [
            *HWCHECK,
            "explore",
            *SMALL,
            "--core",
            "reference",
            "--workers",
            "2",
            "--checkpoint",
            "ck",
            "--checkpoint-every",
            "0.0001",
            "--no-progress",
            "--json",
            "--out",
            "a",
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    manifest = tmp_path / "ck" / "checkpoint.json"
    deadline = time.time() + 60
    while time.time() < deadline:
        if manifest.exists() and json.loads(manifest.read_text())["level"] >= 12:
            break
        time.sleep(0.02)
    family = descendants(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.time() + 10
    while alive(family) and time.time() < deadline:
        time.sleep(0.2)
    assert not alive(family)
    full = cli_run("explore", *SMALL, "--json", "--no-progress", "--out", "b", cwd=tmp_path)
    again = cli_run(
        "explore",
        "--resume",
        "ck",
        "--json",
        "--no-progress",
        "--out",
        "c",
        "--workers",
        "1",
        "--core",
        "reference",
        cwd=tmp_path,
    )
    pick = ("distinct", "generated", "depth", "actions")
    first = json.loads(full.output[full.output.index("{") :])
    second = json.loads(again.output[again.output.index("{") :])
    assert {k: first["stats"][k] for k in pick} == {k: second["stats"][k] for k in pick}

    def verdicts(document):
        return {
            name: {k: v for k, v in entry.items() if k != "trace"}
            for name, entry in document["properties"].items()
        }

    assert verdicts(first) == verdicts(second)


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


def test_a_new_search_does_not_write_over_a_checkpoint(cut):
    result = cli_run("explore", *SMALL, "--checkpoint", "ckpt", "--no-progress", cwd=cut)
    assert result.exit_code == 2
    assert "ckpt holds a checkpoint already: go on from it with --resume ckpt" in result.output


def test_a_resumed_search_says_so_while_its_checkpoint_loads(cut):
    """Under a terminal the line says the checkpoint is loading (no engine reports before it
    has), then, while the numbers are still the checkpoint's, that its frontier is being
    expanded (engines report at level boundaries): not "starting", nor the checkpoint's
    numbers as if the search stood still."""
    from test_terminal_progress import read_terminal

    manifest = json.loads((cut / "ckpt" / "checkpoint.json").read_text())
    search = manifest["search"]
    assert manifest["frontier_size"], "the cut run finished: the test proves nothing"
    code, drawn = read_terminal(["explore", "--resume", "ckpt", "--out", "r2"], cut)
    assert code == 12, drawn
    assert (
        f"resuming: loading the checkpoint (depth {search['depth']}, {search['distinct']:,} "
        f"distinct, {manifest['frontier_size']:,} frontier)"
    ) in drawn
    assert (
        f"depth {search['depth']}  distinct {search['distinct']:,}  frontier "
        f"{manifest['frontier_size']:,}  generated {search['generated']:,}"
    ) in drawn
    assert "(resumed: expanding the checkpoint's frontier)" in drawn
    assert " starting " not in drawn


def test_a_resumed_run_writes_its_reports_where_the_run_it_resumes_did(cut):
    """The cut run noted its report folder beside its checkpoint; a resume without --out
    writes there (not to a new reports/<run>), and --out still chooses."""
    assert (cut / "ckpt" / "run-folder.txt").read_text() == f"{Path('..', 'r1')}\n"
    again = cli_run("explore", "--resume", "ckpt", "--no-progress", "--show", "none", cwd=cut)
    assert again.exit_code == 12, again.output
    assert "Reports written to r1/" in again.output
    assert sorted(p.name for p in cut.iterdir()) == ["ckpt", "r1"]
    elsewhere = ("explore", "--resume", "ckpt", "--out", "r2", "--no-progress", "--show", "none")
    assert "Reports written to r2/" in cli_run(*elsewhere, cwd=cut).output
