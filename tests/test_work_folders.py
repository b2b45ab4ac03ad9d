"""The temporary and tier folders a search works in
(``checker.search.partitioned.level_files.work_folder``): locked while their search lives, deleted
by the next search once their holder is gone, by SIGKILL or the out-of-memory killer included. Split
from tests/test_disk_tier.py."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from checker.checkpoint.saving import run_search
from checker.composition.compose import build_model
from checker.limits import Limits
from checker.native.layout import compiled_model
from checker.result import Status
from checker.search.compiled import search as native_engine
from checker.search.partitioned import level_files
from checker.search.tier import spill as tier
from checker.search.tier.spill import MIN_BUDGET
from spec.kafka import Config

SPILL = MIN_BUDGET
"""A budget every search passes at its first level: it spills at every level boundary."""


def test_a_killed_searchs_work_folder_is_deleted_by_the_next_search(tmp_path, monkeypatch):
    """A search killed with SIGKILL (or by the out-of-memory killer) leaves its disk tier's
    and its pool's temporary folders; the next one deletes those whose lock no process
    holds, and leaves a running search's folder (locked, whatever its name says) and
    folders without a lock alone."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    killed = [holder("hwcheck-spill-"), holder("hwcheck-levels-")]
    running, live = holder("hwcheck-spill-")
    try:
        for child, _ in killed:
            child.kill()
            child.wait()
        (tmp_path / "hwcheck-spill-no-lock").mkdir()
        spilled = run_spilled()
        pooled = level_files.work_folder("hwcheck-levels-")
        level_files.remove(pooled)
        left = sorted(p.name for p in tmp_path.iterdir())
        assert left == sorted([live, "hwcheck-spill-no-lock"]), left
        assert spilled.startswith(f"hwcheck-spill-{os.getpid()}-"), spilled
        assert Path(pooled).name.startswith(f"hwcheck-levels-{os.getpid()}-"), pooled
    finally:
        running.kill()
        running.wait()


HOLD = (
    "import sys, time; from checker.search.partitioned import level_files; "
    "print(level_files.work_folder(sys.argv[1], sys.argv[2] or None), flush=True); time.sleep(60)"
)


def holder(prefix: str, parent: str = "") -> tuple[subprocess.Popen[str], str]:
    """A process holding a new ``level_files.work_folder`` until killed, and the folder's name."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD, prefix, parent], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    return child, Path(child.stdout.readline().strip()).name


def test_a_killed_searchs_tier_beside_its_checkpoints_is_deleted_by_the_next(tmp_path):
    """The tier beside a checkpoint (``.spill-<pid>-<random>``) is locked as a temporary
    one is: the next search placed there deletes a killed search's, keeps a running one's,
    and makes its own under a new name even where a dead search had its pid."""
    (dead, gone), (running, live) = (
        holder(".spill-", str(tmp_path)),
        holder(".spill-", str(tmp_path)),
    )
    try:
        dead.kill()
        dead.wait()
        (tmp_path / f".spill-{os.getpid()}").mkdir()  # an old-style folder, no lock: kept
        placed = tier.Tier(None, None, None, 0, None)
        placed.place(tmp_path)
        mine = placed.home().name
        assert mine.startswith(f".spill-{os.getpid()}-"), mine
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            [live, mine, f".spill-{os.getpid()}"]
        ), gone
        placed.close()
        assert not (tmp_path / mine).exists()
    finally:
        running.kill()
        running.wait()


def run_spilled() -> str:
    """A search spilled at every level into a temporary tier folder: the folder's name."""
    spec, props = build_model("kafka", Config(replicas=2, truncation="hw"))
    compiled, _ = compiled_model(spec)
    run = native_engine.CompiledSearch(
        compiled, spec, props, Limits(), None, False, 1, memory=SPILL
    )
    try:
        assert run_search(run).status in (Status.OK, Status.VIOLATED)
        return run.tier.home().name
    finally:
        run.stream.close()
        run.tier.close()
