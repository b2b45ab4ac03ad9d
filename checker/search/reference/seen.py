"""The local engine's seen set and parent pointers, as sorted ``uint64`` arrays per level.

A Python dict ``fingerprint -> (parent, label)`` costs about 200 bytes per state (two int objects, a
tuple and the dict's slots); at ten million states that is 2 GiB before the frontier. Here every
state costs 20 bytes: its fingerprint in the merged seen array, and its fingerprint and its parent's
position in the previous level in its level's table. Labels are not stored: a trace is rebuilt from
the chain of fingerprints by re-running the spec (``checker.trace.concrete_walk`` takes, at each
step, the smallest label text that lands in the next fingerprint, which is the label the search
recorded, because its tie-break keeps the smallest label text too). The partitioned engines keep
fingerprints and parent fingerprints in files (``checker.search.partitioned.level_files``); the
compiled core keeps only the level tables here (its seen set is in C).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.format import checksum
from checker.limits import LimitReached

POSITIONS = 2**32 - 1
"""The most states a level may hold here: parent positions are ``uint32`` (a named limit;
the compiled core's is ``checker.native.core.LEVEL_LIMIT``)."""

_EMPTY = np.empty(0, dtype=np.uint64)
_EMPTY32 = np.empty(0, dtype=np.uint32)


def in_sorted(seen: np.ndarray[Any, Any], keys: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A boolean mask over ``keys`` (``uint64``): which are in the sorted array ``seen``.
    One batch lookup; shared by this engine and the partitioned level functions."""
    if not len(seen) or not len(keys):
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(seen, keys), len(seen) - 1)
    found: np.ndarray[Any, Any] = seen[at] == keys
    return found


def merge_sorted(seen: np.ndarray[Any, Any], fresh: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The sorted union of two sorted, disjoint ``uint64`` arrays (a linear merge: a stable
    sort of two sorted runs)."""
    merged = np.concatenate([seen, fresh])
    merged.sort(kind="stable")
    return merged


def _array(values: Iterable[int]) -> np.ndarray[Any, Any]:
    """``values`` as a ``uint64`` array (without a Python loop when it is one already)."""
    if isinstance(values, np.ndarray):
        return values.astype(np.uint64, copy=False)
    return np.fromiter(values, dtype=np.uint64)


class SeenLevels:
    """Every fingerprint seen so far, level by level, with each state's parent.

    Level 1 holds the initial states (no parent); level ``k`` the states first seen ``k - 1``
    steps from an initial state. A level is its sorted fingerprints (8 bytes a state) and,
    for each, its parent's position in the previous level's (a ``uint32``, 4 bytes).
    """

    def __init__(self, keep_all: bool = True) -> None:
        """``keep_all`` False keeps only the level tables (``chain``), for an engine that has
        a seen set of its own (the compiled core): ``unseen`` and ``in`` then know nothing."""
        self._keep_all = keep_all
        self._all = _EMPTY
        self._levels: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        self._rank = np.empty(0, dtype=np.uint32)  # last level: given order -> sorted position

    def __len__(self) -> int:
        return len(self._all)

    def __contains__(self, fp: int) -> bool:
        at = int(np.searchsorted(self._all, np.uint64(fp)))
        return at < len(self._all) and int(self._all[at]) == fp

    @property
    def depth(self) -> int:
        """How many levels are stored."""
        return len(self._levels)

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (8 per state in the seen array, if kept, and 12 in the
        level tables)."""
        return self._all.nbytes + sum(f.nbytes + p.nbytes for f, p in self._levels)

    def unseen(self, fps: Iterable[int], count: int = -1) -> set[int]:
        """The fingerprints of ``fps`` (ints, ``count`` of them when known) not seen yet."""
        keys = np.fromiter(fps, dtype=np.uint64, count=count)
        return set(keys[self.unseen_mask(keys)].tolist())

    def unseen_mask(self, keys: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """A boolean mask over ``keys`` (``uint64``): which are not seen yet."""
        mask: np.ndarray[Any, Any] = ~in_sorted(self._all, keys)
        return mask

    def add_level(
        self,
        fps: Iterable[int],
        parents: Iterable[int] | None = None,
        parent_rows: np.ndarray[Any, Any] | None = None,
    ) -> None:
        """Record a new level: ``fps`` (unseen fingerprints) and, except for level 1, each
        one's parent, in the same order: its fingerprint (``parents``) or, cheaper, its index
        in the ``fps`` of the previous call (``parent_rows``). Raises ``ValueError`` when the
        lengths differ or a parent is not a state of the previous level."""
        keys = _array(fps)
        if len(keys) > POSITIONS:
            raise LimitReached(
                f"a level passed the reference core's limit of {POSITIONS:,} states: a "
                "state's parent is its 32-bit position in the level before"
            )
        pfps = np.zeros(len(keys), dtype=np.uint64) if parents is None else _array(parents)
        if len(pfps) != len(keys) or (parent_rows is not None and len(parent_rows) != len(keys)):
            raise ValueError(f"{len(keys)} fingerprints but {len(pfps)} parents")
        order = np.argsort(keys)
        keys = keys[order]
        at = np.zeros(len(keys), dtype=np.uint32)
        if parent_rows is not None and len(keys):
            if int(parent_rows.max()) >= len(self._rank):
                raise ValueError("a parent row is not a state of the previous level")
            at = self._rank[parent_rows[order]]
        elif parents is not None and len(keys):
            previous = self._levels[-1][0] if self._levels else _EMPTY
            found = in_sorted(previous, pfps)
            if not found.all():
                raise ValueError(
                    f"parent {int(pfps[~found][0]):016x} is not a state of the previous level"
                )
            at = np.searchsorted(previous, pfps[order]).astype(np.uint32)
        self._levels.append((keys, at))
        self._rank = np.empty(len(keys), dtype=np.uint32)
        self._rank[order] = np.arange(len(keys), dtype=np.uint32)
        if self._keep_all:
            self._all = merge_sorted(self._all, keys)

    def table(self, level: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """``(fps, parent fps)`` of ``level`` (1-based; sorted fingerprints, and 0 as the
        parent of an initial state): what a checkpoint stores."""
        keys, at = self._levels[level - 1]
        if level == 1:
            return keys, np.zeros(len(keys), dtype=np.uint64)
        return keys, self._levels[level - 2][0][at]

    def chain(self, fp: int, level: int) -> list[int]:
        """The fingerprints from an initial state to ``fp``, a state of ``level`` (1-based),
        initial first. Raises ``KeyError`` when ``fp`` is not a state of that level."""
        keys = self._levels[level - 1][0]
        at = int(np.searchsorted(keys, np.uint64(fp)))
        if at >= len(keys) or int(keys[at]) != fp:
            raise KeyError(f"{fp:016x} is not a state of level {level}")
        chain = [fp]
        for k in range(level, 1, -1):
            at = int(self._levels[k - 1][1][at])
            chain.append(int(self._levels[k - 2][0][at]))
        chain.reverse()
        return chain


class Fresh:
    """The new states of a level under way (``checker.search.reference.bfs``), counted exactly while
    it runs. The level gathers its successors that are not in its last two levels in a dict
    (``found``, which only grows, in insertion order); ``count`` looks up in the seen set only those
    added since its last call and remembers which were seen before, so ``keep``, at the level's end,
    looks up the rest: every successor is looked up once, as when the whole dict was looked up at
    the end."""

    def __init__(self, seen: SeenLevels) -> None:
        self.seen, self.looked = seen, 0
        self.stale: set[int] = set()

    def _look(self, found: dict[int, Any]) -> None:
        added = len(found) - self.looked
        if added:
            keys = np.fromiter(islice(reversed(found), added), dtype=np.uint64, count=added)
            self.stale.update(keys[~self.seen.unseen_mask(keys)].tolist())
            self.looked = len(found)

    def count(self, found: dict[int, Any]) -> int:
        """How many of ``found`` were never seen before."""
        self._look(found)
        return len(found) - len(self.stale)

    def keep(self, found: dict[int, Any]) -> dict[int, Any]:
        """``found`` without what was seen before (in its order)."""
        self._look(found)
        if not self.stale:
            return found
        return {fp: entry for fp, entry in found.items() if fp not in self.stale}


class KeyLevels:
    """The compiled core's parent tables: per level, in the engine's order, each state's key
    (the low 32 bits of its fingerprint) and its parent's position in the previous level
    (8 bytes a state, against ``SeenLevels``' 12, and nothing sorted). The initial level
    keeps full fingerprints.

    A key only has to tell a state from its siblings: a trace is rebuilt from the initial
    state by taking, at each step, the successor whose fingerprint ends in the next key
    (``checker.trace.walk_keys``), and its last state is checked against the full
    fingerprint, which the engine knows.
    """

    def __init__(self) -> None:
        self._first = _EMPTY
        self._levels: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        self._sizes: list[int] = []  # states per level
        self._files: dict[int, Path] = {}  # level index -> its file, once spilled
        self._sums: dict[int, str] = {}  # level index -> its file's checksum

    @property
    def depth(self) -> int:
        """How many levels are stored."""
        return len(self._levels)

    @property
    def nbytes(self) -> int:
        """Bytes held in memory by the arrays (8 per state not spilled)."""
        return self._first.nbytes + sum(k.nbytes + p.nbytes for k, p in self._levels)

    @property
    def sizes(self) -> list[int]:
        """States per level, level 1 first."""
        return self._sizes

    @property
    def disk_bytes(self) -> int:
        """Bytes of the spilled levels' files."""
        return sum(8 * self._sizes[i] for i in self._files)

    def spill(self, folder: Path) -> None:
        """Move every level held in memory but the first to a file in ``folder``
        (``K000123.npy`` for level 123: its keys over its parent positions, ``uint32``),
        read back only when a trace needs it. Raises ``OSError``."""
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(1, len(self._levels)):
            if i in self._files:
                continue
            path = folder / f"K{i + 1:06d}.npy"
            both = np.stack(self._levels[i])
            np.save(path, both, allow_pickle=False)
            self._sums[i] = checksum([both], path.stat().st_size)
            del both
            self._files[i] = path
            self._levels[i] = (_EMPTY32, _EMPTY32)

    @property
    def on_disk(self) -> bool:
        """Whether any level is held in a file (``spill``)."""
        return bool(self._files)

    def files(self) -> list[tuple[int, Path, str]]:
        """The levels held in files, ``(level, path, checksum)`` each (level 2 on; the
        checksum in ``checker.checkpoint.format.checksum``'s form), for a checkpoint to link
        rather than copy (``checker.checkpoint.write.Checkpointer.save``)."""
        return [(i + 1, self._files[i], self._sums[i]) for i in sorted(self._files)]

    def add_file(self, path: Path, count: int, sum_: str) -> None:
        """Record the next level as held in ``path``, a file ``spill`` wrote (a resumed
        checkpoint's, ``count`` states, checksum ``sum_``), read only when a trace needs it.
        Raises ``ValueError`` before level 1 (which is never in a file)."""
        if not self._levels:
            raise ValueError("level 1 is not kept in a file")
        i = len(self._levels)
        self._levels.append((_EMPTY32, _EMPTY32))
        self._sizes.append(count)
        self._files[i], self._sums[i] = path, sum_

    def _level(self, i: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        if i not in self._files:
            return self._levels[i]
        both = np.load(self._files[i], mmap_mode="r")
        return both[0], both[1]

    def add_level(
        self,
        fps: Iterable[int],
        parents: Iterable[int] | None = None,
        parent_rows: np.ndarray[Any, Any] | None = None,
    ) -> None:
        """Record a new level: ``fps`` (the engine's order) and, except for level 1, each
        one's parent position in the previous level (``parent_rows``, ``uint32``). Raises
        ``ValueError`` when the lengths differ or a parent position is out of range."""
        keys = _array(fps)
        if not self._levels:
            self._first = keys.copy()
        elif parent_rows is None or len(parent_rows) != len(keys):
            raise ValueError(f"{len(keys)} fingerprints need as many parent positions")
        elif len(keys) and int(parent_rows.max()) >= self._sizes[-1]:
            raise ValueError("a parent position is not a state of the previous level")
        rows = (
            np.zeros(len(keys), dtype=np.uint32)
            if parent_rows is None
            else parent_rows.astype(np.uint32)
        )
        low = keys.astype("<u8", copy=False).view("<u4")[::2]  # the low 32 bits, no temporary
        self._levels.append((low.astype(np.uint32), rows))
        self._sizes.append(len(keys))

    def path(self, level: int, index: int) -> tuple[int, list[int]]:
        """``(initial fingerprint, keys of levels 2 .. level)`` on the way to the state at
        ``index`` of ``level`` (1-based). Raises ``IndexError`` for a state not stored."""
        keys = []
        for k in range(level, 1, -1):
            table, parents = self._level(k - 1)
            keys.append(int(table[index]))
            index = int(parents[index])
        keys.reverse()
        return int(self._first[index]), keys
