"""The partitioned engines' level functions on the compiled core (``checker.search.level``'s
``expand`` and ``dedup``, the same rules over arrays): what a Spark task runs when the search
is on the compiled core.

A partition's frontier is the compiled core's rows (``store.write_frontier_rows``), not
marshal'd states; a bucket is four arrays (fingerprints, parent fingerprints, label codes,
rows) instead of a dict, so no Python object per state crosses the shuffle. Fingerprints
are the reference core's (xxh3 of the marshal encoding, computed in C), so parents, owners
(``fp % P``), tie-breaks (smallest parent fingerprint, then label text, compared as label
ranks) and counterexamples are ``checker.search.level``'s exactly.
"""

from __future__ import annotations

import ctypes
import time
from typing import Any

import numpy as np

from checker.native.core import MAX_ACTIONS, Core, check, view
from checker.search import store
from checker.search.seen import in_sorted, merge_sorted

_MODELS: dict[Any, Any] = {}


def compiled_model(recipe: Any) -> Any:
    """``recipe``'s compiled model (``recipe.compiled()``), once per process. Raises
    ``NativeUnavailable`` when it has none."""
    model = _MODELS.get(recipe)
    if model is None:
        from checker.native.build import NativeUnavailable

        # a task runs on the compiled core only when the driver chose it, having checked the
        # core's certificate; from the shipped zip an executor could not check it again
        model, why = recipe.compiled(certified=False)
        if model is None:
            raise NativeUnavailable(why)
        _MODELS[recipe] = model
    return model


def cannot_run(recipe: Any) -> str:
    """Why ``recipe``'s compiled core cannot be built or loaded in this process ("" when it
    can): a Spark worker's answer to the start-up probe."""
    from checker.native.build import NativeUnavailable

    try:
        Core(compiled_model(recipe)).close()
    except NativeUnavailable as exc:
        return str(exc)
    return ""


def _mask(model: Any, names: Any) -> int:
    return sum(1 << model.property_bits[name] for name in names)


def encode_level(recipe: Any, states: list[Any]) -> np.ndarray[Any, Any]:
    """The rows of reference ``states`` (the initial level), ``uint8``, one per state."""
    model = compiled_model(recipe)
    data = b"".join(model.encode(state) for state in states)
    return np.frombuffer(data, dtype=np.uint8).reshape(len(states), model.width)


def expand(job: Any, p: int, tally_type: Any) -> list[tuple[int, tuple[str, Any]]]:
    """``checker.search.level.expand`` for partition ``p`` on the compiled core: ``[(owner,
    ("B", (fps, parent fps, labels, rows)))]`` per owner, then ``(p, ("T", tally))``.
    Raises ``OSError`` when the frontier file is missing, ``NativeUnavailable`` when the
    core cannot run, ``MemoryError`` when C runs out of memory, ``OverflowError`` when a model
    call went past its bounds (``core.check``)."""
    started = time.perf_counter()
    model = compiled_model(job.recipe)
    guards = _mask(model, job.sometimes)
    core = Core(model, 0, _mask(model, job.transitions), guards, job.symmetry, 1)
    lib, handle = core.lib, core.handle
    front_fps, front = store.read_frontier_rows(job.work, job.k, p)
    tally = tally_type()
    try:
        front = np.ascontiguousarray(front)
        check(lib.eng_seed(handle, front.ctypes.data, front_fps.ctypes.data, len(front_fps)))
        check(lib.eng_expand(handle, 0, len(front_fps)))
        new = lib.eng_finish(handle)
        check(new)
        # copies: the core is freed at the end of the task
        fps = view(lib.eng_next_fps(handle), np.uint64, new).copy()
        pfps = front_fps[view(lib.eng_next_parents(handle), np.uint32, new)]
        labels = view(lib.eng_next_labels(handle), np.uint16, new).copy()
        rows = view(lib.eng_next_rows(handle), np.uint8, new, core.width).copy()
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
    records = []
    owners = fps % np.uint64(job.partitions)
    for owner in range(job.partitions):
        mine = owners == owner
        if not mine.any():
            continue
        seen = store.read_seen(job.work, job.k, owner)
        mine &= ~in_sorted(seen, fps)  # repeats stay out of the shuffle
        if mine.any():
            records.append((owner, ("B", (fps[mine], pfps[mine], labels[mine], rows[mine]))))
    tally.expand_seconds = time.perf_counter() - started
    records.append((p, ("T", tally)))
    return records


def _broken(core: Core, job: Any, front_fps: np.ndarray[Any, Any], tally: Any) -> None:
    """Each transition property's winning violation in this task, as ``checker.search.level``
    records it: ``(parent fp, label text, marshal bytes of the successor)``."""
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


def dedup(job: Any, p: int, records: Any, tally_type: Any) -> Any:
    """``checker.search.level.dedup`` for partition ``p`` on the compiled core: merge the buckets
    (per fingerprint the smallest parent fingerprint, then label rank), keep what ``p`` has
    not seen, write level ``k + 1``'s files (unless ``job.dry``) and check the invariants on
    the new states. Returns the merged tally."""
    started = time.perf_counter()
    model = compiled_model(job.recipe)
    tally = tally_type()
    parts: list[tuple[np.ndarray[Any, Any], ...]] = []
    for kind, payload in records:
        if kind == "T":
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
    try:
        order = np.lexsort((core.ranks[labels], pfps, fps))
        fps = fps[order]
        first = np.ones(len(fps), dtype=bool)
        first[1:] = fps[1:] != fps[:-1]
        seen = store.read_seen(job.work, job.k, p)
        keep = order[first]
        keep = keep[~in_sorted(seen, fps[first])]
        tally.new = len(keep)
        if not job.dry:
            fresh = fps[first][~in_sorted(seen, fps[first])]
            store.write_parents(job.work, job.k + 1, p, fresh, pfps[keep])
            store.write_frontier_rows(job.work, job.k + 1, p, fresh, rows[keep])
            store.write_seen(job.work, job.k + 1, p, merge_sorted(seen, fresh))
            counts = np.bincount(core.actions[labels[keep]], minlength=MAX_ACTIONS)
            for index, count in enumerate(counts.tolist()):
                if count:
                    tally.distinct[model.action_names[index]] = count
            _invariants(core, job, fresh, np.ascontiguousarray(rows[keep]), tally)
    finally:
        core.close()
    tally.dedup_seconds = time.perf_counter() - started
    return tally


def _invariants(
    core: Core, job: Any, fps: np.ndarray[Any, Any], rows: np.ndarray[Any, Any], tally: Any
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
