"""Start and stop ``hwcheck serve`` as a real process, for the API and browser tests."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from conftest import python_m

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "reports" / "gallery"
LOSS = json.loads((GALLERY / "hw-truncation-loss" / "trace.json").read_text())
"""The gallery's HW-truncation loss (2 replicas, hw, epoch 1), found by ``hwcheck explore``."""
LOSS_STORY = LOSS["story"][:-1]
"""Its story as ``explore`` and the explorer tell it: the gallery adds the zoo's fix sentence
(KAFKA-1211) at the end."""
LOSS_PATH = [step["action"] for step in LOSS["steps"][1:]]


def start_server(*args: str) -> tuple[subprocess.Popen, str]:
    """``hwcheck serve --port 0 ARGS``; returns the process and its base URL."""
    proc = subprocess.Popen([*python_m("checker.cli"), "serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT)
    line = proc.stdout.readline()
    assert line.startswith("hwcheck explorer: http://127.0.0.1:"), line + proc.stderr.read()
    return proc, line.split()[2].rstrip("/")


def stop_server(proc: subprocess.Popen) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    return proc.returncode, err
