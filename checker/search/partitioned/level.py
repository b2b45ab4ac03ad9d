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

These are the local engine's rules (``checker.search.reference.bfs``) stated per partition, so any
partition count and any mix of driver and Spark levels gives the same answers.
"""

from __future__ import annotations

import marshal
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from checker.checkpoint.format import Frontier
from checker.fingerprint import MARSHAL_VERSION, encode, fingerprint, fingerprint_bytes
from checker.model import Recipe, Spec, State
from checker.properties import transition_checker
from checker.search.partitioned import level_files
from checker.search.partitioned.job import (
    BUCKET,
    TALLY,
    Fingerprints,
    LevelCore,
    LevelJob,
    NewStates,
    Record,
    SeenOf,
    Tally,
)
from checker.search.reference.seen import in_sorted, merge_sorted
from checker.symmetry import for_spec

_loads = marshal.loads
COUNTERS: Any = None
"""In a ``checker.search.partitioned.pool`` worker, memory shared with the driver, which
reports a level's progress from it: per partition p, the frontier states ``expand`` has
expanded so far (``[2p]``) and the successors it generated (``[2p + 1]``). None elsewhere."""
_MODELS: dict[Recipe, tuple[Spec, dict[str, Any]]] = {}
_CANONS: dict[Any, Any] = {}


def model(recipe: Recipe) -> tuple[Spec, dict[str, Any]]:
    """``(spec, {property name: property})`` for ``recipe``, built once per process."""
    built = _MODELS.get(recipe)
    if built is None:
        spec, props = recipe.build()
        built = _MODELS[recipe] = (spec, {prop.name: prop for prop in props})
    return built


def canonicaliser(recipe: Recipe) -> Any:
    """The canonical-form function of ``recipe``'s model (symmetry), built once per process."""
    spec, props = model(recipe)
    canon = _CANONS.get(recipe)
    if canon is None:
        canon = _CANONS[recipe] = for_spec(spec, list(props.values())).canonical
    return canon


def _spec_error(exc: Exception) -> str:
    return f"the spec raised {type(exc).__name__}: {exc}"


def expand(job: LevelJob, p: int) -> list[tuple[int, Record]]:
    """Map side of level ``job.k`` for partition ``p`` on ``job.core``, from the level files:
    ``LevelCore.expand_frontier`` of ``p``'s frontier file, each owner's successors filtered
    against that owner's seen file. Raises ``OSError`` if a file is missing."""
    frontier = job.core.read_frontier(job.work, job.k, p)
    return job.core.expand_frontier(
        job, p, frontier, lambda owner: level_files.read_seen(job.work, job.k, owner)
    )


def dedup(job: LevelJob, p: int, records: Iterable[Record]) -> Tally:
    """Reduce side of level ``job.k`` for partition ``p`` on ``job.core``, on the level
    files: ``LevelCore.dedup_against`` ``p``'s seen file, then (unless ``job.dry``) level
    ``k + 1``'s parents, frontier and seen files of ``p``. Returns the merged ``Tally``."""
    seen = level_files.read_seen(job.work, job.k, p)
    tally, new = job.core.dedup_against(job, p, records, [seen])
    if new is not None:
        level_files.write_parents(job.work, job.k + 1, p, new.fps, new.parents)
        job.core.write_frontier(job.work, job.k + 1, p, new.frontier)
        level_files.write_seen(job.work, job.k + 1, p, merge_sorted(seen, new.fps))
    return tally


def _expand_frontier(
    job: LevelJob, p: int, frontier: list[tuple[int, bytes]], seen: SeenOf | None
) -> list[tuple[int, Record]]:
    """The map side on the reference core for ``frontier`` (``[(fp, state bytes)]``):
    ``[(owner, (BUCKET, {fp: [parent fp, label text, state bytes]}))]`` for each owner that
    gets successors, and one ``(p, (TALLY, Tally))``. ``seen(owner)``, when given, is that
    owner's sorted seen keys: its repeats stay out of the shuffle. With ``job.symmetry``
    successors are canonicalised (``checker.symmetry``) before they are fingerprinted."""
    started = time.perf_counter()
    spec, props = model(job.recipe)
    tally = Tally()
    buckets: list[dict[Any, Any]] = [{} for _ in range(job.partitions)]
    try:
        _expand(spec, props, job, p, frontier, buckets, tally)
    except Exception as exc:  # noqa: BLE001 -- a bug in the spec is reported, not raised
        tally.error, buckets = _spec_error(exc), []
    if seen is not None:
        _drop_seen(seen, buckets)
    records: list[tuple[int, Record]] = [
        (owner, (BUCKET, bucket)) for owner, bucket in enumerate(buckets) if bucket
    ]
    tally.expand_seconds = time.perf_counter() - started
    records.append((p, (TALLY, tally)))
    return records


def _drop_seen(seen: SeenOf, buckets: list[dict[Any, Any]]) -> None:
    """Remove from each owner's bucket what that owner has seen (``seen(owner)``): ``dedup``
    would drop them, and most successors are such repeats, so they stay out of the shuffle.
    One batch lookup per owner; ``dedup`` still checks what is left."""
    for owner, bucket in enumerate(buckets):
        if not bucket:
            continue
        keys_seen = seen(owner)
        if not len(keys_seen):
            continue
        keys = np.fromiter(bucket, dtype=np.uint64, count=len(bucket))
        for fp in keys[in_sorted(keys_seen, keys)].tolist():
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


def _dedup_against(
    job: LevelJob, p: int, records: Iterable[tuple[str, Any]], runs: Sequence[Fingerprints]
) -> tuple[Tally, NewStates | None]:
    """The reduce side on the reference core: merge the ``(kind, payload)`` records, keep
    the fingerprints none of the sorted ``runs`` holds, count them and check invariants on
    them; returns the tally and, unless ``job.dry``, the new states."""
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
    fresh = np.fromiter(candidates, dtype=np.uint64, count=len(candidates))
    fresh.sort()
    for run in runs:
        fresh = fresh[~in_sorted(run, fresh)]
    tally.new = len(fresh)
    new = None
    if not job.dry:
        new_fps = fresh.tolist()
        entries = [candidates[fp] for fp in new_fps]
        parents = np.fromiter((e[0] for e in entries), dtype=np.uint64, count=len(entries))
        new = NewStates(fresh, parents, Frontier(fresh, states=[e[2] for e in entries]))
        for _, label, _ in entries:
            action = label[: label.index("(")]
            tally.distinct[action] = tally.distinct.get(action, 0) + 1
        try:
            check_invariants(job, zip(new_fps, (e[2] for e in entries)), tally)
        except Exception as exc:  # noqa: BLE001 -- a bug in the spec is reported, not raised
            tally.error = _spec_error(exc)
    tally.dedup_seconds = time.perf_counter() - started
    return tally, new


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
    (``level_files.write_bucket``) instead of a shuffle; returns the expand tally. The pool runs
    the reference core (its buckets are dicts)."""
    tally = Tally()
    for owner, (_, payload) in expand(job, p):
        if isinstance(payload, Tally):
            tally = payload
        else:
            assert isinstance(payload, dict), "the process pool runs the reference core"
            level_files.write_bucket(job.work, job.k, p, owner, payload)
    return tally


def dedup_from_files(job: LevelJob, p: int) -> Tally:
    """``dedup`` for a process-pool executor: reads partition ``p``'s buckets of level
    ``job.k`` from the level files."""
    buckets = level_files.read_buckets(job.work, job.k, job.partitions, p)
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


def probe(recipe: Recipe, core: LevelCore | None = None) -> tuple[str, list[int], str]:
    """What a worker computes for the start-up self-check: ``(Python version, fingerprints
    of the initial states, why ``core`` cannot run here or "")``; the driver compares it
    with its own."""
    import sys

    spec, _ = model(recipe)
    why = core.cannot_run(recipe) if core is not None else ""
    return sys.version.split()[0], sorted(fingerprint(s) for s in spec.init_states()), why


class ReferenceLevels:
    """The level functions on the reference core (the Python model): a partition's frontier
    is marshal'd states (``level_files.write_frontier``), a bucket a dict ``{fp: [parent fp, label
    text, state bytes]}``. Stateless; ``REFERENCE`` is the one there is."""

    name = "reference"
    rows = False

    def expand_frontier(
        self, job: LevelJob, p: int, frontier: Frontier, seen: SeenOf | None = None
    ) -> list[tuple[int, Record]]:
        items = list(zip(frontier.fps.tolist(), frontier.states or []))
        return _expand_frontier(job, p, items, seen)

    def dedup_against(
        self, job: LevelJob, p: int, records: Iterable[Record], runs: Sequence[Fingerprints]
    ) -> tuple[Tally, NewStates | None]:
        return _dedup_against(job, p, records, runs)

    def frontier(self, recipe: Recipe, fps: Fingerprints, states: Sequence[State]) -> Frontier:
        return Frontier(fps, states=[encode(state) for state in states])

    def write_frontier(self, work: str, k: int, p: int, frontier: Frontier) -> None:
        level_files.write_frontier(
            work, k, p, list(zip(frontier.fps.tolist(), frontier.states or []))
        )

    def read_frontier(self, work: str, k: int, p: int) -> Frontier:
        items = level_files.read_frontier(work, k, p)
        fps = np.array([fp for fp, _ in items], dtype=np.uint64)
        return Frontier(fps, states=[data for _, data in items])

    def cannot_run(self, recipe: Recipe) -> str:
        return ""


REFERENCE: LevelCore = ReferenceLevels()
"""The reference core's level functions."""
