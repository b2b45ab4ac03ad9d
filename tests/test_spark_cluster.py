"""The Spark engine on a standalone cluster started as a real one is: a master and two workers,
each its own process from pyspark's launcher (``spark-class``), on loopback. An executor
killed while a level runs (SIGKILL, as a lost machine) leaves the answer unchanged: Spark
retries its tasks and recomputes its cached partitions and shuffle files from the lineage,
and the master starts a new executor in its place."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from test_interrupts import alive, descendants
from test_spark_env import EXPECTED_HW, EXPLORE, VENV_BIN, _counts

from checker.spark import java

SPARK_HOME = Path(__import__("pyspark").__file__).parent
EXECUTOR = b"org.apache.spark.executor.CoarseGrainedExecutorBackend"


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(log: Path, text: str, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while text not in (log.read_text() if log.exists() else ""):
        assert proc.poll() is None, log.read_text()
        assert time.time() < deadline, log.read_text()
        time.sleep(0.2)


@contextlib.contextmanager
def standalone(folder: Path, workers: int, cores: int = 1) -> Iterator[str]:
    """A standalone master on free loopback ports and ``workers`` workers of ``cores`` cores
    and 1 GiB each (every one a ``spark-class`` process of its own, logs in ``folder``);
    yields the master's URL once every worker has registered. Each process group is stopped
    when the block ends."""
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "JAVA_HOME": str(java.find_java().home),
        "SPARK_CONF_DIR": str(folder),
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
    }
    launched: list[subprocess.Popen[bytes]] = []

    def launch(name: str, *args: str) -> tuple[subprocess.Popen[bytes], Path]:
        log = folder / f"{name}.log"
        with log.open("w") as out:
            proc = subprocess.Popen(
                [str(SPARK_HOME / "bin" / "spark-class"), *args],
                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )  # fmt: skip
        launched.append(proc)
        return proc, log

    port = closed_port()
    url = f"spark://127.0.0.1:{port}"
    try:
        master, log = launch(
            "master", "org.apache.spark.deploy.master.Master",
            "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(closed_port()),
        )  # fmt: skip
        _wait_for(log, "I have been elected leader", master)
        started = []
        for i in range(workers):
            work = str(folder / f"work-{i}")
            args = ["--host", "127.0.0.1", "--cores", str(cores), "--memory", "1g"]
            args += ["--webui-port", str(closed_port()), "--work-dir", work, url]
            started.append(launch(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", *args))
        for proc, log in started:
            _wait_for(log, "Successfully registered with master", proc)
        yield url
    finally:
        for proc in launched:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in launched:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def executors(folder: Path) -> list[int]:
    """The executor processes the workers whose work folders are in ``folder`` started."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            line = _cmdline(int(entry.name))
            if EXECUTOR in line and str(folder).encode() in line:
                found.append(int(entry.name))
    return found


def _traces(folder: Path) -> dict[str, object]:
    """Every counterexample a run folder holds (``<property>/trace.json``), by property."""
    return {p.parent.name: json.loads(p.read_text()) for p in folder.glob("*/trace.json")}


def newest_level(folder: Path) -> int:
    """The level of the newest checkpoint at ``folder`` (a URL checkpoint's manifests;
    0: none yet, or one being renamed into place)."""
    with contextlib.suppress(OSError, ValueError):
        names = sorted(folder.glob("checkpoint-*.json"))
        return int(json.loads(names[-1].read_text())["level"]) if names else 0
    return 0


def test_spark_submit_to_a_standalone_cluster_with_an_executor_killed(tmp_path):
    """``spark-submit --master spark://... checker/cli.py explore --engine spark`` on a master
    and two 1-core workers: the context spark-submit made and its master; P from its
    default parallelism (the executors' 2 cores); the code shipped as a zip to executors
    with their own Python workers; no folder shared with the driver (the level where Spark
    takes over, 11, is sent with the job); a checkpoint at every level on a file:// URL,
    written by the tasks. One executor is SIGKILLed once level 12's checkpoint is written
    (its expansion is the next job): the answer, every trace and the last checkpoint are
    the same (Spark retries the tasks, recomputes the lost partitions from the lineage, and
    the master starts an executor in its place), and nothing of the command outlives it."""
    import checker.cli

    cluster, checkpoint = tmp_path / "cluster", tmp_path / "ck"
    cluster.mkdir()
    with standalone(cluster, workers=2) as url:
        proc = subprocess.Popen(
            [str(VENV_BIN / "spark-submit"), "--master", url, checker.cli.__file__, *EXPLORE,
             "--checkpoint", checkpoint.as_uri(), "--checkpoint-every", "0.000001",
             "--out", str(tmp_path / "r")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
            env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"},
        )  # fmt: skip
        family: set[int] = set()
        killed = 0
        deadline = time.time() + 420  # a busy 2-core machine (the slow tier beside it)
        try:
            while proc.poll() is None and time.time() < deadline:
                family |= descendants(proc.pid)
                if not killed and newest_level(checkpoint) >= 12:
                    running = executors(cluster)
                    assert len(running) == 2, running
                    os.kill(running[0], signal.SIGKILL)
                    killed = running[0]
                time.sleep(0.1)
            out, err = proc.communicate(timeout=60)
        except BaseException:  # a failure here must not leave spark-submit's JVM and driver
            for pid in alive(family | {proc.pid}):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            raise
        launched = sum(
            p.read_text().count("Asked to launch executor") for p in cluster.glob("worker-*.log")
        )
    assert killed, "the run ended before level 12"
    assert proc.returncode == 12, err[-3000:]
    assert _counts(out) == (*EXPECTED_HW, "spark (2 partitions)")
    local = subprocess.run(
        [str(VENV_BIN / "hwcheck"), *EXPLORE[:8], "--no-progress", "--out", str(tmp_path / "l")],
        capture_output=True, check=False,
    )  # fmt: skip
    assert local.returncode == 12
    assert _traces(tmp_path / "r") == _traces(tmp_path / "l")
    # the two first executors and the one that took the lost one's place; as the application
    # ends, the master may start one more, when an executor's exit reaches it before the
    # application's end does (killed at once: seen in CI on 2026-11-28, executor 0 exited,
    # executor 3 launched and killed within the same second)
    assert launched in (3, 4)
    manifest = json.loads(max(checkpoint.glob("checkpoint-*.json")).read_text())
    assert manifest["frontier_size"] == 0  # the last checkpoint: the search done
    states = sum(entry["states"] for entry in manifest["levels"].values())
    assert states == manifest["search"]["distinct"] == EXPECTED_HW[1]
    deadline = time.time() + 5  # a JVM's shutdown hooks may take a moment after the driver's
    while alive(family) and time.time() < deadline:
        time.sleep(0.1)
    assert not alive(family), "a JVM or Python worker outlived the command"
