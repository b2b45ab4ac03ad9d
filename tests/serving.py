"""Start and stop ``hwcheck serve`` as a real process, for the API and browser tests."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from conftest import python_m

ROOT = Path(__file__).resolve().parents[1]
GALLERY = ROOT / "reports" / "gallery"


def _shortest_loss() -> dict:
    """The trace document of explore's shortest NoCommittedLoss counterexample at 2 replicas,
    hw, epoch 1 (the explorer tests' model; the reference engine, no symmetry): 11 states, the
    last one a BecomeFollower under a stale epoch-0 LeaderAndIsr. (The gallery's flagship is
    the seed articles' longer schedule instead.)"""
    from checker.composition.compose import build_model, choose
    from checker.formats import report
    from checker.search.reference.bfs import explore
    from spec.kafka import Config

    spec, props = build_model("kafka", Config(replicas=2, truncation="hw", max_epoch=1))
    result = explore(spec, choose(props, ("NoCommittedLoss",)))
    return json.loads(json.dumps(report.trace_document(spec, result.violations[0])))


LOSS = _shortest_loss()
"""Explore's shortest HW-truncation loss (2 replicas, hw, epoch 1), as a trace document."""
LOSS_STORY = LOSS["story"]
"""Its story as ``explore`` and the explorer tell it."""
LOSS_PATH = [step["action"] for step in LOSS["steps"][1:]]


def start_server(*args: str) -> tuple[subprocess.Popen, str]:
    """``hwcheck serve --port 0 ARGS``; returns the process and its base URL."""
    proc, url, _ = serve(*args)
    return proc, url


def serve(*args: str) -> tuple[subprocess.Popen, str, str]:
    """``hwcheck serve --port 0 ARGS``; returns the process, its base URL and the line that
    printed it (whose URL, with ``--trace`` or ``--scenario``, is a short one to the last
    state: ``/trace/last``, ``/scenario``)."""
    proc = subprocess.Popen(
        [*python_m("checker.cli"), "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    line = proc.stdout.readline().rstrip("\n")
    assert line.startswith("hwcheck explorer: http://127.0.0.1:"), line + proc.stderr.read()
    url = line.split()[2].rstrip("/").removesuffix("/trace/last").removesuffix("/scenario")
    return proc, url, line


def stop_server(proc: subprocess.Popen) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    return proc.returncode, err
