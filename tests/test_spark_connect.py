"""A Spark that fails ends the command with one line and exit 5: a JVM killed while a level
runs, a py4j error no job caught. Exit 75 stays for the model's own exceptions. Where a JVM
starts, nothing outlives the command."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from py4j.protocol import Py4JNetworkError
from test_interrupts import HWCHECK, alive, descendants

from checker.cli import cli
from checker.spark import connect, engine, lifecycle, session


def run_hwcheck(args: list[str], tmp: Path, kill_jvm_when: str = "") -> tuple[int, str, str, set]:
    """Run hwcheck ``args`` in ``tmp`` (its TMPDIR too); with ``kill_jvm_when`` (a glob under
    ``tmp``), SIGKILL its JVM once a file matches. Returns ``(exit code, stdout, stderr,
    processes of its own still alive 5 s after the exit)``."""
    proc = subprocess.Popen(
        [*HWCHECK, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp,
        env={**os.environ, "COLUMNS": "200", "TMPDIR": str(tmp)},
    )
    family: set[int] = set()
    deadline = time.time() + 240
    while proc.poll() is None and time.time() < deadline:
        family |= descendants(proc.pid)
        if kill_jvm_when and any(tmp.glob(kill_jvm_when)):
            jvms = [pid for pid in alive(family) if b"java" in _cmdline(pid)]
            if jvms:
                os.kill(jvms[0], signal.SIGKILL)
                kill_jvm_when = ""
        time.sleep(0.1)
    out, err = proc.communicate(timeout=60)
    end = time.time() + 5
    while alive(family) and time.time() < end:
        time.sleep(0.2)
    return proc.returncode, out, err, alive(family)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return b""


def one_error_line(err: str) -> str:
    """The one line on stderr (fails the test when there are more)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("Error: the Spark engine cannot run: "), err
    return lines[0]


def kept_log(line: str) -> Path:
    """The ``spark.log`` a message names; it exists (kept for the user)."""
    found = re.search(r"see (\S+/spark\.log)$", line)
    assert found, line
    log = Path(found.group(1))
    assert log.is_file(), line
    return log


# -- whose exception: Spark's (exit 5) or the model's (exit 75) -------------------------------


def _raised_in(module: str, exc: Exception) -> Exception:
    """``exc`` as raised by code of ``module`` (a frame whose ``__name__`` it is)."""
    scope = {"__name__": module, "exc": exc}
    try:
        exec("raise exc", scope)  # noqa: S102 -- a frame of another module, for the traceback
    except Exception as raised:  # noqa: BLE001
        return raised
    raise AssertionError("not raised")


def test_spark_exceptions_are_told_from_the_model_s():
    assert connect.from_spark(Py4JNetworkError("Answer from Java side is empty"))
    assert connect.from_spark(_raised_in("py4j.clientserver", ConnectionRefusedError(111, "x")))
    assert connect.from_spark(_raised_in("pyspark.core.context", ValueError("stopped")))
    assert not connect.from_spark(_raised_in("spec.kafka.actions", ZeroDivisionError("x")))
    assert not connect.from_spark(_raised_in("spec.kafka.actions", ConnectionError("x")))


@pytest.mark.parametrize(
    ("raised", "code", "said"),
    [
        (Py4JNetworkError("Answer from Java side is empty"), 5, "the Spark engine cannot run"),
        (ZeroDivisionError("a bug in the model"), 75, "the spec raised ZeroDivisionError"),
    ],
)
def test_exit_5_for_spark_75_for_the_model(monkeypatch, tmp_path, raised, code, said):
    """A level that raises where no Spark job catches it: py4j's error is an environment
    problem (exit 5, one line), the model's exception an ERROR result (exit 75)."""

    def level(self, job, size):
        raise raised

    monkeypatch.setattr(engine.SparkSearch, "run_level", level)
    monkeypatch.setattr(lifecycle, "jvm_ended", lambda wait=1.0: "")
    monkeypatch.delitem(session._CONTEXT, "sc", raising=False)  # no Spark: P is given
    monkeypatch.delitem(session._CONTEXT, "folder", raising=False)  # this run's own
    result = CliRunner().invoke(
        cli,
        ["explore", "--replicas", "1", "--engine", "spark", "--partitions", "2",
         "--spark-min-frontier", "0", "--no-progress", "--out", str(tmp_path / "r")],
    )  # fmt: skip
    session._CONTEXT.pop("keep", None)
    session.close()  # what hwcheck's main() does: this run's folder is deleted
    assert result.exit_code == code, result.output
    assert said in result.output
    assert "Traceback" not in result.output


# -- a JVM killed while a level runs --------------------------------------------------------


@pytest.mark.slow
def test_a_jvm_killed_while_a_level_runs(tmp_path):
    code, out, err, left = run_hwcheck(
        ["explore", "--replicas", "3", "--engine", "spark", "--master", "local[2]",
         "--spark-min-frontier", "0", "--core", "reference", "--no-progress", "--out", "x"],
        tmp_path,
        kill_jvm_when="x/checkpoint/levels/L0004.npy",
    )  # fmt: skip
    assert code == 5, err
    line = one_error_line(err)
    assert re.search(
        r"cannot run: the Spark JVM was killed by SIGKILL during the Spark job of level \d+;", line
    ), line
    kept_log(line)
    assert out == "" and not left, "a JVM or Python worker outlived the command"
