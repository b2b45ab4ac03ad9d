"""``hwcheck graph``: the full reachable graph via networkx, counterexamples marked, a size
limit that refuses with the state count."""

from __future__ import annotations

import networkx as nx
import pydot
import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.view import graph as graph_view
from checker.view.run import bounds, build


def graph(*args):
    return CliRunner().invoke(cli, ["graph", *map(str, args)])


def test_graphml_holds_every_state_and_marks_each_counterexample(tmp_path):
    out = tmp_path / "g.graphml"
    result = graph("--replicas", "2", "--max-epoch", "1", "--truncation", "hw", "--format", "graphml", "--out", out)
    assert result.exit_code == 0, result.output
    g = nx.read_graphml(out)
    assert g.number_of_nodes() == 5198  # the distinct count of explore --replicas 2 --truncation hw
    assert max(int(d["depth"]) for _, d in g.nodes(data=True)) == 20
    on_loss = [n for n, d in g.nodes(data=True) if "NoCommittedLoss" in d["counterexample"]]
    assert len(on_loss) == 11  # the 11-state shortest counterexample
    loss_edges = [e for e in g.edges(data=True) if "NoCommittedLoss" in e[2]["counterexample"]]
    assert len(loss_edges) == 10
    sub = g.edge_subgraph((s, t) for s, t, _ in loss_edges)
    assert nx.is_directed_acyclic_graph(sub) and nx.dag_longest_path_length(sub) == 10
    initial = [n for n, d in g.nodes(data=True) if d["initial"]]
    assert len(initial) == 1 and "NoCommittedLoss" in g.nodes[initial[0]]["counterexample"]


def test_dot_of_one_replica_is_the_golden_graph(tmp_path):
    out = tmp_path / "g.dot"
    result = graph("--replicas", "1", "--out", out)
    assert result.exit_code == 0
    assert "16 states" in result.output and "none (every property holds)" in result.output
    (dot,) = pydot.graph_from_dot_file(str(out))
    assert len([n for n in dot.get_nodes() if n.get_name() not in ("node", "edge")]) == 16
    assert all(e.get("label") for e in dot.get_edges())


def test_refuses_above_the_limit(tmp_path):
    result = graph("--replicas", "2", "--max-epoch", "1", "--max-states", "1000", "--out", tmp_path / "g.dot")
    assert result.exit_code == 2
    assert "the graph has more than --max-states 1,000 states" in result.output
    assert not (tmp_path / "g.dot").exists()


def test_stops_as_soon_as_the_graph_passes_the_limit():
    """The 4,230-state graph of 2 replicas at epoch 1 with a limit of 100: the walk must stop
    within the level that passes 100 states, not expand the whole space first."""
    _, spec, _ = build("kafka", bounds(replicas=2, max_epoch=1))
    expanded = []
    successors = spec.successors

    def counting(state):
        expanded.append(state)
        return successors(state)

    spec.successors = counting
    with pytest.raises(graph_view.TooLarge):
        graph_view.state_graph(spec, max_states=100)
    assert len(expanded) <= 100
