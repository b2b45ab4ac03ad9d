"""The Spark engine: the local engine's level-synchronous BFS with the frontier, the new
states and the seen set split into P fingerprint partitions (design.md, "Spark").

Per level, ``checker.search.partitioned.level`` expands and de-duplicates; a level whose frontier is
below ``SparkOptions.min_frontier`` runs those functions in the driver, a larger one as one Spark
job. The driver keeps only counts: the first violating level and the tie-breaks of the local engine
give the same shortest counterexamples, rebuilt from the per-level parent files by replaying from
the initial state (at each step the successor with the next fingerprint and the smallest label text,
which is the label the local engine records).
"""

from __future__ import annotations

import functools
import os
import re
import tempfile
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from checker.checkpoint.format import CheckpointError, Frontier
from checker.checkpoint.read import Loaded
from checker.checkpoint.saving import SaveOptions, run_search
from checker.limits import Limits, Progress
from checker.model import Recipe, Spec
from checker.result import CheckResult
from checker.search.partitioned import level_files
from checker.search.partitioned.driver import PartitionedSearch
from checker.search.partitioned.job import LevelCore, LevelJob, Tally
from checker.search.partitioned.level import REFERENCE, run_in_driver
from checker.spark import connect, rdds, resume, session
from checker.spark.checkpoints import UrlCheckpointer, UrlLoaded
from checker.spark.records import frontier_record
from checker.spark.session import SparkOptions, SparkUnavailable

__all__ = ["SparkOptions", "SparkUnavailable", "explore"]
LOCAL = ("local", "local-cluster")
"""Masters whose executors run on this machine, so they read the driver's files."""
T = TypeVar("T")


def explore(
    recipe: Recipe,
    limits: Limits | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    options: SparkOptions | None = None,
    symmetry: bool = False,
    core: LevelCore = REFERENCE,
    saving: SaveOptions | None = None,
) -> CheckResult:
    """Explore ``recipe``'s model (``recipe.build() -> (spec, properties)``, picklable) with the
    Spark engine; the result equals ``checker.search.reference.bfs.explore``'s in counts, depth,
    verdicts and counterexamples (with ``symmetry`` as ``checker.search.reference.bfs.explore`` with
    it). ``core``: the level functions every level runs
    (``checker.search.partitioned.job.LevelCore``: ``COMPILED`` of
    ``checker.search.partitioned.compiled_level`` on the model's compiled core, the same answers;
    ``REFERENCE`` of ``checker.search.partitioned.level`` on the Python model; the engine's choice
    is ``checker.search.choose_core``'s). ``saving``: checkpoints and resume
    (``checker.checkpoint.saving``; the driver writes them).

    Raises ``SparkUnavailable`` (exit 5) when Spark cannot run: no Java, the JVM or a job
    failed, workers fingerprint differently from the driver or cannot run the compiled
    core. The spec's own exceptions give
    an ERROR result, as in the local engine.
    """
    limits, options = limits or Limits(), options or SparkOptions()
    spec, props = recipe.build()
    run = SparkSearch(recipe, spec, props, limits, on_progress, options, symmetry, core)
    try:
        return run_search((saving or SaveOptions()).apply(run), passthrough=(SparkUnavailable,))
    finally:
        run.close_levels()
        if options.work_dir is None:
            level_files.remove(run.work)


class SparkSearch(PartitionedSearch):
    """One Spark-engine search: the partitioned driver loop (``checker.search.partitioned.driver``)
    with levels of at least ``options.min_frontier`` states run as Spark jobs."""

    def __init__(
        self,
        recipe: Recipe,
        spec: Spec,
        props: Any,
        limits: Limits,
        on_progress: Any,
        options: SparkOptions,
        symmetry: bool = False,
        core: LevelCore = REFERENCE,
    ) -> None:
        work = options.work_dir or tempfile.mkdtemp(prefix="levels-", dir=session.session_folder())
        super().__init__(
            recipe, spec, props, limits, on_progress, work, options.partitions or 0, symmetry, core
        )
        self.options = options
        self.sc: Any = None
        self.engine = "spark"
        self.rdds: rdds.Levels | None = None
        self.loaded_at = 0  # the level the RDDs were loaded from (its files stay)

    def search(self) -> None:
        """The partitioned search; an exception of Spark's or py4j's that no job caught (a
        JVM gone between jobs) becomes ``SparkUnavailable`` (exit 5), while the model's own
        exceptions stay an ERROR result (exit 75)."""
        try:
            super().search()
        except Exception as exc:
            if not connect.from_spark(exc):
                raise
            raise session.job_failed("the Spark engine's run", exc) from None

    def close_levels(self) -> None:
        """Unpersist the level RDDs (the context may run other searches)."""
        if self.rdds is not None:
            self.rdds.close()
            self.rdds = None

    def _start_spark(self) -> None:
        """Start (or reuse) the context; P from it when not known yet; check the workers."""
        if self.sc is None:
            if not session.started():
                self._phase("starting Spark (the JVM takes about 10 s)")
            self.sc = session.context(self.options, self._phase)
            self.note = ""
            self.partitions = self.partitions or self.sc.defaultParallelism
            session.check_workers(self.sc, self.recipe, self.partitions, self.core)

    def _phase(self, text: str) -> None:
        """Say what Spark's start is waiting for (the progress line's clock keeps running)."""
        self.note = text
        self._report(0, limits=False)

    def prepare(self) -> None:
        if self.options.partitions is None:  # P = the cores Spark has
            self.partitions = local_cores(session.master_url(self.options)) or 0
            if not self.partitions:  # a cluster: ask it
                self._start_spark()
        self.engine = f"spark ({self.partitions} partitions)"

    def run_level(self, job: LevelJob, size: int) -> tuple[str, Tally]:
        if self.rdds is None and size < self.options.min_frontier:
            return "driver", run_in_driver(job)
        self._start_spark()
        if self.rdds is None:  # from here on every level stays on the executors
            levels = rdds.Levels(self.sc, self.partitions)
            seen = self.stats.distinct
            # a cluster's executors do not see the driver's temporary folder: the level is
            # sent with the job (it is small: it ran in the driver)
            ship = self.options.work_dir is None and self.sc.master.split("[")[0] not in LOCAL
            self._spark(
                f"loading level {job.k}",
                lambda: levels.start(self.work, job.k, self.core, seen, ship),
            )
            self.rdds, self.loaded_at = levels, job.k
        self.note = f"level {job.k} on Spark, {self.partitions} partitions"
        self._report(size)
        watch = (
            None
            if self.on_progress is None
            else (lambda done, total: self._tasks(job.k, size, done, total))
        )
        levels = self.rdds
        tally = self._spark(f"the Spark job of level {job.k}", lambda: levels.level(job), watch)
        self.note = ""
        return "spark", tally

    def _spark(self, what: str, work: Callable[[], T], watch: Any = None) -> T:
        return session.run_job(what, work, self.sc, watch)

    def _commit(self, k: int, tally: Tally) -> None:
        if self.rdds is not None:
            self.rdds.commit()
        super()._commit(k, tally)

    def prune(self, k: int) -> None:
        if k != self.loaded_at:  # the RDDs' lineage starts from these files
            super().prune(k)

    # -- checkpoints on a URL (``checker.spark.checkpoints``): written by the tasks -------
    def _restore(self, loaded: Loaded) -> int:
        if not isinstance(loaded, UrlLoaded):
            return super()._restore(loaded)
        self.restore_state(loaded)
        self._start_spark()
        levels = rdds.Levels(self.sc, self.partitions)
        self.note = f"reading the checkpoint on {self.partitions} partitions"
        self._report(0, limits=False)
        try:
            size = resume.adopt(levels, loaded, self.recipe, self.core)
        except CheckpointError:
            levels.close()
            raise
        self.rdds, self.loaded_at, self.note = levels, loaded.level, ""
        return size

    def level_committed(self) -> None:
        writer, k = self.checkpoints, self.stats.depth
        if isinstance(writer, UrlCheckpointer) and self.rdds is not None and k in self.rdds.new:
            writer.level_rdd(k, self.rdds.new[k].map(functools.partial(_new_record, k)))
        else:
            super().level_committed()

    def save_checkpoint(self) -> bool:
        writer = self.checkpoints
        if not isinstance(writer, UrlCheckpointer) or self.rdds is None or not self.front_size:
            return super().save_checkpoint()
        if not writer.enabled or not self.consistent:
            return False
        note, self.note = self.note, f"writing a checkpoint, {self.front_size:,} frontier states"
        self._report(self.front_size, limits=False)
        try:
            front = self.rdds.frontier.filter(rdds._kind(rdds.FRONTIER)).map(_frontier_record)
            kind = "rows" if self.core.rows else "states"
            return writer.save(self.stats.depth, front, None, self.search_state(), kind=kind)
        finally:
            self.note = note

    def _on_levels(self, what: str, ask: Callable[[rdds.Levels], T | None]) -> T | None:
        """``ask(levels)`` as Spark jobs named ``what``; None before Spark took over (the
        level files answer then) or when ``ask`` has no answer there."""
        levels = self.rdds
        return None if levels is None else self._spark(what, lambda: ask(levels))

    def parents_of(self, k: int, fps: list[int]) -> list[int]:
        found = self._on_levels("a trace", lambda levels: levels.parents_of(k, fps))
        return super().parents_of(k, fps) if found is None else found

    def level_table(self, k: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        table = self._on_levels("a checkpoint", lambda levels: levels.level_table(k))
        return super().level_table(k) if table is None else table

    def frontier_snapshot(self) -> Frontier:
        if not self.front_size:
            return super().frontier_snapshot()
        snapshot = self._on_levels("a checkpoint", lambda levels: levels.frontier_snapshot())
        return super().frontier_snapshot() if snapshot is None else snapshot

    def _tasks(self, k: int, size: int, done: int, total: int) -> None:
        """Progress inside level ``k``'s Spark job (called from ``session``'s watcher thread,
        so no limit is checked here): tasks done of its two stages."""
        if total:
            self.note = (
                f"level {k} on Spark, {self.partitions} partitions: {done} of {total} tasks done"
            )
            self._report(size, limits=False)


def _new_record(k: int, element: Any) -> tuple[Any, ...]:
    """Level ``k``'s ``NEW`` element as a checkpoint record (``checker.spark.checkpoints``)."""
    _, (_, (fps, parents, _)) = element
    return (k, "N", fps, parents)


def _frontier_record(element: Any) -> tuple[Any, ...]:
    """A frontier element as a checkpoint record."""
    p, (_, frontier) = element
    return frontier_record(p, frontier)


def local_cores(master: str | None) -> int | None:
    """The cores a local master URL gives Spark (``local`` 1, ``local[*]`` this machine's,
    ``local[N]`` / ``local[N,F]`` N, ``local-cluster[W,C,M]`` W·C), None for a cluster URL."""
    if master is None:
        return None
    if master == "local":
        return 1
    match = re.fullmatch(r"local\[(\*|\d+)(?:,\d+)?\]", master)
    if match:
        return os.cpu_count() or 1 if match.group(1) == "*" else int(match.group(1))
    match = re.fullmatch(r"local-cluster\[(\d+),\s*(\d+),\s*\d+\]", master)
    return int(match.group(1)) * int(match.group(2)) if match else None
