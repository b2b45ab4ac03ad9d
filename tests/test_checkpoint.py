"""Checkpoints and resume (``checker.checkpoint``, ``checker.checkpoint.saving``): a search killed at any
moment, during a level or in the middle of writing a checkpoint, and resumed from what is on
disk, on the same engine or another, gives the uninterrupted run's answers field for field,
traces included; a checkpoint that cannot be written (a full disk) is said once and the
last good one kept. The command-line side is ``tests/test_checkpoint_explore.py`` and
``tests/test_checkpoint_commands.py``."""

from __future__ import annotations

import errno
import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from resuming import SMALL, cli_run

from checker.checkpoint import write as checkpoint
from checker.checkpoint.format import CheckpointError
from checker.checkpoint.read import load
from checker.checkpoint.saving import SaveOptions
from checker.checkpoint.write import Checkpointer
from checker.commands import checkpoints
from checker.composition import compose
from checker.native.layout import compiled_model
from checker.search.compiled import search as native_engine
from checker.search.partitioned import pool
from checker.search.reference.bfs import Limits, explore
from spec.kafka import Config

# 30,797 orbits, depth 26, six properties violated on the way: traces must survive a resume
RECIPE = compose.Recipe(
    "kafka", Config(replicas=2, truncation="hw", max_records=2, max_epoch=2, max_crashes=2), ()
)
SPEC, PROPS = RECIPE.build()
CODEC, _ = compiled_model(SPEC)
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
    if engine in ("compiled", "spilled"):  # spilled: to disk at every level
        memory = 1 << 20 if engine == "spilled" else None
        return native_engine.explore(
            CODEC, SPEC, PROPS, Limits(), on_progress, True, 2, saving=saving, memory=memory
        )
    return pool.explore(RECIPE, 2, Limits(), on_progress, True, min_frontier=200, saving=saving)


@pytest.fixture(scope="module")
def uninterrupted():
    return signature(search("local"))


def resumed(folder: Path, engine: str):
    """Resume the checkpoint in ``folder`` on ``engine`` (writing checkpoints on)."""
    loaded = load(folder, IDENTITY)
    writer = Checkpointer(folder, IDENTITY, 1e-9, resumed=loaded)
    if (
        engine in ("compiled", "spilled")
        and loaded.seen() is None
        and loaded.manifest["frontier_size"]
    ):
        engine = "local"  # what the CLI does: no compiled seen set, the reference core goes on
    return search(engine, SaveOptions(writer, loaded, CODEC))


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
    ("level", 0.25),
    ("level", 0.5),
]
"""Where a search is killed: at its Nth file write, or after so many seconds (early, mid-run
and late for the reference engines' 1 s runs; the compiled core, done in 0.06 s, is killed
only by writes, a late timer resuming its final checkpoint)."""


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
        # (before the folder was made, on a loaded machine, it is not there at all)
        assert "holds no checkpoint" in str(exc) or (
            not folder.exists() and "is not a folder" in str(exc)
        )
        # a write moment knows where it dies; a timer may fire before the first checkpoint on a
        # loaded machine (the engine's start, a worker pool's fork), which is no failure
        assert moment[0] == "level" or moment[1] <= 2
        return
    # resumed on the engine that wrote it and on another: the uninterrupted run's answers
    other = ENGINES[(ENGINES.index(engine) + 1) % len(ENGINES)]
    for target in (engine, other):
        copy = shutil.copytree(folder, tmp_path / target)
        assert signature(resumed(copy, target)) == uninterrupted


def test_a_finished_checkpoint_resumes_at_once(tmp_path, uninterrupted):
    search("local", SaveOptions(Checkpointer(tmp_path, IDENTITY, 1e-9)))
    manifest = json.loads((tmp_path / "checkpoint.json").read_text())
    assert manifest["frontier_size"] == 0 and manifest["level"] == 25
    assert signature(resumed(tmp_path, "workers")) == uninterrupted


def test_a_checkpoint_costs_16_bytes_a_state_in_level_files(tmp_path):
    search("compiled", SaveOptions(Checkpointer(tmp_path, IDENTITY, 1e-9)))
    levels = sum(p.stat().st_size for p in (tmp_path / "levels").iterdir())
    assert 16 * 25_062 <= levels <= 16 * 25_062 + 25 * 256  # 2 x uint64 a state, 2 headers


# -- the command line --------------------------------------------------------------------


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
