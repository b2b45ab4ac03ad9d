"""The Spark engine's level RDDs on a real ``local[2]`` context: every Python RDD a level
reads is computed and cached before the level's job, so no task runs one Python worker
feeding another (Spark 4's single-threaded Python runner hung on that: ``checker.spark.rdds``).
"""

from __future__ import annotations

import pytest

from checker.composition.compose import Recipe
from checker.search.partitioned.compiled_level import COMPILED
from checker.spark import engine, rdds, session
from checker.spark.session import SparkOptions
from spec.kafka import Config


@pytest.fixture(scope="module")
def spark():
    sc = session.context(SparkOptions(master="local[2]"))
    yield sc
    session.stop()


def test_every_run_a_level_reads_is_cached_before_it_runs(spark, monkeypatch):
    seen: list[tuple[int, int, int]] = []  # (level, runs, runs fully cached)
    level = rdds.Levels.level

    def checked(self, job):
        # the storage info is Spark's status store, fed by the listener bus after a job ends:
        # drain the bus first, or a loaded machine reads a run as not yet cached
        self.sc._jsc.sc().listenerBus().waitUntilEmpty()
        cached = {
            info.id(): info.numCachedPartitions() == info.numPartitions()
            for info in self.sc._jsc.sc().getRDDStorageInfo()
        }
        seen.append((job.k, len(self.runs), sum(cached.get(r.id(), False) for r, _ in self.runs)))
        return level(self, job)

    monkeypatch.setattr(rdds.Levels, "level", checked)
    options = SparkOptions(master="local[2]", partitions=2, min_frontier=0)
    recipe = Recipe("kafka", Config(replicas=2, max_records=1))
    result = engine.explore(recipe, options=options, symmetry=True, core=COMPILED)
    assert result.status == "OK"
    assert len(seen) == result.stats.depth  # every level ran on Spark
    merged = [k for k, runs, _ in seen if runs > 1]
    assert merged, "no level read more than one run: the merges went untested"
    assert all(cached == runs for _, runs, cached in seen), seen
