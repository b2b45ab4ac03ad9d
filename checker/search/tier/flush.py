"""A streamed level's flushes (``checker.search.tier.stream``): the level's tables written to disk
sorted by row hash, read back merged by key, and of a key found in several, the discovery
the in-memory search keeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from checker.search.compiled.keys import KeyKind

MERGE_CHUNK = 1 << 20
"""Entries a merge batch reads, shared between the flushes (each reads at least
``MERGE_FLOOR``)."""
MERGE_FLOOR = 1 << 12


class Flush:
    """A level's tables written to disk sorted by row hash (``_flush``): ``n`` entries in three raw
    files beside ``stem``: keys (``words`` ``uint64`` each: ``checker.search.compiled.keys``),
    parents (``uint32`` frontier positions) and labels (``uint16``); ``nbytes`` of them in all (14 a
    64-bit entry, 22 a 128-bit one)."""

    def __init__(self, stem: Path, n: int, words: int = 1) -> None:
        self.stem, self.n = stem, n
        self.columns: dict[str, tuple[np.dtype[Any], int]] = {
            "h": (np.dtype(np.uint64), words),
            "parent": (np.dtype(np.uint32), 1),
            "label": (np.dtype(np.uint16), 1),
        }
        self.nbytes = n * sum(dtype.itemsize * w for dtype, w in self.columns.values())

    def _path(self, name: str) -> Path:
        return self.stem.with_name(f"{self.stem.name}.{name}")

    def write(self, order: np.ndarray[Any, Any], *arrays: np.ndarray[Any, Any]) -> None:
        """Write the three columns (in ``columns``' order), each taken in ``order`` as it is
        written (one sorted copy at a time). Raises ``OSError``."""
        for name, array in zip(self.columns, arrays):
            array[order].tofile(self._path(name))

    def read(self, name: str, start: int, count: int) -> np.ndarray[Any, Any]:
        """Entries [start, start + count) of column ``name`` (keys: ``count`` x words
        at 128 bits)."""
        dtype, width = self.columns[name]
        data = np.fromfile(
            self._path(name),
            dtype=dtype,
            count=count * width,
            offset=start * width * dtype.itemsize,
        )
        shaped: np.ndarray[Any, Any] = data.reshape(-1, width) if width > 1 else data
        return shaped

    def delete(self) -> None:
        for name in self.columns:
            self._path(name).unlink(missing_ok=True)


def merged(flushes: list[Flush], kind: KeyKind) -> Any:
    """The flushes' entries in batches of increasing key (every entry with a key up to a
    bound, from every flush): ``(keys, parents, labels)`` each, unsorted within."""
    pos = [0] * len(flushes)
    chunk = max(MERGE_FLOOR, MERGE_CHUNK // max(1, len(flushes)))
    heads = [flush.read("h", 0, chunk) for flush in flushes]
    while True:
        live = [i for i, flush in enumerate(flushes) if pos[i] < flush.n]
        if not live:
            return
        bound = heads[live[0]][-1]
        for i in live[1:]:
            bound = kind.least(bound, heads[i][-1])
        batch: list[list[np.ndarray[Any, Any]]] = [[], [], []]
        for i in live:
            flush, k = flushes[i], kind.upto(heads[i], bound)
            batch[0].append(heads[i][:k])
            for column, name in zip(batch[1:], ("parent", "label")):
                column.append(flush.read(name, pos[i], k))
            pos[i], heads[i] = pos[i] + k, heads[i][k:]
            if not len(heads[i]) and pos[i] < flush.n:
                heads[i] = flush.read("h", pos[i], chunk)
        yield tuple(np.concatenate(column) for column in batch)


def winners(
    kind: KeyKind,
    front_fps: np.ndarray[Any, Any],
    ranks: np.ndarray[Any, Any],
    h: np.ndarray[Any, Any],
    parent: np.ndarray[Any, Any],
    label: np.ndarray[Any, Any],
) -> np.ndarray[Any, Any]:
    """Of a merge batch's entries (``h``, ``parent``, ``label``: from several flushes), the
    one each key keeps, as positions in the batch in key order: the discovery the in-memory
    search keeps (the smallest parent fingerprint, ``front_fps[parent]``, then label rank,
    ``ranks[label]``: ``checker.search.reference.bfs``'s tie-break), compared only where a key is
    found more than once (64-bit keys: the keys' sorted runs merged alone, then the repeated
    ones by the tie-break; 128-bit keys: one sort by key and tie-break, since the low word
    that orders them is shared by every repeated key and sorting those twice cost more than
    once)."""
    if kind.words > 1:  # every repeated key shares its low word: one 4-key sort does it all
        order = np.lexsort((ranks[label], front_fps[parent], h[:, 1], h[:, 0]))
        kept: np.ndarray[Any, Any] = order[kind.fresh(h[order])]
        return kept
    # the batch is a few sorted runs one after another, which a stable sort finds and
    # merges (numpy's timsort: 6 to 9 times quicker here than on keys in no order)
    order = np.argsort(h, kind="stable")
    first = kind.fresh(h[order])
    group = np.cumsum(first) - 1  # each sorted entry's key, numbered
    pick: np.ndarray[Any, Any] = order[first]
    starts = np.flatnonzero(first)
    repeated = (np.diff(np.append(starts, len(order))) > 1)[group]
    if repeated.any():
        members, owner = order[repeated], group[repeated]
        best = np.lexsort((ranks[label[members]], front_fps[parent[members]], owner))
        members, owner = members[best], owner[best]
        lead = np.ones(len(owner), dtype=bool)
        lead[1:] = owner[1:] != owner[:-1]
        pick[owner[lead]] = members[lead]
    return pick


def joined(pieces: list[np.ndarray[Any, Any]]) -> np.ndarray[Any, Any]:
    """``pieces`` as one array, the list emptied: joined a column at a time, the level's
    columns need their own bytes and one column's more, not twice their bytes."""
    whole = np.concatenate(pieces)
    pieces.clear()
    return whole
