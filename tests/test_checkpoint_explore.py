"""Checkpoints and resume of ``explore`` from the command line (``--checkpoint``,
``--resume``): a run cut short goes on, with its reports where the cut run wrote them and a
terminal line that says the checkpoint loads, a real SIGKILL of a run with workers included;
bounds or code that differ from the checkpoint's, and damaged or foreign files, are refused
with one message, exit 4; a new search does not write over a checkpoint. The other commands
are ``tests/test_checkpoint_commands.py``'s, the engine-level guarantees (any moment, any
engine) ``tests/test_checkpoint.py``'s."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from resuming import SMALL, cli_run

from checker.checkpoint.format import sealed


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
