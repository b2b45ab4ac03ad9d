"""The pair graph a liveness property is judged on, as arrays: a compiled orbit graph's
``(orbit, key)`` pairs (``checker.liveness.orbit_view.Space``) with the fairness constraints
each label fulfils and each orbit enables (``Net``), the edges among a set of pairs as a CSR
graph (``Inner``), and the constraint masks renamed (``Renamer``). ``checker.liveness.
orbit_fair`` judges its fair components; ``checker.liveness.orbit_arrays`` its properties.
Pairs are followed ``CHUNK`` at a time and edges ``EDGES`` at a time, so that no array is
sized by the whole pair space or by every edge at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from checker.liveness.annotated import Group
from checker.liveness.cgraph import Array
from checker.liveness.orbit_view import Space

CHUNK = 1 << 17
"""Pair nodes whose out-edges are followed at once: the per-edge temporaries (about 50 bytes
an edge) stay near 30 MiB."""
EDGES = 1 << 20
"""Edges a pass over a component set's internal edges takes at once (about 40 bytes of
temporaries an edge)."""


def ranges(starts: Array, ends: Array) -> tuple[Array, Array]:
    """``(i, j)`` for every ``j`` in ``[starts[i], ends[i])``, concatenated in order (``i``
    as ``int32`` while it fits, ``j`` as ``int64``)."""
    deg = (ends - starts).astype(np.int64)
    small = len(starts) < 2**31
    pos = np.repeat(np.arange(len(starts), dtype=np.int32 if small else np.int64), deg)
    base = np.repeat(starts.astype(np.int64) - (np.cumsum(deg) - deg), deg)
    return pos, base + np.arange(len(pos), dtype=np.int64)


class Renamer:
    """Constraint bit masks (``uint64``, ``count`` constraints) renamed by renaming numbers,
    through per-byte tables built from ``act[g][c]`` (``orbit_find.Setting.act``)."""

    def __init__(self, act: list[list[int]], count: int) -> None:
        self.width = max(1, (count + 7) // 8)
        values = np.arange(256)
        self.table = np.zeros((len(act), self.width, 256), dtype=np.uint64)
        for g, row in enumerate(act):
            for c in range(count):
                j, b = divmod(c, 8)
                self.table[g, j, (values >> b) & 1 == 1] |= np.uint64(1 << row[c])

    def __call__(self, masks: Array, perms: Array | int) -> Array:
        out = np.zeros(len(masks), dtype=np.uint64)
        for j in range(self.width):
            byte = ((masks >> np.uint64(8 * j)) & np.uint64(255)).astype(np.uint8)
            out |= self.table[perms, j, byte]
        return out


@dataclass
class Inner:
    """The edges among ``k`` local nodes as a CSR graph: ``indptr`` (``int64``, ``k + 1``),
    per edge the target's position ``dst`` (``int32``), renaming ``ren`` (``uint8``) and
    label code ``lab``, in source then successor order."""

    k: int
    indptr: Array
    dst: Array
    ren: Array
    lab: Array

    def sources(self, start: int = 0, end: int | None = None) -> Array:
        """Per edge out of the sources ``start`` to ``end`` (all by default), in order, its
        source's position (``int32``)."""
        end = self.k if end is None else end
        deg = np.diff(self.indptr[start : end + 1])
        return np.repeat(np.arange(start, end, dtype=np.int32), deg)

    def chunks(self) -> Iterator[tuple[Array, slice]]:
        """Consecutive runs of sources with about ``EDGES`` edges between them (at least one
        source a run): per edge its source position (``int32``), and the run's edge slice."""
        start = 0
        while start < self.k:
            bound = self.indptr[start] + EDGES
            end = int(np.searchsorted(self.indptr, bound, side="right")) - 1
            end = min(max(end, start + 1), self.k)
            yield self.sources(start, end), slice(int(self.indptr[start]), int(self.indptr[end]))
            start = end


@dataclass
class Cover:
    """The constraints an orbit's conditions cover, read from its condition bits (``cond``,
    ``uint32`` per orbit, the graph's own) when asked instead of held per orbit: those
    always covered (a mask), and per condition bit the ones it covers."""

    cond: Array
    always: int
    guarded: list[tuple[int, int]]
    """``(bit, constraints)``: the condition's bit number and the mask it covers."""

    def __call__(self, orbits: Array) -> Array:
        """The covered constraints (``uint64``) of each of ``orbits``."""
        out = np.full(len(orbits), self.always, dtype=np.uint64)
        if self.guarded:
            bits = self.cond[orbits]
            for bit, mask in self.guarded:
                out[(bits >> np.uint32(bit)) & np.uint32(1) == 1] |= np.uint64(mask)
        return out


@dataclass
class Coded:
    """Per orbit a ``uint64`` mask, held as a code into the distinct masks (``table``): 2
    bytes an orbit while there are at most 65,536 of them (kafka at 3 replicas: a few
    hundred), 4 past that, instead of 8. ``coded[orbits]`` gives the masks."""

    codes: Array
    table: Array

    @classmethod
    def of(cls, masks: Array) -> Coded:
        """``masks`` (``uint64``, one per orbit) coded."""
        return cls.gathered(len(masks), lambda start, stop: masks[start:stop])

    @classmethod
    def gathered(cls, n: int, masks_of: Callable[[int, int], Array]) -> Coded:
        """The masks of orbits ``0`` to ``n - 1`` coded, made ``CHUNK`` orbits at a time by
        ``masks_of(start, stop)`` (``uint64``, one per orbit of ``start`` to ``stop - 1``), so
        that no array of 8 bytes an orbit is held; the table in the order values are met."""
        codes = np.empty(n, dtype=np.uint32)
        seen: dict[int, int] = {}
        for start in range(0, n, CHUNK):
            stop = min(start + CHUNK, n)
            values, inverse = np.unique(masks_of(start, stop), return_inverse=True)
            ids = np.array([seen.setdefault(int(v), len(seen)) for v in values], np.uint32)
            codes[start:stop] = ids[inverse.reshape(-1)]
        small = len(seen) <= 1 << 16
        return cls(codes.astype(np.uint16) if small else codes, np.array(list(seen), np.uint64))

    def __getitem__(self, orbits: Array) -> Array:
        out: Array = self.table[self.codes[orbits]]
        return out

    def none(self, orbits: Array) -> Array:
        """Whether each of ``orbits``' mask is empty (bool), without its masks."""
        out: Array = (self.table == 0)[self.codes[orbits]]
        return out


@dataclass
class Net:
    """A pair graph to judge: the compiled orbit ``graph`` (``off``, ``dst``, ``lab``, ``ren``,
    ``strong_components``), its pair ``space``, the group's tables, the constraints of each
    label code (``cons``) within those each orbit's conditions cover (``covered``), each
    orbit's enabled constraints (``en``, coded), the strong ones (a mask) and the
    ``renamer``."""

    graph: Any
    space: Space
    group: Group
    cons: Array
    covered: Cover
    en: Coded
    strong: np.uint64
    renamer: Renamer

    def __post_init__(self) -> None:
        self.mul = np.array(self.group.mul, dtype=np.uint8)
        self.inv = np.array(self.group.inv, dtype=np.uint8)
        self.wide = (len(self.graph.off) - 1) * self.space.K >= 2**31
        """Whether pair numbers need 64 bits (else ``int32``)."""

    def out(self, nodes: Array) -> tuple[Array, Array, Array, Array]:
        """Every edge out of the pair ``nodes`` (``int64``): ``(position in nodes, target
        pair, renaming, label code)``, in node then successor order; positions and pairs
        ``int32`` while they fit, renamings ``uint8``."""
        g, K = self.graph, self.space.K
        orbit = nodes // K
        pos, edge = ranges(g.off[orbit], g.off[orbit + 1])
        target, renaming = self.space.step(
            g.dst[edge], g.ren[edge], (nodes % K).astype(np.int16)[pos], self.mul, self.wide
        )
        return pos, target, renaming, g.lab[edge]

    def among(self, nodes: Array) -> Iterator[tuple[int, Array, Array, Array, Array]]:
        """The edges among the pair ``nodes`` (sorted ``int64``), ``CHUNK`` sources at a time:
        ``(the first source's position, each edge's source position within the chunk, its
        target's position (``int32``), renaming, label code)``, in source then successor
        order. A target's position comes from a map over every pair (4 bytes a pair) where
        ``nodes`` are at least an eighth of them, else from a binary search."""
        k, size = len(nodes), (len(self.graph.off) - 1) * self.space.K
        local = None
        if size <= 8 * k:
            local = np.full(size, -1, dtype=np.int32)
            local[nodes] = np.arange(k, dtype=np.int32)
        for start in range(0, k, CHUNK):
            pos, target, renaming, label = self.out(nodes[start : start + CHUNK])
            if local is not None:
                at = local[target]
                keep = at >= 0
            else:
                at = np.minimum(np.searchsorted(nodes, target), k - 1)
                keep = nodes[at] == target
            yield (
                start,
                pos[keep],
                at[keep].astype(np.int32, copy=False),
                renaming[keep],
                label[keep],
            )

    def inner(self, nodes: Array) -> Inner:
        """The edges among the pair ``nodes`` (sorted ``int64``), by source position. On every
        orbit of a one-key space these are the graph's own arrays, not copied; otherwise they
        are found ``CHUNK`` sources at a time (``among``) and written into arrays with room
        for every out-edge, of which only the pages written are ever touched (7 bytes an
        edge)."""
        k, size, g = len(nodes), (len(self.graph.off) - 1) * self.space.K, self.graph
        if self.space.trivial and k == size:
            dst = g.dst.view(np.int32) if g.dst.dtype == np.uint32 else g.dst.astype(np.int32)
            return Inner(k, np.asarray(g.off, dtype=np.int64), dst, g.ren, g.lab)
        room = sum(  # every out-edge of the nodes: the kept ones' room, touched as filled
            int(np.sum(g.off[orbit + 1] - g.off[orbit]))
            for orbit in (nodes[at : at + CHUNK] // self.space.K for at in range(0, k, CHUNK))
        )
        dst = np.empty(room, dtype=np.int32)
        ren, lab = np.empty(room, np.uint8), np.empty(room, g.lab.dtype)
        indptr = np.zeros(k + 1, dtype=np.int64)
        for start, pos, at, renaming, label in self.among(nodes):
            count = np.bincount(pos, minlength=min(CHUNK, k - start))
            begin = int(indptr[start])
            np.cumsum(count, out=indptr[start + 1 : start + 1 + len(count)])
            indptr[start + 1 : start + 1 + len(count)] += begin
            end = int(indptr[start + len(count)])
            dst[begin:end], ren[begin:end], lab[begin:end] = at, renaming, label
        end = int(indptr[k])
        return Inner(k, indptr, dst[:end], ren[:end], lab[:end])

    def before(self, nodes: Array) -> tuple[Array, Array]:
        """The edges among the pair ``nodes`` (sorted ``int64``) by target: ``(indptr:
        int64, sources: int32)``, each node's sources' positions in increasing order, once
        per edge. The edges are found twice (``among``: counted, then placed), so they are
        never held forward as well: 8 bytes a node and 4 an edge."""

        def parts() -> Iterator[tuple[Array, Array]]:
            for start, pos, at, _, _ in self.among(nodes):
                yield (pos + start).astype(np.int32), at

        found: tuple[Array, Array] = self.graph.reverse(len(nodes), parts)
        return found

    def reach(self, inside: Callable[[Array], Array], seeds: Array) -> Array:
        """The pair nodes (sorted ``int64``) reachable from ``seeds`` (pair nodes, admitted)
        through those ``inside`` admits (a test of a pair node array, giving bool); marks
        are one byte a pair."""
        mark = np.zeros((len(self.graph.off) - 1) * self.space.K, dtype=bool)
        mark[seeds] = True
        frontier = np.flatnonzero(mark)
        while len(frontier):
            found = []
            for start in range(0, len(frontier), CHUNK):
                _, target, _, _ = self.out(frontier[start : start + CHUNK])
                target = target[~mark[target]]
                target = target[inside(target)]
                mark[target] = True
                found.append(target)
            frontier = sorted_set(np.concatenate(found))
        return np.flatnonzero(mark)


def sorted_set(values: Array) -> Array:
    """The distinct ``values``, sorted (a sort: numpy's hashing unique is slower here)."""
    values = np.sort(values)
    keep = np.ones(len(values), dtype=bool)
    keep[1:] = values[1:] != values[:-1]
    out: Array = values[keep]
    return out
