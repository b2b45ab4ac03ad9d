"""The reachable state graph of a small configuration as a networkx ``DiGraph``, written as
DOT (through pydot) or GraphML, with each violated property's shortest counterexample marked.

Nodes are fingerprints (16 hex digits) with ``depth`` (1 = initial state, as TLC counts) and a
one-line ``summary`` of the state; edges carry the action ``label``. Node and edge attribute
``counterexample`` names the properties whose shortest counterexample passes through them;
in DOT those are drawn red and bold, and the initial state is a double circle.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import networkx as nx

from checker.fingerprint import fingerprint, fp_hex
from checker.result import CheckResult


def summary(view: Any) -> str:
    """A short text picture of a state: per replica ``r<id> <role> e<epoch> hw=<HW> [ids]``."""
    if not (isinstance(view, dict) and "replicas" in view):
        return str(view)[:80]
    parts = []
    for r in view["replicas"]:
        log = " ".join(f"m{rid}/{epoch}" for rid, epoch in r["log"])
        parts.append(f"r{r['replica']} {r['role']} e{r['epoch']} hw={r['hw']} [{log}]")
    return "; ".join(parts)


class TooLarge(Exception):
    """The graph passed ``max_states``; ``args[0]`` is the limit (states)."""


def state_graph(spec: Any, max_states: int | None = None) -> nx.DiGraph:
    """Every reachable state of ``spec`` and every transition between them, breadth first.

    ``mark`` then marks a search's counterexamples on it (it sets every ``counterexample``
    attribute). Cost: one more full search that keeps every state (use only on small configurations).
    Raises ``TooLarge`` as soon as the graph has more than ``max_states`` states.
    """
    graph = nx.DiGraph()
    frontier = []
    for state in spec.init_states():
        fp = fingerprint(state)
        if fp_hex(fp) not in graph:
            graph.add_node(fp_hex(fp), depth=1, summary=summary(spec.view(state)), initial=True)
            frontier.append(state)
    depth = 1
    while frontier:
        depth += 1
        following = []
        for state in frontier:
            source = fp_hex(fingerprint(state))
            for label, succ in spec.successors(state):
                target = fp_hex(fingerprint(succ))
                if target not in graph:
                    graph.add_node(target, depth=depth, summary=summary(spec.view(succ)),
                                   initial=False)
                    following.append(succ)
                    if max_states is not None and graph.number_of_nodes() > max_states:
                        raise TooLarge(max_states)
                if graph.has_edge(source, target):
                    labels = graph.edges[source, target]["label"].split(" | ")
                    graph.edges[source, target]["label"] = " | ".join(
                        sorted({*labels, str(label)}))
                else:
                    graph.add_edge(source, target, label=str(label))
        frontier = following
    return graph


def mark(graph: nx.DiGraph, result: CheckResult) -> None:
    """Mark every node and edge on a violation's trace in ``result`` (attribute
    ``counterexample``: the property names, comma-separated; empty elsewhere)."""
    for node in graph.nodes:
        graph.nodes[node]["counterexample"] = ""
    for source, target in graph.edges:
        graph.edges[source, target]["counterexample"] = ""
    for violation in result.violations:
        name = violation.prop.name
        fps = [fp_hex(step.fingerprint) for step in violation.trace]
        for node in fps:
            _append(graph.nodes[node], name)
        for source, target in itertools.pairwise(fps):
            _append(graph.edges[source, target], name)


def _append(attributes: dict, name: str) -> None:
    attributes["counterexample"] = ",".join(filter(None, (attributes["counterexample"], name)))


def write(graph: nx.DiGraph, path: Path, form: str) -> None:
    """Write ``graph`` as ``dot`` or ``graphml`` to ``path`` (a temporary file, then rename).

    Raises ``OSError`` when the file cannot be written.
    """
    tmp = path.with_name(path.name + ".tmp")
    if form == "graphml":
        nx.write_graphml(graph, tmp)
    else:
        nx.nx_pydot.write_dot(_styled(graph), tmp)
    tmp.replace(path)


def _styled(graph: nx.DiGraph) -> nx.DiGraph:
    """A copy with DOT drawing attributes (pydot wants every value quoted as text)."""
    out = nx.DiGraph()
    for node, data in graph.nodes(data=True):
        attrs = {"label": f'"{data["depth"]}: {_quote(data["summary"])}"',
                 "shape": "doublecircle" if data["initial"] else "box"}
        if data["counterexample"]:
            attrs.update(color="red", penwidth="2",
                         tooltip=f'"counterexample: {data["counterexample"]}"')
        out.add_node(f'"{node}"', **attrs)
    for source, target, data in graph.edges(data=True):
        attrs = {"label": f'"{_quote(data["label"])}"'}
        if data["counterexample"]:
            attrs.update(color="red", penwidth="2")
        out.add_edge(f'"{source}"', f'"{target}"', **attrs)
    return out


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
