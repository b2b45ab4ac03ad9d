"""The lasso of ``checker.liveness.check`` / ``checker.liveness.lasso`` on the compiled graph.

Same choices step by step: the breadth-first prefix (``StateGraph.path_to``), the shortest
way into the nearest fair ending (``bfs`` in successor order), then ``loop_in``'s greedy fair
loop, constraint by constraint in constraint order. Paths hold ``(label id or None, state)``
with the reference's numbering, so a ``Lasso`` here equals the reference's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checker.liveness.cgraph import NO_PARENT, Array, CompiledGraph
from checker.liveness.lasso import Lasso, Path


@dataclass
class Rules:
    """The fairness constraints as masks: ``strong[c]``; ``of_code[label code]`` the
    constraints a step with that label fulfils; ``covered[state]`` the constraints whose
    condition holds there; ``enabled[state]``; ``strong_mask``; ``count`` constraints;
    ``code_id[label code]`` its label id; ``labels[label id]``."""

    strong: tuple[bool, ...]
    of_code: Array
    covered: Array
    enabled: Array
    strong_mask: Any
    count: int
    idle: Array
    """Per state, whether no constraint is enabled there (a fair behaviour may stutter)."""
    code_id: Array = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def taken(self, graph: CompiledGraph, node: int, edge: int) -> int:
        """The constraints edge ``edge`` out of ``node`` fulfils (a bit mask)."""
        return int(self.of_code[graph.lab[edge]] & self.covered[node])

    def label(self, graph: CompiledGraph, edge: int) -> int:
        """Edge ``edge``'s label id."""
        return int(self.code_id[graph.lab[edge]])

    def never_taken(self, graph: CompiledGraph, lasso: Lasso) -> list[str]:
        """``Lasso.never_taken`` (labels as text need the graph's labels: the caller's)."""
        states = lasso.loop_states
        taken = set() if lasso.stutter else {k for k, _ in lasso.path[lasso.back_to + 1 :]}
        common: set[int] | None = None
        for node in states:
            here = {self.label(graph, e) for e in graph.out(node)}
            common = here if common is None else common & here
        return sorted(str(self.labels[k]) for k in (common or set()) - taken)

    labels: list[Any] = field(default_factory=list)


def path_to(graph: CompiledGraph, rules: Rules, target: int) -> Path:
    """``StateGraph.path_to``."""
    path: Path = []
    node = target
    while int(graph.parent[node]) != NO_PARENT:
        path.append((int(rules.code_id[graph.plabel[node]]), node))
        node = int(graph.parent[node])
    path.append((None, node))
    path.reverse()
    return path


def _steps(graph: CompiledGraph, rules: Rules, edges: list[int]) -> Path:
    return [(rules.label(graph, e), int(graph.dst[e])) for e in edges]


def lasso_from(
    graph: CompiledGraph,
    rules: Rules,
    start: int,
    doomed: Array,
    stops: Array,
    owner: Array,
    must: Array | None = None,
) -> Lasso:
    """``check._lasso``: from the initial state through ``start`` into the nearest ending."""
    prefix = path_to(graph, rules, start)
    goal = (stops | (owner >= 0)).astype(np.uint8)
    edges = graph.bfs(start, doomed.astype(np.uint8), goal)
    assert edges is not None, "start is doomed, so an ending is reachable"
    path = prefix + _steps(graph, rules, edges)
    end = path[-1][1]
    if stops[end]:
        return Lasso(path, len(path) - 1, True)
    component = np.flatnonzero(owner == owner[end])
    loop = loop_in(graph, rules, end, component, must)
    return Lasso(path + loop, len(path) - 1, False)


def loop_in(
    graph: CompiledGraph, rules: Rules, entry: int, component: Array, must: Array | None = None
) -> Path:
    """``lasso.loop_in``: with ``must`` (per state), the loop also passes a ``must`` state."""
    inside = np.zeros(graph.n, dtype=np.uint8)
    inside[component] = 1
    en = rules.enabled[component]
    everywhere = {
        c: int(np.count_nonzero((en >> np.uint64(c)) & np.uint64(1))) for c in range(rules.count)
    }
    loop: list[tuple[int, int]] = []  # (edge, state)
    current = entry

    def walk(goal: Array) -> None:
        nonlocal current
        edges = graph.bfs(current, inside, goal)
        assert edges is not None, "a fair component is strongly connected"
        loop.extend((e, int(graph.dst[e])) for e in edges)
        if edges:
            current = loop[-1][1]

    def enabled_at(node: int, c: int) -> bool:
        return bool(int(rules.enabled[node]) >> c & 1)

    for c in sorted(c for c, n in everywhere.items() if n):
        visited = [entry] + [node for _, node in loop]
        sources = [entry] + [node for _, node in loop[:-1]] if loop else []
        done = 0
        for (e, _), src in zip(loop, sources, strict=True):
            done |= rules.taken(graph, src, e)
        if done >> c & 1:
            continue
        if rules.strong[c] or everywhere[c] == len(component):
            walk(_edge_of(graph, rules, component, inside, c))
            edge = next(
                e
                for e in graph.out(current)
                if rules.taken(graph, current, e) >> c & 1 and inside[graph.dst[e]]
            )
            loop.append((edge, int(graph.dst[edge])))
            current = int(graph.dst[edge])
        elif all(enabled_at(node, c) for node in visited):
            goal = np.zeros(graph.n, dtype=np.uint8)
            goal[component] = ((en >> np.uint64(c)) & np.uint64(1)) == 0
            walk(goal)
    if must is not None and not any(must[node] for node in [entry] + [n for _, n in loop]):
        goal = np.zeros(graph.n, dtype=np.uint8)
        goal[component] = must[component]
        walk(goal)
    if not loop:
        edge = next(e for e in graph.out(entry) if inside[graph.dst[e]])
        loop.append((edge, int(graph.dst[edge])))
        current = int(graph.dst[edge])
    at_entry = np.zeros(graph.n, dtype=np.uint8)
    at_entry[entry] = 1
    walk(at_entry)
    return [(rules.label(graph, e), node) for e, node in loop]


def _edge_of(graph: CompiledGraph, rules: Rules, component: Array, inside: Array, c: int) -> Array:
    """The component's states with an out-edge inside it that fulfils constraint ``c``."""
    starts, ends = graph.off[component], graph.off[component + 1]
    counts = ends - starts
    edges = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    src = np.repeat(component, counts)
    hit = (rules.of_code[graph.lab[edges]] & rules.covered[src]) >> np.uint64(c) & np.uint64(1)
    hit = (hit == 1) & (inside[graph.dst[edges]] == 1)
    goal = np.zeros(graph.n, dtype=np.uint8)
    goal[src[hit]] = 1
    return goal
