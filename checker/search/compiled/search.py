"""The local engine on the compiled core: ``checker.search.reference.bfs``'s level loop with the
expansion, canonical form, deduplication and property checks of each level done in C.

Fingerprints are the reference engine's: the C side computes xxh3 of each new state's marshal
encoding (``checker.fingerprint``), so parents and tie-breaks are ``checker.search.reference.bfs``'s
exactly. Python keeps the initial level, the parent tables
(``checker.search.reference.seen.SeenLevels``), the statistics, limits, progress and
counterexamples, which are rebuilt with the reference model (``checker.trace``). Only the states of
a counterexample are ever turned back into Python values.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from checker.checkpoint.saving import SaveOptions
from checker.checkpoint.write import Checkpointer
from checker.limits import (
    DEPTH_REACHED,
    NO_LIMITS,
    LimitReached,
    Limits,
    Progress,
    signals_deferred,
)
from checker.model import CompiledModel, Spec
from checker.native.build import NativeUnavailable
from checker.native.core import MAX_ACTIONS, Core, check, view
from checker.properties import Property
from checker.result import CheckResult, Violation
from checker.search.compiled.keys import KeyKind
from checker.search.compiled.saving import CompiledCheckpoints
from checker.search.compiled.width import check_width, run_widening
from checker.search.reference.bfs import Search
from checker.search.reference.seen import KeyLevels
from checker.search.tier.spill import Tier
from checker.search.tier.stream import CHUNK, Stream
from checker.trace import walk_keys


class CompiledSearch(CompiledCheckpoints, Search):
    """One search of ``spec`` on its compiled core ``model`` (see ``checker.native.core``).

    Raises ``NativeUnavailable`` when a property has no compiled form or the core cannot be
    built or loaded."""

    def __init__(
        self,
        model: CompiledModel,
        spec: Spec,
        properties: Sequence[Property],
        limits: Limits,
        on_progress: Callable[[Progress], None] | None,
        symmetry: bool = False,
        threads: int = 1,
        on_compile: Callable[[float], None] | None = None,
        memory: int | None = None,
        key_bits: int | None = None,
    ) -> None:
        super().__init__(spec, properties, limits, on_progress, symmetry)
        self.widen = key_bits is None  # 64 bits, widened past width.WIDEN_AT
        self.stats.key_bits, self.stats.key = key_bits or 64, "row hash"
        self.threads = threads
        missing = [p.name for p in properties if p.name not in model.property_bits]
        if missing:
            raise NativeUnavailable(f"property {missing[0]} has no compiled form")
        self.model = model
        self.seen = KeyLevels()  # parents only: the C side keeps the seen set
        self.core = Core(
            model,
            self._mask(self.invariants),
            self._mask(self.transitions),
            self._mask(self.pending),
            symmetry,
            threads,
            on_compile,
            self.stats.key_bits,
        )
        kind = KeyKind(self.stats.key_bits)
        self.tier = Tier(self.core.lib, self.core.handle, self.seen, memory, None, kind)
        self.stream = Stream(self)
        self.front_fps = np.empty(0, dtype=np.uint64)
        self.full: dict[
            int, np.ndarray[Any, Any]
        ] = {}  # level -> fingerprints (engine order), last two

    def _mask(self, props: Sequence[Property]) -> int:
        mask = 0
        for prop in props:
            mask |= 1 << self.model.property_bits[prop.name]
        return mask

    # -- the search -------------------------------------------------------------------------
    def search(self) -> None:
        lib, handle = self.core.lib, self.core.handle
        if isinstance(self.checkpoints, Checkpointer):  # a folder (not a URL): runs beside it
            self.tier.place(self.checkpoints.folder)  # are linked into checkpoints, not copied
        if self.resume is not None:
            size = self._restore(self.resume)
        else:
            with signals_deferred():
                level = self.initial_level()
                rows = b"".join(self.model.encode(state) for state in level.values())
                self.front_fps = np.fromiter(level, dtype=np.uint64, count=len(level))
                check(lib.eng_seed(handle, rows, self.front_fps.ctypes.data, len(level)))
                self.front_fps = view(lib.eng_front_fps(handle), np.uint64, len(level))
                self.level_committed()
                size = len(level)
        self.full, self.consistent = {self.stats.depth: self.front_fps}, True
        try:
            size = self._levels(size)
        except OSError as exc:  # the disk tier's disk: full, gone, read-only
            raise LimitReached(self.tier.cannot(exc)) from None
        self.exhausted = not size
        self._report(0)

    def _levels(self, size: int) -> int:
        """Explore level after level from a frontier of ``size`` states; returns the size of
        the frontier left (0: every state explored). Raises ``OSError`` when the disk tier's
        disk fails."""
        while size and not self._done():
            self.boundary()
            self._report(size)
            if self.limits.max_depth is not None and self.stats.depth >= self.limits.max_depth:
                if self._unseen_beyond(size):
                    self.stats.frontier = size
                    raise LimitReached(DEPTH_REACHED.format(self.limits.max_depth))
                break
            if self.stream.active:
                size = self.stream.level(size)
            else:
                self._expand_level(size)
                self.tier.filter_level()
                with signals_deferred():  # eng_finish to eng_advance: one step for Ctrl-C
                    size = self._level(size)
            if not self.stream.active and self.tier.after_level(self._newest):
                self.note = self.tier.note()
            self.tier.park_parents()
            if size and not self.stream.active and self._tight(size):
                if not self.tier.spilled:  # the next level would pass the budget in memory
                    self.tier.spill(self._newest())
                    self.note = self.tier.note()
                if self._tight(size):
                    self.stream.start(size)
            check_width(self)
        return size

    def _unseen_beyond(self, size: int) -> bool:
        """Whether a successor of the frontier (``size`` states) is unseen (the depth bound's
        question): one the seen set in memory lacks (``eng_probe``) that no run on disk
        holds either."""
        lib, handle = self.core.lib, self.core.handle
        if self.stream.active:
            return self.stream.probe(size) and bool(self.stream.level(size, commit=False))
        if not check(lib.eng_probe(handle, 0, size)):
            return False
        if not self.tier.spilled:
            return True
        self._expand_level(size)
        self.tier.filter_level()
        return bool(lib.eng_next_size(handle))

    def _tight(self, size: int) -> bool:
        """Whether the next level, if it grows from this one (``size`` states) as this one
        grew from the last, would take the process past the budget in memory."""
        sizes = self.seen.sizes
        growth = size / sizes[-2] if len(sizes) >= 2 and sizes[-2] else 1.0
        return self.tier.over(self.stream.table_bytes(size * max(growth, 1.0)))

    def _newest(self) -> np.ndarray[Any, Any]:
        """The row hashes of the frontier (the level just committed; an in-memory level's:
        a streamed level's keys are placed by ``Tier.take_level``)."""
        hashes = self.tier.kind.empty(len(self.front_fps))
        self.core.lib.eng_front_hashes(self.core.handle, hashes.ctypes.data)
        return hashes

    def _expand_level(self, size: int) -> None:
        """Expand the frontier (``size`` states) in C, a chunk at a time (limits and Ctrl-C
        are looked at in between, and, about once a second, progress is reported with the
        level's running counts; the seen set does not change until ``eng_finish``)."""
        lib, handle = self.core.lib, self.core.handle
        step = CHUNK * self.threads
        for start in range(0, size, step):
            end = min(size, start + step)
            check(lib.eng_expand(handle, start, end))
            self._tick(lib.eng_next_size(handle))
            if self.due():
                generated = view(lib.eng_generated(handle), np.int64, MAX_ACTIONS)
                self._report(size, False, end, lib.eng_next_size(handle), int(generated.sum()))

    def _level(self, size: int) -> int:
        """Commit the level expanded from the frontier; return its size."""
        lib, handle = self.core.lib, self.core.handle
        new: int = lib.eng_finish(handle)
        check(new)
        # views of the engine's arrays, valid until eng_advance (nothing here is copied)
        fps = view(lib.eng_next_fps(handle), np.uint64, new)
        parent_rows = view(lib.eng_next_parents(handle), np.uint32, new)
        labels = view(lib.eng_next_labels(handle), np.uint16, new)
        bad = view(lib.eng_next_bad(handle), np.uint32, new)
        self._commit(new, fps, parent_rows, labels, bad)
        check(lib.eng_advance(handle, fps.ctypes.data))
        self.front_fps = view(lib.eng_front_fps(handle), np.uint64, new)
        self.full = {self.stats.depth: self.front_fps}
        return new

    def _commit(
        self, new: int, fps: Any, parent_rows: Any, labels: Any, bad: Any, generated: Any = None
    ) -> None:
        """Record the level built from the frontier: ``new`` states, their fingerprints,
        parent positions, labels and invariant verdicts (``generated``: the successors per
        action, when not the engine's counts)."""
        lib, handle = self.core.lib, self.core.handle
        self._count(labels, new, generated)
        level = self.stats.depth  # the frontier's level; the new states are one deeper
        if new:
            self.seen.add_level(fps, parent_rows=parent_rows)
            self.stats.depth += 1
            self.full = {level: self.front_fps, level + 1: fps}
        self.stats.distinct += new
        if new and self.checkpoints is not None and not self.keyed():  # else: linked
            self.checkpoints.level(level + 1, fps, self.front_fps[parent_rows])
        self._transitions_broken(level)
        self._invariants_broken(fps, bad)
        guards = lib.eng_guard_mask(handle)
        self.pending = [p for p in self.pending if guards >> self.model.property_bits[p.name] & 1]
        lib.eng_set_masks(
            handle,
            self._mask(self.invariants),
            self._mask(self.transitions),
            self._mask(self.pending),
        )

    def _count(self, labels: np.ndarray[Any, Any], new: int, generated: Any = None) -> None:
        actions, names = self.stats.actions, self.model.action_names
        if generated is None:
            generated = view(self.core.lib.eng_generated(self.core.handle), np.int64, MAX_ACTIONS)
        for index, count in enumerate(generated.tolist()):
            if count:
                actions.setdefault(names[index], [0, 0])[0] += count
                self.stats.generated += count
        if new:
            firsts = np.bincount(self.core.actions[labels], minlength=MAX_ACTIONS)
            for index, count in enumerate(firsts.tolist()):
                if count:
                    actions[names[index]][1] += count

    def _transitions_broken(self, level: int) -> None:
        lib, handle = self.core.lib, self.core.handle
        parent, label = ctypes.c_uint32(), ctypes.c_uint16()
        row = ctypes.create_string_buffer(self.core.width)
        for prop in sorted(self.transitions, key=lambda p: p.name):
            bit = self.model.property_bits[prop.name]
            if lib.eng_broken(handle, bit, ctypes.byref(parent), ctypes.byref(label), row):
                pfp = int(self.front_fps[parent.value])
                text = str(self.model.labels[label.value])
                self.transition_violated(prop, pfp, level, text, self.model.decode(row.raw))

    def _invariants_broken(self, fps: np.ndarray[Any, Any], bad: np.ndarray[Any, Any]) -> None:
        if not self.invariants or not bad.any():
            return
        broken = []
        for prop in self.invariants:
            hit = (bad >> np.uint32(self.model.property_bits[prop.name])) & np.uint32(1)
            if hit.any():
                worst = int(fps[hit.astype(bool)].min())
                trace = self.trace_to(worst, self.stats.depth)
                self.violations.append(Violation(prop, tuple(trace)))
                broken.append(prop)
        self.invariants = [p for p in self.invariants if p not in broken]

    def trace_to(self, fp: int, level: int) -> list[Any]:
        """The shortest trace to ``fp``, a state of the frontier's level or the new one
        (the levels whose full fingerprints are kept), rebuilt from the key tables
        (``checker.trace.walk_keys``)."""
        if level == 1:  # an initial state
            return walk_keys(self.spec, fp, [], fp, self.canon)
        at = np.flatnonzero(self.full[level] == np.uint64(fp))
        init_fp, keys = self.seen.path(level, int(at[0]))
        return walk_keys(self.spec, init_fp, keys, fp, self.canon)

    def result(self) -> CheckResult:
        result = super().result()
        result.stats.core = "compiled"
        self.tier.report(result.stats)
        if self.threads > 1:
            result.stats.engine = f"local ({self.threads} threads)"
        return result


def explore(
    model: CompiledModel,
    spec: Spec,
    properties: Sequence[Property],
    limits: Limits = NO_LIMITS,
    on_progress: Callable[[Progress], None] | None = None,
    symmetry: bool = False,
    threads: int = 1,
    on_compile: Callable[[float], None] | None = None,
    saving: SaveOptions | None = None,
    memory: int | None = None,
    key_bits: int | None = None,
    on_note: Callable[[str], None] | None = None,
) -> CheckResult:
    """``checker.search.reference.bfs.explore`` on the compiled core ``model`` of ``spec``: the same
    ``CheckResult`` (counts, depth, coverage, verdicts, counterexamples), faster.

    Raises ``NativeUnavailable`` before searching when the core cannot run this model (callers fall
    back to ``checker.search.reference.bfs.explore``), ``SymmetryError`` as the reference engine
    does, and ``CheckpointError`` for a checkpoint of another key width than ``key_bits``.
    ``threads``: how many threads expand each level (the answers do not depend on it). ``memory``:
    the budget in bytes past which the seen set and parent tables spill to disk
    (``checker.search.tier.spill``; None: what the machine has free). ``key_bits``: the width of the
    keys the seen set dedups on, 64 or 128 (None: 64, widened to 128 past
    ``checker.search.compiled.width.WIDEN_AT``, ``on_note`` told why)."""

    def make(bits: int | None) -> CompiledSearch:
        return CompiledSearch(
            model, spec, properties, limits, on_progress, symmetry, threads, on_compile, memory,
            bits,
        )  # fmt: skip

    return run_widening(make, saving or SaveOptions(), key_bits, on_note)
