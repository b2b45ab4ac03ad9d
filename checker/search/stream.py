"""A streamed level of the compiled engine: what a search does once its frontier and the level
being built no longer fit the memory budget (``--memory``) after the seen set and parent
tables went to disk (``checker.search.tier``).

- **The frontier's rows live on disk** (``frontier-K.rows``: row after row, ``width`` bytes
  each) and are lent to the engine a window at a time (``eng_window``); only the frontier's
  fingerprints stay in memory (8 bytes a state: the tie-break compares them).
- **The level is built in passes over the hash space** (``eng_pass``): a pass keeps only the
  successors whose row hash falls in its range, so its tables hold that share of the level.
  The first pass takes the whole space; when its tables pass the room the budget leaves, the
  range is halved on the spot (the states of the upper half already found are dropped:
  ``eng_next_drop``) and the upper half waits for a pass of its own, and so on. Each pass is
  checked against the runs on disk and finished (fingerprints, invariants, the seen set) like
  an in-memory level, and its rows appended to the next frontier's file.

A state's every discovery falls in the one pass that owns its hash, so its parent is the
in-memory search's (the smallest parent fingerprint, then label rank); the passes see every
successor, so transition violations and guards are the same; successors are counted in the
first pass only. The level's order is pass after pass rather than the in-memory order, which
no answer depends on: counts, verdicts and shortest traces are the in-memory search's
(``tests/test_disk_tier.py``). Each extra pass expands the frontier again: the price of the
budget, paid only at the levels that need it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from checker.limits import signals_deferred
from checker.native.core import MAX_ACTIONS, check, view
from checker.search.tier import resident

CHUNK = 16384
"""Frontier states per call into C and thread (``checker.search.compiled.CHUNK``)."""
SMALLEST = 1 << 60
"""The narrowest pass: 1/16 of the hash space (so at most 16 passes a level, however small
the budget)."""


class Stream:
    """The streamed levels of one compiled search (``search``: its ``CompiledSearch``)."""

    def __init__(self, search: Any) -> None:
        self.s = search
        self.active = False
        self.path: Path | None = None  # the frontier's rows
        self.seq = 0
        self.passes = 0  # in the last level
        self.most = 0  # in any level
        self.hashes = np.empty(0, dtype=np.uint64)  # the frontier's row hashes

    def _next_path(self) -> Path:
        self.seq += 1
        folder: Path = self.s.tier.home()
        return folder / f"frontier-{self.seq:06d}.rows"

    def start(self, size: int) -> None:
        """Move the frontier (``size`` states, in the engine) to disk: from now on every
        level is streamed."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        path = self._next_path()
        view(lib.eng_front_rows(handle), np.uint8, size * s.core.width).tofile(path)
        self._front(path, np.array(s.front_fps, dtype=np.uint64))
        self.active = True

    def _front(self, path: Path, fps: np.ndarray[Any, Any]) -> None:
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        check(lib.eng_front_fps_set(handle, fps.ctypes.data, len(fps)))
        if self.path is not None and self.path != path:
            self.path.unlink(missing_ok=True)
        self.path = path
        s.front_fps = view(lib.eng_front_fps(handle), np.uint64, len(fps))
        s.full = {s.stats.depth: s.front_fps}

    def rows(self) -> np.ndarray[Any, Any]:
        """The frontier's rows (a read-only map of its file), for a checkpoint."""
        assert self.path is not None
        n, width = len(self.s.front_fps), self.s.core.width
        if not n:
            return np.empty((0, width), dtype=np.uint8)
        return np.memmap(self.path, dtype=np.uint8, mode="r", shape=(n, width))

    def _windows(self, size: int) -> Any:
        """``(start, end)`` slices of the frontier, each lent to the engine while it is used."""
        assert self.path is not None
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        step, width = CHUNK * s.threads, s.core.width
        with open(self.path, "rb") as handle_file:
            for start in range(0, size, step):
                end = min(size, start + step)
                rows = np.fromfile(handle_file, dtype=np.uint8, count=(end - start) * width)
                lib.eng_window(handle, rows.ctypes.data, start)
                yield start, end
                del rows

    def probe(self, size: int) -> bool:
        """Whether a successor of the frontier is missing from the seen set in memory
        (``eng_probe``, a window at a time)."""
        lib, handle = self.s.core.lib, self.s.core.handle
        return any(check(lib.eng_probe(handle, start, end)) for start, end in self._windows(size))

    def level(self, size: int, commit: bool = True) -> int:
        """Build the next level from the frontier (``size`` states) in passes and, with
        ``commit``, commit it as ``CompiledSearch`` commits an in-memory level; returns how
        many new states it has. Without ``commit`` (the depth bound's question) nothing is
        recorded. Raises ``OSError`` when the disk fails."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        check(lib.eng_level_release(handle))
        todo = [(0, (1 << 64) - 1)]
        parts: list[tuple[np.ndarray[Any, Any], ...]] = []
        generated = None
        path = self._next_path()
        self.passes = 0
        try:
            with open(path, "wb") as out:
                generated = self._passes(size, todo, parts, out)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        finally:
            lib.eng_pass(handle, 0, (1 << 64) - 1, 0)
        fps, parents, labels, bad, hashes = (np.concatenate(column) for column in zip(*parts))
        if not commit:
            path.unlink(missing_ok=True)
            return len(fps)
        with signals_deferred():
            check(lib.eng_seen_load(handle, hashes.ctypes.data, len(hashes)))
            s._commit(len(fps), fps, parents, labels, bad, generated)
            self._front(path, fps)
            self.hashes = hashes
        s.seen.spill(s.tier.home() / "levels")  # the new level's parent table, to disk
        return len(fps)

    def _passes(self, size: int, todo: list[tuple[int, int]], parts: list[Any], out: Any) -> Any:
        """Run passes until ``todo`` (hash ranges ``(lo, last)``) is empty, each pass's
        columns appended to ``parts`` and rows to ``out``; returns the successors counted
        per action (the first pass's)."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        room = max(0, s.tier.budget - resident())
        base = lib.eng_memory(handle)  # the seen set in memory and the emptied tables
        extra = 26  # a state's columns (fingerprint, parent, label, verdicts, hash), kept
        generated, done = None, 0  # states the finished passes found
        while todo:
            lo, last = todo.pop()
            lib.eng_pass(handle, lo, last, 1)
            self.passes += 1
            for start, end in self._windows(size):
                check(lib.eng_expand(handle, start, end))
                found = lib.eng_next_size(handle)
                while (
                    lib.eng_memory(handle) - base + (done + found) * extra > room
                    and last >= SMALLEST
                ):
                    half = last // 2
                    todo.append((lo + half + 1, last - half - 1))
                    last = half
                    found = self._keep(lo, last)
                s._tick(found)
                if s.due():
                    counts = (
                        generated
                        if generated is not None
                        else view(lib.eng_generated(handle), np.int64, MAX_ACTIONS)
                    )
                    s.note = f"{s.tier.note()}; level in passes, pass {self.passes}"
                    s._report(size, False, end, done + found, int(counts.sum()))
            if generated is None:  # the first pass saw every successor once
                generated = view(lib.eng_generated(handle), np.int64, MAX_ACTIONS).copy()
            s.tier.filter_level()
            parts.append(self._finish(out))
            done += len(parts[-1][0])
        self.most = max(self.most, self.passes)
        return generated

    def _keep(self, lo: int, last: int) -> int:
        """Narrow the pass to hashes h with h - lo <= last, dropping what it found above."""
        lib, handle = self.s.core.lib, self.s.core.handle
        found = lib.eng_next_size(handle)
        hashes = np.empty(found, dtype=np.uint64)
        lib.eng_next_hashes(handle, hashes.ctypes.data)
        above = (hashes - np.uint64(lo)) > np.uint64(last)
        check(lib.eng_next_drop(handle, above.view(np.uint8).ctypes.data))
        lib.eng_pass(handle, lo, last, 1)
        return int(lib.eng_next_size(handle))

    def _finish(self, out: Any) -> tuple[np.ndarray[Any, Any], ...]:
        """Finish the pass (``eng_finish``), append its rows to ``out``; its fingerprints,
        parent positions, labels, invariant verdicts and row hashes (copies)."""
        lib, handle = self.s.core.lib, self.s.core.handle
        new = check(lib.eng_finish(handle))
        width = self.s.core.width
        for p in range(self.s.threads):  # straight from the engine's tables, no copy
            n = lib.eng_part_size(handle, p)
            if n:
                view(lib.eng_part_rows(handle, p), np.uint8, n * width).tofile(out)
        hashes = np.empty(new, dtype=np.uint64)
        lib.eng_next_hashes(handle, hashes.ctypes.data)
        columns = (
            view(lib.eng_next_fps(handle), np.uint64, new).copy(),
            view(lib.eng_next_parents(handle), np.uint32, new).copy(),
            view(lib.eng_next_labels(handle), np.uint16, new).copy(),
            view(lib.eng_next_bad(handle), np.uint32, new).copy(),
            hashes,
        )
        lib.eng_level_reset(handle)
        return columns

    def close(self) -> None:
        """Delete the frontier's file."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)
