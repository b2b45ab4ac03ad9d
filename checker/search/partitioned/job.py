"""A level's tasks in the partitioned engines: what a task is given (``LevelJob``), what it
reports (``Tally``), and the core whose level functions it runs (``LevelCore``).

Two cores implement ``LevelCore``: ``checker.search.partitioned.level.REFERENCE`` (the Python model;
a partition's frontier holds marshal'd states, a bucket is a dict) and
``checker.search.partitioned.compiled_level.COMPILED`` (the model's compiled core; the frontier
holds rows, a bucket is four arrays). The driver (``checker.search.partitioned.driver``), the
process pool and the Spark engine hold one of them and never ask which: a job carries it to the
executors, which is why both are stateless module-level objects (they pickle as a class reference).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from checker.checkpoint.format import Frontier
from checker.model import Recipe, State

BUCKET, TALLY = "B", "T"
Fingerprints = np.ndarray[tuple[int], np.dtype[np.uint64]]
"""Fingerprints, one per state (a one-dimensional ``uint64`` array)."""
SeenOf = Callable[[int], Fingerprints]
"""``seen(owner)``: the sorted keys partition ``owner`` has seen (a pre-filter's source)."""
Record = tuple[str, object]
"""What a level's shuffle carries to a partition: ``(BUCKET, a core's bucket)`` or
``(TALLY, Tally)``."""


class LevelCore(Protocol):
    """The partitioned engines' level functions on one core, and the form of its level files.

    - ``name``: ``"reference"`` or ``"compiled"``, as ``Stats.core`` says it.
    - ``rows``: whether a partition's frontier holds the compiled core's rows (else marshal'd
      states); a checkpoint's frontier of the other form is converted (``frontier``).
    - ``expand_frontier(job, p, frontier, seen)``: the map side of level ``job.k`` for
      partition ``p``, whose states are ``frontier`` (this core's ``Frontier``): ``[(owner,
      record)]``, one bucket record per owner that gets successors, then ``(p, ("T",
      Tally))``; ``seen(owner)`` (``SeenOf``), when given, pre-filters each owner's repeats.
    - ``dedup_against(job, p, records, runs)``: the reduce side: merge the records, keep the
      fingerprints none of ``runs`` (``p``'s seen keys, sorted runs) holds, check the
      invariants on the new states; returns the merged ``Tally`` and, unless ``job.dry``,
      the new states (``NewStates``).
    - ``checker.search.partitioned.level``'s ``expand`` and ``dedup`` run these two on the level
      files (the driver's levels, the process pool); the Spark engine on RDDs
      (``checker.spark.rdds``).
    - ``frontier(recipe, fps, states)``: the level-file form of Python ``states`` (their
      fingerprints ``fps``, ``uint64``, same order).
    - ``write_frontier(work, k, p, frontier)`` / ``read_frontier(work, k, p)``: partition
      ``p``'s frontier file of level ``k`` (``checker.search.partitioned.level_files``; reading
      raises ``OSError`` when it is missing).
    - ``cannot_run(recipe)``: why this core cannot run ``recipe``'s model in this process, or
      "" (a Spark worker's start-up probe).
    """

    @property
    def name(self) -> str: ...

    @property
    def rows(self) -> bool: ...

    def expand_frontier(
        self, job: LevelJob, p: int, frontier: Frontier, seen: SeenOf | None = None
    ) -> list[tuple[int, Record]]: ...

    def dedup_against(
        self, job: LevelJob, p: int, records: Iterable[Record], runs: Sequence[Fingerprints]
    ) -> tuple[Tally, NewStates | None]: ...

    def frontier(self, recipe: Recipe, fps: Fingerprints, states: Sequence[State]) -> Frontier: ...

    def write_frontier(self, work: str, k: int, p: int, frontier: Frontier) -> None: ...

    def read_frontier(self, work: str, k: int, p: int) -> Frontier: ...

    def cannot_run(self, recipe: Recipe) -> str: ...


@dataclass(frozen=True)
class LevelJob:
    """What a task needs to run level ``k`` (the frontier being expanded): the model
    ``recipe``, the ``work`` folder, the ``partitions`` count P, the names of the properties
    still to check, ``dry`` (count new states only, write nothing: used at a depth bound),
    ``symmetry``, and the ``core`` whose level functions run it."""

    recipe: Recipe
    work: str
    partitions: int
    k: int
    core: LevelCore
    invariants: tuple[str, ...] = ()
    transitions: tuple[str, ...] = ()
    sometimes: tuple[str, ...] = ()
    dry: bool = False
    symmetry: bool = False


@dataclass(frozen=True)
class NewStates:
    """A partition's new states of a level: ``fps`` (sorted ``uint64``), each one's parent
    fingerprint ``parents`` (``uint64``, same order) and their ``frontier`` (the core's form,
    same order)."""

    fps: Fingerprints
    parents: Fingerprints
    frontier: Frontier


@dataclass
class Tally:
    """What a level reports to the driver. ``generated`` / ``distinct``: per action name,
    successors computed and new states whose winning label is that action. ``new``: new states.
    ``broken``: per transition property the winning violation ``(parent fp, label text,
    successor bytes)``. ``worst``: per invariant the smallest violating new fingerprint.
    ``reached``: "sometimes" guards reached. ``error``: the first exception the spec raised.
    ``expand_seconds`` / ``dedup_seconds``: time spent in the two functions, summed over tasks
    (seconds; for benchmarks)."""

    generated: dict[str, int] = field(default_factory=dict)
    distinct: dict[str, int] = field(default_factory=dict)
    new: int = 0
    broken: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)
    worst: dict[str, int] = field(default_factory=dict)
    reached: set[str] = field(default_factory=set)
    error: str | None = None
    expand_seconds: float = 0.0
    dedup_seconds: float = 0.0

    def merge(self, other: Tally) -> Tally:
        """Fold ``other`` into this tally (order-independent); returns self."""
        for mine, theirs in ((self.generated, other.generated), (self.distinct, other.distinct)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        self.new += other.new
        for name, entry in other.broken.items():
            if name not in self.broken or entry[:2] < self.broken[name][:2]:
                self.broken[name] = entry
        for name, fp in other.worst.items():
            self.worst[name] = min(fp, self.worst.get(name, fp))
        self.reached |= other.reached
        self.expand_seconds += other.expand_seconds
        self.dedup_seconds += other.dedup_seconds
        self.error = min(filter(None, (self.error, other.error)), default=None)
        return self
