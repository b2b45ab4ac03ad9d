"""The local engine on every core: the partitioned search (``checker.search.partitioned.driver``)
with each level's ``expand`` and ``dedup`` tasks run by a pool of worker processes, no JVM.

One algorithm, two executors: the tasks are the Spark engine's level functions
(``checker.search.partitioned.level``), the shuffle is the level files (each expand task writes one
bucket file per owner partition, each dedup task reads its own). So ``--workers N`` gives exactly
the answers of ``--workers 1`` and of ``--engine spark``: counts, depth, coverage, verdicts and
shortest counterexamples. Levels with fewer than ``min_frontier`` states run in this process, where
starting tasks would cost more than they save.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import resource
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, wait
from typing import Any

from checker.checkpoint.saving import SaveOptions, run_search
from checker.limits import ENDING, Limits, Progress, interrupted
from checker.model import Recipe, Spec
from checker.result import CheckResult
from checker.search.partitioned import level, level_files
from checker.search.partitioned.driver import PartitionedSearch
from checker.search.partitioned.job import LevelJob, Tally
from checker.search.partitioned.level import dedup_from_files, expand_to_files, run_in_driver

MIN_FRONTIER = 2_000
"""Levels with a smaller frontier run in the driver process (states)."""

PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal a process gets when its parent dies."""


def explore(
    recipe: Recipe,
    workers: int,
    limits: Limits | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    symmetry: bool = False,
    min_frontier: int = MIN_FRONTIER,
    saving: SaveOptions | None = None,
) -> CheckResult:
    """Explore ``recipe``'s model (``recipe.build() -> (spec, properties)``) on ``workers``
    processes with ``workers`` fingerprint partitions, on the reference core (the compiled core's
    local engine is threads: ``checker.search.compiled.search``); the result equals
    ``checker.search.reference.bfs.explore``'s (same ``symmetry``) in every count, verdict and
    counterexample.

    Raises ``SymmetryError`` as ``checker.search.reference.bfs.explore`` does. The spec's own
    exceptions give an ERROR result; Ctrl-C gives INCOMPLETE after the workers are stopped.
    ``saving``: checkpoints and resume (``checker.checkpoint.saving``).
    """
    spec, props = recipe.build()
    work = level_files.work_folder("hwcheck-levels-")
    run = PoolSearch(
        recipe, spec, props, limits or Limits(), on_progress, work, workers, symmetry, min_frontier
    )
    try:
        result = run_search((saving or SaveOptions()).apply(run))
    finally:
        run.close()
        level_files.remove(work)
    # the largest peak of a finished child process: the workers, all stopped by close()
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    result.stats.workers_peak_rss_mb = children
    return result


def default_workers() -> int:
    """Every core of this machine (``os.sched_getaffinity``: the cores this process may use)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def context() -> Any:
    """The multiprocessing context of the pools: fork where the platform can (the workers
    start at once, with the code loaded), else spawn."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return multiprocessing.get_context(method)


def executor(
    workers: int, quiet_interrupt: bool = False, counters: Any = None
) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (``context``).

    ``quiet_interrupt``: the workers ignore Ctrl-C (SIGINT reaches the whole process group), so an
    idle worker prints no traceback and the parent alone stops the run; for pools whose tasks are
    short (``simulate``'s chunks), since running tasks then finish first. ``counters``: shared
    memory the workers count a level's expansion in (``checker.search.partitioned.level.COUNTERS``).
    """
    return ProcessPoolExecutor(
        workers,
        mp_context=context(),
        initializer=worker_start,
        initargs=(quiet_interrupt, os.getpid(), counters),
    )


def worker_start(quiet_interrupt: bool, parent: int, counters: Any = None) -> None:
    """What each worker process does first: SIGTERM back to its default (a forked worker
    inherits the parent's handler, which turns SIGTERM into Ctrl-C; ``terminate()`` must
    end a worker), SIGINT and SIGHUP ignored with ``quiet_interrupt`` (both reach the whole
    process group: the parent ends the workers), and ``die_with_parent``; and ``counters``
    where ``checker.search.partitioned.level`` counts in them."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if quiet_interrupt:
        for signum in {signal.SIGINT, *ENDING} - {signal.SIGTERM}:
            signal.signal(signum, signal.SIG_IGN)
    level.COUNTERS = counters
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """On Linux, have the kernel send this process SIGKILL when the process that started it
    dies (``prctl(PR_SET_PDEATHSIG)``), so a SIGKILL or crash of ``hwcheck`` never leaves
    workers running; exit at once when ``parent`` (its pid) is already gone. Elsewhere,
    nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: the parent's close() still stops us
        return
    if os.getppid() != parent:  # the parent died before the call above
        os._exit(1)


class PoolSearch(PartitionedSearch):
    """A partitioned search whose large levels run on a ``ProcessPoolExecutor``."""

    def __init__(
        self,
        recipe: Recipe,
        spec: Spec,
        props: Any,
        limits: Any,
        on_progress: Any,
        work: str,
        workers: int,
        symmetry: bool,
        min_frontier: int,
    ) -> None:
        super().__init__(recipe, spec, props, limits, on_progress, work, workers, symmetry)
        self.workers, self.min_frontier = workers, min_frontier
        self.engine = f"local ({workers} workers)"
        self.executor: ProcessPoolExecutor | None = None
        self.counters: Any = None  # the workers' (checker.search.partitioned.level.COUNTERS)

    def run_level(self, job: LevelJob, size: int) -> tuple[str, Tally]:
        if size < self.min_frontier:
            return "driver", run_in_driver(job)
        if self.executor is None:  # Ctrl-C reaches this process alone; close() stops them
            self.counters = context().RawArray("q", 2 * self.partitions)
            self.executor = executor(self.workers, True, self.counters)
        self.counters[:] = [0] * len(self.counters)
        total = Tally()
        for tally in self._tasks(expand_to_files, job, size) + self._tasks(dedup_from_files, job):
            total.merge(tally)
        return "workers", total

    def _tasks(self, task: Any, job: LevelJob, size: int | None = None) -> list[Tally]:
        """``task``'s tallies, run on the pool for each partition. With ``size`` (the
        frontier, while the level is expanded), progress is reported about once a second
        from the workers' counters: states expanded and generated (the new states are
        known when the level ends)."""
        assert self.executor is not None
        futures = [self.executor.submit(task, job, p) for p in range(self.partitions)]
        pending: Any = futures
        while pending:
            timeout = None
            if size is not None and self.on_progress is not None:
                timeout = max(0.0, self.next_report - time.perf_counter())
            pending = wait(pending, timeout).not_done
            if pending and size is not None and self.due():
                counts = self.counters[:]
                self._report(size, False, sum(counts[0::2]), 0, sum(counts[1::2]))
        return [future.result() for future in futures]

    def close(self) -> None:
        """Stop the worker processes: after Ctrl-C at once (a running level task may take
        minutes, and its results are no longer wanted), else when their tasks are done."""
        if self.executor is None:
            return
        if interrupted(self.reason):
            # ProcessPoolExecutor has no public way to stop running tasks
            for process in list(getattr(self.executor, "_processes", {}).values()):
                process.terminate()
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.executor = None
