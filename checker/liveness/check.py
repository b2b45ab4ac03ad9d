"""Judge liveness properties over the fair behaviours of a state graph.

- ``P ~> Q`` (leads-to) fails exactly when some reachable state opens an obligation ``k``
  (``k`` in ``P(state)``) from which a fair behaviour can stay for ever in states where
  ``Q(state, k)`` is false: it reaches, through such states, a fair component of them or a
  state where it may fairly stutter (``checker.liveness.fair``).
- ``<>[]P`` (eventually always) fails exactly when a fair behaviour passes a state where
  ``P`` is false infinitely often: a fair component with such a state, or such a state where
  it may stutter.

The counterexample is a lasso (``checker.liveness.lasso``): the shortest prefix to the
earliest state that opens a violated obligation (for ``<>[]P``, to the nearest bad
component), then the shortest way into the component, then a fair loop. Obligations are
tried in sorted order and the shortest lasso is kept (ties: the first obligation), so the
answer is the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from checker.liveness.fair import Constraints, fair_components, stuttering
from checker.liveness.graph import StateGraph
from checker.liveness.lasso import Lasso, bfs, loop_in
from checker.properties import EVENTUALLY_ALWAYS, LEADS_TO, Property

Cut = Callable[[Any], "str | None"]
"""The model's ``cut(state)``: where a bound, not the protocol, stops a step that progress
needs (the epoch budget stops the next election), a sentence saying so; else ``None``."""


@dataclass(frozen=True)
class Verdict:
    """One liveness property's answer: ``lasso`` is ``None`` when it holds; ``key`` is the
    violated obligation (for leads-to); ``opened``: states where ``P`` opens an obligation
    (0 means the property holds vacuously); ``never_taken``: see ``Lasso.never_taken``.
    ``cut``: when non-empty, the only lassos found end stuttering, or loop, where a bound
    stops progress (the sentence of the model's ``cut``): the answer is unknown at these bounds,
    and ``lasso`` shows one such behaviour."""

    prop: Property
    lasso: Lasso | None
    key: Any = None
    opened: int = 0
    never_taken: tuple[str, ...] = ()
    cut: str = ""

    @property
    def verdict(self) -> str:
        """``holds``, ``violated`` or ``unknown`` (cut by a bound)."""
        if self.lasso is None:
            return "holds"
        return "unknown" if self.cut else "violated"


def judge(graph: StateGraph, prop: Property, rules: Constraints, cut: Cut | None = None) -> Verdict:
    """The verdict of one liveness property over ``graph`` under ``rules``: first over the
    behaviours no bound cuts, then (when they all satisfy it) over those that end where
    ``cut`` says a bound stopped progress."""
    if prop.kind not in (LEADS_TO, EVENTUALLY_ALWAYS):
        raise ValueError(f"{prop.name} is not a liveness property (kind {prop.kind})")
    run = _leads_to if prop.kind == LEADS_TO else _eventually_always
    cuts = {} if cut is None else {n: why for n, s in enumerate(graph.states) if (why := cut(s))}
    verdict = run(graph, prop, rules, set(cuts))
    if verdict.lasso is not None or not cuts:
        return verdict
    cutoff = run(graph, prop, rules, set())
    if cutoff.lasso is None:
        return verdict
    return replace(cutoff, cut=cuts[cutoff.lasso.path[-1][1]])


def judge_all(
    graph: StateGraph, props: Sequence[Property], rules: Constraints, cut: Cut | None = None
) -> list[Verdict]:
    """``judge`` for each property, in order."""
    return [judge(graph, prop, rules, cut) for prop in props]


def _ending(
    graph: StateGraph, cuts: set[int], allowed: list[int], rules: Constraints, must: set[int] | None
) -> tuple[set[int], set[int], dict[int, list[int]]]:
    """``(stutter states, states that can reach a fair ending inside allowed, component of
    each component state)``; a state in ``cuts`` is no stutter state, and a fair component
    of ``cuts`` states alone is no ending (its epoch is the last the bound allows, so the
    election a larger bound makes fair never comes: the controller's fencing of a live leader
    leaves such a loop, its followers fetching from it for ever)."""
    comps = [c for c in fair_components(graph, allowed, rules, must) if not cuts.issuperset(c)]
    stops = set(stuttering(graph, allowed, rules)) - cuts
    if must is not None:
        stops &= must
    owner = {node: comp for comp in comps for node in comp}
    targets = stops | set(owner)
    inside = set(allowed)
    doomed = set(targets)
    queue = list(targets)
    pred = graph.pred()
    while queue:
        node = queue.pop()
        for before in pred[node]:
            if before in inside and before not in doomed:
                doomed.add(before)
                queue.append(before)
    return stops, doomed, owner


def _lasso(
    graph: StateGraph,
    start: int,
    doomed: set[int],
    stops: set[int],
    owner: dict[int, list[int]],
    rules: Constraints,
    must: set[int] | None,
) -> Lasso:
    """The lasso from the initial state through ``start`` into the nearest fair ending."""
    prefix = graph.path_to(start)
    into = bfs(graph, start, doomed, lambda node: node in stops or node in owner)
    assert into is not None, "start is doomed, so an ending is reachable"
    path = prefix + into
    end = path[-1][1]
    if end in stops:
        return Lasso(path, len(path) - 1, True)
    loop = loop_in(graph, end, owner[end], rules, must)
    return Lasso(path + loop, len(path) - 1, False)


def _size(lasso: Lasso) -> tuple[int, int]:
    return (lasso.back_to, len(lasso.path))


def _leads_to(graph: StateGraph, prop: Property, rules: Constraints, cuts: set[int]) -> Verdict:
    assert prop.goal is not None
    opened: dict[Any, list[int]] = {}
    for node, state in enumerate(graph.states):
        for key in prop.predicate(state):
            opened.setdefault(key, []).append(node)
    best: Verdict | None = None
    for key in sorted(opened, key=repr):
        allowed = [n for n, s in enumerate(graph.states) if not prop.goal(s, key)]
        if not allowed:
            continue
        stops, doomed, owner = _ending(graph, cuts, allowed, rules, None)
        starts = [n for n in opened[key] if n in doomed]
        if not starts:
            continue
        start = min(starts, key=lambda n: (graph.depth[n], n))
        lasso = _lasso(graph, start, doomed, stops, owner, rules, None)
        if best is None or best.lasso is None or _size(lasso) < _size(best.lasso):
            best = Verdict(prop, lasso, key)
    count = sum(len(nodes) for nodes in opened.values())
    if best is None:
        return Verdict(prop, None, opened=count)
    assert best.lasso is not None
    return Verdict(prop, best.lasso, best.key, count, tuple(best.lasso.never_taken(graph)))


def _eventually_always(
    graph: StateGraph, prop: Property, rules: Constraints, cuts: set[int]
) -> Verdict:
    bad = {n for n, s in enumerate(graph.states) if not prop.predicate(s)}
    if not bad:
        return Verdict(prop, None)
    everything = list(range(len(graph)))
    stops, doomed, owner = _ending(graph, cuts, everything, rules, bad)
    endings = stops | set(owner)
    if not endings:
        return Verdict(prop, None, opened=len(bad))
    end = min(endings, key=lambda n: (graph.depth[n], n))
    lasso = _lasso(graph, end, doomed, stops, owner, rules, bad)
    return Verdict(prop, lasso, None, len(bad), tuple(lasso.never_taken(graph)))
