"""The Spark engine's levels kept on the executors: the frontier, each level's new states and
the seen set are RDDs of P partitions sharing one partitioner (``owner``), so a level's
successors meet partition p's seen keys in one task, with no second shuffle and no task
reading another partition's seen set.

Every element is ``(p, (kind, payload))``, one or a few per partition:

- ``(FRONTIER, Frontier)``: partition p's states of the level being expanded, in the core's
  form (``checker.search.partitioned.job.LevelCore``);
- ``(NEW, (fps, parent fps))``: partition p's new states of one level, sorted. Kept for the
  whole run (traces, checkpoints) and read as one run of the seen set;
- ``(SEEN, keys)``: a sorted run of older seen keys (the levels that ran in the driver, or
  runs merged together);

A level is one Spark job with one shuffle: the frontier RDD is expanded
(``LevelCore.expand_frontier``, repeats within the task dropped there), partitioned by owner
(``fp % P``), put beside the seen runs (a ``PartitionerAwareUnionRDD``: partition p of each)
and de-duplicated (``LevelCore.dedup_against``). Its output is persisted; the tallies, through an
accumulator, are the only data the driver gets.

The seen set is never rewritten per level: each level adds its new keys as a run, and the
newest run is merged into the one before it while that one holds at most ``MERGE_RATIO``
times its keys, or while there are more than ``MAX_RUNS`` (an LSM tree's size-tiered
compaction): a key is merged O(log n) times over the run.

Every Python RDD a level reads is computed and cached in a job of its own before the level
runs (``_materialize``: a level's new states as a run, then each merge, in order), so no
task runs one Python worker feeding another. Spark 4's single-threaded Python runner can
hang when it does: at 4 replicas, 94 million orbits, a level's task waited for a merge's
output that the merge's worker was blocked writing, and neither moved again.

A lost executor loses its cached partitions and shuffle files; Spark recomputes them from
the lineage (every function here is deterministic), so the answer is unchanged.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from checker.checkpoint.format import Frontier
from checker.search.partitioned import level_files
from checker.search.partitioned.job import BUCKET, TALLY, LevelCore, LevelJob, Tally
from checker.search.reference.seen import in_sorted, merge_sorted

FRONTIER, NEW, SEEN = "F", "N", "S"
CHUNK_BYTES = 16 << 20
"""About the most bytes of states or keys in one element: a partition's data is many
elements, so the JVM (whose heap is Spark's, 1 GiB by default) never holds a large array."""
SHUFFLE_BYTES = 1 << 20
"""About the most bytes of one bucket piece sent through the shuffle. PySpark's
``partitionBy`` pickles up to ``min(10 P, 1000)`` pieces into one shuffle record at its
first flush, which the reduce side's JVM reads as one byte array: 16 MiB pieces made
records of 336 MiB, and reading one ran a 6 GiB heap out of memory at 4 replicas, 1.24 x
10^8 orbits."""
MERGE_RATIO = 2
MAX_RUNS = 8


def merge_newest(sizes: list[int]) -> bool:
    """Whether the two newest runs (``sizes``: the runs' key counts, oldest first) are merged
    now: the one before the newest holds at most ``MERGE_RATIO`` times its keys, or there
    are more than ``MAX_RUNS`` runs. Merging until this is false leaves every run more than
    ``MERGE_RATIO`` times the next newer one, so there are at most log2(n) + 1 runs."""
    return len(sizes) > 1 and (sizes[-2] <= MERGE_RATIO * sizes[-1] or len(sizes) > MAX_RUNS)


def owner(key: int) -> int:
    """The partitioner of every level RDD (one function object: PySpark compares
    partitioners by it): an element keyed p lives in partition p."""
    return key


def _slices(n: int, per: int) -> list[slice]:
    """``n`` items in slices of at most ``per`` (at least one slice, maybe empty)."""
    per = max(1, per)
    return [slice(at, min(n, at + per)) for at in range(0, max(n, 1), per)]


def _frontier_chunks(frontier: Frontier) -> list[tuple[str, Any]]:
    """A frontier as ``CHUNK_BYTES``-sized elements: no element the JVM holds is large."""
    width = 64 if frontier.rows is None else frontier.rows.shape[1] + 8
    parts = _slices(len(frontier), CHUNK_BYTES // width)
    return [(FRONTIER, frontier.take(np.arange(part.start, part.stop))) for part in parts]


def _key_chunks(kind: str, fps: Any, parents: Any = None) -> list[tuple[str, Any]]:
    """Sorted keys (and parents, for ``NEW``) as elements of ``CHUNK_BYTES`` at most; the
    first of a run says so (``start``), as runs follow one another in a partition."""
    out = []
    for part in _slices(len(fps), CHUNK_BYTES // 16):
        start = part.start == 0
        payload = (fps[part], start) if parents is None else (fps[part], parents[part], start)
        out.append((kind, payload))
    return out


def _bucket_chunks(bucket: Any) -> list[Any]:
    """A core's bucket (a dict, or four arrays: fingerprints, parents, labels, rows) in
    pieces of about ``SHUFFLE_BYTES``; ``dedup_against`` merges any number of them."""
    if isinstance(bucket, dict):
        items = list(bucket.items())
        return [dict(items[part]) for part in _slices(len(items), SHUFFLE_BYTES // 128)]
    per = SHUFFLE_BYTES // (18 + bucket[3].shape[1])
    return [tuple(column[part] for column in bucket) for part in _slices(len(bucket[0]), per)]


def _load(work: str, k: int, core: LevelCore, p: int) -> list[tuple[int, tuple[str, Any]]]:
    """Partition ``p``'s frontier and seen keys of level ``k`` from the level files."""
    elements = _frontier_chunks(core.read_frontier(work, k, p))
    elements += _key_chunks(SEEN, level_files.read_seen(work, k, p))
    return [(p, element) for element in elements]


def _expand(job: LevelJob, p: int, items: Any) -> list[tuple[int, Any]]:
    """The map side of level ``job.k`` for partition ``p`` (its frontier's elements)."""
    # every element is read: a Python worker whose input is left unread is not reused
    chunks = [payload for _, (kind, payload) in items if kind == FRONTIER]
    if not chunks:
        raise ValueError(f"partition {p} of level {job.k} has no frontier")
    out: list[tuple[int, Any]] = []
    for owner, (kind, payload) in job.core.expand_frontier(job, p, Frontier.join(chunks)):
        pieces = _bucket_chunks(payload) if kind == BUCKET else [payload]
        out += [(owner, (kind, piece)) for piece in pieces]
    return out


def _runs(items: Any, records: list[Any] | None = None) -> list[Any]:
    """The seen runs among a partition's elements (chunks joined), in order; the other
    records go to ``records`` when given."""
    runs: list[list[Any]] = []
    for _, (kind, payload) in items:
        if kind in (NEW, SEEN):
            if payload[-1] or not runs:  # a run's first chunk
                runs.append([])
            runs[-1].append(payload[0])
        elif records is not None and kind in (BUCKET, TALLY):
            records.append((kind, payload))
    return [chunks[0] if len(chunks) == 1 else np.concatenate(chunks) for chunks in runs]


class Tallies:
    """An accumulator's parameter (PySpark's ``AccumulatorParam`` protocol) for a level's
    tallies, ``{partition: Tally}``: a partition computed twice (a retried or recomputed
    task) reports the same tally again, which replaces the first, so the sum stays exact."""

    def zero(self, value: dict[int, Tally]) -> dict[int, Tally]:
        return {}

    def addInPlace(self, mine: dict[int, Tally], other: dict[int, Tally]) -> dict[int, Tally]:
        mine.update(other)
        return mine


def _dedup(job: LevelJob, p: int, items: Any, tallies: Any) -> list[tuple[int, tuple[str, Any]]]:
    """The reduce side for partition ``p``: its successors' records and its seen runs in,
    its new frontier and new states out; its tally goes to the ``tallies`` accumulator (so
    no second Python worker reads the output to find it)."""
    records: list[Any] = []
    runs = _runs(items, records)
    tally, new = job.core.dedup_against(job, p, records, runs)
    tallies.add({p: tally})
    if new is None:
        return []
    elements = _frontier_chunks(new.frontier) + _key_chunks(NEW, new.fps, new.parents)
    return [(p, element) for element in elements]


def _merge(p: int, items: Any) -> list[tuple[int, tuple[str, Any]]]:
    """Partition ``p``'s seen runs merged into one."""
    merged = functools.reduce(merge_sorted, _runs(items))
    return [(p, element) for element in _key_chunks(SEEN, merged)]


def _lookup(wanted: np.ndarray[Any, Any], items: Any) -> list[tuple[int, int]]:
    """``(fp, parent)`` for each of the ``wanted`` fingerprints (``uint64``) that a partition
    of a level's new states holds."""
    found: list[tuple[int, int]] = []
    for _, (kind, payload) in items:  # every element is read (a worker is then reused)
        if kind == NEW:
            fps, parents, _ = payload
            there = wanted[in_sorted(fps, wanted)]
            found += zip(there.tolist(), parents[np.searchsorted(fps, there)].tolist())
    return found


def _materialize(rdd: Any) -> None:
    """Compute and cache the persisted ``rdd`` now, in one Spark job whose tasks run its
    Python function and no other (counted in the JVM: nothing comes back to Python), so a
    later task finds its partitions cached instead of computing them inside its own."""
    rdd._jrdd.count()


def _kind(wanted: str) -> Any:
    return lambda element: element[1][0] == wanted


class Levels:
    """One search's level RDDs on ``sc``, ``partitions`` P. The driver holds RDD handles and
    counts, never states or keys (except when ``level_table`` / ``frontier_snapshot`` are
    asked for them: checkpoints written by the driver)."""

    def __init__(self, sc: Any, partitions: int) -> None:
        from pyspark import StorageLevel

        self.sc, self.partitions = sc, partitions
        self.storage = StorageLevel.MEMORY_AND_DISK
        self.frontier: Any = None
        self.new: dict[int, Any] = {}
        self.runs: list[tuple[Any, int]] = []
        self.held: list[Any] = []
        self.retire: list[Any] = []
        self.pending: tuple[int, Any, int] | None = None

    def _keep(self, rdd: Any) -> Any:
        self.held.append(rdd.persist(self.storage))
        return rdd

    def start(self, work: str, k: int, core: LevelCore, seen: int, ship: bool = False) -> None:
        """Load level ``k`` (its frontier and the ``seen`` keys so far) from the level files
        the driver wrote: read by the tasks (the files must stay until ``close``), or with
        ``ship`` read here and sent with the job (executors that do not see the driver's
        folder: a cluster without ``--work-dir``). Runs one Spark job."""
        P = self.partitions
        if ship:
            data = [element for p in range(P) for element in _load(work, k, core, p)]
            base = self.sc.parallelize(data, max(1, len(data))).partitionBy(P, owner)
            loaded = self._keep(base)
        else:
            base = self.sc.parallelize([(p, None) for p in range(P)], P).partitionBy(P, owner)
            loaded = self._keep(
                base.mapPartitionsWithIndex(lambda p, _: _load(work, k, core, p), True)
            )
        loaded.count()
        self.frontier = loaded
        self.runs = [(loaded, seen)]

    def adopt(self, frontier: Any, news: dict[int, tuple[Any, int]], scratch: list[Any]) -> None:
        """Stand at a checkpoint's frontier (``checker.spark.resume``): ``frontier``, an RDD
        of frontier elements, and ``news``, level -> (RDD of its ``NEW`` elements, states),
        all partitioned by ``owner``; the levels become the seen runs. ``scratch``: RDDs
        they are computed from, kept only while this one Spark job runs."""
        for rdd in scratch:
            rdd.persist(self.storage)
        self.frontier = self._keep(frontier)
        for k in sorted(news):
            self.new[k] = self._keep(news[k][0])
            _materialize(self.new[k])
            self.runs.append(news[k])
            self._compact()
        try:
            self.sc.union([frontier, *self.new.values()])._jrdd.count()
        finally:
            for rdd in scratch:
                rdd.unpersist()

    def level(self, job: LevelJob) -> Tally:
        """Run level ``job.k`` as one Spark job; returns the merged tally. Unless
        ``job.dry``, ``commit`` then makes the new states the frontier and a seen run."""
        P = self.partitions
        front = self.frontier
        expanded = front.mapPartitionsWithIndex(lambda p, items: _expand(job, p, items))
        union = self.sc.union([expanded.partitionBy(P, owner), *(r for r, _ in self.runs)])
        tallies = self.sc.accumulator({}, Tallies())
        out = union.mapPartitionsWithIndex(lambda p, items: _dedup(job, p, items, tallies), True)
        if not job.dry:
            self._keep(out)
        out._jrdd.count()  # counted in the JVM: the output is not read back into Python
        total = Tally()
        for p in range(P):
            total.merge(tallies.value[p])
        if not job.dry:
            self.pending = (job.k, out, total.new)
        return total

    def commit(self) -> None:
        """Make the last level's output the frontier and a seen run: called as the search
        commits that level (inside its ``signals_deferred``), so a checkpoint never pairs
        one level's counts with the next one's frontier."""
        if self.pending is None:
            return
        (k, out, new_states), self.pending = self.pending, None
        front = self.frontier
        for rdd in self.retire:  # merged into runs the job just computed
            self._drop(rdd)
        self.retire = []
        self._drop(front)  # unless it is a run (loaded): its new states live on in ``new``
        self.frontier = out
        new = self._keep(out.filter(_kind(NEW)))
        _materialize(new)
        self.new[k + 1] = new
        self.runs.append((new, new_states))
        self._compact()

    def _compact(self) -> None:
        """Merge the newest runs while ``merge_newest`` says so."""
        while merge_newest([size for _, size in self.runs]):
            (older, a), (newer, b) = self.runs[-2], self.runs[-1]
            merged = self._keep(self.sc.union([older, newer]).mapPartitionsWithIndex(_merge, True))
            _materialize(merged)
            self.runs[-2:] = [(merged, a + b)]
            self.retire += [rdd for rdd in (older, newer) if rdd not in self.new.values()]

    def _drop(self, rdd: Any) -> None:
        if rdd in self.held and all(rdd is not r for r, _ in self.runs):
            rdd.unpersist()
            self.held.remove(rdd)

    def parents_of(self, k: int, fps: list[int]) -> list[int] | None:
        """The parent fingerprints of ``fps``, new states of level ``k``, in their order:
        one job on their owners' partitions. None when level ``k`` did not run here. Raises
        ``KeyError`` for one not of that level."""
        rdd = self.new.get(k)
        if rdd is None:
            return None
        wanted = np.unique(np.array(fps, dtype=np.uint64))
        owners = sorted({fp % self.partitions for fp in fps})
        found = dict(self.sc.runJob(rdd, lambda items: _lookup(wanted, items), owners))
        for fp in fps:
            if fp not in found:
                raise KeyError(f"{fp:016x} is not a state of level {k}")
        return [int(found[fp]) for fp in fps]

    def level_table(self, k: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
        """``(fps, parent fps)`` of level ``k`` in partition order, collected (None when
        level ``k`` did not run here)."""
        rdd = self.new.get(k)
        if rdd is None:
            return None
        parts = rdd.map(lambda element: element[1][1]).collect()
        return np.concatenate([c[0] for c in parts]), np.concatenate([c[1] for c in parts])

    def frontier_snapshot(self) -> Frontier:
        """The frontier, collected in partition order."""
        parts = self.frontier.filter(_kind(FRONTIER)).map(lambda e: e[1][1]).collect()
        return Frontier.join(parts)

    def close(self) -> None:
        """Unpersist every RDD this search kept (the context may run other searches)."""
        import contextlib

        for rdd in self.held:
            with contextlib.suppress(Exception):  # the JVM may be gone
                rdd.unpersist()
        self.held, self.new, self.runs, self.frontier = [], {}, [], None
