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

import numpy as np

from checker.liveness import orbit_net
from checker.liveness.cgraph import Array
from checker.liveness.orbit_net import Inner, Net, ranges, sorted_set

ALL = ~np.uint64(0)
UNSET = np.uint8(255)
"""A renaming number not yet given (there are at most 24)."""


def _spanning(net: Net, inner: Inner, comp: Array, roots: Array) -> Array:
    """``tau`` of each local node (``uint8`` renaming numbers, ``UNSET`` outside the
    components of ``roots``): breadth first from each component's root (the identity) over
    the edges inside its component."""
    tau = np.full(inner.k, UNSET, dtype=np.uint8)
    tau[roots] = 0
    frontier = roots
    while len(frontier):
        found = []
        for start in range(0, len(frontier), orbit_net.CHUNK):
            here = frontier[start : start + orbit_net.CHUNK]
            pos, idx = ranges(inner.indptr[here], inner.indptr[here + 1])
            target = inner.dst[idx]
            new = (tau[target] == UNSET) & (comp[target] == comp[here[pos]])
            values = net.mul[tau[here[pos[new]]], net.inv[inner.ren[idx[new]]]]
            tau[target[new]] = values  # any of a node's parents will do: a spanning tree
            found.append(target[new])
        frontier = sorted_set(np.concatenate(found))
    return tau


def _gamma(net: Net, gens: Array) -> Array:
    """Per component, the group its loops' renamings (``gens``, bit masks over renaming
    numbers) generate, as such a mask."""
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


def _cyclic(inner: Inner, comp: Array, ncomp: int) -> Array:
    """Per strong component, whether it has a cycle: an edge inside it (two nodes or more
    have one; a single node, a self-loop). A byte a component, the edges ``EDGES`` at once."""
    cyclic = np.zeros(ncomp, dtype=bool)
    for src, part in inner.chunks():
        owner = comp[src]
        cyclic[owner[owner == comp[inner.dst[part]]]] = True
    return cyclic


def _roots(comp: Array, ncomp: int) -> Array:
    """Per component ``0`` to ``ncomp - 1`` (each holding a node), its first node's position
    in ``comp`` (``-1``: in none), sized by the components, ``EDGES`` nodes at once."""
    roots = np.full(ncomp, len(comp), dtype=np.int64)
    for start in range(0, len(comp), orbit_net.EDGES):
        owner = comp[start : start + orbit_net.EDGES]
        inside = owner >= 0
        np.minimum.at(roots, owner[inside], np.flatnonzero(inside) + start)
    return roots


def _round(net: Net, here: Array, must: Array | None) -> tuple[Array, Array, Array]:
    """One refinement round over the pair nodes ``here`` (sorted): ``(component, fair,
    refine)``, per node its cyclic strong component among ``here`` (-1 in none; numbered
    from 0), per component whether it is fair (and holds a ``must`` node, given ``must``),
    and the positions of the nodes to judge again (in a component failing a strong
    constraint, where that constraint's renaming is not enabled). Every array is sized by
    the nodes and the components with cycles; internal edges are taken ``EDGES`` at once."""
    inner = net.inner(here)
    scc = net.graph.strong_components(inner.indptr, inner.dst, inner.k)
    cyclic = _cyclic(inner, scc, int(scc.max()) + 1)
    number = np.cumsum(cyclic, dtype=np.int32) - 1  # cyclic components, renumbered
    comp = number[scc]
    comp[~cyclic[scc]] = -1
    del scc, number
    ncomp = int(cyclic.sum())
    if not ncomp:
        return comp, np.zeros(0, dtype=bool), np.zeros(0, dtype=np.int64)
    tau = _spanning(net, inner, comp, _roots(comp, ncomp))
    orbit = here // net.space.K if net.space.K > 1 else here
    gens = np.zeros(ncomp, dtype=np.int64)
    taken = np.zeros(ncomp, dtype=np.uint64)
    for src, part in inner.chunks():
        dst, owner = inner.dst[part], comp[src]
        keep = (owner >= 0) & (owner == comp[dst])
        src, dst, owner = src[keep], dst[keep], owner[keep]
        ren, lab = inner.ren[part][keep], inner.lab[part][keep]
        loops = net.mul[net.mul[tau[src], net.inv[ren]], net.inv[tau[dst]]]
        np.bitwise_or.at(gens, owner, np.left_shift(1, loops.astype(np.int64)))
        cons = net.cons[lab] & net.covered(orbit[src])
        np.bitwise_or.at(taken, owner, net.renamer(cons, tau[src]))
    del inner
    gamma = _gamma(net, gens & ~np.int64(1))
    spread = np.zeros(ncomp, dtype=np.uint64)
    every = np.full(ncomp, ALL, dtype=np.uint64)
    for start in range(0, len(here), orbit_net.EDGES):
        at = slice(start, start + orbit_net.EDGES)
        inside = comp[at] >= 0
        owner = comp[at][inside]
        enabled = net.renamer(net.en[orbit[at][inside]], tau[at][inside])
        np.bitwise_or.at(spread, owner, enabled)
        np.bitwise_and.at(every, owner, enabled)
    taken, spread = _close(net, taken, gamma, False), _close(net, spread, gamma, False)
    every = _close(net, every, gamma, True)
    broken = spread & net.strong & ~taken
    weak = (every & ~net.strong & ~taken) != 0
    fair = (broken == 0) & ~weak
    if must is not None:
        holds = np.zeros(ncomp, dtype=bool)
        inside = comp >= 0
        holds[comp[inside & must[here]]] = True
        fair &= holds
    refine: list[Array] = []
    for start in range(0, len(here), orbit_net.EDGES):
        at = slice(start, start + orbit_net.EDGES)
        owner = comp[at]
        cand = np.flatnonzero((owner >= 0) & (broken[np.maximum(owner, 0)] != 0)) + start
        enabled = net.renamer(net.en[orbit[cand]], tau[cand])
        refine.append(cand[(enabled & broken[comp[cand]]) == 0])
    again = np.concatenate(refine) if refine else np.zeros(0, dtype=np.int64)
    sizes = np.bincount(comp[comp >= 0], minlength=ncomp)
    if np.any((broken != 0) & (np.bincount(comp[again], minlength=ncomp) == sizes)):
        raise ValueError("a strong constraint's renaming is not strong: asymmetric fairness")
    return comp, fair, again


def fair_components(net: Net, nodes: Array, must: Array | None = None) -> Array:
    """Per pair of ``nodes`` (sorted ``int64``), by position, the fair component of those
    pairs holding it (``int32``), -1 for none (with ``must``, bool per pair node, only the
    components holding a ``must`` node); numbered arbitrarily. Arrays are sized by ``nodes``, their
    components with cycles and ``EDGES`` edges, never by the whole pair space or all edges.
    Raises ``ValueError`` when a strong constraint's renaming is not strong (asymmetric
    fairness)."""
    owner = np.full(len(nodes), -1, dtype=np.int32)  # local positions are int32 too
    pending: Array | None = None  # positions in nodes, increasing; None for all
    found = 0
    while pending is None or len(pending):
        here = nodes if pending is None else nodes[pending]
        comp, fair, again = _round(net, here, must)
        if not len(fair):
            break
        keep = np.flatnonzero((comp >= 0) & fair[np.maximum(comp, 0)])
        owner[keep if pending is None else pending[keep]] = comp[keep] + found
        found += len(fair)
        pending = again if pending is None else pending[again]
    return owner
