"""The search for a liveness violation on the orbit graph (``checker.liveness.orbits``),
sound under symmetry.

The fairness constraints are those of the plain graph (``checker.liveness.fair``), over every
renaming of every label the orbit graph holds, so renaming maps a constraint to a constraint.
``<>[]P`` is judged on the orbits themselves; ``P ~> Q`` on the pairs ``(orbit, key)`` that
the obligations reach through states where ``Q`` is false (the key in the representative's
names, the smallest among the renamings that fix the representative), an annotated quotient
of the plain graph's ``(state, key)`` pairs. Fair components come from
``checker.liveness.annotated``; the verdicts are the plain check's (``checker.liveness.check``).

``checker.liveness.orbit_check`` turns what is found into verdicts and concrete lassos.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from checker.liveness import annotated
from checker.liveness.fair import Constraints
from checker.liveness.graph import StateGraph
from checker.liveness.orbits import OrbitGraph, rename_key, rename_label
from checker.model import Spec
from checker.properties import EVENTUALLY_ALWAYS, LEADS_TO, Fairness, Property


@dataclass
class Setting:
    """One orbit graph with its constraints: ``rules`` over ``universe`` (every renaming of
    every label), ``uid[label id]`` a label's place in it, ``act`` the renaming table."""

    spec: Spec
    graph: OrbitGraph
    fairness: Sequence[Fairness]
    names: tuple[str, ...]
    conditions: Mapping[str, Any] | None = None
    """The guards' named conditions (default: the model's ``conditions()``)."""
    rules: Constraints = field(init=False)
    uid: list[int] = field(init=False)
    act: list[list[int]] = field(init=False)

    def __post_init__(self) -> None:
        perms = self.graph.group.perms
        universe: dict[Any, int] = {}
        for label in self.graph.labels:
            for perm in perms:
                universe.setdefault(rename_label(label, perm, self.names), len(universe))
        holder = StateGraph(labels=list(universe))
        conditions = self.conditions
        if conditions is None:
            conditions = getattr(self.spec, "conditions", dict)()
        self.rules = Constraints.over(holder, self.fairness, conditions)
        self.uid = [universe[label] for label in self.graph.labels]
        of = self.rules.of_label
        act = [list(range(len(self.rules.names))) for _ in perms]
        for label, u in universe.items():
            for g, perm in enumerate(perms):
                image = universe[rename_label(label, perm, self.names)]
                for c, d in zip(of[u], of[image], strict=True):
                    act[g][c] = d
        self.act = act

    def cons(self, node: int, label: int) -> frozenset[int]:
        """The constraints the step ``label`` out of ``node``'s representative fulfils."""
        state = self.graph.states[node]
        guards = self.rules.guards
        return frozenset(
            c
            for c in self.rules.of_label[self.uid[label]]
            if (guard := guards[c]) is None or guard(state)
        )

    def quotient(self, succ: list[list[tuple[int, int, frozenset[int]]]]) -> annotated.Quotient:
        return annotated.Quotient(self.graph.group, succ, self.act, self.rules.strong)


@dataclass
class Pairs:
    """The annotated quotient a judgement runs on: ``orbit[n]`` and ``key[n]`` of node ``n``
    (``key`` None for ``<>[]P``), its edges ``(label id, target, g)`` (``g``: as in
    ``OrbitGraph.succ``, the target pair's representative is ``g`` applied to the concrete
    pair reached), and the ``allowed`` nodes (where ``Q`` is false)."""

    orbit: list[int] = field(default_factory=list)
    key: list[Any] = field(default_factory=list)
    succ: list[list[tuple[int, int, int]]] = field(default_factory=list)
    allowed: set[int] = field(default_factory=set)
    index: dict[tuple[int, Any], int] = field(default_factory=dict)


def smallest_key(graph: OrbitGraph, prop: Property, orbit: int, key: Any) -> tuple[Any, int]:
    """``(key, h)``: among the renamings ``h`` that fix ``orbit``'s representative, the one
    that makes ``key`` smallest (by its text), and the key it makes."""
    perms, ids = graph.group.perms, prop.key_ids or ()
    options = [(repr(k := rename_key(key, perms[h], ids)), h, k) for h in graph.stabilizer[orbit]]
    _, h, best = min(options, key=lambda o: (o[0], o[1]))
    return best, h


def _orbits(setting: Setting) -> Pairs:
    g = setting.graph
    n = len(g)
    return Pairs(list(range(n)), [None] * n, [list(out) for out in g.succ], set(range(n)))


def _pairs(
    setting: Setting, prop: Property, starts: list[tuple[int, Any]]
) -> tuple[Pairs, list[int]]:
    """The ``(orbit, key)`` pairs the obligations ``starts`` reach while ``Q`` is false
    (and the first pair past each way out, not allowed and not expanded), and the node of
    each start."""
    g, perms = setting.graph, setting.graph.group.perms
    ids = prop.key_ids or ()
    goal = prop.goal
    assert goal is not None
    pairs = Pairs()
    todo: list[int] = []

    def node(orbit: int, key: Any) -> tuple[int, int]:
        best, h = smallest_key(g, prop, orbit, key)
        found = pairs.index.get((orbit, best))
        if found is None:
            found = pairs.index[(orbit, best)] = len(pairs.orbit)
            pairs.orbit.append(orbit)
            pairs.key.append(best)
            pairs.succ.append([])
            if not goal(g.states[orbit], best):
                pairs.allowed.add(found)
                todo.append(found)
        return found, h

    heads = [node(orbit, key)[0] for orbit, key in starts]
    while todo:
        at = todo.pop()
        orbit, key = pairs.orbit[at], pairs.key[at]
        for label, target, r in g.succ[orbit]:
            found, h = node(target, rename_key(key, perms[r], ids))
            pairs.succ[at].append((label, found, g.group.mul[h][r]))
    return pairs, heads


@dataclass(frozen=True)
class Ending:
    """Where a behaviour that keeps an obligation open (or ``P`` false) can end, on a
    quotient's nodes: ``stops`` (stutter nodes), ``doomed`` (the allowed nodes that reach an
    ending) and ``owner`` (a fair-component node's component, as its nodes). Containers only,
    so that an array judge (``checker.liveness.orbit_arrays``) can answer alike."""

    stops: Container[int]
    doomed: Container[int]
    owner: Members

    def ends(self, node: int) -> bool:
        """Whether ``node`` is an ending: a stutter node or in a fair component."""
        return node in self.stops or self.owner.get(node) is not None


class Members(Protocol):
    """A fair-component node's component (its nodes), or None off every fair component."""

    def get(self, node: int) -> Container[int] | None: ...


def _ending(setting: Setting, pairs: Pairs, cuts: set[int], must: set[int] | None) -> Ending:
    """``(stutter nodes, doomed nodes, component of each fair-component node)``, as
    ``checker.liveness.check._ending`` on the plain graph (``cuts``: orbits)."""
    succ = [
        [(t, g, setting.cons(pairs.orbit[n], label)) for label, t, g in out]
        for n, out in enumerate(pairs.succ)
    ]
    q = setting.quotient(succ)
    cut = {n for n in pairs.allowed if pairs.orbit[n] in cuts}
    comps = annotated.fair_components(q, pairs.allowed, must)
    comps = [c for c in comps if not cut.issuperset(c.nodes)]
    stops = set(annotated.stuttering(q, pairs.allowed)) - cut
    if must is not None:
        stops &= must
    owner = {n: frozenset(comp.nodes) for comp in comps for n in comp.nodes}
    pred: list[list[int]] = [[] for _ in pairs.succ]
    for n, out in enumerate(pairs.succ):
        for _, t, _ in out:
            pred[t].append(n)
    doomed = stops | set(owner)
    todo = list(doomed)
    while todo:
        for before in pred[todo.pop()]:
            if before in pairs.allowed and before not in doomed:
                doomed.add(before)
                todo.append(before)
    return Ending(stops, doomed, owner)


@dataclass(frozen=True)
class Found:
    """A violation on the quotient: the nodes whose obligation (or bad state) may start its
    lasso (``starts``: per key, in the keys' text order, the shallowest doomed one; the
    shortest lasso among them is printed, as the plain check prints the shortest over its
    keys), the ``ending`` and, for ``<>[]P``, the ``must`` (bad) orbits."""

    pairs: Any
    """``Pairs``, or an array judge's view with the same ``orbit``, ``key``, ``succ`` and
    ``index.get`` (``checker.liveness.orbit_view``)."""
    starts: tuple[int, ...]
    ending: Ending
    must: Container[int] | None


def find(setting: Setting, prop: Property, cuts: set[int]) -> Found | None:
    """Where ``prop`` fails on the orbit graph with the ``cuts`` orbits blocked as endings
    (``checker.liveness.check._ending``), or None where it holds."""
    g = setting.graph
    if prop.kind == EVENTUALLY_ALWAYS:
        bad = {n for n, s in enumerate(g.states) if not prop.predicate(s)}
        if not bad:
            return None
        pairs = _orbits(setting)
        ending = _ending(setting, pairs, cuts, bad)
        ends = set(ending.stops) | set(ending.owner)  # type: ignore[call-overload]
        if not ends:
            return None
        return Found(pairs, (min(ends, key=lambda n: (g.depth[n], n)),), ending, bad)
    starts = [(n, key) for n, s in enumerate(g.states) for key in prop.predicate(s)]
    if not starts:
        return None
    pairs, heads = _pairs(setting, prop, starts)
    ending = _ending(setting, pairs, cuts, None)
    doomed = [n for n in heads if n in ending.doomed]
    if not doomed:
        return None
    shallowest: dict[str, tuple[tuple[int, int], int]] = {}
    for n in doomed:
        text, rank = repr(pairs.key[n]), (g.depth[pairs.orbit[n]], pairs.orbit[n])
        if text not in shallowest or rank < shallowest[text][0]:
            shallowest[text] = (rank, n)
    return Found(pairs, tuple(shallowest[t][1] for t in sorted(shallowest)), ending, None)


def opened(setting: Setting, prop: Property) -> int:
    """The plain check's count: concrete states that open an obligation, with each obligation
    (``<>[]P``: the states where ``P`` is false)."""
    g = setting.graph
    if prop.kind == LEADS_TO:
        return sum(g.orbit_size(n) * len(prop.predicate(s)) for n, s in enumerate(g.states))
    return sum(g.orbit_size(n) for n, s in enumerate(g.states) if not prop.predicate(s))
