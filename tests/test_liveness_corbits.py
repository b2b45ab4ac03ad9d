"""The compiled orbit graph (``checker.liveness.corbits``, ``checker/native/ograph.c``) against
the reference orbit graph (``checker.liveness.orbits.build``).

Numbered alike on Kafka (2, 3 and 4 replicas) and the TLA+ port: the same orbits in the same
order (every compiled representative decodes to the reference's), every orbit's out-edges in
order (label, target orbit, renaming), parents, depths, entry renamings and stabilizers;
held in files (``lfiles.c``), the same arrays.
The plain graph's walks (atoms, label codes, reachability, components, shortest paths) run on
it over orbits; more than 4 replicas are refused before building; ``max_states`` is kept.
"""

from __future__ import annotations

import errno
import resource
import signal

import networkx as nx
import numpy as np
import pytest

from checker import symmetry
from checker.composition.compose import TlaConfig, build_model
from checker.liveness import orbit_run, orbits
from checker.liveness import run as live
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


ARRAYS = ("off", "dst", "lab", "parent", "plabel", "depth", "ren", "stab", "pren", "entry")


def mapped_files() -> int:
    """How many graph files this process has mapped (``lfiles.c`` names them so)."""
    with open("/proc/self/maps", encoding="ascii") as maps:
        return sum("hwcheck-graph-" in line for line in maps)


GROWN = ("kafka", Config(replicas=3, max_records=2, max_epoch=1))
"""345,204 orbits and 1,397,265 edges: past the first room of every array (65,536 orbits,
262,144 edges), so each file is grown, and moved, several times."""


@pytest.mark.parametrize("case", ["kafka, 3 replicas, 2 records, epoch 1", "the TLA+ port"])
def test_the_orbit_graph_held_in_files_is_the_graph_in_memory(case, tmp_path):
    """With a folder (past ``--memory``) every array is a file there, unlinked at once and
    unmapped when the graph is closed; the graph is the same, array for array."""
    _, compiled, init = made(*(GROWN if case.startswith("kafka") else CASES[case]))
    memory = CompiledOrbitGraph(compiled, init, 10**6)
    files = CompiledOrbitGraph(compiled, init, 10**6, folder=str(tmp_path))
    try:
        assert files.sealed and mapped_files() >= len(ARRAYS)
        assert list(tmp_path.iterdir()) == []
        for name in ARRAYS:
            assert (getattr(files, name) == getattr(memory, name)).all(), name
        assert (files.conditions() == memory.conditions()).all()
        for prop in range(len(compiled.liveness_names)):
            got, want = files.atoms(prop), memory.atoms(prop)
            assert (got[0] == want[0]).all() and (got[1] == want[1]).all()
        assert all(files.find(memory.row(node)) == node for node in range(0, memory.n, 997))
    finally:
        memory.close()
        files.close()
    assert mapped_files() == 0 and list(tmp_path.iterdir()) == []


def test_the_plain_graph_held_in_files_is_the_graph_in_memory(tmp_path):
    """The plain graph (337,534 states: its arrays grown too) and its rows, in files."""
    _, compiled, init = made(*CASES["kafka, 3 replicas, 1 record, epoch 1"])
    plain = CompiledGraph(compiled, init, 10**6)
    filed = CompiledGraph(compiled, init, 10**6, folder=str(tmp_path))
    try:
        assert filed.n == 337_534 and mapped_files() >= 6
        for name in ("off", "dst", "lab", "parent", "plabel", "depth", "rows"):
            assert (getattr(filed, name) == getattr(plain, name)).all(), name
    finally:
        plain.close()
        filed.close()
    assert mapped_files() == 0 and list(tmp_path.iterdir()) == []


def test_a_folder_that_takes_no_file_is_an_os_error(tmp_path):
    """A missing folder, and a file grown past the size the process may write
    (``RLIMIT_FSIZE``, 2 MiB: the first room of every file fits, the edges' third does not),
    where the reserve before the mapping grows fails as on a full disk, instead of a SIGBUS
    on a later write; the liveness pass gives the first as its error, in one line."""
    _, compiled, init = made("kafka", Config(replicas=2))
    with pytest.raises(OSError, match="No such file") as missing:
        CompiledOrbitGraph(compiled, init, 10**6, folder=str(tmp_path / "gone"))
    assert missing.value.errno == errno.ENOENT and missing.value.filename == str(tmp_path / "gone")
    spec, _ = build_model("kafka", Config(replicas=2))
    found = live.check(
        spec,
        live.liveness_of(spec),
        live.fairness_of(spec),
        core="compiled",
        model=compiled,
        symmetric=True,
        folder=str(tmp_path / "gone"),
    )
    assert found.verdicts == [] and found.error == (
        f"the liveness graph's files in {tmp_path / 'gone'}: No such file or directory "
        "(TMPDIR names the folder they go in)"
    )
    _, grown, init = made(*GROWN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    before = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 21, hard))
    try:
        with pytest.raises(OSError, match="File too large") as large:
            CompiledOrbitGraph(grown, init, 10**6, folder=str(tmp_path))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, before)
    assert large.value.errno == errno.EFBIG and mapped_files() == 0


def test_past_memory_a_graph_the_compiled_core_cannot_build_is_refused(tmp_path):
    """With a folder (the graph past memory), 5 replicas (past the compiled orbit graph's 4)
    are refused before anything is built, rather than built in memory by the reference."""
    spec, compiled, _ = made("kafka", Config(replicas=5))
    with pytest.raises(GraphTooLarge, match="compiled orbit graph takes at most 4 replicas"):
        orbit_run.check_orbits(
            spec, live.liveness_of(spec), [], 10**6, "compiled", compiled, str(tmp_path)
        )
