"""The compiled local engine's disk tier: the seen set beyond a memory budget, kept on disk as
sorted runs of row hashes, with delayed duplicate detection once per level.

While the engine's arrays fit the budget (``--memory``), nothing changes: the seen set is the
engine's hash table (``checker/native/tables.h``). At a level boundary where they do not, the
table's hashes are written to a new sorted run (a ``.npy`` file of ``uint64``) and the table is
emptied; the parent tables (``checker.search.reference.seen.KeyLevels``) go to disk too. From then
on a level is expanded against the table as before, and before it is committed the states it found
are looked up in the runs in one streaming pass (``Runs.contains``: each run read in ``CHUNK``-hash
slices, never whole) and those already seen are dropped (``eng_next_drop``). The states dropped are
exactly those the in-memory search would not have added, in the same order, so counts, parents,
traces and their order are unchanged (the tests compare runs byte for byte).

Runs are kept few by merging (size-tiered, as an LSM tree compacts): when the newest run is at least
half the size of the one before it, the two are merged into one, streaming, so a level reads O(log
runs) files. The design is disk Murphi's (Stern & Dill, CAV 1998) and TLC's disk fingerprint set.
Keys are 64 or 128 bits (``checker.search.compiled.keys``): a run of 128-bit keys is a ``.npy`` of
shape ``(count, 2)``.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from checker.checkpoint.format import read_header
from checker.search.compiled.keys import KeyKind

CHUNK = 1 << 22
"""Keys read from a run at a time (32 MiB of 64-bit keys)."""

_HEADER = {"descr": "<u8", "fortran_order": False}


@dataclass
class Run:
    """A sorted run on disk: ``path`` (a ``.npy`` file of ``count`` keys of ``words``
    ``uint64`` words, strictly increasing: ``checker.search.compiled.keys``), where its data starts
    (``offset``, bytes) and its checksum in the checkpoint files' form (``"crc32:size"``:
    ``checker.checkpoint.format.checksum``)."""

    path: Path
    count: int
    offset: int
    checksum: str
    words: int = 1

    @property
    def nbytes(self) -> int:
        """The file's size in bytes."""
        return self.offset + 8 * self.words * self.count

    def chunks(self, size: int = CHUNK) -> Any:
        """The run's keys, ``size`` at a time, in order (arrays of ``KeyKind`` keys)."""
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            left = self.count
            while left:
                chunk = np.fromfile(handle, dtype="<u8", count=min(size, left) * self.words)
                if not len(chunk):
                    raise OSError(f"{self.path} is shorter than its header says")
                if self.words > 1:
                    chunk = chunk.reshape(-1, self.words)
                left -= len(chunk)
                yield chunk


def open_run(path: Path, checksum: str = "") -> Run:
    """The run in ``path`` (a ``.npy`` file of ``uint64`` keys, one or two words each, as
    ``Runs`` writes them). Raises ``OSError`` when it cannot be read or is not one."""
    with open(path, "rb") as handle:
        try:
            shape, fortran, dtype = read_header(handle)
        except ValueError as exc:
            raise OSError(f"{path} is not a run of row hashes: {exc}") from None
        if dtype != np.dtype("<u8") or fortran or shape[1:] not in ((), (2,)):
            raise OSError(f"{path} is not a run of row hashes")
        return Run(path, int(shape[0]), handle.tell(), checksum, 1 if len(shape) == 1 else 2)


class _Writer:
    """A run being written: the ``.npy`` header for ``count`` keys of ``words`` words, then
    the keys in slices; the CRC-32 kept as they go."""

    def __init__(self, path: Path, count: int, words: int = 1) -> None:
        self.path, self.count, self.words, self.crc = path, count, words, 0
        self.tmp = path.with_name(f".{path.name}.tmp")
        self.handle: BinaryIO = open(self.tmp, "wb")  # noqa: SIM115 -- closed in done/abort
        shape = (count,) if words == 1 else (count, words)
        np.lib.format.write_array_header_1_0(self.handle, {**_HEADER, "shape": shape})
        self.offset = self.handle.tell()

    def write(self, hashes: np.ndarray[Any, Any]) -> None:
        data = np.ascontiguousarray(hashes, dtype="<u8")
        self.crc = zlib.crc32(data.data, self.crc)
        self.handle.write(data.data)

    def done(self) -> Run:
        size = self.handle.tell()
        self.handle.close()
        run = Run(self.path, self.count, self.offset, f"{self.crc:08x}:{size}", self.words)
        if size != run.nbytes:
            raise OSError(f"{self.path}: {size} bytes written, not {run.nbytes}")
        os.replace(self.tmp, self.path)
        return run

    def abort(self) -> None:
        self.handle.close()
        self.tmp.unlink(missing_ok=True)


class _Cursor:
    """Reads a run a slice at a time: ``head`` is what is loaded and not yet taken."""

    def __init__(self, run: Run) -> None:
        self.chunks = run.chunks()
        self.none = KeyKind(64 * run.words).empty(0)
        self.head = self.none
        self.fill()

    def fill(self) -> None:
        if not len(self.head):
            self.head = next(self.chunks, self.none)

    def take(self, n: int) -> np.ndarray[Any, Any]:
        taken, self.head = self.head[:n], self.head[n:]
        self.fill()
        return taken


def merge(a: Run, b: Run, path: Path) -> Run:
    """One run at ``path`` holding ``a``'s and ``b``'s keys (disjoint, of one width), merged
    a slice at a time: memory is a few ``CHUNK``s whatever their sizes. Raises ``OSError``."""
    kind = KeyKind(64 * a.words)
    out = _Writer(path, a.count + b.count, a.words)
    try:
        left, right = _Cursor(a), _Cursor(b)
        while len(left.head) and len(right.head):
            bound = kind.least(left.head[-1], right.head[-1])
            x = left.take(kind.upto(left.head, bound))
            y = right.take(kind.upto(right.head, bound))
            both = np.concatenate([x, y])
            if kind.words == 1:
                both.sort(kind="stable")  # two sorted runs: a linear merge
            else:
                both = kind.sort(both)
            out.write(both)
        for rest in (left, right):
            while len(rest.head):
                out.write(rest.take(len(rest.head)))
        return out.done()
    except BaseException:
        out.abort()
        raise


class Runs:
    """The seen set's part on disk: disjoint sorted runs of ``kind`` keys in ``folder``
    (``run-NNNNNN.npy``).

    ``add`` writes a run and merges; ``contains`` looks keys up in every run. Raises
    ``OSError`` when the disk fails (full, gone): the search cannot go on without it."""

    def __init__(self, folder: Path, kind: KeyKind | None = None) -> None:
        self.folder = Path(folder)
        self.kind = kind or KeyKind(64)
        self.runs: list[Run] = []
        self.seq = 0

    @property
    def count(self) -> int:
        """Hashes on disk."""
        return sum(run.count for run in self.runs)

    @property
    def nbytes(self) -> int:
        """Bytes of the run files."""
        return sum(run.nbytes for run in self.runs)

    def _path(self) -> Path:
        self.seq += 1
        return self.folder / f"run-{self.seq:06d}.npy"

    def add(self, hashes: np.ndarray[Any, Any]) -> None:
        """Write ``hashes`` (keys, none on disk yet; sorted here, in place at 64 bits) as a
        run, then merge while the newest run is at least half the size of the one before."""
        if not len(hashes):
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        hashes = self.kind.sort(hashes)
        out = _Writer(self._path(), len(hashes), self.kind.words)
        try:
            for start in range(0, len(hashes), CHUNK):
                out.write(hashes[start : start + CHUNK])
            self.runs.append(out.done())
        except BaseException:
            out.abort()
            raise
        self._compact()

    def adopt(self, run: Run) -> None:
        """Take ``run`` (a resumed checkpoint's; never deleted here) as one of these runs.
        Raises ``OSError`` when its keys are not of this width."""
        if run.words != self.kind.words:
            raise OSError(f"{run.path} holds {64 * run.words}-bit keys, not {self.kind.bits}")
        self.runs.append(run)
        self.runs.sort(key=lambda r: -r.count)

    def _compact(self) -> None:
        """Merge the newest runs while the newest is at least half the one before it."""
        while len(self.runs) >= 2 and 2 * self.runs[-1].count >= self.runs[-2].count:
            b, a = self.runs.pop(), self.runs.pop()
            self.runs.append(merge(a, b, self._path()))
            for old in (a, b):
                if old.path.parent == self.folder:
                    old.path.unlink(missing_ok=True)

    def lookup(self) -> Lookup:
        """A lookup for batches of keys in increasing order (``Lookup``)."""
        return Lookup(self.runs, self.kind)

    def contains(self, keys: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """A boolean mask over ``keys`` (any order): which a run holds. Every run is read
        once, a ``CHUNK`` at a time (a ``Lookup`` of the keys sorted)."""
        found = np.zeros(len(keys), dtype=bool)
        order = self.kind.order(keys)
        found[order] = self.lookup()(keys[order])
        return found


class Lookup:
    """Membership in ``runs`` for sorted batches of keys, each batch above the one before:
    every run is read once, a ``CHUNK`` at a time, across all the batches (a merge join), and
    at most one slice of each is held."""

    def __init__(self, runs: list[Run], kind: KeyKind | None = None) -> None:
        self.kind = kind or KeyKind(64)
        self.cursors: list[list[Any]] = [[run.chunks(), None] for run in runs]

    def __call__(self, keys: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """A boolean mask over ``keys`` (increasing, all above the last batch's)."""
        hit = np.zeros(len(keys), dtype=bool)
        if not len(keys):
            return hit
        low, member = self.kind.low(keys), self.kind.member
        for cursor in self.cursors:
            chunks, chunk = cursor
            while True:
                if chunk is None:
                    chunk = next(chunks, None)
                    if chunk is None:
                        break
                first, last = self.kind.low(chunk)[[0, -1]]
                lo = int(np.searchsorted(low, first, "left"))
                hi = int(np.searchsorted(low, last, "right"))
                if lo < hi:
                    hit[lo:hi] |= member(chunk, keys[lo:hi])
                if last >= low[-1]:
                    break  # it may hold keys of the next batch too
                chunk = None
            cursor[1] = chunk
        return hit
