"""The partitioned engine's driver loop: the local engine's level-synchronous BFS with the
frontier, the new states and the seen set split into P fingerprint partitions (``fp % P``).

Per level, ``checker.search.partitioned.level``'s two functions (``expand``, then ``dedup``) do the
work; an *executor* runs them: in this process, on a pool of local processes
(``checker.search.partitioned.pool``, ``--workers N``) or as one Spark job
(``checker.spark.engine``). The driver keeps only counts; the first violating level and the local
engine's tie-breaks give the same shortest counterexamples, rebuilt from the per-level parent files
(``checker.trace.concrete_walk``).
"""

from __future__ import annotations

import marshal
import time
from typing import Any

import numpy as np

from checker.checkpoint.format import Frontier
from checker.checkpoint.read import Loaded
from checker.limits import DEPTH_REACHED, LimitReached, Limits, SpecFailed, signals_deferred
from checker.model import Recipe, Spec
from checker.result import Step, Violation
from checker.search.partitioned import level_files
from checker.search.partitioned.job import LevelCore, LevelJob, Tally
from checker.search.partitioned.level import REFERENCE, run_in_driver
from checker.search.reference.bfs import Search
from checker.trace import concrete_walk


class PartitionedSearch(Search):
    """One partitioned search over ``recipe``'s model, its level files in ``work``, with
    ``partitions`` P (set by the executor before ``search`` if 0), its levels on ``core``
    (``checker.search.partitioned.job.LevelCore``). Subclasses decide where a level runs
    (``run_level``)."""

    engine = "partitioned"

    def __init__(
        self,
        recipe: Recipe,
        spec: Spec,
        props: Any,
        limits: Limits,
        on_progress: Any,
        work: str,
        partitions: int,
        symmetry: bool = False,
        core: LevelCore = REFERENCE,
    ) -> None:
        super().__init__(spec, props, limits, on_progress, symmetry)
        self.recipe, self.work, self.partitions = recipe, work, partitions
        self.core = core

    def run_level(self, job: LevelJob, size: int) -> tuple[str, Tally]:
        """Run one level; return ``(where it ran, its tally)``. Here: in this process."""
        return "driver", run_in_driver(job)

    def prepare(self) -> None:
        """Called once before the first level (set ``partitions``, start workers)."""

    def prune(self, k: int) -> None:
        """Level ``k + 1`` is committed: delete level ``k``'s frontier and seen files."""
        level_files.prune(self.work, k)

    def parents_of(self, k: int, fps: list[int]) -> list[int]:
        """The parent fingerprints of ``fps``, new states of level ``k``, in their order
        (``level_files.parent_of``). Raises ``KeyError`` for one not of that level."""
        return [level_files.parent_of(self.work, k, self.partitions, fp) for fp in fps]

    # -- the search -------------------------------------------------------------------------
    def search(self) -> None:
        self.prepare()
        if self.resume is not None:
            size = self._restore(self.resume)
        else:
            with signals_deferred():
                size = self._init_level()
                self.level_committed()
        k, self.front_size, self.consistent = max(self.stats.depth, 1), size, True
        while size and not self._done():
            self.boundary()
            self._report(size)
            if self.limits.max_depth is not None and self.stats.depth >= self.limits.max_depth:
                if self._level(k, size, dry=True).new:
                    self.stats.frontier = size
                    raise LimitReached(DEPTH_REACHED.format(self.limits.max_depth))
                break
            tally = self._level(k, size)
            with signals_deferred():
                self._commit(k, tally)
                self.prune(k)
                size, k = tally.new, k + 1
                self.front_size = size
                if size:
                    self.level_committed()
        if not size:
            self.prune(k)  # the last, empty level
        self.exhausted = not size
        self._report(0)

    def _init_level(self) -> int:
        """Level 1 as the local engine does it, written to partition p's files."""
        level = self.initial_level()
        order = sorted(level)
        fps = np.array(order, dtype=np.uint64)
        self._write_frontier(1, self.core.frontier(self.recipe, fps, [level[fp] for fp in order]))
        for p in range(self.partitions):
            level_files.write_seen(self.work, 1, p, fps[fps % np.uint64(self.partitions) == p])
        return len(level)

    def _write_frontier(self, k: int, frontier: Frontier) -> None:
        """Write ``frontier`` (sorted by fingerprint, in the core's form) as level ``k``'s
        frontier files, each partition its own states."""
        owner = frontier.fps % np.uint64(self.partitions)
        for p in range(self.partitions):
            self.core.write_frontier(self.work, k, p, frontier.take(owner == p))

    def _level(self, k: int, size: int, dry: bool = False) -> Tally:
        job = LevelJob(
            self.recipe,
            self.work,
            self.partitions,
            k,
            self.core,
            tuple(p.name for p in self.invariants),
            tuple(p.name for p in self.transitions),
            tuple(p.name for p in self.pending),
            dry,
            self.symmetry,
        )
        started = time.perf_counter()
        where, tally = self.run_level(job, size)
        if not dry:
            self.stats.levels.append(
                {
                    "depth": k + 1,
                    "frontier": size,
                    "new": tally.new,
                    "seconds": time.perf_counter() - started,
                    "where": where,
                    "expand_seconds": tally.expand_seconds,
                    "dedup_seconds": tally.dedup_seconds,
                }
            )
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
        for prop in sorted(
            (p for p in self.transitions if p.name in tally.broken), key=lambda p: p.name
        ):
            pfp, label_text, encoded = tally.broken[prop.name]
            self.transition_violated(prop, pfp, k, label_text, marshal.loads(encoded))
        broken = [p for p in self.invariants if p.name in tally.worst]
        traces = self.traces_to([tally.worst[p.name] for p in broken], k + 1)
        for prop, trace in zip(broken, traces):
            self.violations.append(Violation(prop, tuple(trace)))
        self.invariants = [p for p in self.invariants if p not in broken]
        self.pending = [p for p in self.pending if p.name not in tally.reached]

    # -- checkpoints (checker.checkpoint.saving) ---------------------------------------------------------
    def level_table(self, k: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        if k == 1:
            fps = np.sort(
                np.concatenate(
                    [level_files.read_seen(self.work, 1, p) for p in range(self.partitions)]
                )
            )
            return fps, np.zeros(len(fps), dtype=np.uint64)
        tables = [level_files.read_parents(self.work, k, p) for p in range(self.partitions)]
        return (np.concatenate([t[0] for t in tables]), np.concatenate([t[1] for t in tables]))

    def frontier_snapshot(self) -> Frontier:
        k, parts = self.stats.depth, range(self.partitions)
        if not self.front_size:
            return Frontier(np.empty(0, dtype=np.uint64), states=[])
        return Frontier.join([self.core.read_frontier(self.work, k, p) for p in parts])

    def _restore(self, loaded: Loaded) -> int:
        """Write ``loaded`` as this engine's level files (its parents per level, the seen set
        and frontier of its last level, split into this run's partitions); returns the
        frontier's size."""
        self.restore_state(loaded)
        level_files.clear_levels(self.work)
        P, K = self.partitions, loaded.level
        seen: list[list[np.ndarray[Any, Any]]] = [[] for _ in range(P)]
        for k, fps, parents in loaded.levels():
            owner = fps % np.uint64(P)
            for p in range(P):
                mine = owner == p
                if k > 1:
                    level_files.write_parents(self.work, k, p, fps[mine], parents[mine])
                seen[p].append(fps[mine])
        for p in range(P):
            level_files.write_seen(
                self.work, K, p, np.sort(np.concatenate(seen[p] or [level_files.EMPTY]))
            )
        frontier = loaded.frontier().sorted()  # level files hold their states by fingerprint
        if (frontier.rows is not None) != self.core.rows:  # the other core's form
            frontier = self.core.frontier(self.recipe, frontier.fps, self.frontier_states(frontier))
        self._write_frontier(K, frontier)
        return len(frontier)

    # -- traces -----------------------------------------------------------------------------
    def trace_to(self, fp: int, k: int) -> list[Step]:
        """The shortest trace to ``fp``, a state first seen at level ``k``."""
        return self.traces_to([fp], k)[0]

    def traces_to(self, fps: list[int], k: int) -> list[list[Step]]:
        """The shortest traces to ``fps``, states first seen at level ``k``, walked back
        together: one ``parents_of`` a level for all of them (on Spark, one job a level)."""
        chains = [[fp] for fp in fps]
        for depth in range(k, 1, -1) if fps else ():
            for chain, parent in zip(chains, self.parents_of(depth, [c[-1] for c in chains])):
                chain.append(parent)
        return [concrete_walk(self.spec, chain[::-1], self.canon) for chain in chains]
