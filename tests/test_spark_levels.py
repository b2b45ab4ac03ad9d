"""The Spark engine's parts that need no Spark: the compaction rule of its seen runs
(``checker.spark.rdds``) and how a failed job is named. The engine's answers on Spark are
tests/test_spark.py's."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.spark import rdds, records


def compact(sizes: list[int], level: int) -> tuple[list[int], int]:
    """``Levels._compact`` on key counts: the runs after adding a level of ``level`` keys,
    and the keys the merges rewrote."""
    sizes, rewritten = [*sizes, level], 0
    while rdds.merge_newest(sizes):
        merged = sizes[-2] + sizes[-1]
        sizes[-2:] = [merged]
        rewritten += merged
    return sizes, rewritten


@given(st.lists(st.integers(min_value=1, max_value=10**9), min_size=1, max_size=80))
def test_runs_stay_few_and_hold_every_key(levels):
    """Whatever the level sizes: every key is in exactly one run, each run holds more than
    ``MERGE_RATIO`` times the next newer one's keys, and so there are at most
    ``MAX_RUNS`` runs and at most log2(n) + 1."""
    sizes: list[int] = []
    total = 0
    for level in levels:
        sizes, _ = compact(sizes, level)
        total += level
        assert sum(sizes) == total
        assert all(a > rdds.MERGE_RATIO * b for a, b in itertools.pairwise(sizes))
        assert len(sizes) <= min(rdds.MAX_RUNS, math.log2(sum(sizes)) + 1)


def test_equal_levels_rewrite_each_key_about_log2_levels_times():
    """1,000 levels of 1,000 keys: the merges rewrite each key about as often as a binary
    counter of runs would, under log2(1,000) + 1 = 10.97 times (the file-based design
    rewrote each partition's whole seen set every level: 500.5 times a key on average)."""
    sizes: list[int] = []
    rewritten = 0
    for _ in range(1000):
        sizes, cost = compact(sizes, 1000)
        rewritten += cost
    assert rewritten / 1_000_000 < math.log2(1000) + 1
    assert sum(sizes) == 1_000_000 and len(sizes) <= rdds.MAX_RUNS


def test_a_failed_job_is_named_by_its_python_error_not_a_java_frame():
    """A Python worker's exception as py4j relays it (shortened from a real ``spark.log``):
    the message is the Python error, not the last Java stack frame whose class names an
    error (``SparkErrorUtils``)."""
    from checker.spark.session import job_error

    relayed = Exception(
        "An error occurred while calling o123.count.\n"
        "org.apache.spark.api.python.PythonException: Traceback (most recent call last):\n"
        '  File "rdds.py", line 99, in _merge\n'
        "ValueError: zero-dimensional arrays cannot be concatenated\n"
        "\tat org.apache.spark.api.python.BasePythonRunner.handlePythonException(x.scala:1)\n"
        "\tat org.apache.spark.util.SparkErrorUtils.tryWithSafeFinally(x.scala:86)\n"
    )
    assert job_error(relayed) == "ValueError: zero-dimensional arrays cannot be concatenated"


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 200_000), st.sampled_from(["parents", "rows", "states"]))
def test_saved_records_are_pieces_of_a_mebibyte_that_join_again(n, second):
    """``records.pieces``: what a checkpoint on a URL saves per record (Spark's writer
    holds ten records at a time in the JVM's heap)."""
    fps = np.arange(n, dtype=np.uint64)
    if second == "parents":
        other = fps * 3
    elif second == "rows":
        other = np.zeros((n, 72), dtype=np.uint8)
        other[:, 0] = fps % 251
    else:
        other = [bytes([i % 251]) * 40 for i in range(min(n, 30_000))]
        fps = fps[: len(other)]
    split = records.pieces((7, "N", fps, other))
    assert all(r[:2] == (7, "N") for r in split)
    assert all(len(r[2]) * 8 + _bytes(r[3]) <= records.PIECE_BYTES + 200 for r in split)
    assert np.concatenate([r[2] for r in split]).tolist() == fps.tolist()
    if second == "states":
        assert [x for r in split for x in r[3]] == other
    else:
        assert np.array_equal(np.concatenate([r[3] for r in split]), other)


def _bytes(second) -> int:
    return sum(map(len, second)) if isinstance(second, list) else second.nbytes
