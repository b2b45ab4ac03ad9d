"""The progress a terminal shows while ``gate`` and ``compare`` run: each check and variant
named as it starts, with its search's speed (run under a pseudo-terminal)."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

from test_interrupts import HWCHECK


def read_terminal(args: list[str], tmp: Path, timeout: float = 120.0) -> tuple[int, str]:
    """Run hwcheck under a pseudo-terminal (stdout and stderr a tty, 120 columns); return
    its exit code and everything it drew."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: hwcheck in tmp
        os.chdir(tmp)
        os.environ.update(COLUMNS="120", LINES="40", TERM="xterm")
        os.execv(sys.executable, [*HWCHECK, *args])
    chunks, deadline = [], time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode(errors="replace")


def test_gate_shows_which_check_runs_and_its_search(tmp_path):
    (tmp_path / "gate.toml").write_text("""
[[tool.hwcheck.gate]]
name = "hw r2"
truncation = "hw"
replicas = 2
violates = ["NoCommittedLoss", "NoAckedLoss", "NoDivergence", "WeakIsr", "StrongIsr",
            "RecordEpochsMonotonic", "NoUncommittedRead"]

[[tool.hwcheck.gate]]
name = "kip320 r2"
truncation = "kip320"
replicas = 2
expect = "holds"
""")
    code, drawn = read_terminal(
        ["gate", "--config", "gate.toml", "--core", "reference", "--workers", "1"], tmp_path
    )
    assert code == 0, drawn
    assert "check 1 of 2: hw r2" in drawn and "check 2 of 2: kip320 r2" in drawn
    assert "states/s" in drawn and "ETA" in drawn


def test_compare_shows_which_variant_runs(tmp_path):
    code, drawn = read_terminal(
        ["compare", "--kips", "--replicas", "1", "--workers", "1", "--out", "c"], tmp_path
    )
    assert code == 0, drawn
    for index, variant in enumerate(("hw", "kip101", "kip279", "kip320", "kip966"), 1):
        assert f"variant {index} of 5: {variant}" in drawn
