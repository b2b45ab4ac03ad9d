"""The fair-component search and the lassos against a brute force on small random graphs.

The brute force reads the definition directly: a set ``S`` of states admits a fair cycle
when it is strongly connected with an edge inside (networkx decides), and every weak
constraint is taken inside ``S`` or disabled somewhere in it, every strong one taken inside
or disabled everywhere in it. Every subset of up to 9 states is tried.
"""

from __future__ import annotations

from itertools import combinations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.liveness.fair import Constraints, fair_components, stuttering
from checker.liveness.graph import StateGraph
from checker.liveness.lasso import Lasso, loop_in
from checker.model import Label
from checker.properties import STRONG, WEAK, Fairness

ACTIONS = ("A", "B", "C")


@st.composite
def graphs(draw: st.DrawFn) -> tuple[StateGraph, list[Fairness]]:
    n = draw(st.integers(1, 9))
    graph = StateGraph(states=list(range(n)))
    graph.labels = [Label(a, (("r", r),)) for a in ACTIONS for r in range(2)]
    for node in range(n):
        out = draw(st.lists(st.tuples(st.integers(0, 5), st.integers(0, n - 1)), max_size=3))
        graph.succ.append(sorted({(k, t) for k, t in out if t != node}))
        graph.parent.append(None)
        graph.depth.append(1)
    fairness = [
        Fairness(a, draw(st.sampled_from((WEAK, STRONG))), draw(st.booleans()))
        for a in ACTIONS
        if draw(st.booleans())
    ]
    return graph, fairness


def fair_by_definition(graph: StateGraph, rules: Constraints, subset: set[int]) -> bool:
    g = nx.DiGraph()
    g.add_nodes_from(subset)
    inner = [(u, k, t) for u in subset for k, t in graph.succ[u] if t in subset]
    g.add_edges_from((u, t) for u, _, t in inner)
    if not inner or not nx.is_strongly_connected(g):
        return False
    taken = {c for u, k, _ in inner for c in rules.taken(graph, u, k)}
    for c in range(len(rules.names)):
        enabled = [c in rules.enabled(graph, u) for u in subset]
        if c in taken:
            continue
        if rules.strong[c] and any(enabled):
            return False
        if not rules.strong[c] and all(enabled):
            return False
    return True


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_fair_components_are_the_union_of_every_fair_set(case):
    graph, fairness = case
    rules = Constraints.over(graph, fairness)
    everything = list(range(len(graph)))
    found = fair_components(graph, everything, rules)
    brute: set[int] = set()
    for size in range(2, len(graph) + 1):
        for subset in combinations(everything, size):
            if fair_by_definition(graph, rules, set(subset)):
                brute |= set(subset)
    assert {n for comp in found for n in comp} == brute
    assert all(fair_by_definition(graph, rules, set(comp)) for comp in found)


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_every_loop_is_a_fair_cycle_on_its_own(case):
    graph, fairness = case
    rules = Constraints.over(graph, fairness)
    for comp in fair_components(graph, list(range(len(graph))), rules):
        loop = loop_in(graph, comp[0], comp, rules, None)
        lasso = Lasso([(None, comp[0]), *loop], 0, False)
        states = [comp[0], *(node for _, node in loop)]
        assert states[-1] == comp[0] and all(node in comp for node in states)
        for (label, target), source in zip(loop, states, strict=False):
            assert (label, target) in graph.succ[source]
        visited = set(states)
        taken = {
            c for (k, _), u in zip(loop, states, strict=False) for c in rules.taken(graph, u, k)
        }
        for c in range(len(rules.names)):
            on = [c in rules.enabled(graph, u) for u in visited]
            assert c in taken or not (all(on) if not rules.strong[c] else any(on))
        assert lasso.loop_states == states[:-1]


def test_stuttering_is_fair_only_where_no_fair_constraint_is_enabled():
    graph = StateGraph(states=[0, 1, 2], labels=[Label("A"), Label("B")])
    graph.succ = [[(0, 1)], [(1, 2)], []]
    graph.parent, graph.depth = [None, (0, 0), (1, 1)], [1, 2, 3]
    rules = Constraints.over(graph, [Fairness("A", WEAK, False)])
    assert stuttering(graph, [0, 1, 2], rules) == [1, 2]


def test_a_fair_cycle_gives_a_lasso_that_loops_back():
    from checker.liveness.check import judge
    from checker.properties import LEADS_TO, Property

    # 0 -A-> 1 -B-> 2 -A-> 1 ; 1 -C-> 3 (the exit, strongly fair below)
    graph = StateGraph(states=["s0", "s1", "s2", "s3"])
    graph.labels = [Label("A"), Label("B"), Label("C")]
    graph.succ = [[(0, 1)], [(1, 2), (2, 3)], [(0, 1)], []]
    graph.parent = [None, (0, 0), (1, 1), (1, 2)]
    graph.depth = [1, 2, 3, 3]
    prop = Property(
        "Exits",
        "leaves the loop",
        LEADS_TO,
        lambda s: [()] if s == "s0" else [],
        goal=lambda s, key: s == "s3",
    )
    weak = Constraints.over(graph, [Fairness("A"), Fairness("B"), Fairness("C")])
    verdict = judge(graph, prop, weak)
    assert verdict.verdict == "violated" and verdict.lasso is not None
    assert not verdict.lasso.stutter and verdict.lasso.back_to == 1
    assert [n for _, n in verdict.lasso.path] == [0, 1, 2, 1]
    # C is enabled in s1 only: weak fairness lets the loop skip it, strong does not
    strong = Constraints.over(graph, [Fairness("A"), Fairness("B"), Fairness("C", STRONG)])
    assert judge(graph, prop, strong).verdict == "holds"
