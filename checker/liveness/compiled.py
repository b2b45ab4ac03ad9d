"""Liveness on the compiled core: ``checker.liveness.check``'s algorithm on arrays.

The graph is built in C (``checker.liveness.cgraph``), numbered as the reference numbers it;
the model's liveness atoms and named conditions are evaluated for every state in C
(``model_liveness``, ``model_conditions``). Fairness constraints are numbered as
``Constraints.over`` numbers them and held as ``uint64`` bit masks (at most 64). Then, per
obligation key in the reference's order: the states where ``Q`` is false, restricted to those
reachable from the states opening the key (every fair ending, path and loop the reference
finds from those states lies there); strongly connected components (Tarjan's, in C) refined by
Emerson-Lei on strong constraints (``checker.liveness.fair``); stuttering states; backward
reachability; then the lasso built exactly as ``lasso.py`` builds it (``checker.liveness.
cloop``). Verdicts, keys, lassos and counts equal the reference's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from checker.liveness import scratch
from checker.liveness.cgraph import Array, CompiledGraph
from checker.liveness.check import Verdict
from checker.liveness.cloop import Rules, lasso_from
from checker.liveness.fair import Constraints
from checker.liveness.graph import StateGraph
from checker.liveness.lasso import Lasso
from checker.model import CompiledModel, Spec
from checker.native.core import NLABELS
from checker.properties import EVENTUALLY_ALWAYS, LEADS_TO, Fairness, Property

CUT = np.uint32(1 << 31)
"""``MODEL_CUT_BIT`` (``model.h``)."""


class NotCompiled(RuntimeError):
    """These properties or this fairness have no compiled form; the message says why."""


@dataclass
class Judged:
    """What ``judge_compiled`` returns: the verdicts, the lassos as ``(label, state)``
    pairs, the graph's size."""

    verdicts: list[Verdict]
    lassos: dict[str, list[tuple[Any, Any]]]
    states: int
    edges: int


def unsupported(model: CompiledModel, props: list[Property]) -> str:
    """Why ``props`` cannot be judged on ``model``'s compiled core, or ""."""
    names = tuple(model.liveness_names)
    for prop in props:
        if prop.kind not in (LEADS_TO, EVENTUALLY_ALWAYS):
            return f"{prop.name} is not a liveness property"
        if prop.name not in names:
            return f"{prop.name} has no compiled form"
    unfit = getattr(model, "liveness_unfit", lambda: None)()
    return str(unfit) if unfit else ""


class Named:
    """A condition placeholder for ``Constraints.over``: it only records the name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, state: Any) -> bool:
        raise AssertionError("compiled conditions are evaluated in C")


def rules_of(
    graph: CompiledGraph, model: CompiledModel, labels: list[Any], fairness: list[Fairness]
) -> Rules:
    """The fairness constraints as bit masks, numbered as ``Constraints.over`` numbers them."""
    names = tuple(model.condition_names)
    named = {name: Named(name) for name in names}
    rules = Constraints.over(StateGraph(labels=labels), fairness, named)
    count = len(rules.names)
    if count > 64:
        raise NotCompiled(f"{count} fairness constraints (the compiled check takes 64)")
    of_code = np.zeros(NLABELS, dtype=np.uint64)
    for label_id, code in enumerate(graph.codes()):
        for c in rules.of_label[label_id]:
            of_code[code] |= np.uint64(1 << c)
    always = sum(1 << c for c, guard in enumerate(rules.guards) if guard is None)
    covered = np.full(graph.n, always, dtype=np.uint64)
    if names:
        bits = graph.conditions()
        for i, name in enumerate(names):
            guarded = sum(
                1 << c
                for c, g in enumerate(rules.guards)
                if isinstance(g, Named) and g.name == name
            )
            if guarded:
                covered[(bits >> np.uint32(i)) & np.uint32(1) == 1] |= np.uint64(guarded)
    strong = sum(1 << c for c, s in enumerate(rules.strong) if s)
    enabled = graph.enabled(of_code, covered)
    return Rules(rules.strong, of_code, covered, enabled, np.uint64(strong), count, enabled == 0)


def _sccs(graph: CompiledGraph, nodes: Array) -> tuple[Array, Array, Array, Array]:
    """``(component per node, its size, the subgraph's edge sources and indices positions)``
    of the graph induced by ``nodes``."""
    indptr, indices, eids = graph.subgraph(nodes)
    k = len(nodes)
    comp = graph.strong_components(indptr, indices, k)
    sizes = np.bincount(comp)
    src = np.repeat(np.arange(k, dtype=np.int64), np.diff(indptr))
    same = comp[src] == comp[indices]
    return comp, sizes, src[same], eids[same]


def fair_components(graph: CompiledGraph, rules: Rules, allowed: Array) -> Array:
    """Per state, the fair component (``fair.fair_components``) holding it, -1 for none;
    components are numbered arbitrarily."""
    owner = np.full(graph.n, -1, dtype=np.int32)
    pending = np.flatnonzero(allowed)
    found = 0
    while len(pending):
        comp, sizes, src, eids = _sccs(graph, pending)
        ncomp = len(sizes)
        taken = np.zeros(ncomp, dtype=np.uint64)
        masks = rules.of_code[graph.lab[eids]] & rules.covered[pending[src]]
        np.bitwise_or.at(taken, comp[src], masks)
        en = rules.enabled[pending]
        any_en = np.zeros(ncomp, dtype=np.uint64)
        np.bitwise_or.at(any_en, comp, en)
        all_en = np.full(ncomp, ~np.uint64(0), dtype=np.uint64)
        np.bitwise_and.at(all_en, comp, en)
        big = sizes >= 2
        broken = any_en & rules.strong_mask & ~taken
        broken[~big] = 0
        weak_broken = (all_en & ~rules.strong_mask & ~taken) != 0
        fair = big & (broken == 0) & ~weak_broken
        keep = fair[comp]
        owner[pending[keep]] = comp[keep] + found
        found += ncomp
        refine = (broken != 0)[comp] & ((en & broken[comp]) == 0)
        pending = pending[refine]
    return owner


Best = tuple[Any, Lasso] | None


def _better(best: Best, key: Any, lasso: Lasso) -> Best:
    """``check._leads_to``'s choice: the shortest lasso, ties to the earlier key."""
    if best is None or (lasso.back_to, len(lasso.path)) < (best[1].back_to, len(best[1].path)):
        return (key, lasso)
    return best


def outside(owner: Array, cuts: Array) -> Array:
    """``owner`` (a fair component per state, -1 for none) without the components whose
    states are all in ``cuts`` (``check._ending``: such a loop is the bound's, not the
    protocol's)."""
    kept = np.unique(owner[(owner >= 0) & ~cuts])
    return np.where((owner >= 0) & np.isin(owner, kept), owner, -1)


def _leads_to(
    graph: CompiledGraph,
    model: CompiledModel,
    rules: Rules,
    index: int,
    prop: Property,
    cuts: Array | None,
) -> tuple[Verdict, Lasso | None, bool]:
    """``check.judge`` for a leads-to property: ``(verdict without never_taken and cut
    text, its lasso, whether the lasso ends where a bound cuts progress)``. Both of
    ``judge``'s runs (stutter states in ``cuts`` excluded, then included) share each key's
    region and fair components; the second only matters when the first finds nothing."""
    opened, goal, count = graph.atoms(index)
    present = int(np.bitwise_or.reduce(opened)) if graph.n else 0
    key_of: Callable[[int, int], Any] | None = getattr(model, "liveness_key", None)
    assert key_of is not None  # a model with liveness properties has one (CompiledModel)
    keys = {key_of(index, b): b for b in range(64) if present >> b & 1}
    uncut: Best = None
    cut: Best = None
    for key in sorted(keys, key=repr):
        allowed, seeds = graph.key(opened, goal, keys[key])
        if not seeds.any():
            continue
        region = graph.reach(allowed, seeds)
        everywhere = fair_components(graph, rules, region)
        free = region & rules.idle
        for excluded in (False, True) if cuts is not None else (False,):
            stops = free & ~cuts if excluded and cuts is not None else free
            owner = outside(everywhere, cuts) if excluded and cuts is not None else everywhere
            doomed = graph.reach(region, stops | (owner >= 0), backward=True)
            starts = np.flatnonzero(seeds & doomed)
            if not len(starts):
                break  # fewer endings cannot reach more
            start = int(starts[np.argmin(graph.depth[starts])])
            lasso = lasso_from(graph, rules, start, doomed, stops, owner)
            if excluded or cuts is None:
                uncut = _better(uncut, key, lasso)
            else:
                cut = _better(cut, key, lasso)
    chosen, through_cut = (uncut, False) if uncut is not None or cuts is None else (cut, True)
    if chosen is None:
        return Verdict(prop, None, opened=count), None, False
    return Verdict(prop, chosen[1], chosen[0], count), chosen[1], through_cut


def _eventually_always(
    graph: CompiledGraph, rules: Rules, index: int, prop: Property, cuts: Array | None
) -> tuple[Verdict, Lasso | None, bool]:
    """``check._eventually_always`` (bit 0 of the atoms: ``P`` is false there), with
    ``judge``'s two runs as ``_leads_to`` has them."""
    opened, _, _ = graph.atoms(index)
    bad = (opened & np.uint64(1)) != 0
    count = int(np.count_nonzero(bad))
    if not count:
        return Verdict(prop, None), None, False
    owner = fair_components(graph, rules, np.ones(graph.n, dtype=bool))
    holding = np.unique(owner[bad & (owner >= 0)])
    owner[(owner >= 0) & ~np.isin(owner, holding)] = -1
    for excluded in (True, False) if cuts is not None else (True,):
        stops = rules.idle & bad & (~cuts if excluded and cuts is not None else True)
        owner_now = outside(owner, cuts) if excluded and cuts is not None else owner
        endings = stops | (owner_now >= 0)
        ends = np.flatnonzero(endings)
        if not len(ends):
            continue
        end = int(ends[np.argmin(graph.depth[ends])])
        lasso = lasso_from(graph, rules, end, endings, stops, owner_now, bad)
        return Verdict(prop, lasso, None, count), lasso, not excluded
    return Verdict(prop, None, opened=count), None, False


def _judge_all(
    spec: Spec,
    model: CompiledModel,
    graph: CompiledGraph,
    props: list[Property],
    fairness: list[Fairness],
) -> Judged:
    """``judge_compiled``'s verdicts on the built ``graph``."""
    codes = graph.codes()
    labels = [model.labels[int(c)] for c in codes]
    code_id = np.full(NLABELS, -1, dtype=np.int64)
    code_id[codes] = np.arange(len(codes))
    rules = rules_of(graph, model, labels, fairness)
    rules.code_id = code_id
    rules.labels = labels
    cut_at = (graph.conditions() & CUT) != 0 if getattr(spec, "cut", None) else None
    if cut_at is not None and not cut_at.any():
        cut_at = None
    verdicts: list[Verdict] = []
    lassos: dict[str, list[tuple[Any, Any]]] = {}
    for prop in props:
        index = model.liveness_names.index(prop.name)
        if prop.kind == LEADS_TO:
            verdict, lasso, through_cut = _leads_to(graph, model, rules, index, prop, cut_at)
        else:
            verdict, lasso, through_cut = _eventually_always(graph, rules, index, prop, cut_at)
        if lasso is not None and through_cut:
            end = model.decode(graph.row(lasso.path[-1][1]))
            verdict = replace(verdict, cut=spec.cut(end))  # type: ignore[attr-defined]
        if lasso is not None:
            verdict = replace(verdict, never_taken=tuple(rules.never_taken(graph, lasso)))
            lassos[prop.name] = [
                (None if k is None else labels[k], model.decode(graph.row(n)))
                for k, n in lasso.path
            ]
        verdicts.append(verdict)
    return Judged(verdicts, lassos, graph.n, graph.edges)


def judge_compiled(
    spec: Spec,
    model: CompiledModel,
    props: list[Property],
    fairness: list[Fairness],
    max_states: int,
    folder: str | None = None,
) -> Judged:
    """The verdicts of ``props`` (liveness properties the model compiles: ``unsupported``)
    under ``fairness``, on the compiled core of ``model``; with ``folder`` the graph's arrays
    are files there (``CompiledGraph``), and so are the judge's that grow with it
    (``checker.liveness.scratch``). Raises ``GraphTooLarge``, ``NotCompiled``,
    ``NativeUnavailable``, ``MemoryError``, ``OSError`` (the folder's files)."""
    why = unsupported(model, props)
    if why:
        raise NotCompiled(why)
    rows = [model.encode(s) for s in spec.init_states()]
    graph = CompiledGraph(model, rows, max_states, folder)
    try:
        with scratch.held_in(graph.lib, folder, graph.n):  # the judge's arrays too
            return _judge_all(spec, model, graph, props, fairness)
    finally:
        graph.close()


__all__ = ["Judged", "NotCompiled", "judge_compiled", "unsupported"]
