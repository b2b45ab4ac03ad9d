"""The Spark engine: the local engine's level-synchronous BFS with the frontier, the new
states and the seen set split into P fingerprint partitions (design.md, "Spark").

Per level, ``checker.spark.level`` expands and de-duplicates; a level whose frontier is below
``SparkOptions.min_frontier`` runs those functions in the driver, a larger one as one Spark
job. The driver keeps only counts: the first violating level and the tie-breaks of the local
engine give the same shortest counterexamples, rebuilt from the per-level parent files by
replaying from the initial state (at each step the successor with the next fingerprint and the
smallest label text, which is the label the local engine records).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from checker.bfs import LimitReached, Limits, Progress, Search, SpecFailed, run_search
from checker.fingerprint import encode, fingerprint, fingerprint_bytes, fp_hex
from checker.model import NondeterministicSpec
from checker.result import CheckResult, Step, Violation
from checker.spark import session, store
from checker.spark.level import LevelJob, Tally, run_in_driver
from checker.spark.session import SparkOptions, SparkUnavailable

__all__ = ["SparkOptions", "SparkUnavailable", "explore"]


def explore(recipe: Any, limits: Limits | None = None,
            on_progress: Callable[[Progress], None] | None = None,
            options: SparkOptions | None = None) -> CheckResult:
    """Explore ``recipe``'s model (``recipe.build() -> (spec, properties)``, picklable) with the
    Spark engine; the result equals ``checker.bfs.explore``'s in counts, depth, verdicts and
    counterexamples.

    Raises ``SparkUnavailable`` (exit 5) when Spark cannot run: no Java, the JVM or a job
    failed, or workers fingerprint differently from the driver. The spec's own exceptions give
    an ERROR result, as in the local engine.
    """
    limits, options = limits or Limits(), options or SparkOptions()
    spec, props = recipe.build()
    run = SparkSearch(recipe, spec, props, limits, on_progress, options)
    try:
        return run_search(run, passthrough=(SparkUnavailable,))
    finally:
        if options.work_dir is None:
            store.remove(run.work)


class SparkSearch(Search):
    """One Spark-engine search (the bookkeeping is ``checker.bfs.Search``'s)."""

    def __init__(self, recipe: Any, spec, props, limits: Limits, on_progress,
                 options: SparkOptions) -> None:
        super().__init__(spec, props, limits, on_progress)
        self.recipe, self.options = recipe, options
        self.sc = None
        self.partitions = options.partitions or 0  # 0: taken from Spark in search()
        self.work = options.work_dir or tempfile.mkdtemp(
            prefix="levels-", dir=session.session_folder())
        self.engine = "spark"

    def _start_spark(self) -> None:
        """Start (or reuse) the context; P from it when not known yet; check the workers."""
        if self.sc is None:
            self.sc = session.context(self.options)
            self.partitions = self.partitions or self.sc.defaultParallelism
            session.check_workers(self.sc, self.recipe, self.partitions)

    # -- the search -------------------------------------------------------------------------
    def search(self) -> None:
        if self.options.partitions is None:  # P = the cores Spark has
            self.partitions = local_cores(session.master_url(self.options)) or 0
            if not self.partitions:  # a cluster: ask it
                self._start_spark()
        self.engine = f"spark ({self.partitions} partitions)"
        size = self._init_level()
        k = 1
        while size and not self._done():
            self._report(size)
            if self.limits.max_depth is not None and self.stats.depth >= self.limits.max_depth:
                if self._level(k, size, dry=True).new:
                    self.stats.frontier = size
                    raise LimitReached(f"depth bound {self.limits.max_depth} reached with "
                                       "states left to explore")
                break
            tally = self._level(k, size)
            self._commit(k, tally)
            store.prune(self.work, k)
            size, k = tally.new, k + 1
        if not size:
            store.prune(self.work, k)  # the last, empty level
        self.exhausted = not size
        self._report(0)

    def _init_level(self) -> int:
        """Level 1 as the local engine does it, written to partition p's files."""
        level = self.initial_level()
        owned: list[list] = [[] for _ in range(self.partitions)]
        for fp in sorted(level):
            owned[fp % self.partitions].append(fp)
        for p, fps in enumerate(owned):
            store.write_frontier(self.work, 1, p, [(fp, encode(level[fp])) for fp in fps])
            store.write_visited(self.work, 1, p, np.array(fps, dtype=np.uint64))
        return len(level)

    def _level(self, k: int, size: int, dry: bool = False) -> Tally:
        job = LevelJob(self.recipe, self.work, self.partitions, k,
                       tuple(p.name for p in self.invariants),
                       tuple(p.name for p in self.transitions),
                       tuple(p.name for p in self.pending), dry)
        started = time.perf_counter()
        if size < self.options.min_frontier:
            where, tally = "driver", run_in_driver(job)
        else:
            self._start_spark()
            self.note = f"level {k} on Spark, {self.partitions} partitions"
            self._report(size)
            where, tally = "spark", session.run_level(self.sc, job)
            self.note = ""
        if not dry:
            self.stats.levels.append({"depth": k + 1, "frontier": size, "new": tally.new,
                                      "seconds": time.perf_counter() - started,
                                      "where": where, "expand_seconds": tally.expand_seconds,
                                      "dedup_seconds": tally.dedup_seconds})
        return tally

    def _commit(self, k: int, tally: Tally) -> None:
        """Fold level ``k``'s tally into the run, in the local engine's order."""
        if tally.error:
            raise SpecFailed(tally.error)
        actions = self.stats.actions
        for action, n in tally.generated.items():
            actions.setdefault(action, [0, 0])[0] += n
            self.stats.generated += n
        for action, n in tally.distinct.items():
            actions[action][1] += n
        self.stats.distinct += tally.new
        if tally.new:
            self.stats.depth += 1
        for prop in sorted((p for p in self.transitions if p.name in tally.broken),
                           key=lambda p: p.name):
            pfp, label_text, encoded = tally.broken[prop.name]
            steps = self.trace_to(pfp, k)
            steps.append(self._step(steps[-1].state, label_text, fingerprint_bytes(encoded)))
            self.violations.append(Violation(prop, tuple(steps)))
            self.transitions = [p for p in self.transitions if p is not prop]
        for prop in list(self.invariants):
            if prop.name in tally.worst:
                trace = self.trace_to(tally.worst[prop.name], k + 1)
                self.violations.append(Violation(prop, tuple(trace)))
                self.invariants = [p for p in self.invariants if p is not prop]
        self.pending = [p for p in self.pending if p.name not in tally.reached]

    # -- traces -----------------------------------------------------------------------------
    def trace_to(self, fp: int, k: int) -> list[Step]:
        """The shortest trace to ``fp``, a state first seen at level ``k``."""
        chain = [fp]
        for depth in range(k, 1, -1):
            chain.append(store.parent_of(self.work, depth, self.partitions, chain[-1]))
        chain.reverse()
        init = [s for s in self.spec.init_states() if fingerprint(s) == chain[0]]
        steps = [Step(None, init[0], chain[0])]
        for want in chain[1:]:
            steps.append(self._step(steps[-1].state, None, want))
        return steps

    def _step(self, state, label_text: str | None, want: int) -> Step:
        """The step from ``state`` to fingerprint ``want`` (with that label text, if given):
        of the matching transitions, the one with the smallest label text."""
        best = None
        for label, succ in self.spec.successors(state):
            text = str(label)
            if ((label_text is None or text == label_text) and (best is None or text < best[0])
                    and fingerprint(succ) == want):
                best = (text, label, succ)
        if best is None:
            raise NondeterministicSpec(f"no transition reaches {fp_hex(want)} when rebuilding "
                                       "a trace: the spec is not deterministic")
        return Step(best[1], best[2], want)


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
