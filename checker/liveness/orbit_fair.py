"""``checker.liveness.annotated``'s fair components on arrays: the annotated quotient of a
compiled orbit graph's pairs (``checker.liveness.orbit_view.Space``), judged for whole
strongly connected sets at once with numpy and Tarjan's algorithm in C.

Per component: a spanning tree gives each node its renaming ``tau`` (the root's the
identity), each internal edge closes a loop renaming ``tau_A . g^-1 . tau_B^-1``, and the
group ``Gamma`` they generate (held as a bit mask over the renaming numbers, at most 24)
closes the constraint sets: taken (``tau_A`` applied to each internal edge's constraints),
enabled somewhere and enabled everywhere (``tau_A`` applied to each node's). The strong and
weak tests and the Emerson-Lei refinement are ``annotated.fair_components``'; the module
docstring there says why this is sound.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from checker.liveness.annotated import Group
from checker.liveness.cgraph import Array
from checker.liveness.orbit_view import Space

ALL = ~np.uint64(0)
UNSET = np.uint8(255)
"""A renaming number not yet given (there are at most 24)."""
CHUNK = 1 << 17
"""Pair nodes whose out-edges are followed at once: the per-edge temporaries (about 50 bytes
an edge) stay near 30 MiB."""


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
class Net:
    """A pair graph to judge: the compiled orbit ``graph`` (``off``, ``dst``, ``lab``, ``ren``,
    ``strong_components``), its pair ``space``, the group's tables, the constraints of each
    label code (``cons``) within those each orbit's conditions cover (``covered``), each
    orbit's enabled constraints (``en``), the strong ones (a mask) and the ``renamer``."""

    graph: Any
    space: Space
    group: Group
    cons: Array
    covered: Array
    en: Array
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

    def inner(self, nodes: Array) -> tuple[Array, Array, Array, Array]:
        """The edges among the pair ``nodes`` (sorted ``int64``): ``(source position, target
        position, renaming, label code)`` (``int32``, ``int32``, ``uint8``, ``uint16``), in
        node then successor order. The out-edges are followed ``CHUNK`` nodes at a time, so
        only the kept edges are held whole (11 bytes each); a target's position comes from
        a map over every pair (4 bytes a pair) where ``nodes`` are at least an eighth of
        them, else from a binary search."""
        k, size, g = len(nodes), (len(self.graph.off) - 1) * self.space.K, self.graph
        if self.space.trivial and k == size:  # every orbit: the graph's own arrays
            deg = np.diff(g.off)
            src = np.repeat(np.arange(k, dtype=np.int32), deg)
            dst = g.dst.view(np.int32) if g.dst.dtype == np.uint32 else g.dst.astype(np.int32)
            return src, dst, g.ren, g.lab
        local = None
        if size <= 8 * k:
            local = np.full(size, -1, dtype=np.int32)
            local[nodes] = np.arange(k, dtype=np.int32)
        parts: list[tuple[Array, Array, Array, Array]] = []
        for start in range(0, k, CHUNK):
            pos, target, ren, lab = self.out(nodes[start : start + CHUNK])
            if local is not None:
                at = local[target]
                keep = at >= 0
            else:
                at = np.minimum(np.searchsorted(nodes, target), k - 1)
                keep = nodes[at] == target
            src = (pos[keep] + start).astype(np.int32)
            parts.append((src, at[keep].astype(np.int32), ren[keep], lab[keep]))
        if not parts:
            empty = np.zeros(0, dtype=np.int32)
            return empty, empty, np.zeros(0, np.uint8), np.zeros(0, np.uint16)
        src, dst, ren, lab = (np.concatenate([p[i] for p in parts]) for i in range(4))
        return src, dst, ren, lab

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


def _spanning(net: Net, k: int, comp: Array, src: Array, dst: Array, ren: Array) -> Array:
    """``tau`` of each of ``k`` local nodes (``uint8`` renaming numbers): breadth first from
    each component's first node over its internal edges (sorted by ``src``)."""
    tau = np.full(k, UNSET, dtype=np.uint8)
    _, roots = np.unique(comp, return_index=True)
    tau[roots] = 0
    indptr = np.zeros(k + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(np.bincount(src, minlength=k))
    frontier = roots
    while len(frontier):
        pos, idx = ranges(indptr[frontier], indptr[frontier + 1])
        target = dst[idx]
        new = tau[target] == UNSET
        values = net.mul[tau[frontier[pos[new]]], net.inv[ren[idx[new]]]]
        tau[target[new]] = values  # any of a node's parents will do: a spanning tree
        frontier = sorted_set(target[new])
    return tau


def _gamma(
    net: Net, ncomp: int, comp: Array, src: Array, dst: Array, ren: Array, tau: Array
) -> Array:
    """Per component, the group its loops generate, as a bit mask over renaming numbers."""
    loops = net.mul[net.mul[tau[src], net.inv[ren]], net.inv[tau[dst]]]
    gens = np.zeros(ncomp, dtype=np.int64)
    for v in range(1, len(net.group.perms)):
        present = np.zeros(ncomp, dtype=bool)
        present[comp[src[loops == v]]] = True
        gens[present] |= 1 << v
    masks, back = np.unique(gens, return_inverse=True)
    closed = [
        sum(1 << h for h in net.group.closure(h for h in range(24) if int(m) >> h & 1))
        for m in masks
    ]
    return np.array(closed, dtype=np.int64)[back]


def _close(net: Net, masks: Array, gamma: Array, meet: bool) -> Array:
    """``masks`` (per component) closed under its ``gamma``: the union of their renamings,
    or with ``meet`` the intersection."""
    out = np.full(len(masks), ALL if meet else np.uint64(0), dtype=np.uint64)
    for h in range(len(net.group.perms)):
        sel = (gamma >> h) & 1 == 1
        if sel.any():
            renamed = net.renamer(masks[sel], h)
            out[sel] = out[sel] & renamed if meet else out[sel] | renamed
    return out


def fair_components(net: Net, nodes: Array, must: Array | None = None) -> Array:
    """Per pair of ``nodes`` (sorted ``int64``), by position, the fair component of those
    pairs holding it, -1 for none (with ``must``, bool per pair node, only the components
    holding a ``must`` node); numbered arbitrarily. Arrays are sized by ``nodes`` and their
    edges, never by the whole pair space. Raises ``ValueError`` when a strong constraint's
    renaming is not strong (asymmetric fairness)."""
    owner = np.full(len(nodes), -1, dtype=np.int64)
    pending, found = np.arange(len(nodes)), 0  # positions in nodes, increasing
    while len(pending):
        k = len(pending)
        here = nodes[pending]
        src, dst, ren, lab = net.inner(here)
        indptr = np.zeros(k + 1, dtype=np.int64)
        indptr[1:] = np.cumsum(np.bincount(src, minlength=k))
        comp = net.graph.strong_components(indptr, dst, k)
        ncomp = int(comp.max()) + 1
        same = comp[src] == comp[dst]
        src, dst, ren, lab = src[same], dst[same], ren[same], lab[same]
        sizes = np.bincount(comp, minlength=ncomp)
        cyclic = sizes >= 2
        cyclic[comp[src[src == dst]]] = True
        tau = _spanning(net, k, comp, src, dst, ren)
        gamma = _gamma(net, ncomp, comp, src, dst, ren, tau)
        orbit = here // net.space.K
        taken = np.zeros(ncomp, dtype=np.uint64)
        for start in range(0, len(src), CHUNK * 8):  # edge masks are 8 bytes: in chunks
            at = src[start : start + CHUNK * 8]
            cons = net.cons[lab[start : start + CHUNK * 8]] & net.covered[orbit[at]]
            np.bitwise_or.at(taken, comp[at], net.renamer(cons, tau[at]))
        enabled = net.renamer(net.en[orbit], tau)
        spread = np.zeros(ncomp, dtype=np.uint64)
        np.bitwise_or.at(spread, comp, enabled)
        every = np.full(ncomp, ALL, dtype=np.uint64)
        np.bitwise_and.at(every, comp, enabled)
        taken, spread = _close(net, taken, gamma, False), _close(net, spread, gamma, False)
        every = _close(net, every, gamma, True)
        broken = spread & net.strong & ~taken
        broken[~cyclic] = 0
        weak = (every & ~net.strong & ~taken) != 0
        fair = cyclic & (broken == 0) & ~weak
        if must is not None:
            holds = np.zeros(ncomp, dtype=bool)
            holds[comp[must[here]]] = True
            fair &= holds
        keep = fair[comp]
        owner[pending[keep]] = comp[keep] + found
        found += ncomp
        refine = (broken != 0)[comp] & ((enabled & broken[comp]) == 0)
        if np.any((broken != 0) & (np.bincount(comp[refine], minlength=ncomp) == sizes)):
            raise ValueError("a strong constraint's renaming is not strong: asymmetric fairness")
        pending = pending[refine]
    return owner
