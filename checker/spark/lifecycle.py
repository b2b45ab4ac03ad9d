"""The processes and threads around a SparkContext: a watcher that reports a running job's
tasks, and the end of the JVM and of Spark's Python workers when a command ends.

Spark's own ``sc.stop()`` leaves the JVM running until this process exits, and the JVM's
Python workers end some time after that; ``stop_jvm`` ends them before hwcheck exits, so that
no process outlives the command (a terminal's Ctrl-C included).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

POLL_SECONDS = 2.0
"""How often the watcher asks Spark's status tracker. Every call into the JVM from this
watcher grows the driver's resident memory a little (native memory; a bare SparkContext
polled the same way does not grow, and one watcher thread for every job grows as much as a
thread a job), so the poll is slow: at 0.5 s the driver grew 3.8 MiB a minute on a long search,
at 2 s 0.8 (``benchmarks/spark_driver.py``; docs/benchmarks.md)."""


@contextlib.contextmanager
def watching(sc: Any, on_tasks: Any) -> Iterator[Any]:
    """Run a thread that reports the running jobs' tasks (``statusTracker``) to
    ``on_tasks(done, total)`` every ``POLL_SECONDS`` until the block ends."""
    if on_tasks is None:
        yield
        return
    stop = threading.Event()

    def watch() -> None:
        tracker = sc.statusTracker()
        while not stop.wait(POLL_SECONDS):
            try:
                done = total = 0
                for job_id in tracker.getActiveJobsIds():
                    info = tracker.getJobInfo(job_id)
                    for stage_id in info.stageIds if info else ():
                        stage = tracker.getStageInfo(stage_id)
                        if stage is not None:
                            done += stage.numCompletedTasks
                            total += stage.numTasks
                if total:
                    on_tasks(done, total)
            except Exception:  # noqa: BLE001 -- progress only; the job reports its own errors
                return

    thread = threading.Thread(target=watch, name="hwcheck-spark-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=2)


def submitted() -> bool:
    """True when running under ``spark-submit`` (its JVM gateway already exists, not ours)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def _our_jvm() -> Any:
    """The ``Popen`` of the JVM this process launched, or None (none launched, or
    spark-submit's)."""
    if "pyspark" not in sys.modules or submitted():
        return None
    from pyspark import SparkContext

    return getattr(SparkContext._gateway, "proc", None)


def terminate_jvm() -> None:
    """Send SIGTERM to the JVM this process launched, if it runs (``stop_jvm`` waits)."""
    proc = _our_jvm()
    if proc is not None and proc.poll() is None:
        proc.terminate()


def jvm_ended(wait: float = 1.0) -> str:
    """How the JVM this process launched ended ("was killed by SIGKILL", "exited with code
    1"), waiting up to ``wait`` seconds for it (a py4j error can come just before the JVM is
    gone); "" while it runs, or when there is none of ours."""
    proc = _our_jvm()
    if proc is None:
        return ""
    try:
        code = proc.wait(wait)
    except subprocess.TimeoutExpired:
        return ""
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


def stop_quietly(sc: Any) -> None:
    """``sc.stop()``, whatever state its JVM is in (pyspark lets a refused connection
    through)."""
    with contextlib.suppress(Exception):
        sc.stop()


def stop_jvm(timeout: float = 15.0) -> None:
    """Stop the JVM this process launched and Spark's Python workers under it, and wait for
    them, so that nothing outlives the command (by itself the JVM notices only some time
    after this process has exited). Nothing to do under ``spark-submit``, whose JVM is not
    ours."""
    if "pyspark" not in sys.modules:  # Spark never started in this process
        return
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None or submitted():  # spark-submit's JVM
        return
    proc = getattr(gateway, "proc", None)
    with contextlib.suppress(Exception):  # the JVM may be gone already (Ctrl-C reaches it too)
        gateway.shutdown()
    SparkContext._gateway = SparkContext._jvm = None
    if proc is None:
        return
    workers = _descendants(proc.pid)
    if proc.poll() is None:
        proc.terminate()  # SIGTERM: Spark's shutdown hooks stop its Python workers
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    _reap(workers, timeout=5.0)


def _descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (Linux ``/proc``; empty elsewhere)."""
    found, todo = set(), [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            with contextlib.suppress(OSError):
                for child in map(int, (task / "children").read_text().split()):
                    if child not in found:
                        found.add(child)
                        todo.append(child)
    return found


def _reap(pids: set[int], timeout: float) -> None:
    """Wait up to ``timeout`` seconds for ``pids`` (not our children) to end, then kill the
    rest."""
    deadline = time.monotonic() + timeout
    while pids and time.monotonic() < deadline:
        pids = {pid for pid in pids if Path(f"/proc/{pid}").exists()}
        time.sleep(0.05)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
