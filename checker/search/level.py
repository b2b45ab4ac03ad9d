"""One BFS level as two functions over the level files, run either in the driver or as the map
and reduce sides of one Spark job with exactly one shuffle (design.md, "Spark").

- ``expand(job, p)`` (map side): read partition p's frontier, generate every successor, check
  transition properties and "sometimes" guards, and bucket the successors by owner partition
  ``fp % P``, keeping per fingerprint the discoverer that wins the tie-break (smallest parent
  fingerprint, then smallest label text). Returns one record per owner plus one tally.
- ``dedup(job, p, records)`` (reduce side): merge the buckets for partition p, drop the
  fingerprints p has already seen, write p's files for the next level, check invariants on the
  new states and return a ``Tally`` (counts, violations, errors): the only data that reaches
  the driver.

These are the local engine's rules (``checker.search.bfs``) stated per partition, so any partition
count and any mix of driver and Spark levels gives the same answers.
"""

from __future__ import annotations

import marshal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checker.fingerprint import MARSHAL_VERSION, encode, fingerprint, fingerprint_bytes
from checker.model import Spec
from checker.properties import transition_checker
from checker.search import store
from checker.search.seen import in_sorted, merge_sorted
from checker.symmetry import for_spec

_loads = marshal.loads
BUCKET, TALLY = "B", "T"
COUNTERS: Any = None
"""In a ``checker.search.pool`` worker, memory shared with the driver, which reports a level's
progress from it: per partition p, the frontier states ``expand`` has expanded so far
(``[2p]``) and the successors it generated (``[2p + 1]``). None elsewhere."""
_MODELS: dict[Any, tuple[Any, dict[Any, Any]]] = {}
_CANONS: dict[Any, Any] = {}


@dataclass(frozen=True)
class LevelJob:
    """What a task needs to run level ``k`` (the frontier being expanded): the model
    ``recipe`` (``.build() -> (spec, properties)``), the ``work`` folder, the ``partitions``
    count P, the names of the properties still to check, ``dry`` (count new states only,
    write nothing: used at a depth bound), ``symmetry``, and ``core``: ``compiled`` runs the
    level on the model's compiled core (``checker.search.compiled_level``; its frontier files hold
    rows), ``reference`` on the Python model."""

    recipe: Any
    work: str
    partitions: int
    k: int
    invariants: tuple[str, ...] = ()
    transitions: tuple[str, ...] = ()
    sometimes: tuple[str, ...] = ()
    dry: bool = False
    symmetry: bool = False
    core: str = "reference"


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


def model(recipe: Any) -> tuple[Any, dict[Any, Any]]:
    """``(spec, {property name: property})`` for ``recipe``, built once per process."""
    built = _MODELS.get(recipe)
    if built is None:
        spec, props = recipe.build()
        built = _MODELS[recipe] = (spec, {prop.name: prop for prop in props})
    return built


def canonicaliser(recipe: Any) -> Any:
    """The canonical-form function of ``recipe``'s model (symmetry), built once per process."""
    spec, props = model(recipe)
    canon = _CANONS.get(recipe)
    if canon is None:
        canon = _CANONS[recipe] = for_spec(spec, list(props.values())).canonical
    return canon


def _spec_error(exc: Exception) -> str:
    return f"the spec raised {type(exc).__name__}: {exc}"


def expand(job: LevelJob, p: int) -> list[tuple[int, tuple[str, Any]]]:
    """Map side of level ``job.k`` for partition ``p``: ``[(owner, (BUCKET, {fp: [parent fp,
    label text, state bytes]}))]`` for each owner that gets successors, and one
    ``(p, (TALLY, Tally))``. With ``job.symmetry`` successors are canonicalised
    (``checker.symmetry``) before they are fingerprinted. Raises ``OSError`` if the frontier file is missing."""
    if job.core == "compiled":
        from checker.search import compiled_level as native_level

        return native_level.expand(job, p, Tally)
    started = time.perf_counter()
    spec, props = model(job.recipe)
    frontier = store.read_frontier(job.work, job.k, p)
    tally = Tally()
    buckets: list[dict[Any, Any]] = [{} for _ in range(job.partitions)]
    try:
        _expand(spec, props, job, p, frontier, buckets, tally)
    except Exception as exc:  # noqa: BLE001 -- a bug in the spec is reported, not raised
        tally.error, buckets = _spec_error(exc), []
    _drop_seen(job, buckets)
    records: list[tuple[int, tuple[str, Any]]] = [
        (owner, (BUCKET, bucket)) for owner, bucket in enumerate(buckets) if bucket
    ]
    tally.expand_seconds = time.perf_counter() - started
    records.append((p, (TALLY, tally)))
    return records


def _drop_seen(job: LevelJob, buckets: list[dict[Any, Any]]) -> None:
    """Remove from each owner's bucket what that owner has seen by level ``job.k`` (its seen
    file): ``dedup`` would drop them, and most successors are such repeats, so they stay out
    of the shuffle. One batch lookup per owner; ``dedup`` still checks what is left."""
    for owner, bucket in enumerate(buckets):
        if not bucket:
            continue
        seen = store.read_seen(job.work, job.k, owner)
        if not len(seen):
            continue
        keys = np.fromiter(bucket, dtype=np.uint64, count=len(bucket))
        for fp in keys[in_sorted(seen, keys)].tolist():
            del bucket[fp]


def _expand(
    spec: Spec,
    props: Any,
    job: LevelJob,
    p: int,
    frontier: Any,
    buckets: list[dict[Any, Any]],
    tally: Tally,
) -> None:
    transitions = [props[name] for name in job.transitions]
    pending = [props[name] for name in job.sometimes]
    generated, broken = tally.generated, tally.broken
    successors, P = spec.successors, job.partitions
    canon = canonicaliser(job.recipe) if job.symmetry else None
    dumps: Callable[[Any, int], bytes] = marshal.dumps  # (locals for the hot loop)
    version, fp_of = MARSHAL_VERSION, fingerprint_bytes
    shared, at = COUNTERS, 2 * p
    for index, (pfp, encoded) in enumerate(frontier):
        if not index & 255 and shared is not None:
            shared[at], shared[at + 1] = index, sum(generated.values())
        state = _loads(encoded)
        checks = [(prop.name, transition_checker(prop, state)) for prop in transitions]
        for label, succ in successors(state):
            action = label.action
            generated[action] = generated.get(action, 0) + 1
            for name, check in checks:
                if not check(label, succ):
                    witness = (pfp, str(label), encode(succ))
                    if name not in broken or witness[:2] < broken[name][:2]:
                        broken[name] = witness
            if pending:
                reached = [g for g in pending if g.predicate(state, label, succ)]
                if reached:
                    tally.reached.update(g.name for g in reached)
                    pending = [g for g in pending if g not in reached]
            if canon is not None:
                succ = canon(succ)
            encoded_succ = dumps(succ, version)
            fp = fp_of(encoded_succ)
            bucket = buckets[fp % P]
            entry = bucket.get(fp)
            if entry is None:
                bucket[fp] = [pfp, label.text, encoded_succ]
            elif pfp < entry[0] or (pfp == entry[0] and label.text < entry[1]):
                entry[0], entry[1] = pfp, label.text
    if shared is not None:
        shared[at], shared[at + 1] = len(frontier), sum(generated.values())


def dedup(job: LevelJob, p: int, records: Any) -> Tally:
    """Reduce side of level ``job.k`` for partition ``p``: merge the ``(kind, payload)``
    records, keep fingerprints not seen before, write level ``k + 1``'s files for ``p``
    (unless ``dry``) and check invariants on the new states. Returns the merged ``Tally``."""
    if job.core == "compiled":
        from checker.search import compiled_level as native_level

        tally: Tally = native_level.dedup(job, p, records, Tally)
        return tally
    started = time.perf_counter()
    tally = Tally()
    candidates: dict[int, list[Any]] = {}
    for kind, payload in records:
        if kind == TALLY:
            tally.merge(payload)
            continue
        for fp, entry in payload.items():
            old = candidates.get(fp)
            if old is None or entry[:2] < old[:2]:
                candidates[fp] = entry
    keys = np.fromiter(candidates, dtype=np.uint64, count=len(candidates))
    keys.sort()
    seen = store.read_seen(job.work, job.k, p)
    fresh = keys[~in_sorted(seen, keys)]
    tally.new = len(fresh)
    if not job.dry:
        _commit(job, p, seen, fresh, candidates, tally)
    tally.dedup_seconds = time.perf_counter() - started
    return tally


def _commit(
    job: LevelJob, p: int, seen: Any, fresh: Any, candidates: dict[Any, Any], tally: Tally
) -> None:
    """Write partition p's files of level k + 1 and check invariants on its new states."""
    new_fps = fresh.tolist()
    entries = [candidates[fp] for fp in new_fps]
    parents = np.fromiter((e[0] for e in entries), dtype=np.uint64, count=len(entries))
    store.write_parents(job.work, job.k + 1, p, fresh, parents)
    store.write_frontier(job.work, job.k + 1, p, [(fp, e[2]) for fp, e in zip(new_fps, entries)])
    store.write_seen(job.work, job.k + 1, p, merge_sorted(seen, fresh))
    for _, label, _ in entries:
        action = label[: label.index("(")]
        tally.distinct[action] = tally.distinct.get(action, 0) + 1
    try:
        check_invariants(job, zip(new_fps, (e[2] for e in entries)), tally)
    except Exception as exc:  # noqa: BLE001 -- a bug in the spec is reported, not raised
        tally.error = _spec_error(exc)


def check_invariants(job: LevelJob, states: Any, tally: Tally) -> None:
    """Check ``job.invariants`` on ``(fp, state bytes)`` pairs; per invariant keep the smallest
    violating fingerprint in ``tally.worst``. Raises what a predicate raises."""
    _, props = model(job.recipe)
    checks = [(name, props[name].predicate) for name in job.invariants]
    if not checks:
        return
    worst = tally.worst
    for fp, encoded in states:
        state = _loads(encoded)
        for name, check in checks:
            if not check(state) and (name not in worst or fp < worst[name]):
                worst[name] = fp


def expand_to_files(job: LevelJob, p: int) -> Tally:
    """``expand`` for a process-pool executor: the buckets go to level files
    (``store.write_bucket``) instead of a shuffle; returns the expand tally."""
    tally = Tally()
    for owner, (kind, payload) in expand(job, p):
        if kind == TALLY:
            tally = payload
        else:
            store.write_bucket(job.work, job.k, p, owner, payload)
    return tally


def dedup_from_files(job: LevelJob, p: int) -> Tally:
    """``dedup`` for a process-pool executor: reads partition ``p``'s buckets of level
    ``job.k`` from the level files."""
    buckets = store.read_buckets(job.work, job.k, job.partitions, p)
    return dedup(job, p, [(BUCKET, bucket) for bucket in buckets])


def run_in_driver(job: LevelJob) -> Tally:
    """Run the level without Spark: the same ``expand`` and ``dedup`` calls, in this process."""
    inbox: list[list[Any]] = [[] for _ in range(job.partitions)]
    for p in range(job.partitions):
        for owner, record in expand(job, p):
            inbox[owner].append(record)
    total = Tally()
    for p in range(job.partitions):
        total.merge(dedup(job, p, inbox[p]))
    return total


def probe(recipe: Any, core: str = "reference") -> tuple[str, list[int], str]:
    """What a worker computes for the start-up self-check: ``(Python version, fingerprints
    of the initial states, why the compiled core cannot run here or "")``; the driver
    compares it with its own."""
    import sys

    spec, _ = model(recipe)
    why = ""
    if core == "compiled":
        from checker.search.compiled_level import cannot_run

        why = cannot_run(recipe)
    return sys.version.split()[0], sorted(fingerprint(s) for s in spec.init_states()), why
