"""A Spark that cannot be reached or used ends the command with one line and exit 5, within
``--spark-connect-timeout``: a master on a closed port (no JVM started), a master that never
registers the application, a master with no worker, a JVM killed while a level runs. Exit 75
stays for the model's own exceptions. Where a JVM starts, nothing outlives the command, and
the progress line's clock runs while Spark starts."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from py4j.protocol import Py4JNetworkError
from test_interrupts import HWCHECK, alive, descendants
from test_spark_cluster import closed_port, standalone
from test_terminal_progress import read_terminal

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


# -- a master on a closed port: no JVM at all -------------------------------------------------


@pytest.mark.parametrize("command", ["explore", "simulate"])
def test_an_unreachable_master_ends_at_once_with_one_line(tmp_path, command):
    port = closed_port()
    extra = ["--walks", "10"] if command == "simulate" else []
    code, out, err, left = run_hwcheck(
        [command, "--replicas", "2", *extra, "--engine", "spark", "--master",
         f"spark://127.0.0.1:{port}", "--no-progress", "--out", "r"],
        tmp_path,
    )  # fmt: skip
    assert code == 5, err
    assert one_error_line(err) == (
        "Error: the Spark engine cannot run: cannot reach Spark master "
        f"spark://127.0.0.1:{port}: connection refused"
    )
    assert out == "" and not left
    assert not list(tmp_path.glob("hwcheck-spark-*"))  # no JVM started: no spark.log to keep


def test_reachable_names_every_master_of_a_standby_list():
    first, second = closed_port(), closed_port()
    with pytest.raises(connect.Unreachable) as caught:
        connect.reachable(f"spark://127.0.0.1:{first},127.0.0.1:{second}", 5)
    assert str(caught.value) == (
        f"cannot reach Spark master spark://127.0.0.1:{first},127.0.0.1:{second}: "
        f"127.0.0.1:{first} connection refused, 127.0.0.1:{second} connection refused"
    )
    with socket.socket() as server:  # one master up is enough
        server.bind(("127.0.0.1", 0))
        server.listen()
        up = server.getsockname()[1]
        connect.reachable(f"spark://127.0.0.1:{first},127.0.0.1:{up}", 5)
    connect.reachable("local[2]", 5)  # nothing to check for other masters
    assert connect.addresses("spark://head") == [("head", 7077)]
    assert connect.addresses("spark://[::1]:7078") == [("::1", 7078)]


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (ConnectionRefusedError(111, "Connection refused"), "connection refused"),
        (TimeoutError("timed out"), "no answer within 3 s"),
        (socket.gaierror(-2, "Name or service not known"), "unknown host"),
        (OSError(113, "No route to host"), "no route to host"),
    ],
)
def test_a_connection_error_is_said_in_a_few_words(error, said):
    assert connect.cause(error, 3).startswith(said)


def test_the_timeout_applies_only_to_spark():
    result = CliRunner().invoke(cli, ["explore", "--spark-connect-timeout", "5"])
    assert result.exit_code == 2
    assert "--spark-connect-timeout applies only to --engine spark" in result.output
    result = CliRunner().invoke(
        cli, ["explore", "--engine", "spark", "--spark-connect-timeout", "0"]
    )
    assert result.exit_code == 2


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


# -- a JVM started: a master that does not answer, one without workers, a JVM killed ---------


@pytest.fixture
def no_answer():
    """A spark:// URL whose port accepts TCP connections and never answers."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield f"spark://127.0.0.1:{server.getsockname()[1]}"


def test_a_master_that_never_registers_the_application(tmp_path, no_answer):
    code, out, err, left = run_hwcheck(
        ["explore", "--replicas", "2", "--engine", "spark", "--master", no_answer,
         "--spark-connect-timeout", "5", "--no-progress", "--out", "r"],
        tmp_path,
    )  # fmt: skip
    assert code == 5, err
    line = one_error_line(err)
    assert f"Spark master {no_answer} did not register hwcheck's application within 5 s" in line
    kept_log(line)
    assert out == "" and not left, "a JVM outlived the command"


@pytest.fixture
def master_without_workers(tmp_path):
    """A standalone Spark master (pyspark's own launcher) on free loopback ports, with no
    worker; its URL. Stopped (its process group) when the test ends."""
    with standalone(tmp_path, workers=0) as url:
        yield url


def test_a_master_without_workers(tmp_path, master_without_workers):
    code, out, err, left = run_hwcheck(
        ["explore", "--replicas", "2", "--engine", "spark", "--master", master_without_workers,
         "--spark-connect-timeout", "10", "--no-progress", "--out", "r"],
        tmp_path,
    )  # fmt: skip
    assert code == 5, err
    line = one_error_line(err)
    assert (
        f"Spark master {master_without_workers} has no workers for hwcheck: no executor "
        "registered within 10 s" in line
    )
    kept_log(line)
    assert out == "" and not left, "a JVM outlived the command"


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
    log = kept_log(line)
    assert out == "" and not left, "a JVM or Python worker outlived the command"
    # the killed JVM's shuffle files and blocks were in the session folder, deleted with it
    assert not (log.parent / "local").exists()
    assert not list(tmp_path.glob("**/blockmgr-*")), "the killed JVM's blocks were left behind"


def test_the_clock_runs_while_spark_starts(tmp_path):
    """Under a terminal, the progress line's clock moves while Spark starts (the JVM's
    stderr goes to spark.log, not this process's)."""
    code, drawn = read_terminal(
        ["explore", "--replicas", "2", "--engine", "spark", "--master", "local[1]",
         "--spark-min-frontier", "0", "--max-depth", "1", "--out", "r"],
        tmp_path,
    )  # fmt: skip
    assert code == 3, drawn
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)  # no colours, no cursor moves
    clocks = set(re.findall(r"\(starting Spark [^)]*\)\) +(\d+:\d\d:\d\d)", plain))
    assert len(clocks) >= 2, plain
