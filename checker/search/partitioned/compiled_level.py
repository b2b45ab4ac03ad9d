"""The partitioned engines' level functions on the compiled core
(``checker.search.partitioned.level``'s ``expand`` and ``dedup``, the same rules over arrays): what
a Spark task runs when the search is on the compiled core.

A partition's frontier is the compiled core's rows (``level_files.write_frontier_rows``), not
marshal'd states; a bucket is four arrays (fingerprints, parent fingerprints, label codes,
rows) instead of a dict, so no Python object per state crosses the shuffle. Fingerprints
are the reference core's (xxh3 of the marshal encoding, computed in C), so parents, owners
(``fp % P``), tie-breaks (smallest parent fingerprint, then label text, compared as label
ranks) and counterexamples are ``checker.search.partitioned.level``'s exactly.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from checker.checkpoint.format import Frontier
from checker.model import CompiledModel, Recipe, State
from checker.native.build import NativeUnavailable
from checker.native.core import MAX_ACTIONS, Core, check, view
from checker.native.layout import compiled_model
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
from checker.search.reference.seen import in_sorted

_MODELS: dict[Recipe, CompiledModel] = {}


def model_of(recipe: Recipe) -> CompiledModel:
    """``recipe``'s compiled model (``checker.model.compiled_model``), once per process.
    Raises ``NativeUnavailable`` when it has none."""
    model = _MODELS.get(recipe)
    if model is None:
        # a task runs on the compiled core only when the driver chose it, having checked the
        # core's certificate; from the shipped zip an executor could not check it again
        model, why = compiled_model(recipe.build()[0])
        if model is None:
            raise NativeUnavailable(why)
        _MODELS[recipe] = model
    return model


def cannot_run(recipe: Recipe) -> str:
    """Why ``recipe``'s compiled core cannot be built or loaded in this process ("" when it
    can): a Spark worker's answer to the start-up probe."""
    try:
        Core(model_of(recipe)).close()
    except NativeUnavailable as exc:
        return str(exc)
    return ""


def _mask(model: CompiledModel, names: Iterable[str]) -> int:
    return sum(1 << model.property_bits[name] for name in names)


def encode_level(recipe: Recipe, states: Sequence[State]) -> np.ndarray[Any, Any]:
    """The rows of reference ``states``, ``uint8``, one per state."""
    model = model_of(recipe)
    data = b"".join(model.encode(state) for state in states)
    return np.frombuffer(data, dtype=np.uint8).reshape(len(states), model.width)


def expand_frontier(
    job: LevelJob, p: int, frontier: Frontier, seen: SeenOf | None = None
) -> list[tuple[int, Record]]:
    """The map side of level ``job.k`` for partition ``p``, whose states are ``frontier``
    (rows): ``[(owner, (BUCKET, (fps, parent fps, labels, rows)))]`` per owner, then ``(p,
    (TALLY, tally))``. ``seen(owner)``, when given, is that owner's sorted seen keys: its
    repeats stay out of the shuffle (``None``: every successor not repeated within this task
    is sent). Raises ``NativeUnavailable`` when the core cannot run, ``CoreLimit`` when C
    runs out of memory or a level passes its limit, ``OverflowError`` when a model call went
    past its bounds (``core.check``)."""
    started = time.perf_counter()
    model = model_of(job.recipe)
    guards = _mask(model, job.sometimes)
    core = Core(model, 0, _mask(model, job.transitions), guards, job.symmetry, 1)
    lib, handle = core.lib, core.handle
    front_fps, front = frontier.fps, frontier.rows
    assert front is not None  # this core's form
    tally = Tally()
    try:
        front = np.ascontiguousarray(front)
        front_fps = np.ascontiguousarray(front_fps)
        check(lib.eng_seed(handle, front.ctypes.data, front_fps.ctypes.data, len(front_fps)))
        check(lib.eng_expand(handle, 0, len(front_fps)))
        fps, pfps, labels, rows = _entries(core, front_fps)
        generated = view(lib.eng_generated(handle), np.int64, MAX_ACTIONS)
        for index, count in enumerate(generated.tolist()):
            if count:
                tally.generated[model.action_names[index]] = count
        _broken(core, job, front_fps, tally)
        left = lib.eng_guard_mask(handle)
        tally.reached = {
            name for name in job.sometimes if not left >> model.property_bits[name] & 1
        }
    finally:
        core.close()
    records: list[tuple[int, Record]] = []
    owners = fps % np.uint64(job.partitions)
    for owner in range(job.partitions):
        mine = np.flatnonzero(owners == owner)
        if seen is not None and len(mine):
            mine = mine[~in_sorted(seen(owner), fps[mine])]  # repeats stay out of the shuffle
        if len(mine):
            records.append((owner, (BUCKET, (fps[mine], pfps[mine], labels[mine], rows[mine]))))
    tally.expand_seconds = time.perf_counter() - started
    records.append((p, (TALLY, tally)))
    return records


def _entries(core: Core, front_fps: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], ...]:
    """The level the engine built (its successors, repeats within the task merged by the
    tie-break), copied out: ``(fps, parent fps, labels, rows)``. Their fingerprints are
    computed here (``eng_rows_finish``), not by ``eng_finish``, which would also add every
    one to the engine's seen set, which a task never reads again."""
    lib, handle = core.lib, core.handle
    n = int(lib.eng_next_size(handle))
    keys = np.empty(n * core.key_bits // 64, dtype=np.uint64)  # row hashes: not kept
    parents = np.empty(n, dtype=np.uint32)
    labels = np.empty(n, dtype=np.uint16)
    rows = np.empty((n, core.width), dtype=np.uint8)
    if n:
        lib.eng_next_entries(
            handle, keys.ctypes.data, parents.ctypes.data, labels.ctypes.data, rows.ctypes.data
        )
    fps = np.empty(n, dtype=np.uint64)
    bad = np.empty(n, dtype=np.uint32)  # no invariant is asked for on this side
    check(lib.eng_rows_finish(handle, rows.ctypes.data, n, fps.ctypes.data, bad.ctypes.data))
    return fps, front_fps[parents], labels, rows


def _broken(core: Core, job: LevelJob, front_fps: np.ndarray[Any, Any], tally: Tally) -> None:
    """Each transition property's winning violation in this task, as
    ``checker.search.partitioned.level`` records it: ``(parent fp, label text, marshal bytes of the
    successor)``."""
    model, lib = core.model, core.lib
    parent, label = ctypes.c_uint32(), ctypes.c_uint16()
    row = ctypes.create_string_buffer(core.width)
    buf = ctypes.create_string_buffer(core.max_marshal)
    for name in job.transitions:
        if lib.eng_broken(
            core.handle, model.property_bits[name], ctypes.byref(parent), ctypes.byref(label), row
        ):
            size = check(lib.eng_row_marshal(core.handle, row, buf))
            tally.broken[name] = (
                int(front_fps[parent.value]),
                str(model.labels[label.value]),
                buf.raw[:size],
            )


def dedup_against(
    job: LevelJob, p: int, records: Iterable[tuple[str, Any]], runs: Sequence[Fingerprints]
) -> tuple[Tally, NewStates | None]:
    """The reduce side of level ``job.k`` for partition ``p``: merge the buckets (per
    fingerprint the smallest parent fingerprint, then label rank), keep what none of the
    sorted ``runs`` (partition ``p``'s seen keys, in any number of runs) holds, count and
    check the invariants on the new states. Returns the merged tally and, unless
    ``job.dry``, the new states (``NewStates``, sorted by fingerprint)."""
    started = time.perf_counter()
    model = model_of(job.recipe)
    tally = Tally()
    parts: list[tuple[np.ndarray[Any, Any], ...]] = []
    for kind, payload in records:
        if kind == TALLY:
            tally.merge(payload)
        else:
            parts.append(payload)
    width = model.width
    columns: list[np.ndarray[Any, Any]] = (
        [np.concatenate(column) for column in zip(*parts)]
        if parts
        else [
            np.empty(0, np.uint64),
            np.empty(0, np.uint64),
            np.empty(0, np.uint16),
            np.empty((0, width), np.uint8),
        ]
    )
    fps, pfps, labels, rows = columns
    core = Core(model, 0, 0, 0, job.symmetry, 1)
    new = None
    try:
        keep = _winners(fps, pfps, core.ranks[labels])
        fresh = fps[keep]
        for run in runs:
            unseen = ~in_sorted(run, fresh)
            keep, fresh = keep[unseen], fresh[unseen]
        tally.new = len(keep)
        if not job.dry:
            kept = rows[keep]
            new = NewStates(fresh, pfps[keep], Frontier(fresh, rows=kept))
            counts = np.bincount(core.actions[labels[keep]], minlength=MAX_ACTIONS)
            for index, count in enumerate(counts.tolist()):
                if count:
                    tally.distinct[model.action_names[index]] = count
            _invariants(core, job, fresh, kept, tally)
    finally:
        core.close()
    tally.dedup_seconds = time.perf_counter() - started
    return tally, new


def _winners(
    fps: np.ndarray[Any, Any], pfps: np.ndarray[Any, Any], ranks: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    """Each fingerprint's winning candidate, in fingerprint order: the one with the smallest parent
    fingerprint, then label rank (``checker.search.partitioned.level``'s tie-break), as the first of
    each fingerprint in ``np.lexsort((ranks, pfps, fps))``'s order. Sorted by fingerprint alone, a
    repeated fingerprint's winner is its smallest parent's candidate: a map task sends a fingerprint
    once (its engine merges repeats), and one parent is expanded by one task, so a fingerprint's
    candidates have distinct parents; when they do not (two such lists joined), all three keys
    decide. The 3-key sort cost 3.4 times the 1-key one (5 million keys, numpy 2.4)."""
    order = np.argsort(fps, kind="stable")
    ordered = fps[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    if first.all():
        return order
    starts = np.flatnonzero(first)
    parents = pfps[order]
    least = np.minimum.reduceat(parents, starts)
    best: np.ndarray[Any, Any] = parents == np.repeat(least, np.diff(np.append(starts, len(order))))
    if np.count_nonzero(best) == len(starts):
        winners: np.ndarray[Any, Any] = order[best]
        return winners
    order = np.lexsort((ranks, pfps, fps))
    return order[first]  # the same fingerprints, so the same group starts


def _invariants(
    core: Core, job: LevelJob, fps: np.ndarray[Any, Any], rows: np.ndarray[Any, Any], tally: Tally
) -> None:
    """Per invariant of ``job``, the smallest new fingerprint that violates it."""
    if not job.invariants or not len(fps):
        return
    bits = {name: core.model.property_bits[name] for name in job.invariants}
    bad = np.zeros(len(fps), dtype=np.uint32)
    core.lib.eng_check_rows(
        core.handle, rows.ctypes.data, len(fps), sum(1 << b for b in bits.values()), bad.ctypes.data
    )
    for name, bit in bits.items():
        hit = (bad >> np.uint32(bit)) & np.uint32(1)
        if hit.any():
            worst = int(fps[hit.astype(bool)].min())
            tally.worst[name] = min(worst, tally.worst.get(name, worst))


class CompiledLevels:
    """The level functions on the compiled core: a partition's frontier is the core's rows
    (``level_files.write_frontier_rows``), a bucket four arrays. Stateless; ``COMPILED`` is the
    one there is."""

    name = "compiled"
    rows = True

    def expand_frontier(
        self, job: LevelJob, p: int, frontier: Frontier, seen: SeenOf | None = None
    ) -> list[tuple[int, Record]]:
        return expand_frontier(job, p, frontier, seen)

    def dedup_against(
        self, job: LevelJob, p: int, records: Iterable[Record], runs: Sequence[Fingerprints]
    ) -> tuple[Tally, NewStates | None]:
        return dedup_against(job, p, records, runs)

    def frontier(self, recipe: Recipe, fps: Fingerprints, states: Sequence[State]) -> Frontier:
        return Frontier(fps, rows=encode_level(recipe, states))

    def write_frontier(self, work: str, k: int, p: int, frontier: Frontier) -> None:
        assert frontier.rows is not None  # this core's form (LevelCore.frontier)
        level_files.write_frontier_rows(work, k, p, frontier.fps, frontier.rows)

    def read_frontier(self, work: str, k: int, p: int) -> Frontier:
        fps, rows = level_files.read_frontier_rows(work, k, p)
        return Frontier(fps, rows=rows)

    def cannot_run(self, recipe: Recipe) -> str:
        return cannot_run(recipe)


COMPILED: LevelCore = CompiledLevels()
"""The compiled core's level functions."""
