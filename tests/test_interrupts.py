"""One Ctrl-C, as a terminal sends it (SIGINT to the whole process group: the command, its
worker processes and a JVM), ends ``explore``, ``compare`` and ``gate`` once: exit 3, the
results so far marked as partial, no traceback, no process left behind. (SIGTERM, SIGHUP and
SIGKILL: tests/test_signals.py; the progress a terminal shows: tests/test_terminal_progress.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from conftest import CTRL_C_ON, python_m

HWCHECK = [sys.executable, "-c", CTRL_C_ON + "from checker.cli import main; main()"]
SLOW_GATE = """
[[tool.hwcheck.gate]]
name = "kip320 r3"
truncation = "kip320"
replicas = 3
expect = "holds"

[[tool.hwcheck.gate]]
name = "kip101 r3"
truncation = "kip101"
replicas = 3
violates = ["NoDivergence"]
"""


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc's children lists; a process that ends while
    it is read has none)."""
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:  # it ended between its parent's list and this read
            continue
        for task in tasks:
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    """The ``pids`` still running (zombies count as gone)."""
    left = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            left.add(pid)
    return left


@dataclass(frozen=True)
class Ready:
    """Where a signal must land: ``level``, a glob under the run's folder that a file matches
    (a level file: the search has committed that level; empty for none), and ``workers``
    processes running below the command (its worker processes, a JVM)."""

    level: str = ""
    workers: int = 0


def wait_until_ready(proc: subprocess.Popen[str], tmp: Path, ready: Ready) -> None:
    """Block until ``ready`` holds, then one more second (the workers are past their start-up
    and at work). Fails the test when the command exits first or is not ready within 120 s."""
    deadline = time.time() + 120
    while not (
        (not ready.level or any(tmp.glob(ready.level)))
        and len(alive(descendants(proc.pid))) >= ready.workers
    ):
        assert proc.poll() is None, f"the command ended before {ready}: {proc.communicate()}"
        assert time.time() < deadline, f"not {ready} after 120 s"
        time.sleep(0.1)
    time.sleep(1.0)


def interrupt_after(
    args: list[str], ready: Ready, tmp: Path, wait: float = 60.0, sig: int = signal.SIGINT
):
    """Run hwcheck ``args`` in its own process group, send one ``sig`` (Ctrl-C's SIGINT, or
    a closed terminal's SIGHUP) to the group once ``ready`` (``wait_until_ready``); return
    ``(exit code, stdout, stderr, processes alive 5 s after the exit)``."""
    proc = subprocess.Popen(
        [*HWCHECK, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=tmp,
        env={**os.environ, "COLUMNS": "200", "TMPDIR": str(tmp)},
    )
    wait_until_ready(proc, tmp, ready)
    family = descendants(proc.pid)
    os.killpg(proc.pid, sig)
    out, err = proc.communicate(timeout=wait)
    deadline = time.time() + 5
    while alive(family) and time.time() < deadline:
        time.sleep(0.2)
    return proc.returncode, out, err, alive(family)


def assert_ends_as_interrupted(
    err: str, signal_name: str = "Ctrl-C", checkpoint: str = "x/checkpoint"
) -> None:
    """The last three lines an interrupted ``explore`` writes to stderr: partial counts, the
    checkpoint kept (with how to delete it), and how to resume."""
    interrupted, kept, resume = err.strip().splitlines()[-3:]
    assert interrupted.startswith(
        f"Interrupted ({signal_name}): the results below are partial. Their counts ("
    ), err
    assert kept.startswith(f"Checkpoint kept: {checkpoint} (") and kept.endswith(
        f"rm -r {checkpoint}"
    ), err
    assert resume == f"Resume with: hwcheck explore --resume {checkpoint}", err


WORKERS_UP = Ready(workers=2)
"""Both workers of ``--workers 2`` are running (simulate writes no level files)."""

EXPLORE_ON_WORKERS = [
    "explore",
    "--replicas",
    "3",
    "--core",
    "reference",
    "--workers",
    "2",
    "--no-progress",
    "--out",
    "x",
]
"""A search long enough to be cut (3 replicas on the reference core, 2 workers)."""

LEVEL_4_ON_WORKERS = Ready("x/checkpoint/levels/L0004.npy", workers=2)
"""``EXPLORE_ON_WORKERS`` has committed 4 levels and its workers are up."""

SIMULATE_ON_WORKERS = [
    "simulate",
    "--replicas",
    "3",
    "--walks",
    "10000000",
    "--workers",
    "2",
    "--no-progress",
    "--out",
    "s",
]
"""Walks that outlast any test (10 million at 3 replicas, 2 workers); cut, they are in ``s``."""

COMPARE_ON_WORKERS = [
    "compare",
    "--kips",
    "--replicas",
    "3",
    "--core",
    "reference",
    "--workers",
    "2",
    "--no-progress",
    "--out",
    "cmp",
]
"""A compare matrix long enough to be cut (3 replicas on the reference core, 2 workers)."""


def test_one_ctrl_c_ends_compare_with_a_partial_matrix(tmp_path):
    code, out, err, left = interrupt_after(
        COMPARE_ON_WORKERS,
        Ready("cmp/checkpoint/hw/levels/L0004.npy", workers=2),
        tmp_path,
    )
    assert code == 3, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "Interrupted (Ctrl-C) during variant 1 of 5" in err
    assert "(4 variants not run)" in err
    assert "hwcheck compare" in out and " hw " in out and "kip320" not in out
    assert not left, "worker processes outlived the command"
    assert (tmp_path / "cmp" / "hw" / "summary.json").exists()
    assert err.strip().splitlines()[-1] == (
        "Resume with: the same hwcheck compare command and --resume cmp/checkpoint"
    )
    assert (tmp_path / "cmp" / "checkpoint" / "hw" / "checkpoint.json").exists()


def test_one_ctrl_c_ends_gate_and_lists_the_checks_not_run(tmp_path):
    (tmp_path / "gate.toml").write_text(SLOW_GATE)
    code, out, err, left = interrupt_after(
        [
            "gate",
            "--config",
            "gate.toml",
            "--core",
            "reference",
            "--workers",
            "2",
            "--junit-xml",
            "j.xml",
            "--no-progress",
            "--out",
            "g",
            "--update",
        ],
        Ready("g/checkpoint/*/levels/L0004.npy", workers=2),
        tmp_path,
    )
    assert code == 3, err
    assert "hwcheck-gate.lock not updated: interrupted" in err
    assert not (tmp_path / "hwcheck-gate.lock").exists()
    assert "Traceback" not in err
    assert "Interrupted (Ctrl-C) during check 1 of 2" in err
    assert "not run: interrupted (Ctrl-C)" in out and "INCOMPLETE" in out
    junit = (tmp_path / "j.xml").read_text()
    assert 'errors="' in junit and "not run: interrupted" in junit
    assert not left


def test_one_ctrl_c_ends_explore_on_workers_without_tracebacks(tmp_path):
    code, out, err, left = interrupt_after(
        EXPLORE_ON_WORKERS,
        LEVEL_4_ON_WORKERS,
        tmp_path,
    )
    assert code == 3
    assert len(err.strip().splitlines()) == 3, err
    assert_ends_as_interrupted(err)
    assert "INCOMPLETE" in out and "interrupted (Ctrl-C)" in out
    assert not left
    saved = json.loads((tmp_path / "x" / "checkpoint" / "checkpoint.json").read_text())
    assert saved["format"] == "hwcheck-checkpoint" and saved["level"] > 1


def test_one_ctrl_c_ends_explore_on_the_compiled_core(tmp_path):
    """Two threads in C; Ctrl-C lands between two slices of a level and ends the run."""
    code, out, err, left = interrupt_after(
        [
            "explore",
            "--replicas",
            "4",
            "--max-records",
            "3",
            "--workers",
            "2",
            "--no-progress",
            "--out",
            "x",
        ],
        Ready("x/checkpoint/levels/L0010.npy"),
        tmp_path,
    )
    assert code == 3, err
    assert_ends_as_interrupted(err)
    assert "INCOMPLETE" in out and "interrupted (Ctrl-C)" in out and "compiled" in out
    assert not left
    saved = json.loads((tmp_path / "x" / "checkpoint" / "checkpoint.json").read_text())
    assert saved["files"]["seen"].startswith("seen-")  # the compiled core's own seen set


def test_one_ctrl_c_ends_the_zoo_script_with_its_rows_so_far():
    """``python -m checker.commands.gallery --zoo``: the engine turns Ctrl-C into a partial result,
    which must end the script, not only the search it was in (then exit 3)."""
    proc = subprocess.Popen(
        [*python_m("checker.commands.gallery"), "--zoo", "--core", "reference"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.stdout is not None
    first = [proc.stdout.readline() for _ in range(3)]  # the header, its rule, the first row
    # on the reference core the first three fixes take about 4 s, KIP-320's over a minute
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    out = "".join(first) + out
    assert proc.returncode == 3, err
    assert "Traceback" not in err and "partial" in err
    assert "| KAFKA-1211 | hw-truncation-loss |" in out and "last-replica-standing" not in out
