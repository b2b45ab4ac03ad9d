"""Lasso counterexamples: a shortest prefix to where a fair behaviour can stay, then its loop.

A lasso is a path from an initial state followed either by a cycle back to one of its states
or by stuttering for ever in its last state. The prefix is a breadth-first shortest path; the
loop is built inside the fair component, greedily, so that it takes a step of every fair
constraint the component needs taken and visits a state where every other weak constraint is
disabled (the loop is itself fair, not just its component).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass

from checker.liveness.fair import Constraints, tally
from checker.liveness.graph import StateGraph

Path = list[tuple[int | None, int]]
"""``(label id or None, state)`` pairs: the label of the step into each state."""


@dataclass(frozen=True)
class Lasso:
    """``path``: states from an initial state, with the label into each. ``back_to``: the
    index in ``path`` the behaviour returns to after the last step: for a cycle the last
    state equals ``path[back_to]``'s (so the loop is ``path[back_to:]``); when ``stutter``,
    ``back_to`` is the last index and the behaviour stays there for ever."""

    path: Path
    back_to: int
    stutter: bool

    @property
    def loop_states(self) -> list[int]:
        """The states the behaviour visits for ever."""
        if self.stutter:
            return [self.path[-1][1]]
        return [node for _, node in self.path[self.back_to : -1]]

    def never_taken(self, graph: StateGraph) -> list[str]:
        """Labels enabled in every loop state and never taken in the loop, as text: the
        steps a reader may expect to happen, which no fairness forces."""
        states = self.loop_states
        taken = set() if self.stutter else {label for label, _ in self.path[self.back_to + 1 :]}
        common: set[int] | None = None
        for node in states:
            here = {label for label, _ in graph.succ[node]}
            common = here if common is None else common & here
        return sorted(str(graph.labels[k]) for k in (common or set()) - taken)


def bfs(
    graph: StateGraph, start: int, inside: Collection[int], goal: Callable[[int], bool]
) -> Path | None:
    """The shortest path from ``start`` (not included) to a state satisfying ``goal`` that
    stays in ``inside``; ``[]`` when ``start`` satisfies it, ``None`` when none is reachable."""
    if goal(start):
        return []
    came: dict[int, tuple[int, int]] = {start: (start, -1)}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for label, target in graph.succ[node]:
            if target in came or target not in inside:
                continue
            came[target] = (node, label)
            if goal(target):
                path: Path = []
                while target != start:
                    parent, via = came[target]
                    path.append((via, target))
                    target = parent
                path.reverse()
                return path
            queue.append(target)
    return None


def loop_in(
    graph: StateGraph, entry: int, component: list[int], rules: Constraints, must: set[int] | None
) -> Path:
    """A cycle from ``entry`` back to it, inside ``component``, that is fair on its own (and
    passes a ``must`` state when given). Returns its steps, ``entry`` not repeated first."""
    inside = set(component)
    _, everywhere = tally(graph, component, rules)
    loop: Path = []
    current = entry

    def walk(goal: Callable[[int], bool]) -> None:
        nonlocal current
        steps = bfs(graph, current, inside, goal)
        assert steps is not None, "a fair component is strongly connected"
        loop.extend(steps)
        if steps:
            current = steps[-1][1]

    def edge_of(c: int) -> Callable[[int], bool]:
        return lambda node: any(
            c in rules.taken(graph, node, label) and target in inside
            for label, target in graph.succ[node]
        )

    for c in sorted(everywhere):
        visited = [entry] + [node for _, node in loop]
        sources = [entry] + [node for _, node in loop[:-1]] if loop else []
        done = {
            x
            for (label, _), src in zip(loop, sources, strict=True)
            if label is not None
            for x in rules.taken(graph, src, label)
        }
        if c in done:
            continue
        if rules.strong[c] or everywhere[c] == len(component):
            walk(edge_of(c))
            label, target = next(
                (label, target)
                for label, target in graph.succ[current]
                if c in rules.taken(graph, current, label) and target in inside
            )
            loop.append((label, target))
            current = target
        elif all(c in rules.enabled(graph, node) for node in visited):
            walk(lambda node, c=c: c not in rules.enabled(graph, node))  # type: ignore[misc]
    if must is not None and not ({entry} | {node for _, node in loop}) & must:
        walk(lambda node: node in must)
    if not loop:
        label, target = next((lb, t) for lb, t in graph.succ[entry] if t in inside)
        loop.append((label, target))
        current = target
    walk(lambda node: node == entry)
    return loop
