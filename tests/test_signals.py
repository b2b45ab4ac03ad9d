"""The signals other than one Ctrl-C that end a command: SIGTERM (what CI runners and
schedulers send) and SIGHUP (a closed terminal) end it as one Ctrl-C does, and SIGKILL leaves
no worker behind (``tests/test_interrupts.py`` has Ctrl-C and the helpers both use)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from test_interrupts import (
    COMPARE_ON_WORKERS,
    EXPLORE_ON_WORKERS,
    HWCHECK,
    LEVEL_4_ON_WORKERS,
    SIMULATE_ON_WORKERS,
    SLOW_GATE,
    WORKERS_UP,
    Ready,
    alive,
    assert_ends_as_interrupted,
    descendants,
    interrupt_after,
    wait_until_ready,
)


def signal_parent_after(args: list[str], ready: Ready, tmp: Path, sig: int, wait: float = 60.0):
    """Run hwcheck ``args``, send ``sig`` to the hwcheck process alone (as ``kill`` does, not
    to its group) once ``ready`` (``wait_until_ready``); return ``(exit code, stdout, stderr,
    processes of the family alive 10 s after the exit)``."""
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
    assert family, "the command started no worker: the test proves nothing"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=wait)
    deadline = time.time() + 10
    while alive(family) and time.time() < deadline:
        time.sleep(0.2)
    left = alive(family)
    for pid in left:  # leave nothing behind for the next test
        os.kill(pid, signal.SIGKILL)
    return proc.returncode, out, err, left


def test_sigterm_ends_explore_on_workers_as_one_ctrl_c(tmp_path):
    code, out, err, left = signal_parent_after(
        EXPLORE_ON_WORKERS,
        LEVEL_4_ON_WORKERS,
        tmp_path,
        signal.SIGTERM,
    )
    assert code == 3, err
    assert_ends_as_interrupted(err, "SIGTERM")
    assert "INCOMPLETE" in out and "Traceback" not in err
    assert not left, "worker processes outlived the command"


def test_sigterm_ends_compare_and_gate_on_workers(tmp_path):
    code, _, err, left = signal_parent_after(
        COMPARE_ON_WORKERS,
        Ready("cmp/checkpoint/hw/levels/L0004.npy", workers=2),
        tmp_path,
        signal.SIGTERM,
    )
    assert code == 3, err
    assert "Interrupted (SIGTERM) during variant 1 of 5" in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("Resume with: the same hwcheck compare")
    assert not left
    (tmp_path / "gate.toml").write_text(SLOW_GATE)
    code, _, err, left = signal_parent_after(
        [
            "gate",
            "--config",
            "gate.toml",
            "--core",
            "reference",
            "--workers",
            "2",
            "--no-progress",
            "--out",
            "g",
        ],
        Ready("g/checkpoint/*/levels/L0004.npy", workers=2),
        tmp_path,
        signal.SIGTERM,
    )
    assert code == 3, err
    assert "Interrupted (SIGTERM) during check 1 of 2" in err and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "Resume with: the same hwcheck gate command and --resume g/checkpoint"
    )
    assert not left


def test_sigterm_ends_simulate_on_workers(tmp_path):
    code, out, err, left = signal_parent_after(
        SIMULATE_ON_WORKERS,
        WORKERS_UP,
        tmp_path,
        signal.SIGTERM,
    )
    assert code == 3, err
    assert "Interrupted (SIGTERM): the results below are partial:" in err
    assert err.strip().splitlines()[-1] == (
        "Resume with: the same hwcheck simulate command and --resume s/checkpoint"
    )
    assert "INCOMPLETE" in out and "Traceback" not in err
    assert "interrupted (SIGTERM) after" in out  # the reason names the signal, not Ctrl-C
    assert not left


def test_a_killed_command_leaves_no_worker(tmp_path):
    """SIGKILL cannot be caught: the workers notice their parent's death themselves."""
    code, _, _, left = signal_parent_after(
        SIMULATE_ON_WORKERS,
        WORKERS_UP,
        tmp_path,
        signal.SIGKILL,
    )
    assert code == -signal.SIGKILL
    assert not left, "workers outlived their killed parent"


def test_a_resumed_run_cut_again_writes_its_reports_where_the_first_did(tmp_path):
    """Ctrl-C, ``--resume``, SIGTERM: the summary of the resumed run goes to the run folder
    that holds the checkpoint (no new ``reports/<run>``), and the last lines say where the
    reports and the checkpoint are."""
    first = [arg for arg in EXPLORE_ON_WORKERS if arg not in ("--out", "x")]
    code, out, err, _ = interrupt_after(
        first, Ready("reports/*/checkpoint/levels/L0004.npy", 2), tmp_path
    )
    assert code == 3, err
    (run,) = [p.name for p in (tmp_path / "reports").iterdir()]
    checkpoint = f"reports/{run}/checkpoint"
    assert f"Reports written to reports/{run}/" in out
    level = json.loads((tmp_path / checkpoint / "checkpoint.json").read_text())["level"]
    code, out, err, left = signal_parent_after(
        [
            "explore",
            "--resume",
            checkpoint,
            "--core",
            "reference",
            "--workers",
            "2",
            "--no-progress",
        ],
        Ready(f"{checkpoint}/levels/L{level + 1:04d}.npy", workers=2),
        tmp_path,
        signal.SIGTERM,
    )
    assert code == 3, err
    assert [p.name for p in (tmp_path / "reports").iterdir()] == [run]
    assert out.rstrip().endswith(f"Reports written to reports/{run}/")
    assert_ends_as_interrupted(err, "SIGTERM", checkpoint)
    summary = json.loads((tmp_path / "reports" / run / "summary.json").read_text())
    saved = json.loads((tmp_path / checkpoint / "checkpoint.json").read_text())
    assert summary["stats"]["depth"] >= saved["level"] > level
    assert not left


def test_a_closed_terminal_ends_a_spilled_search_and_its_disk_tier(tmp_path):
    """SIGHUP to the process group (a terminal closed under a run) on a search spilling to
    disk: ended as one Ctrl-C, its checkpoint kept with its runs, and no tier folder left,
    beside the checkpoint or in the temporary folder."""
    code, out, err, left = interrupt_after(
        ["explore", "--replicas", "3", "--memory", "1M", "--no-progress", "--out", "x"],
        Ready("x/checkpoint/.spill-*/levels/K000012.npy"),  # the tier's parent table
        tmp_path,
        sig=signal.SIGHUP,
    )
    assert code == 3, err
    assert "Interrupted (SIGHUP): the results below are partial." in err
    assert "INCOMPLETE" in out and "Traceback" not in err and not left
    assert "interrupted (SIGHUP)" in out  # the summary's reason names the signal
    saved = json.loads((tmp_path / "x" / "checkpoint" / "checkpoint.json").read_text())
    assert saved["seen_runs"]
    assert not list(tmp_path.rglob(".spill-*")) and not list(tmp_path.glob("hwcheck-spill-*"))
