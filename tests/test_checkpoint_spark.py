"""Checkpoints on the Spark engine: a search cut on Spark resumes on the local engine and a
local checkpoint resumes on Spark (any partition count, either core), with the uninterrupted
run's answers; SIGTERM of ``explore --engine spark`` leaves no JVM or Python worker."""

from __future__ import annotations

import json
import shutil
import signal
import threading

import pytest
from test_checkpoint import CODEC, IDENTITY, PROPS, RECIPE, SPEC, resumed, search, signature
from test_interrupts import Ready
from test_signals import signal_parent_after

from checker.checkpoint.read import load
from checker.checkpoint.saving import SaveOptions
from checker.checkpoint.write import Checkpointer
from checker.search.compiled import search as native_engine
from checker.search.partitioned.compiled_level import COMPILED
from checker.search.partitioned.level import REFERENCE
from checker.search.reference.bfs import Limits
from checker.spark import engine, session
from checker.spark.session import SparkOptions

LEVELS = {"reference": REFERENCE, "compiled": COMPILED}
"""The level functions of each core, by its ``--core`` name."""


@pytest.fixture(scope="module")
def uninterrupted():
    return signature(search("local"))


@pytest.fixture(scope="module")
def spark():
    """The test session's SparkContext (``local[2]``, shared with ``test_spark``)."""
    return session.context(SparkOptions(master="local[2]"))


def on_spark(
    saving: SaveOptions, partitions: int, core: str, limits: Limits | None = None, on_progress=None
):
    # levels of 500 states or more are Spark jobs: about half of this search's 26 levels
    return engine.explore(
        RECIPE,
        limits or Limits(),
        on_progress,
        SparkOptions(partitions=partitions, min_frontier=500),
        True,
        LEVELS[core],
        saving,
    )


def test_a_search_cut_on_spark_resumes_locally(spark, tmp_path, uninterrupted):
    """A folder checkpoint of a reference-core Spark run (the compiled core's, and a resume
    on Spark: test_checkpoint_url; a folder checkpoint resumed on Spark: below)."""
    core = "reference"
    folder = tmp_path / "ck"
    stop = threading.Event()

    def progress(p):
        if p.depth >= 14:  # cut it once the Spark levels have begun
            stop.set()

    # the one checkpoint, written at the cut (it collects every level and the frontier)
    cut = on_spark(
        SaveOptions(Checkpointer(folder, IDENTITY, 0)), 3, core, Limits(cancel=stop), progress
    )
    assert cut.reason == "cancelled"
    assert any(level["where"] == "spark" for level in cut.stats.levels)
    assert load(folder, IDENTITY).level == 14
    for target in ("local", "workers"):
        copy = shutil.copytree(folder, tmp_path / target)
        assert signature(resumed(copy, target)) == uninterrupted


def test_a_local_compiled_checkpoint_resumes_on_spark(spark, tmp_path, uninterrupted):
    stop = threading.Event()
    native_engine.explore(
        CODEC,
        SPEC,
        PROPS,
        Limits(cancel=stop),
        lambda p: p.depth >= 16 and stop.set(),
        True,
        2,
        saving=SaveOptions(Checkpointer(tmp_path, IDENTITY, 1e-9)),
    )
    loaded = load(tmp_path, IDENTITY)
    assert loaded.level == 16 and loaded.manifest["frontier_kind"] == "rows"
    fresh = load(tmp_path, IDENTITY)  # rows decoded for the reference core
    result = on_spark(SaveOptions(None, fresh, CODEC), 4, "reference")
    assert signature(result) == uninterrupted


def test_sigterm_ends_explore_on_spark_and_leaves_no_jvm(tmp_path):
    code, out, err, left = signal_parent_after(
        [
            "explore",
            "--replicas",
            "3",
            "--engine",
            "spark",
            "--master",
            "local[2]",
            "--spark-min-frontier",
            "0",
            "--core",
            "reference",
            "--no-progress",
            "--out",
            "x",
        ],
        Ready("x/checkpoint/levels/L0004.npy", workers=2),
        tmp_path,
        signal.SIGTERM,
        wait=90,
    )
    assert code == 3, err
    assert "Interrupted (SIGTERM): the results below are partial." in err
    assert err.strip().splitlines()[-1] == "Resume with: hwcheck explore --resume x/checkpoint"
    assert "Traceback" not in err and "INCOMPLETE" in out and "interrupted (SIGTERM)" in out
    assert not left, "the JVM or a Python worker outlived the command"
    saved = json.loads((tmp_path / "x" / "checkpoint" / "checkpoint.json").read_text())
    assert saved["level"] >= 2 and saved["frontier_kind"] == "states"
