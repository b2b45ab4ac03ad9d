"""The keys the compiled core's seen set dedups on, as numpy arrays, in one total order.

A 64-bit key is a ``uint64``; an array of them has shape ``(n,)``. A 128-bit key
(``--fingerprint-bits 128``, a library built with ``HW_KEY_BITS=128``: ``checker/native/tables.h``)
is two ``uint64`` words, low then high, the memory layout of C's ``unsigned __int128`` on the
machines hwcheck runs on; an array of them has shape ``(n, 2)``. Keys are ordered by the low
word, then the high one: so the 64-bit order is the 128-bit order's first word, and numpy's
fast ``uint64`` sort does nearly all the work (keys sharing a low word are rare: about
n²/2^65 pairs). The disk tier's runs, flushes and lookups (``checker.search.tier.runs``,
``checker.search.tier.stream``) use only these functions on keys.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from checker.search.reference.seen import in_sorted

Array = np.ndarray[Any, Any]


class KeyKind:
    """Keys of ``bits`` bits (64 or 128)."""

    def __init__(self, bits: int) -> None:
        if bits not in (64, 128):
            raise ValueError(f"keys of {bits} bits: 64 or 128")
        self.bits = bits
        self.words = bits // 64

    @property
    def itemsize(self) -> int:
        """Bytes a key takes."""
        return 8 * self.words

    def empty(self, n: int) -> Array:
        """An uninitialised array of ``n`` keys."""
        return np.empty(n if self.words == 1 else (n, 2), dtype=np.uint64)

    def low(self, keys: Array) -> Array:
        """The low words of ``keys`` (the keys themselves at 64 bits)."""
        return keys if self.words == 1 else keys[:, 0]

    def order(self, keys: Array) -> Array:
        """The permutation that sorts ``keys`` (``argsort``)."""
        if self.words == 1:
            return np.argsort(keys)
        order = np.argsort(keys[:, 0])
        low = keys[order, 0]
        tied = np.flatnonzero(low[1:] == low[:-1])
        if len(tied):  # the few keys that share a low word: order them by the high one
            at = np.unique(np.concatenate([tied, tied + 1]))
            members = order[at]
            order[at] = members[np.lexsort((keys[members, 1], keys[members, 0]))]
        return order

    def sort(self, keys: Array) -> Array:
        """``keys`` sorted (in place at 64 bits, where it is cheapest)."""
        if self.words == 1:
            keys.sort()
            return keys
        sorted_keys: Array = keys[self.order(keys)]
        return sorted_keys

    def fresh(self, keys: Array) -> Array:
        """A mask over sorted ``keys``: True at the first of each run of equal keys."""
        first = np.ones(len(keys), dtype=bool)
        differ = keys[1:] != keys[:-1]
        first[1:] = differ if self.words == 1 else differ.any(axis=1)
        return first

    def upto(self, keys: Array, bound: Array) -> int:
        """How many of sorted ``keys`` are at most ``bound`` (one key)."""
        if self.words == 1:
            return int(np.searchsorted(keys, bound, "right"))
        low = keys[:, 0]
        start = int(np.searchsorted(low, bound[0], "left"))
        end = int(np.searchsorted(low, bound[0], "right"))
        return start + int(np.count_nonzero(keys[start:end, 1] <= bound[1]))

    def least(self, a: Array, b: Array) -> Array:
        """The smaller of two keys."""
        if self.words == 1:
            return min(a, b)
        return a if (int(a[0]), int(a[1])) <= (int(b[0]), int(b[1])) else b

    def member(self, table: Array, keys: Array) -> Array:
        """A boolean mask over ``keys`` (any order): which the sorted ``table`` holds."""
        if self.words == 1:
            hit: Array = in_sorted(table, keys)
            return hit
        if not len(table) or not len(keys):
            return np.zeros(len(keys), dtype=bool)
        low = table[:, 0]
        start = np.searchsorted(low, keys[:, 0], "left")
        end = np.searchsorted(low, keys[:, 0], "right")
        at = np.minimum(start, len(table) - 1)
        found: Array = (end > start) & (table[at, 1] == keys[:, 1])
        for i in np.flatnonzero(end - start > 1):  # a low word shared in the table: rare
            found[i] = bool((table[start[i] : end[i], 1] == keys[i, 1]).any())
        return found
