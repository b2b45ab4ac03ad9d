"""The compiled core's fair components on the annotated quotient (``checker.liveness.
orbit_fair``, numpy and Tarjan's algorithm) against the reference's (``checker.liveness.
annotated``, itself held to the unfolded plain graph in ``test_liveness_annotated.py``), on
the same random quotients over the renamings of 2 and 3 ids: the same orbits in fair
components, with and without ``must`` orbits, and the same stutter orbits."""

from __future__ import annotations

import random
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pytest

from checker.liveness import annotated, orbit_net
from checker.liveness.orbit_fair import fair_components
from checker.liveness.orbit_net import Coded, Cover, Net, Renamer
from checker.liveness.orbit_view import Space
from tests.test_liveness_annotated import random_quotient


class Arrays:
    """A quotient as the compiled orbit graph's arrays: edge ``e``'s label code is ``e``."""

    def __init__(self, q: annotated.Quotient) -> None:
        edges = [(a, b, g, cons) for a, out in enumerate(q.succ) for b, g, cons in out]
        counts = np.bincount([a for a, *_ in edges], minlength=len(q.succ))
        self.off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.dst = np.array([b for _, b, _, _ in edges], dtype=np.uint32)
        self.ren = np.array([g for _, _, g, _ in edges], dtype=np.uint8)
        self.lab = np.arange(len(edges), dtype=np.int64)
        self.cons = np.array([sum(1 << c for c in cons) for *_, cons in edges], dtype=np.uint64)

    def strong_components(self, indptr, indices, k):
        graph = nx.DiGraph()
        graph.add_nodes_from(range(k))
        for a in range(k):
            graph.add_edges_from((a, int(b)) for b in indices[indptr[a] : indptr[a + 1]])
        comp = np.empty(k, dtype=np.int32)
        for number, nodes in enumerate(nx.strongly_connected_components(graph)):
            comp[list(nodes)] = number
        return comp


def net_of(q: annotated.Quotient) -> Net:
    arrays = Arrays(q)
    n, count = len(q.succ), len(q.strong)
    view = SimpleNamespace(classes=np.array([1]), cls=np.zeros(n, dtype=np.int8), group=q.group)
    space = Space([None], np.zeros((len(q.group.perms), 1), dtype=np.int64), view)  # type: ignore[arg-type]
    en = np.zeros(n, dtype=np.uint64)
    for a in range(n):
        for e in range(arrays.off[a], arrays.off[a + 1]):
            en[a] |= arrays.cons[e]
    strong = np.uint64(sum(1 << c for c, s in enumerate(q.strong) if s))
    covered = Cover(np.zeros(n, dtype=np.uint32), (1 << 64) - 1, [])
    return Net(
        arrays, space, q.group, arrays.cons, covered, Coded.of(en), strong, Renamer(q.act, count)
    )


@pytest.mark.parametrize("n, piece", [(2, None), (3, None), (3, 2)])
def test_the_array_components_are_the_reference_ones_on_random_quotients(n, piece, monkeypatch):
    if piece is not None:  # nodes and edges a few at a time: the chunked passes
        monkeypatch.setattr(orbit_net, "CHUNK", piece)
        monkeypatch.setattr(orbit_net, "EDGES", piece)
    rng = random.Random(20261130 + 7 * n)
    fair_seen = 0
    for _ in range(200 if n == 2 else 100):
        q = random_quotient(rng, n, rng.randint(1, 8))
        allowed = sorted(rng.sample(range(len(q.succ)), rng.randint(1, len(q.succ))))
        must_set = {rng.choice(allowed)} if rng.random() < 0.3 else None
        want = {x for comp in annotated.fair_components(q, allowed, must_set) for x in comp.nodes}
        net = net_of(q)
        must = None
        if must_set is not None:
            must = np.zeros(len(q.succ), dtype=bool)
            must[list(must_set)] = True
        nodes = np.array(allowed, dtype=np.int64)
        owner = np.full(len(q.succ), -1, dtype=np.int64)
        owner[nodes] = fair_components(net, nodes, must)
        assert set(np.flatnonzero(owner >= 0).tolist()) == want, (q.succ, q.strong, allowed)
        groups = {}
        for node in want:  # the same partition into components
            groups.setdefault(int(owner[node]), set()).add(node)
        reference = [set(c.nodes) for c in annotated.fair_components(q, allowed, must_set)]
        assert sorted(map(sorted, groups.values())) == sorted(map(sorted, reference))
        stutter = {a for a in allowed if not net.en[a]}
        assert stutter == set(annotated.stuttering(q, allowed))
        fair_seen += bool(want)
    assert fair_seen > 10, "too few fair components: the test is too weak"
