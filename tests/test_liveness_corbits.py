"""The compiled orbit graph (``checker.liveness.corbits``, ``checker/native/ograph.c``) against
the reference orbit graph (``checker.liveness.orbits.build``).

Numbered alike on Kafka (2, 3 and 4 replicas) and the TLA+ port: the same orbits in the same
order (every compiled representative decodes to the reference's), every orbit's out-edges in
order (label, target orbit, renaming), parents, depths, entry renamings and stabilizers.
The plain graph's walks (atoms, label codes, reachability, components, shortest paths) run on
it over orbits; more than 4 replicas are refused before building; ``max_states`` is kept.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from checker import symmetry
from checker.composition.compose import TlaConfig, build_model
from checker.liveness import orbits
from checker.liveness.cgraph import NO_PARENT, CompiledGraph
from checker.liveness.corbits import CompiledOrbitGraph
from checker.liveness.graph import GraphTooLarge
from checker.native.build import NativeUnavailable
from checker.native.layout import compiled_model
from spec.kafka import Config


def made(model: str, config):
    spec, _ = build_model(model, config)
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    return spec, compiled, [compiled.encode(s) for s in spec.init_states()]


def assert_same(reference: orbits.OrbitGraph, fast: CompiledOrbitGraph, compiled) -> None:
    assert fast.n == len(reference)
    assert fast.edges == reference.edges
    assert fast.nperms == len(reference.group.perms)
    labels = compiled.labels
    assert [labels[int(c)] for c in fast.codes()] == reference.labels
    for node, state in enumerate(reference.states):
        assert compiled.decode(fast.row(node)) == state
        assert fast.find(fast.row(node)) == node
        edges = [
            (labels[int(fast.lab[e])], int(fast.dst[e]), int(fast.ren[e])) for e in fast.out(node)
        ]
        assert edges == [(reference.labels[k], t, g) for k, t, g in reference.succ[node]], node
        up = reference.parent[node]
        if up is None:
            assert fast.parent[node] == NO_PARENT
            assert fast.entry[node] == reference.entry[node]
        else:
            parent, label, g = up
            assert (int(fast.parent[node]), labels[int(fast.plabel[node])]) == (
                parent,
                reference.labels[label],
            )
            assert fast.pren[node] == g
        assert fast.depth[node] == reference.depth[node]
        assert fast.stabilizer(node) == reference.stabilizer[node]
        assert fast.orbit_size(node) == reference.orbit_size(node)


CASES = {
    "kafka, 2 replicas": ("kafka", Config(replicas=2)),
    "kafka, 2 replicas, hw truncation": ("kafka", Config(replicas=2, truncation="hw")),
    "kafka, 3 replicas, 1 record, epoch 0": (
        "kafka",
        Config(replicas=3, max_records=1, max_epoch=0),
    ),
    "kafka, 3 replicas, 1 record, epoch 1": (
        "kafka",
        Config(replicas=3, max_records=1, max_epoch=1),
    ),
    "kafka, 4 replicas, no record, epoch 0, no crash": (
        "kafka",
        Config(replicas=4, max_records=0, max_epoch=0, max_crashes=0),
    ),
    "kafka, 4 replicas, no record, epoch 0": (
        "kafka",
        Config(replicas=4, max_records=0, max_epoch=0),
    ),
    "the TLA+ port": ("tla", TlaConfig()),
    "the TLA+ port, 4 replicas, log size 1, 1 record, epoch 1": (
        "tla",
        TlaConfig(replicas=4, log_size=1, max_records=1, max_epoch=1),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_compiled_orbit_graph_is_the_reference_s(case):
    spec, compiled, init = made(*CASES[case])
    reference = orbits.build(spec, symmetry.for_spec(spec), 10**6)
    fast = CompiledOrbitGraph(compiled, init, 10**6)
    try:
        assert_same(reference, fast, compiled)
    finally:
        fast.close()


def test_a_row_that_is_no_representative_is_not_found():
    _, compiled, init = made("kafka", Config(replicas=2, max_records=1, max_epoch=1))
    fast = CompiledOrbitGraph(compiled, init, 10**6)
    try:
        reps = {fast.row(node) for node in range(fast.n)}
        plain = CompiledGraph(compiled, init, 10**6)
        others = [plain.row(i) for i in range(plain.n) if plain.row(i) not in reps]
        plain.close()
        assert others, "some state is not its orbit's representative"
        assert all(fast.find(row) == -1 for row in others)
        with pytest.raises(ValueError, match="bytes"):
            fast.find(b"\0")
    finally:
        fast.close()


def test_the_plain_graph_walks_run_on_orbits():
    """Atoms and conditions are the rows' (as the plain graph gives them for the same rows);
    reachability, components and shortest paths follow the orbit edges."""
    spec, compiled, init = made("kafka", Config(replicas=2, max_records=1, max_epoch=1))
    reference = orbits.build(spec, symmetry.for_spec(spec), 10**6)
    fast = CompiledOrbitGraph(compiled, init, 10**6)
    plain = CompiledGraph(compiled, init, 10**6)
    try:
        where = {plain.row(i): i for i in range(plain.n)}
        at = np.array([where[fast.row(node)] for node in range(fast.n)])
        assert (fast.conditions() == plain.conditions()[at]).all()
        for prop in range(len(compiled.liveness_names)):
            opened, goal, _ = fast.atoms(prop)
            p_opened, p_goal, _ = plain.atoms(prop)
            assert (opened == p_opened[at]).all() and (goal == p_goal[at]).all()
        every = np.ones(fast.n, dtype=bool)
        start = np.zeros(fast.n, dtype=bool)
        start[fast.parent == NO_PARENT] = True
        assert fast.reach(every, start).all()
        nodes = np.arange(fast.n, dtype=np.int64)
        indptr, indices, _ = fast.subgraph(nodes)
        comp = fast.strong_components(indptr, indices, fast.n)
        drawn: nx.DiGraph[int] = nx.DiGraph()
        drawn.add_nodes_from(range(fast.n))
        drawn.add_edges_from((a, b) for a, out in enumerate(reference.succ) for _, b, _ in out)
        found = {frozenset(np.flatnonzero(comp == c).tolist()) for c in set(comp.tolist())}
        assert found == {frozenset(c) for c in nx.strongly_connected_components(drawn)}
        far = int(np.argmax(fast.depth))
        goal = np.zeros(fast.n, dtype=np.uint8)
        goal[far] = 1
        path = fast.bfs(0, np.ones(fast.n, dtype=np.uint8), goal)
        assert path is not None and int(fast.dst[path[-1]]) == far
    finally:
        fast.close()
        plain.close()


def test_a_model_without_symmetry_is_its_plain_graph():
    """The AsyncIsr module names a fixed leader: one renaming, and the orbit graph is the
    plain graph (the same rows and edges, every renaming the identity). Sealed, its rows are
    replayed and its atoms and conditions decoded to the plain graph's."""
    _, compiled, init = made("tla", TlaConfig(truncation="async-isr"))
    fast = CompiledOrbitGraph(compiled, init, 10**6)
    plain = CompiledGraph(compiled, init, 10**6)
    try:
        assert fast.nperms == 1 and fast.sealed and fast.rows is None
        assert [fast.row(i) for i in range(fast.n)] == [plain.row(i) for i in range(plain.n)]
        assert (fast.off == plain.off).all()
        assert (fast.conditions() == plain.conditions()).all()
        for prop in range(len(compiled.liveness_names)):
            got, want = fast.atoms(prop), plain.atoms(prop)
            assert (got[0] == want[0]).all() and (got[1] == want[1]).all() and got[2] == want[2]
        assert (fast.dst == plain.dst).all() and (fast.lab == plain.lab).all()
        assert not fast.ren.any() and (fast.stab == 1).all() and not fast.entry.any()
    finally:
        fast.close()
        plain.close()


def test_more_than_four_replicas_are_refused_before_building():
    """Refused, not built: with room for one orbit, a build would have passed it."""
    _, compiled, init = made("kafka", Config(replicas=5))
    with pytest.raises(NativeUnavailable, match="at most 24"):
        CompiledOrbitGraph(compiled, init, 1)


def test_past_max_states_the_orbit_graph_says_so():
    spec, compiled, init = made("kafka", Config(replicas=2))
    with pytest.raises(GraphTooLarge, match="orbit graph passed 1,000 orbits at depth") as got:
        CompiledOrbitGraph(compiled, init, 1000)
    with pytest.raises(GraphTooLarge) as reference:
        orbits.build(spec, symmetry.for_spec(spec), 1000)
    assert str(got.value) == str(reference.value)
