"""The reachable state graph of a small configuration as a networkx ``DiGraph``, written as
DOT (through pydot) or GraphML, with each violated property's shortest counterexample marked.

Nodes are fingerprints (16 hex digits) with ``depth`` (1 = initial state, as TLC counts) and a
one-line ``summary`` of the state (replicas, then the controller); edges carry the action
``label``. With symmetry a node is an orbit (its canonical representative). ``neighbourhood``
draws one counterexample with the states within a few actions of it instead of the whole
graph. Node and edge attribute
``counterexample`` names the properties whose shortest counterexample passes through them;
in DOT those are drawn red and bold, and the initial state is a double circle.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from checker.fingerprint import fingerprint, fp_hex
from checker.result import CheckResult


def summary(view: Any) -> str:
    """A short text picture of a state: per replica ``r<id> <role> e<epoch> hw=<HW> [ids]``,
    a ``DOWN`` replica marked, then the controller ``ctrl e<epoch> L<leader> isr{...}`` (two
    states that differ only in the controller read differently)."""
    if not (isinstance(view, dict) and "replicas" in view):
        return str(view)[:80]
    parts = []
    for r in view["replicas"]:
        log = " ".join(f"m{rid}/{epoch}" for rid, epoch in r["log"])
        down = "" if r["alive"] else " DOWN"
        parts.append(f"r{r['replica']}{down} {r['role']} e{r['epoch']} hw={r['hw']} [{log}]")
    ctrl = view["controller"]
    isr = ",".join(map(str, ctrl["isr"]))
    parts.append(f"ctrl e{ctrl['epoch']} L{ctrl['leader']} isr{{{isr}}}")
    return "; ".join(parts)


class TooLarge(Exception):
    """The graph passed ``max_states``; ``args[0]`` is the limit (states)."""


Canon = Callable[[Any], Any] | None
"""A canonicaliser (``ReplicaSymmetry.canonical``: one state per orbit), or None."""


def _node(graph: nx.DiGraph[str], spec: Any, state: Any, depth: int, initial: bool) -> str:
    key = fp_hex(fingerprint(state))
    if key not in graph:
        graph.add_node(key, depth=depth, summary=summary(spec.view(state)), initial=initial)
    return key


def _edge(graph: nx.DiGraph[str], source: str, target: str, label: str) -> None:
    if graph.has_edge(source, target):
        labels = graph.edges[source, target]["label"].split(" | ")
        graph.edges[source, target]["label"] = " | ".join(sorted({*labels, label}))
    else:
        graph.add_edge(source, target, label=label)


def _level(
    graph: nx.DiGraph[str],
    spec: Any,
    frontier: list[Any],
    max_states: int | None,
    canon: Callable[[Any], Any],
    **attributes: Any,
) -> list[Any]:
    """Expand ``frontier`` by one action: add each successor (after ``canon``) not yet in
    ``graph`` as a node with ``attributes`` (``depth`` among them), and every transition as an
    edge; return the new states. Raises ``TooLarge`` as soon as the graph passes
    ``max_states`` nodes."""
    following = []
    for state in frontier:
        source = fp_hex(fingerprint(state))
        for label, succ in spec.successors(state):
            succ = canon(succ)
            target = fp_hex(fingerprint(succ))
            if target not in graph:
                _node(graph, spec, succ, attributes["depth"], False)
                graph.nodes[target].update(attributes)
                following.append(succ)
                if max_states is not None and graph.number_of_nodes() > max_states:
                    raise TooLarge(max_states)
            _edge(graph, source, target, str(label))
    return following


def _same(state: Any) -> Any:
    return state


def state_graph(
    spec: Any, max_states: int | None = None, canonical: Canon = None
) -> nx.DiGraph[str]:
    """Every reachable state of ``spec`` and every transition between them, breadth first;
    with ``canonical`` one node per orbit (its representative; edge labels name the
    representative's replicas).

    ``mark`` then marks a search's counterexamples on it (it sets every ``counterexample``
    attribute). Cost: one more full search that keeps every state (use only on small configurations).
    Raises ``TooLarge`` as soon as the graph has more than ``max_states`` states.
    """
    canon = canonical or _same
    graph: nx.DiGraph[str] = nx.DiGraph()
    frontier = []
    for state in map(canon, spec.init_states()):
        if fp_hex(fingerprint(state)) not in graph:
            _node(graph, spec, state, 1, True)
            frontier.append(state)
    depth = 1
    while frontier:
        depth += 1
        frontier = _level(graph, spec, frontier, max_states, canon, depth=depth)
    return graph


def neighbourhood(
    spec: Any,
    trace: Sequence[tuple[Any, Any]],
    name: str,
    radius: int,
    max_states: int | None = None,
) -> nx.DiGraph[str]:
    """A counterexample ``trace`` (``(label, state)`` pairs, the initial state's label None;
    property ``name``) with every state within ``radius`` actions of one of its states. The
    trace's nodes and edges carry ``counterexample`` = ``name``, the others ``""``; a node's
    ``trace_index`` is its state number on the trace (1 = initial; 0 off the trace) and
    ``distance`` the actions from the trace (0 on it); ``depth`` is ``distance + 1``.
    Raises ``TooLarge`` as soon as it passes ``max_states`` states."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    keys = []
    for index, (label, state) in enumerate(trace):
        keys.append(_node(graph, spec, state, 1, index == 0))
        graph.nodes[keys[-1]].update(trace_index=index + 1, distance=0)
        if index:
            _edge(graph, keys[-2], keys[-1], str(label))
    frontier = [state for _, state in trace]
    for distance in range(1, radius + 1):
        frontier = _level(
            graph,
            spec,
            frontier,
            max_states,
            _same,
            depth=distance + 1,
            trace_index=0,
            distance=distance,
        )
    on_trace = set(itertools.pairwise(keys))
    for node in graph.nodes:
        graph.nodes[node]["counterexample"] = name if node in keys else ""
    for source, target in graph.edges:
        graph.edges[source, target]["counterexample"] = name if (source, target) in on_trace else ""
    return graph


def mark(graph: nx.DiGraph[str], result: CheckResult, canonical: Canon = None) -> None:
    """Mark every node and edge on a violation's trace in ``result`` (attribute
    ``counterexample``: the property names, comma-separated; empty elsewhere); with
    ``canonical`` (a graph of orbits) each trace state is marked at its orbit's node."""
    for node in graph.nodes:
        graph.nodes[node]["counterexample"] = ""
    for source, target in graph.edges:
        graph.edges[source, target]["counterexample"] = ""
    for violation in result.violations:
        name = violation.prop.name
        fps = [
            fp_hex(step.fingerprint if canonical is None else fingerprint(canonical(step.state)))
            for step in violation.trace
        ]
        for node in fps:
            _append(graph.nodes[node], name)
        for source, target in itertools.pairwise(fps):
            _append(graph.edges[source, target], name)


def _append(attributes: dict[Any, Any], name: str) -> None:
    attributes["counterexample"] = ",".join(filter(None, (attributes["counterexample"], name)))


def write(graph: nx.DiGraph[str], path: Path, form: str) -> None:
    """Write ``graph`` as ``dot`` or ``graphml`` to ``path`` (a temporary file, then rename).

    Raises ``OSError`` when the file cannot be written.
    """
    tmp = path.with_name(path.name + ".tmp")
    if form == "graphml":
        nx.write_graphml(graph, tmp)
    else:
        nx.nx_pydot.write_dot(_styled(graph), tmp)
    tmp.replace(path)


def _styled(graph: nx.DiGraph[str]) -> nx.DiGraph[str]:
    """A copy with DOT drawing attributes (pydot wants every value quoted as text)."""
    out: nx.DiGraph[str] = nx.DiGraph()
    for node, data in graph.nodes(data=True):
        where = (
            f"state {data['trace_index']}"
            if data.get("trace_index")
            else f"+{data['distance']}"
            if "distance" in data
            else str(data["depth"])
        )
        attrs = {
            "label": f'"{where}: {_quote(data["summary"])}"',
            "shape": "doublecircle" if data["initial"] else "box",
        }
        if data["counterexample"]:
            attrs.update(
                color="red", penwidth="2", tooltip=f'"counterexample: {data["counterexample"]}"'
            )
        out.add_node(f'"{node}"', **attrs)
    for source, target, data in graph.edges(data=True):
        attrs = {"label": f'"{_quote(data["label"])}"'}
        if data["counterexample"]:
            attrs.update(color="red", penwidth="2")
        out.add_edge(f'"{source}"', f'"{target}"', **attrs)
    return out


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
