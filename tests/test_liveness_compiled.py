"""Liveness on the compiled core (``checker.liveness.compiled``) against the reference.

The same graph (states numbered alike: every compiled row decodes to the reference state of
the same number), the same atoms as the Python predicates on every state, and the same
``Liveness``: sizes, verdicts, keys, opened counts, cut texts, never-taken labels and lassos.
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.composition import compose
from checker.liveness import run as live
from checker.liveness.cgraph import CompiledGraph
from checker.liveness.graph import build
from checker.native.layout import compiled_model
from checker.properties import EVENTUALLY_ALWAYS
from spec.kafka import progress


def made(model: str, **bounds):
    spec, _ = compose.build_model(model, compose.make_config(model, bounds))
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    return spec, compiled


def both(model: str, fair=(), unfair=(), **bounds):
    spec, compiled = made(model, **bounds)
    props = spec.liveness()
    rules = live.fairness_of(spec, fair, unfair)
    reference = live.check(spec, props, rules)
    fast = live.check(spec, props, rules, core="compiled", model=compiled)
    assert (reference.core, fast.core) == ("reference", "compiled"), fast.note
    return reference, fast


def assert_same(reference: live.Liveness, fast: live.Liveness) -> None:
    assert (fast.states, fast.edges, fast.error) == (reference.states, reference.edges, "")
    assert fast.fairness == reference.fairness
    for a, b in zip(reference.verdicts, fast.verdicts, strict=True):
        assert (b.prop.name, b.verdict, b.key, b.opened, b.cut) == (
            a.prop.name,
            a.verdict,
            a.key,
            a.opened,
            a.cut,
        )
        assert b.never_taken == a.never_taken
        assert b.lasso == a.lasso  # same numbering: same states, labels, loop
    assert fast.lassos == reference.lassos


TLA = [({"truncation": variant}, (), ()) for variant in ("hw", "kip101", "kip279", "kip320")] + [
    ({}, (), ("BecomeLeader",)),
    ({}, ("WF(each FencedFollowerFetch)",), ()),
    ({"max_epoch": 1}, (), ("LeaderWrite",)),
]


@pytest.mark.parametrize(("bounds", "fair", "unfair"), TLA)
def test_tla_port_same_liveness(bounds, fair, unfair):
    reference, fast = both("tla", fair, unfair, replicas=2, **bounds)
    assert_same(reference, fast)


KIP966 = {"max_records": 1, "max_unclean_shutdowns": 1, "max_epoch": 1}
KAFKA = [  # unknown: a leader crashed in the last epoch waits for a decision the bound forbids
    ({}, {"holds", "unknown"}),
    ({"truncation": "hw"}, {"holds", "unknown", "violated"}),
    ({"truncation": "kafka-2.8"}, {"holds", "unknown", "violated"}),
    ({**KIP966, "unclean_election": False}, {"holds", "unknown"}),
    ({**KIP966, "unclean_election": True}, {"holds", "unknown", "violated"}),
    ({"max_records": 1, "with_mechanisms": ("split-fetch",)}, {"holds", "unknown"}),
    ({"max_records": 1, "with_mechanisms": ("async-isr",)}, {"holds", "unknown"}),
]


@pytest.mark.parametrize(
    ("bounds", "verdicts"),
    KAFKA,
    ids=["-".join(f"{k}={v}" for k, v in b.items()) or "kafka-4.1" for b, _ in KAFKA],
)
def test_kafka_same_liveness(bounds, verdicts):
    reference, fast = both("kafka", replicas=2, **bounds)
    assert_same(reference, fast)
    assert {v.verdict for v in fast.verdicts} == verdicts  # not all comparisons are holds


@pytest.mark.parametrize(
    ("model", "bounds"),
    [
        ("tla", {"replicas": 2}),
        ("kafka", {"replicas": 2, "truncation": "hw"}),
        (
            "kafka",
            {"replicas": 2, "max_records": 1, "truncation": "kip966", "unclean_election": True},
        ),
    ],
)
def test_atoms_equal_the_python_predicates_on_every_state(model, bounds):
    spec, compiled = made(model, **bounds)
    graph = build(spec)
    fast = CompiledGraph(compiled, [compiled.encode(s) for s in spec.init_states()], 10**6)
    try:
        assert fast.n == len(graph)
        for node, state in enumerate(graph.states):
            assert compiled.decode(fast.row(node)) == state
        conditions = fast.conditions()
        if model == "kafka":
            offline = np.array([progress.leader_offline(s) for s in graph.states])
            assert ((conditions & 1) == 1).tolist() == offline.tolist()
            cut = [spec.cut(s) is not None for s in graph.states]
            assert ((conditions >> 31) == 1).tolist() == cut and any(cut)
        else:
            assert not conditions.any()
        for index, prop in enumerate(spec.liveness()):
            assert compiled.liveness_names[index] == prop.name
            opened, goal, count = fast.atoms(index)
            if prop.kind == EVENTUALLY_ALWAYS:  # bit 0: P is false there
                bad = [not prop.predicate(s) for s in graph.states]
                assert ((opened & np.uint64(1)) == 1).tolist() == bad
                continue
            assert count == sum(len(prop.predicate(s)) for s in graph.states)
            bits = [b for b in range(64) if int(np.bitwise_or.reduce(opened | goal)) >> b & 1]
            keys = {b: compiled.liveness_key(index, b) for b in range(64)}
            for node, state in enumerate(graph.states):
                mine = {keys[b] for b in range(64) if int(opened[node]) >> b & 1}
                assert mine == set(prop.predicate(state)), (prop.name, state)
                for b in bits:
                    assert bool(int(goal[node]) >> b & 1) == bool(prop.goal(state, keys[b]))
    finally:
        fast.close()


def test_a_graph_past_the_budget_says_so_on_both_cores():
    spec, compiled = made("tla", replicas=2)
    props, rules = spec.liveness(), live.fairness_of(spec)
    reference = live.check(spec, props, rules, 1000)
    fast = live.check(spec, props, rules, 1000, core="compiled", model=compiled)
    assert fast.error == reference.error and "passed 1,000 states" in fast.error


def test_without_a_compiled_form_the_reference_runs_and_says_why():
    spec, _ = made("tla", replicas=2)
    found = live.check(spec, spec.liveness(), live.fairness_of(spec), core="compiled")
    assert (found.core, found.note) == ("reference", "no compiled core")


def test_explore_core_choice_reaches_liveness(tmp_path, monkeypatch):
    """``explore --core compiled --liveness`` judges on the compiled core (where its
    certificate lets it run) and reports what ``--core reference`` reports."""
    import json

    from click.testing import CliRunner

    from checker.cli import cli
    from checker.liveness import compiled

    monkeypatch.setenv("HWCHECK_UNCERTIFIED_CORE", "1")
    calls: list[int] = []
    judge = compiled.judge_compiled

    def spy(*args, **kwargs):
        calls.append(1)
        return judge(*args, **kwargs)

    monkeypatch.setattr(compiled, "judge_compiled", spy)
    found = {}
    for core in ("compiled", "reference"):
        out = tmp_path / core
        args = ["explore", "--no-progress", "--show", "none", "--out", str(out), "--core", core]
        args += ["--model", "tla", "--replicas", "2", "--liveness"]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 12, result.output
        assert "5,973 states, 11,732 edges" in result.stderr
        props = json.loads((out / "summary.json").read_text())["properties"]
        found[core] = {  # the leads-to properties, but for the trace file's folder
            n: {k: v for k, v in p.items() if k != "trace"}
            for n, p in props.items()
            if "-" in p["kind"]
        }
        traces = sorted(out.glob("*/trace.json"))
        found[core]["traces"] = [(t.parent.name, json.loads(t.read_text())) for t in traces]
        assert len(calls) == 1  # the compiled run only
    assert len(found["compiled"]) == 3 and found["compiled"] == found["reference"]


@pytest.fixture(scope="module")
def a_graph():
    """A compiled liveness graph, for its library's ``lg_scc`` (any model's library has it)."""
    spec, compiled = made("kafka", replicas=2, max_records=1, max_epoch=1)
    graph = CompiledGraph(compiled, [compiled.encode(s) for s in spec.init_states()], 10_000)
    yield graph
    graph.close()


GRAPHS = st.integers(min_value=0, max_value=12).flatmap(
    lambda k: st.tuples(
        st.just(k),
        st.lists(
            st.tuples(st.integers(0, max(k - 1, 0)), st.integers(0, max(k - 1, 0))),
            max_size=0 if k == 0 else 40,
        ),
    )
)
"""Random graphs of up to 12 nodes: ``(k, edges)``, edges that may repeat and loop."""


def csr(k: int, edges: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """``edges`` (sorted in place) of ``k`` nodes as CSR: ``(indptr: int64, indices: int32)``."""
    edges.sort()
    indptr = np.zeros(k + 1, dtype=np.int64)
    for src, _ in edges:
        indptr[src + 1] += 1
    return np.cumsum(indptr), np.array([dst for _, dst in edges], dtype=np.int32)


@settings(max_examples=300, deadline=None)
@given(GRAPHS)
def test_strong_components_are_networkx_s(a_graph, drawn):
    """Tarjan's components in C (``scc.c``, Pearce's form) partition the nodes as networkx's
    do, on random graphs with repeated edges and self-loops (scipy, used before, never
    returned on a row that repeats a column), numbered as Tarjan completes them: no edge
    leads to a higher number."""
    k, edges = drawn
    indptr, indices = csr(k, edges)
    comp = a_graph.strong_components(indptr, indices, k)
    found = {frozenset(int(v) for v in np.flatnonzero(comp == c)) for c in set(comp.tolist())}
    graph = nx.DiGraph()
    graph.add_nodes_from(range(k))
    graph.add_edges_from(edges)
    assert found == {frozenset(c) for c in nx.strongly_connected_components(graph)}
    assert sorted(set(comp.tolist())) == list(range(len(found)))
    assert all(comp[src] >= comp[dst] for src, dst in edges)


@settings(max_examples=200, deadline=None)
@given(GRAPHS)
def test_the_reverse_graph_holds_every_edge_once_by_target(a_graph, drawn):
    """``lg_transpose_count`` and ``_place`` (``scc.c``, the leads-to judge's backward
    search): node ``t``'s sources are those of the edges into ``t``, repeated as the edges
    repeat, in increasing order, on random graphs with repeated edges and self-loops, their
    edges given in parts of one to three sources."""
    k, edges = drawn
    indptr, indices = csr(k, edges)
    sources = np.repeat(np.arange(k, dtype=np.int32), np.diff(indptr))
    cuts = [int(indptr[v]) for v in range(0, k, 1 + k % 3)] + [len(edges)]

    def parts():
        for a, b in itertools.pairwise(cuts):
            yield sources[a:b], indices[a:b]

    rptr, rsrc = a_graph.reverse(k, parts)
    assert rptr[0] == 0 and rptr[-1] == len(edges)
    for t in range(k):
        assert rsrc[rptr[t] : rptr[t + 1]].tolist() == sorted(s for s, d in edges if d == t)


def test_a_long_path_needs_no_c_stack(a_graph):
    """A chain of a million states and a cycle closing it: one component, found without
    recursion (a recursive Tarjan would overflow C's stack)."""
    k = 1_000_000
    indptr = np.arange(k + 1, dtype=np.int64)
    indices = np.arange(1, k + 1, dtype=np.int32) % k
    comp = a_graph.strong_components(indptr, indices, k)
    assert set(comp.tolist()) == {0}
