"""The whole reachable state graph of a model, in memory, for liveness checking.

Liveness is judged on the plain graph (no symmetry reduction: a property or a fairness
constraint that names a replica, ``WF(each Fetch)``, is not preserved by the quotient; see
Emerson & Sistla, "Utilizing symmetry when model-checking under fairness assumptions", 1997).

States are numbered in breadth-first order from the initial states, successors in the
model's own order, so numbering, shortest prefixes and lassos are the same on every run.
Self-loops (a step that changes nothing) are dropped: in TLA+ they are stutters, which
neither enable nor fulfil a fairness constraint.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from checker.model import Label, Spec, State


class GraphTooLarge(RuntimeError):
    """The graph passed the state budget; the message gives the budget and how far it got."""


@dataclass
class StateGraph:
    """States ``0..n-1`` with their out-edges.

    ``states[i]``: the state. ``succ[i]``: ``(label id, target)`` pairs, self-loops dropped,
    in the model's order. ``labels[k]``: the label with id ``k``. ``parent[i]``: ``(state,
    label id)`` of its breadth-first parent, ``None`` for an initial state. ``depth[i]``:
    states on the shortest path to it, itself included (an initial state has depth 1).
    ``seconds``: time to build it.
    """

    states: list[State] = field(default_factory=list)
    succ: list[list[tuple[int, int]]] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    parent: list[tuple[int, int] | None] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    seconds: float = 0.0
    _pred: list[list[int]] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.states)

    @property
    def edges(self) -> int:
        """Edges kept (self-loops dropped)."""
        return sum(len(out) for out in self.succ)

    def pred(self) -> list[list[int]]:
        """``pred()[j]``: the states with an edge to ``j`` (built once, on first use)."""
        if self._pred is None:
            pred: list[list[int]] = [[] for _ in self.states]
            for i, out in enumerate(self.succ):
                for _, j in out:
                    pred[j].append(i)
            self._pred = pred
        return self._pred

    def path_to(self, target: int) -> list[tuple[int | None, int]]:
        """The breadth-first (shortest) path from an initial state to ``target``, as ``(label
        id or None, state)`` pairs, initial state first."""
        path: list[tuple[int | None, int]] = []
        node = target
        while True:
            entry = self.parent[node]
            if entry is None:
                path.append((None, node))
                path.reverse()
                return path
            path.append((entry[1], node))
            node = entry[0]


def build(
    spec: Spec,
    max_states: int = 2_000_000,
    on_progress: Callable[[int, int], None] | None = None,
) -> StateGraph:
    """Every state reachable from ``spec``'s initial states, breadth first.

    ``max_states``: the most states to hold (states); ``on_progress(states, depth)`` is called
    once per breadth-first level. Raises ``GraphTooLarge`` past ``max_states``; the model's own
    exceptions pass through.
    """
    start = time.monotonic()
    graph = StateGraph()
    index: dict[State, int] = {}
    label_ids: dict[Label, int] = {}

    def add(state: State, parent: tuple[int, int] | None, depth: int) -> int:
        found = index.get(state)
        if found is not None:
            return found
        if len(graph.states) >= max_states:
            raise GraphTooLarge(
                f"the liveness graph passed {max_states:,} states at depth {depth} "
                "(liveness holds the whole plain graph in memory; lower the bounds)"
            )
        number = len(graph.states)
        index[state] = number
        graph.states.append(state)
        graph.succ.append([])
        graph.parent.append(parent)
        graph.depth.append(depth)
        return number

    frontier = [add(state, None, 1) for state in spec.init_states()]
    depth = 1
    while frontier:
        if on_progress is not None:
            on_progress(len(graph.states), depth)
        following: list[int] = []
        for node in frontier:
            out = graph.succ[node]
            for label, state in spec.successors(graph.states[node]):
                known = len(graph.states)
                target = add(state, None, depth + 1)
                if target == node:
                    continue
                label_id = label_ids.get(label)
                if label_id is None:
                    label_id = label_ids[label] = len(graph.labels)
                    graph.labels.append(label)
                if target == known:
                    graph.parent[target] = (node, label_id)
                    following.append(target)
                out.append((label_id, target))
        frontier = following
        depth += 1
    graph.seconds = time.monotonic() - start
    return graph
