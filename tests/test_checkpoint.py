"""Checkpoints and resume (``checker.checkpoint``, ``checker.saving``): a search killed at any
moment, during a level or in the middle of writing a checkpoint, and resumed from what is on
disk, on the same engine or another, gives the uninterrupted run's answers field for field,
traces included; a checkpoint for something else is refused with one message, exit 4."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker import checkpoint, pool
from checker.bfs import Limits, explore
from checker.checkpoint import Checkpointer, CheckpointError
from checker.cli import cli
from checker.commands import checkpoints
from checker.models import compose
from checker.native import engine as native_engine
from checker.resume import load
from checker.saving import SaveOptions
from spec.kafka import Config

# 30,797 orbits, depth 26, six properties violated on the way: traces must survive a resume
RECIPE = compose.Recipe(
    "kafka", Config(replicas=2, truncation="hw", max_records=2, max_epoch=2, max_crashes=2), ()
)
SPEC, PROPS = RECIPE.build()
CODEC, _ = compose.compiled_model(SPEC, certified=False)
IDENTITY = checkpoints.identity("kafka", RECIPE.config, (), PROPS, True, Limits())
ENGINES = ("local", "compiled", "workers")


def signature(result):
    """Everything a resumed run must reproduce (not timings, memory or the engine's name)."""
    stats = result.stats
    return (
        result.status,
        stats.distinct,
        stats.generated,
        stats.depth,
        stats.actions,
        result.exhausted,
        result.unreached,
        [
            (v.prop.name, [(str(s.label), s.fingerprint, s.state) for s in v.trace])
            for v in result.violations
        ],
    )


def search(engine: str, saving: SaveOptions | None = None, on_progress=None):
    if engine == "local":
        return explore(SPEC, PROPS, Limits(), on_progress, True, saving)
    if engine == "compiled":
        return native_engine.explore(
            CODEC, SPEC, PROPS, Limits(), on_progress, True, 2, saving=saving
        )
    return pool.explore(RECIPE, 2, Limits(), on_progress, True, min_frontier=200, saving=saving)


@pytest.fixture(scope="module")
def uninterrupted():
    return signature(search("local"))


def resumed(folder: Path, engine: str):
    """Resume the checkpoint in ``folder`` on ``engine`` (writing checkpoints on)."""
    loaded = load(folder, IDENTITY)
    writer = Checkpointer(folder, IDENTITY, 1e-9, resumed=loaded)
    if engine == "compiled" and loaded.seen() is None:
        engine = "local"  # what the CLI does: no compiled seen set, the reference core goes on
    return search(engine, SaveOptions(writer, loaded, CODEC.decode, CODEC.encode))


def killed(folder: Path, engine: str, moment: tuple[str, float]) -> int:
    """Run ``engine`` with a checkpoint at every level in a forked child that ends itself
    with ``os._exit(9)`` (as SIGKILL would: no cleanup, no final checkpoint) at ``moment``:
    ``("write", n)`` half-way through the n-th file write of the checkpoints, ``("level",
    s)`` ``s`` seconds after the start, wherever the search is then (most of its time is
    inside levels). Returns the child's exit status (0: it finished first)."""
    pid = os.fork()
    if pid == 0:  # the child
        try:
            kind, n = moment
            calls = [0]
            real_write, real_arrays = checkpoint.write_file, checkpoint.write_arrays

            def die_half_way(path, data: bytes) -> None:
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                tmp.write_bytes(data[: len(data) // 2])
                os._exit(9)

            def dying_write(path, data):
                calls[0] += 1
                if calls[0] == n:
                    die_half_way(path, data)
                real_write(path, data)

            def dying_arrays(path, arrays, sync=True):
                calls[0] += 1
                if calls[0] == n:
                    die_half_way(path, b"".join(a.tobytes() for a in arrays))
                return real_arrays(path, arrays, sync)

            if kind == "write":
                checkpoint.write_file, checkpoint.write_arrays = dying_write, dying_arrays
            else:
                threading.Timer(n, os._exit, (9,)).start()
            search(engine, SaveOptions(Checkpointer(folder, IDENTITY, 1e-9)))
            os._exit(0)
        except BaseException:  # noqa: BLE001 -- never return into pytest in the child
            os._exit(1)
    return os.waitpid(pid, 0)[1] >> 8


MOMENTS = [
    ("write", 1),
    ("write", 2),
    ("write", 5),
    ("write", 11),
    ("write", 30),
    ("level", 0.05),
    ("level", 0.15),
    ("level", 0.25),
    ("level", 0.35),
    ("level", 0.5),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("moment", MOMENTS, ids=lambda m: f"{m[0]}{m[1]}")
def test_a_killed_search_resumes_to_the_same_answers(tmp_path, uninterrupted, engine, moment):
    folder = tmp_path / "ck"
    status = killed(folder, engine, moment)
    # it died at that moment (a fast engine may finish before a late timer: then the final
    # checkpoint must resume to the same answers too)
    assert status == 9 or (status == 0 and moment[0] == "level")
    try:
        load(folder, IDENTITY)
    except CheckpointError as exc:  # killed before its first checkpoint: nothing to resume
        assert "holds no checkpoint" in str(exc)
        assert moment[0] == "write" and moment[1] <= 2
        return
    # resumed on the engine that wrote it and on another: the uninterrupted run's answers
    other = ENGINES[(ENGINES.index(engine) + 1) % len(ENGINES)]
    for target in (engine, other):
        copy = shutil.copytree(folder, tmp_path / target)
        assert signature(resumed(copy, target)) == uninterrupted


def test_a_finished_checkpoint_resumes_at_once(tmp_path, uninterrupted):
    search("local", SaveOptions(Checkpointer(tmp_path, IDENTITY, 1e-9)))
    manifest = json.loads((tmp_path / "checkpoint.json").read_text())
    assert manifest["frontier_size"] == 0 and manifest["level"] == 26
    assert signature(resumed(tmp_path, "workers")) == uninterrupted


def test_a_checkpoint_costs_16_bytes_a_state_in_level_files(tmp_path):
    search("compiled", SaveOptions(Checkpointer(tmp_path, IDENTITY, 1e-9)))
    levels = sum(p.stat().st_size for p in (tmp_path / "levels").iterdir())
    assert 16 * 30_797 <= levels <= 16 * 30_797 + 26 * 256  # 2 x uint64 a state, 2 headers


# -- the command line --------------------------------------------------------------------
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
        "workers_peak_rss_mb",
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
    manifest.write_text(original.replace('"code": "', '"code": "0'))
    result = cli_run("explore", "--resume", "ckpt", cwd=cut)
    assert result.exit_code == 4 and "the model's code changed" in result.output
    manifest.write_text(original)
    frontier = next((cut / "ckpt").glob("frontier-*.npy"))
    whole = frontier.read_bytes()
    frontier.write_bytes(whole[:-10])
    result = cli_run("explore", "--resume", "ckpt", "--no-progress", cwd=cut)
    assert result.exit_code == 4 and "is incomplete: frontier-" in result.output
    frontier.write_bytes(whole)
    level = cut / "ckpt" / "levels" / "L0003.npy"
    data = bytearray(level.read_bytes())
    data[-3] ^= 0x40  # one bit of a parent fingerprint
    level.write_bytes(bytes(data))
    result = cli_run("explore", "--resume", "ckpt", "--no-progress", cwd=cut)
    assert result.exit_code == 4 and "is damaged: levels/L0003.npy" in result.output
    manifest.write_text(json.dumps({"format": "something-else"}))
    result = cli_run("explore", "--resume", "ckpt", cwd=cut)
    assert result.exit_code == 4 and "not an hwcheck checkpoint" in result.output
    manifest.write_text("{ truncated")
    result = cli_run("explore", "--resume", "ckpt", cwd=cut)
    assert result.exit_code == 4 and "not an hwcheck checkpoint" in result.output
    result = cli_run("explore", "--resume", "nowhere", cwd=cut)
    assert result.exit_code == 4 and "holds no checkpoint" in result.output


def test_a_checkpoint_that_cannot_be_written(tmp_path):
    (tmp_path / "afile").write_text("not a folder")
    result = cli_run(
        "explore",
        *SMALL,
        "--checkpoint",
        "afile/ck",
        "--checkpoint-every",
        "0.0001",
        "--no-progress",
        "--show",
        "none",
        "--json",
        cwd=tmp_path,
    )
    assert result.exit_code == 12  # the search went on to its verdicts
    assert result.output.count("Warning: cannot write the checkpoint in afile/ck") == 1
    assert "Traceback" not in result.output
    required = cli_run(
        "explore",
        *SMALL,
        "--checkpoint",
        "afile/ck",
        "--checkpoint-every",
        "0.0001",
        "--checkpoint-required",
        "--no-progress",
        "--show",
        "none",
        cwd=tmp_path,
    )
    assert required.exit_code == 3 and "--checkpoint-required" in required.output


def test_a_full_disk_keeps_the_last_good_checkpoint(tmp_path, monkeypatch, uninterrupted):
    real, calls = checkpoint.write_arrays, [0]

    def full_disk(path, arrays, sync=True):
        calls[0] += 1
        if calls[0] >= 20:  # the disk fills up after 19 array files (levels and frontiers)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, arrays, sync)

    monkeypatch.setattr(checkpoint, "write_arrays", full_disk)
    result = cli_run(
        "explore",
        *SMALL,
        "--checkpoint",
        "ck",
        "--checkpoint-every",
        "0.0001",
        "--no-progress",
        "--show",
        "none",
        "--json",
        cwd=tmp_path,
    )
    assert result.exit_code == 12
    assert (
        result.output.count(
            "No space left on device; the search goes on without "
            "checkpoints, and the checkpoint of level"
        )
        == 1
    )
    monkeypatch.setattr(checkpoint, "write_arrays", real)
    kept = load(tmp_path / "ck", IDENTITY)
    assert 1 < kept.level < 26
    assert not list((tmp_path / "ck").glob(".*.tmp"))
    assert signature(resumed(tmp_path / "ck", "local")) == uninterrupted


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
            "StrongIsr", "WeakIsr"]

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
    assert again.output.count("│ PASS") == 2 and "11,026" in again.output


def test_a_new_search_does_not_write_over_a_checkpoint(cut):
    result = cli_run("explore", *SMALL, "--checkpoint", "ckpt", "--no-progress", cwd=cut)
    assert result.exit_code == 2
    assert "ckpt holds a checkpoint already: go on from it with --resume ckpt" in result.output
