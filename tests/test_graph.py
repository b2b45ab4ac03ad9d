"""``hwcheck graph``: the full reachable graph via networkx, counterexamples marked, a size
limit that refuses with the state count."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pydot
import pytest
from click.testing import CliRunner
from reference import enumerate_states

from checker.cli import cli
from checker.commands.options import bounds, build
from checker.composition.compose import build_model
from checker.renderers import graph as graph_view
from spec.kafka import Config


def graph(*args):
    return CliRunner().invoke(cli, ["graph", *map(str, args)])


def test_graphml_holds_every_state_and_marks_each_counterexample(tmp_path):
    out = tmp_path / "g.graphml"
    result = graph(
        "--replicas",
        "2",
        "--max-epoch",
        "1",
        "--truncation",
        "hw",
        "--format",
        "graphml",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    g = nx.read_graphml(out)
    assert g.number_of_nodes() == 4276  # the distinct count of explore --replicas 2 --truncation hw
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
    """kafka-4.1 at 1 replica, 2 records, epoch 2, 1 crash, counted by hand: before the first
    election the initial state, crashed, restarted (3); elected and leading with 0, 1, 2
    records, before and after that crash (2 x 4); the leader crashed with 0, 1, 2 records
    (3), leaderless in epoch 1 with the crashed leader in the ELR (3), restarted (3), elected
    from the ELR in epoch 2 (3), leading in it (3); from its 0 and 1 records it writes epoch-2
    records: 1 and 2 of epoch 2, and epoch 0 then epoch 2 (3). 3+8+3+3+3+3+3+3 = 29, without
    ``fence-live``. With it (the preset), the controller may also fence the running leader:
    28 states more, as many as the naive enumerator of ``tests/reference.py`` finds."""
    out = tmp_path / "g.dot"
    result = graph("--replicas", "1", "--without", "fence-live", "--out", out)
    assert result.exit_code == 0
    assert "29 states" in result.output and "none (every property holds)" in result.output
    (dot,) = pydot.graph_from_dot_file(str(out))
    assert len([n for n in dot.get_nodes() if n.get_name() not in ("node", "edge")]) == 29
    assert all(e.get("label") for e in dot.get_edges())
    spec, _ = build_model("kafka", Config(replicas=1))
    assert enumerate_states(spec)[0] == 57
    assert "57 states" in graph("--replicas", "1", "--out", tmp_path / "all.dot").output


def test_refuses_above_the_limit(tmp_path):
    result = graph(
        "--replicas", "2", "--max-epoch", "1", "--max-states", "1000", "--out", tmp_path / "g.dot"
    )
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


GALLERY_LOSS = (
    Path(__file__).resolve().parents[1]
    / "reports"
    / "gallery"
    / "hw-truncation-loss"
    / "trace.json"
)


def test_trace_with_radius_0_is_the_trace_itself(tmp_path):
    out = tmp_path / "t.graphml"
    result = graph("--trace", GALLERY_LOSS, "--radius", "0", "--format", "graphml", "--out", out)
    assert result.exit_code == 0, result.output
    g = nx.read_graphml(out)
    document = json.loads(GALLERY_LOSS.read_text())
    assert g.number_of_nodes() == document["length"] == 14
    assert g.number_of_edges() == 13
    assert sorted(int(d["trace_index"]) for _, d in g.nodes(data=True)) == list(range(1, 15))
    labels = {d["label"] for _, _, d in g.edges(data=True)}
    assert labels == {s["action"] for s in document["steps"][1:]}


def test_trace_neighbourhood_is_one_action_away(tmp_path):
    out = tmp_path / "t.graphml"
    assert graph("--trace", GALLERY_LOSS, "--format", "graphml", "--out", out).exit_code == 0
    g = nx.read_graphml(out)
    on = {n for n, d in g.nodes(data=True) if d["counterexample"] == "NoCommittedLoss"}
    off = set(g.nodes) - on
    assert len(on) == 14 and off
    assert all(
        int(g.nodes[n]["distance"]) == 1 and any(p in on for p in g.predecessors(n)) for n in off
    )
    # by hand: the trace's states' successors, off the trace, are exactly the other nodes
    _, spec, _ = build("kafka", bounds(replicas=2, truncation="hw", max_epoch=1, max_crashes=2))
    from checker.fingerprint import fingerprint, fp_hex
    from checker.formats import tracefile

    _, violation = tracefile.replay(GALLERY_LOSS, tracefile.load(GALLERY_LOSS))
    expected = {
        fp_hex(fingerprint(succ))
        for step in violation.trace
        for _, succ in spec.successors(step.state)
    } - on
    assert off == expected
    assert all("ctrl e" in d["summary"] for _, d in g.nodes(data=True))


def test_symmetry_draws_one_node_per_orbit_as_explore_counts(tmp_path):
    from checker.search.reference.bfs import explore

    out = tmp_path / "o.graphml"
    result = graph(
        "--replicas",
        "2",
        "--truncation",
        "hw",
        "--max-epoch",
        "1",
        "--symmetry",
        "--format",
        "graphml",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    assert "orbits" in result.output
    _, spec, props = build("kafka", bounds(replicas=2, truncation="hw", max_epoch=1))
    orbits = explore(spec, props, symmetry=True).stats.distinct
    assert nx.read_graphml(out).number_of_nodes() == orbits


def test_the_limit_says_what_it_counts_and_trace_refuses_model_flags(tmp_path):
    result = graph(
        "--replicas", "2", "--truncation", "hw", "--max-states", "5000", "--out", tmp_path / "g.dot"
    )  # fmt: skip
    assert result.exit_code == 2
    assert "counted without symmetry" in result.output and "--symmetry" in result.output
    mixed = graph("--trace", GALLERY_LOSS, "--replicas", "3", "--out", tmp_path / "x.dot")
    assert mixed.exit_code == 2
    assert "--replicas does not go with --trace" in mixed.output
    assert graph("--radius", "2", "--out", tmp_path / "x.dot").exit_code == 2
