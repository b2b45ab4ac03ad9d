"""Fair components: where a fair behaviour can stay for ever.

Over a set of allowed states (for ``P ~> Q``, the states where ``Q`` is false), a fair
behaviour that never leaves them either

- cycles through a strongly connected set ``S`` of them, or
- stutters for ever in one of them, which is fair only where no fair action is enabled.

The most fair cycle through ``S`` visits every state and takes every edge of ``S``, so ``S``
admits a fair cycle exactly when, for every constraint ``c`` (enabledness is judged in the
whole graph, not only among allowed states):

- ``WF(c)``: ``c`` is taken on an edge inside ``S``, or disabled in some state of ``S``;
- ``SF(c)``: ``c`` is taken inside ``S``, or disabled in every state of ``S``.

A strongly connected component that breaks an ``SF`` constraint may still hold a fair subset:
its states where that constraint is enabled can be in no fair cycle, so they are removed and
the rest decomposed again (the Emerson-Lei refinement; the algorithm of TLC's liveness
checker and of LTSmin's ``--ltl`` without the tableau). A component that breaks a ``WF``
constraint holds none. Components come from networkx (the compiled core: Tarjan's, in C).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from checker.liveness.graph import StateGraph
from checker.properties import STRONG, Fairness


@dataclass(frozen=True)
class Constraints:
    """The fairness constraints over a graph's labels: ``names[k]`` (``WF(Fetch(follower=1,
    leader=0))`` or ``WF(Fetch)``), ``strong[k]``, ``of_label[label id]`` the constraints a
    step with that label fulfils (and makes enabled), and ``guards[k]``, the state condition
    under which constraint ``k`` covers its action (``None``: always)."""

    names: tuple[str, ...]
    strong: tuple[bool, ...]
    of_label: tuple[tuple[int, ...], ...]
    guards: tuple[Callable[[Any], bool] | None, ...] = ()
    _cache: dict[int, frozenset[int]] = field(default_factory=dict, compare=False, repr=False)
    _enabled: dict[int, frozenset[int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def over(
        cls,
        graph: StateGraph,
        fairness: Sequence[Fairness],
        conditions: Mapping[str, Callable[[Any], bool]] | None = None,
    ) -> Constraints:
        """One constraint per ``Fairness``, or per label of its action when ``each``;
        ``conditions``: the model's named state conditions (``Fairness.when``). Raises
        ``KeyError`` for a condition the model does not have."""
        names: list[str] = []
        strong: list[bool] = []
        guards: list[Callable[[Any], bool] | None] = []
        of_label: list[list[int]] = [[] for _ in graph.labels]
        for f in fairness:
            guard = (conditions or {})[f.when] if f.when else None
            when = f" when {f.when}" if f.when else ""
            kind = "SF" if f.strength == STRONG else "WF"
            ids = [k for k, label in enumerate(graph.labels) if label.action == f.action]
            groups = [[k] for k in ids] if f.each else ([ids] if ids else [])
            for group in groups:
                shown = str(graph.labels[group[0]]) if f.each else f.action
                for k in group:
                    of_label[k].append(len(names))
                names.append(f"{kind}({shown}{when})")
                strong.append(f.strength == STRONG)
                guards.append(guard)
        return cls(tuple(names), tuple(strong), tuple(tuple(c) for c in of_label), tuple(guards))

    def covered(self, graph: StateGraph, node: int) -> frozenset[int]:
        """The constraints whose condition holds in ``node`` (cached)."""
        found = self._cache.get(node)
        if found is None:
            state = graph.states[node]
            found = frozenset(
                c for c, guard in enumerate(self.guards) if guard is None or guard(state)
            )
            self._cache[node] = found
        return found

    def taken(self, graph: StateGraph, node: int, label: int) -> list[int]:
        """The constraints a step with ``label`` out of ``node`` fulfils."""
        here = self.covered(graph, node)
        return [c for c in self.of_label[label] if c in here]

    def enabled(self, graph: StateGraph, node: int) -> frozenset[int]:
        """The constraints enabled in ``node`` (some out-edge, self-loops excluded, fulfils
        them; cached)."""
        found = self._enabled.get(node)
        if found is None:
            found = frozenset(
                c for label, _ in graph.succ[node] for c in self.taken(graph, node, label)
            )
            self._enabled[node] = found
        return found


def components(graph: StateGraph, allowed: Sequence[int]) -> list[list[int]]:
    """The strongly connected components of the graph restricted to ``allowed`` that contain a
    cycle (more than one state: self-loops are not edges here), each sorted (networkx)."""
    inside = set(allowed)
    sub: nx.DiGraph[int] = nx.DiGraph()
    sub.add_nodes_from(inside)
    sub.add_edges_from(
        (node, target) for node in inside for _, target in graph.succ[node] if target in inside
    )
    return [sorted(c) for c in nx.strongly_connected_components(sub) if len(c) > 1]


def tally(
    graph: StateGraph, component: Sequence[int], rules: Constraints
) -> tuple[set[int], dict[int, int]]:
    """``(constraints taken on an edge inside component, per constraint the number of its
    states where it is enabled)``."""
    inside = set(component)
    taken: set[int] = set()
    count: dict[int, int] = {}
    for node in component:
        for c in rules.enabled(graph, node):
            count[c] = count.get(c, 0) + 1
        for label, target in graph.succ[node]:
            if target in inside:
                taken.update(rules.taken(graph, node, label))
    return taken, count


def fair_components(
    graph: StateGraph,
    allowed: Sequence[int],
    rules: Constraints,
    must: set[int] | None = None,
) -> list[list[int]]:
    """Every maximal set of ``allowed`` states that admits a fair cycle (and, with ``must``,
    contains one of those states), sorted by smallest state."""
    result: list[list[int]] = []
    pending = components(graph, allowed)
    while pending:
        component = pending.pop()
        taken, count = tally(graph, component, rules)
        broken = {c for c in count if rules.strong[c] and c not in taken}
        if broken:
            rest = [n for n in component if not broken & rules.enabled(graph, n)]
            pending.extend(components(graph, rest))
            continue
        if any(
            not rules.strong[c] and n == len(component) and c not in taken for c, n in count.items()
        ):
            continue
        if must is not None and not must.intersection(component):
            continue
        result.append(component)
    return sorted(result)


def stuttering(graph: StateGraph, allowed: Sequence[int], rules: Constraints) -> list[int]:
    """The ``allowed`` states where a behaviour may stutter for ever: no fair constraint is
    enabled there (a deadlock, or only unfair actions left)."""
    return [node for node in allowed if not rules.enabled(graph, node)]
