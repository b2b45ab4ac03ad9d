"""A streamed level of the compiled engine: what a search does once its frontier and the level
being built no longer fit the memory budget (``--memory``) after the seen set and parent
tables went to disk (``checker.search.tier.spill``).

- **The frontier's rows live on disk** (``checker.search.tier.rows_file``: a checkpoint links the
  file) and are lent to the engine a window at a time (``eng_window``); only their
  fingerprints stay in memory (8 bytes a state: the tie-break compares them).
- **The level's tables are flushed to disk** whenever they fill the room the budget leaves
  beside a flush's copy: each entry's row hash, parent and label, sorted by row hash, in
  three raw files (``Flush``), and the tables emptied. A flush keeps no rows (a row is
  several times the rest of an entry): the frontier is expanded once, as in memory, and the
  level's states are made again from their parents after the merge.
- **The flushes are merged** by row hash at the level's end (``merged``): of a state found
  in several, the discovery the in-memory search keeps (the smallest parent fingerprint,
  then label rank); what the runs on disk hold is dropped in the same pass (a merge join:
  ``checker.search.tier.runs.Lookup``).
- **The new states' rows are made again** (``eng_regen``), in parent order, a frontier
  window at a time: each parent expanded once more and the successor with the entry's label
  and row hash kept; they are finished in C (fingerprints, invariants: ``eng_rows_finish``)
  and written as the next frontier's file.

Every successor is counted once (the second expansion of a new state's parent counts
nothing) and parents follow the same tie-break, so counts, coverage, verdicts and shortest
traces are the in-memory search's (``tests/test_disk_tier.py``;
a streamed level's order is its states' parent order, which no answer depends on). The
price: a second expansion of the parents of new states, the flushes' writes, reads and
merge, and their disk (the tier counts them: ``Tier.hold``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.write import link
from checker.limits import signals_deferred
from checker.native import core
from checker.native.core import MAX_ACTIONS, check, view
from checker.search.compiled.keys import KeyKind
from checker.search.tier.flush import Flush, joined, merged, winners
from checker.search.tier.rows_file import RowsWriter, rows_checksum
from checker.search.tier.spill import resident

CHUNK = 16384
"""Frontier states per call into C and thread: limits, Ctrl-C and progress are looked at in
between (the in-memory levels' too: ``checker.search.compiled.search``)."""
ENTRY = 30
"""Bytes a level table holds for an entry beside its row: hash, parent, label, index."""
COPY = 14
"""Bytes a flush holds for an entry beside two of its key (the entry's and one sorted column
at a time): parent, label and its place in the sort (``Stream._flush``)."""


class Stream:
    """The streamed levels of one compiled search (``search``: its ``CompiledSearch``)."""

    def __init__(self, search: Any) -> None:
        self.s = search
        self.active = False
        self.path: Path | None = None  # the frontier's rows
        self.offset = 0  # where they start in it (bytes)
        self.crc: int | None = None  # their CRC-32 (with checkpoints on)
        self.seq = 0
        self.flushes = 0  # of the last level
        self.most = 0  # of any level
        self.kind: KeyKind = search.tier.kind

    def _next_path(self) -> Path:
        self.seq += 1
        folder: Path = self.s.tier.home()
        return folder / f"frontier-{self.seq:06d}.npy"

    def _writer(self, path: Path, size: int) -> RowsWriter:
        """A writer of the next frontier's file, ``size`` rows (summed with checkpoints on)."""
        return RowsWriter(path, size, self.s.core.width, self.s.checkpoints is not None)

    def linked(self) -> tuple[Path, str] | None:
        """The frontier's file and its checksum, for a checkpoint to link (None: no sum)."""
        sum_ = rows_checksum(self.offset, len(self.s.front_fps), self.s.core.width, self.crc)
        return None if self.path is None or sum_ is None else (self.path, sum_)

    def start(self, size: int) -> None:
        """Move the frontier (``size`` states, in the engine) to disk: levels stream now."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        path = self._next_path()
        with self._writer(path, size) as out:
            out.write(view(lib.eng_front_rows(handle), np.uint8, size * s.core.width))
        self._front(np.array(s.front_fps, dtype=np.uint64), path, out.offset, out.crc)
        self.active = True

    def start_from(self, frontier: Any) -> None:
        """Stream from a resumed checkpoint's frontier (``checker.checkpoint.read.RowsFile``):
        its rows' own file linked into the tier's folder (else copied a slice at a time),
        its fingerprints the engine's. Raises ``OSError`` when a disk fails."""
        path, fps = self._next_path(), np.ascontiguousarray(frontier.fps)
        if frontier.checksum is not None:  # a file of their own: a second name, no copy
            link(frontier.path, path)
            self._front(fps, path, frontier.offset, int(frontier.checksum.split(":")[0], 16))
        else:
            with self._writer(path, frontier.count) as out:
                for chunk in frontier.chunks(CHUNK):
                    out.write(chunk)
            self._front(fps, path, out.offset, out.crc)
        self.active = True

    def _front(self, fps: np.ndarray[Any, Any], path: Path, offset: int, crc: int | None) -> None:
        """Make ``path`` (rows from byte ``offset``, their CRC-32 ``crc``) the frontier."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        self.offset, self.crc = offset, crc
        check(lib.eng_front_fps_set(handle, fps.ctypes.data, len(fps)))
        if self.path is not None and self.path != path:
            self.path.unlink(missing_ok=True)
        self.path = path
        s.front_fps = view(lib.eng_front_fps(handle), np.uint64, len(fps))
        s.full = {s.stats.depth: s.front_fps}
        self._hold([])

    def _hold(self, flushes: list[Flush], more: int = 0) -> None:
        """Tell the tier what this level's files hold on disk now: ``flushes``, the
        frontier's file and ``more`` bytes (the next frontier's)."""
        front = 0 if self.path is None else len(self.s.front_fps) * int(self.s.core.width)
        self.s.tier.hold(sum(flush.nbytes for flush in flushes) + front + more)

    def table_bytes(self, states: float) -> float:
        """What ``states`` entries of the level's tables hold in memory, their room to grow
        included (bytes)."""
        width: int = self.s.core.width
        return states * 2 * (width + ENTRY)

    def rows(self) -> np.ndarray[Any, Any]:
        """The frontier's rows (a read-only map of its file), for a checkpoint."""
        assert self.path is not None
        n, width = len(self.s.front_fps), self.s.core.width
        if not n:
            return np.empty((0, width), dtype=np.uint8)
        return np.memmap(self.path, np.uint8, "r", self.offset, (n, width))

    def _windows(self, size: int) -> Any:
        """``(start, end)`` slices of the frontier, each lent to the engine while it is used."""
        assert self.path is not None
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        step, width = CHUNK * s.threads, s.core.width
        with open(self.path, "rb") as handle_file:
            handle_file.seek(self.offset)
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
        """Build the next level from the frontier (``size`` states) and, with ``commit``,
        commit it as ``CompiledSearch`` commits an in-memory level; returns how many new
        states it has. Without ``commit`` (the depth bound's question) nothing is recorded
        and no row is made again. Raises ``OSError`` when the disk fails."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        check(lib.eng_level_release(handle))
        flushes: list[Flush] = []
        try:
            generated = self._expand(size, flushes)
            check(lib.eng_level_release(handle))  # the tables' room, for the merge's columns
            columns = list(self._merge(flushes))  # keys, parents, labels
        finally:
            for flush in flushes:
                flush.delete()
        self._hold([])
        self.flushes = len(flushes)
        self.most = max(self.most, self.flushes)
        new = len(columns[0])
        if new > core.LEVEL_LIMIT:  # each flush was within it, the level is not
            raise core.level_limit_reached(new)
        if not commit:
            return new
        path = self._next_path()
        try:
            with self._writer(path, new) as out:
                fps, bad, hashes, parents, labels = self._regenerate(size, columns, out)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        self._hold([], path.stat().st_size)  # the level's most: both frontiers
        with signals_deferred():
            s.tier.take_level(hashes)
            del hashes
            s._commit(len(fps), fps, parents, labels, bad, generated)
            self._front(fps, path, out.offset, out.crc)
        s.tier.parents_to_files()  # the new level's parent table, to disk
        return len(fps)

    def _expand(self, size: int, flushes: list[Flush]) -> Any:
        """Expand the frontier once, a window at a time, writing the level's tables to a
        sorted flush on disk whenever they pass their share of the room the budget leaves
        (the rest is the flush's own copy of their keys, parents and labels), and once more
        at the end. Returns the successors counted per action."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        # the room left, shared between the tables and a flush's copy of them (the merge's
        # columns come after the tables are handed back: ``level``)
        entry = self.table_bytes(1)
        copy = 2 * self.kind.itemsize + COPY
        room = max(0, s.tier.budget - resident()) * entry // (entry + copy)
        found = 0
        for start, end in self._windows(size):
            check(lib.eng_expand(handle, start, end))
            held = lib.eng_next_size(handle)
            s._tick(found + held)
            if held * entry > room:
                found += held
                self._flush(flushes)
            if s.due():
                counts = view(lib.eng_generated(handle), np.int64, MAX_ACTIONS)
                # the distinct count stays the committed one: what the flushes hold has
                # duplicates until they are merged at the level's end
                s.note = (
                    f"{s.tier.note()}; level streamed, {len(flushes)} flushes, "
                    f"{found + held:,} found with duplicates"
                )
                s._report(size, False, end, 0, int(counts.sum()))
        self._flush(flushes)
        return view(lib.eng_generated(handle), np.int64, MAX_ACTIONS).copy()

    def _flush(self, flushes: list[Flush]) -> None:
        """Write the level's tables' keys, parents and labels to disk sorted by row hash, as
        the next of ``flushes`` (counted on disk: ``_hold``), and empty the tables."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        n = lib.eng_next_size(handle)
        h = self.kind.empty(n)
        parent = np.empty(n, dtype=np.uint32)
        label = np.empty(n, dtype=np.uint16)
        lib.eng_next_entries(handle, h.ctypes.data, parent.ctypes.data, label.ctypes.data, None)
        lib.eng_level_reset(handle)  # emptied, their room kept for what comes next
        order = self.kind.order(h)
        flush = Flush(s.tier.home() / f"flush-{len(flushes):04d}", n, self.kind.words)
        flush.write(order, h, parent, label)
        flushes.append(flush)
        self._hold(flushes)

    def _merge(self, flushes: list[Flush]) -> tuple[np.ndarray[Any, Any], ...]:
        """Merge the flushes by row hash: of a state found in several, the discovery the
        in-memory search keeps (the smallest parent fingerprint, then label rank); drop
        what the runs on disk hold. Returns the new states' row hashes, parent positions
        and labels, in row-hash order."""
        s = self.s
        lookup = s.tier.lookup()
        kind = self.kind
        parts: list[list[np.ndarray[Any, Any]]] = [
            [kind.empty(0)],
            [np.empty(0, dtype=np.uint32)],
            [np.empty(0, dtype=np.uint16)],
        ]
        for h, parent, label in merged(flushes, kind):
            # a flush's keys are distinct and sorted: with one, every entry is its key's
            pick = (
                np.arange(len(h))
                if len(flushes) == 1
                else winners(kind, s.front_fps, s.core.ranks, h, parent, label)
            )
            pick = pick[~lookup(h[pick])]
            for column, piece in zip(parts, (h[pick], parent[pick], label[pick])):
                column.append(piece)
        return tuple(joined(column) for column in parts)

    def _regenerate(
        self, size: int, columns: list[np.ndarray[Any, Any]], out: Any
    ) -> tuple[np.ndarray[Any, Any], ...]:
        """Make the new states' rows again from their parents (``eng_regen``: the frontier,
        ``size`` states, read once more a window at a time), finish them in C (fingerprints,
        invariants) and append them to ``out``. ``columns``: the merge's keys, parents and
        labels, taken from the list (emptied) and put in parent order one at a time. Returns
        the level's columns in parent order: fingerprints, verdicts, row hashes, parent
        positions and labels."""
        s, lib, handle = self.s, self.s.core.lib, self.s.core.handle
        order = np.lexsort((columns[2], columns[1]))
        for i, column in enumerate(columns):  # a column's old order goes as its new comes
            columns[i] = column[order]
            del column
        del order
        hashes, parents, labels = columns
        columns.clear()
        n = len(parents)
        # each window's first and last entries, found at once (a search per window would
        # convert the whole column to compare it with a Python int)
        starts = np.arange(0, size + 1, CHUNK * s.threads, dtype=np.int64)
        bounds = iter(np.searchsorted(parents, starts.astype(parents.dtype)).tolist() + [n])
        a = next(bounds)
        fps = np.empty(n, dtype=np.uint64)
        bad = np.empty(n, dtype=np.uint32)
        for _, end in self._windows(size):
            b = next(bounds)
            if a < b:
                rows = np.empty((b - a, s.core.width), dtype=np.uint8)
                check(
                    lib.eng_regen(
                        handle,
                        parents[a:].ctypes.data,
                        labels[a:].ctypes.data,
                        hashes[a:].ctypes.data,
                        b - a,
                        rows.ctypes.data,
                    )
                )
                check(
                    lib.eng_rows_finish(
                        handle, rows.ctypes.data, b - a, fps[a:].ctypes.data, bad[a:].ctypes.data
                    )
                )
                out.write(rows)
            a = b
            if s.due():
                s.note = f"{s.tier.note()}; level streamed, making {n:,} new states again"
                s._report(size, False, end, 0, 0)
        return fps, bad, hashes, parents, labels

    def close(self) -> None:
        """Delete the frontier's file."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)
        self.s.tier.hold(0)
