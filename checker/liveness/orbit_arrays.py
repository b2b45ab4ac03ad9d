"""Liveness on the compiled core's orbit graph: ``checker.liveness.orbit_find``'s search,
on arrays (``checker.liveness.orbit_fair``, ``orbit_net``), with the same concrete lassos
(``checker.liveness.orbit_lasso``, shared through ``checker.liveness.orbit_view``).

The compiled orbit graph (``checker.liveness.corbits``) is numbered as ``orbits.build``
numbers the reference's, with the same renamings, so the pairs, their fair components and
the start chosen are the same sets, and the lasso built from them is the same lasso. Keys are
the compiled model's key numbers (``model_liveness``), renamed through a table made from the
Python keys (``Property.key_ids``); the fairness constraints are ``orbit_find.Setting``'s,
numbered over every renaming of every label, held as ``uint64`` masks (at most 64).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np

from checker.liveness import orbit_lasso
from checker.liveness.cgraph import Array
from checker.liveness.check import Verdict
from checker.liveness.compiled import CUT, Judged, Named, NotCompiled
from checker.liveness.orbit_fair import fair_components
from checker.liveness.orbit_find import Ending, Found, Setting
from checker.liveness.orbit_net import CHUNK, Coded, Cover, Net, Renamer, ranges, sorted_set
from checker.liveness.orbit_view import ArrayPairs, Mask, OrbitView, Owner, Sorted, Space
from checker.liveness.orbits import rename_key
from checker.model import CompiledModel, Spec
from checker.native.core import NLABELS, give_back
from checker.properties import LEADS_TO, Fairness, Property
from checker.symmetry import ReplicaSymmetry

THREADS = 2
"""Properties judged at once (the machines this runs on have 2 cores), on a graph of at most
``ONE_AT_A_TIME`` orbits."""
ONE_AT_A_TIME = 1 << 20
"""Past this many orbits properties are judged one at a time: at its peak a property's
search holds about a third as much as the sealed graph, so two at once add that again (at 3
replicas, 4.3 million orbits: 663 MiB against 622, for 5% of the time)."""


def net_of(setting: Setting, view: OrbitView, model: CompiledModel, space: Space) -> Net:
    """The constraint arrays of ``setting`` over ``view``'s compiled graph. Raises
    ``NotCompiled`` past 64 constraints."""
    rules, graph = setting.rules, view.compiled
    count = len(rules.names)
    if count > 64:
        raise NotCompiled(f"{count} fairness constraints (the compiled check takes 64)")
    cons = np.zeros(NLABELS, dtype=np.uint64)
    for label_id, code in enumerate(view.codes):
        for c in rules.of_label[setting.uid[label_id]]:
            cons[code] |= np.uint64(1 << c)
    always = sum(1 << c for c, guard in enumerate(rules.guards) if guard is None)
    guarded = []
    for i, name in enumerate(model.condition_names):
        mask = sum(
            1 << c for c, g in enumerate(rules.guards) if isinstance(g, Named) and g.name == name
        )
        if mask:
            guarded.append((i, mask))
    cond = graph.conditions() if guarded else np.zeros(0, dtype=np.uint32)
    covered = Cover(cond, always, guarded)
    strong = np.uint64(sum(1 << c for c, s in enumerate(rules.strong) if s))
    en = Coded.gathered(
        graph.n, lambda start, stop: graph.enabled(cons, covered(np.arange(start, stop)), start)
    )
    return Net(graph, space, view.group, cons, covered, en, strong, Renamer(setting.act, count))


def key_space(
    view: OrbitView, model: CompiledModel, prop: Property, index: int, opened: Array
) -> Space:
    """The pair space of leads-to property number ``index``: the key numbers ``opened``
    holds, closed under renaming. Raises ``NotCompiled`` when a renamed key has no number."""
    key_of: Callable[[int, int], Any] | None = getattr(model, "liveness_key", None)
    if key_of is None:
        raise NotCompiled(f"{prop.name}'s keys have no numbers")
    present = int(np.bitwise_or.reduce(opened)) if len(opened) else 0
    numbers = {key_of(index, b): b for b in range(64) if present >> b & 1}
    for b in range(64):  # the other numbers, for renamed keys no state opens
        numbers.setdefault(key_of(index, b), b)
    keys = list(dict.fromkeys(key_of(index, b) for b in range(64) if present >> b & 1))
    perms, ids = view.group.perms, prop.key_ids or ()
    for key in keys:  # grows as it goes: the closure under renaming
        for perm in perms:
            image = rename_key(key, perm, ids)
            if image not in numbers:
                raise NotCompiled(f"{prop.name}'s key {image!r} has no key number")
            if image not in keys:
                keys.append(image)
    keys.sort(key=repr)
    kidx = {key: k for k, key in enumerate(keys)}
    keyren = np.array(
        [[kidx[rename_key(key, perm, ids)] for key in keys] for perm in perms], dtype=np.int64
    ).reshape(len(perms), len(keys))
    return Space(keys, keyren, view, np.array([numbers[key] for key in keys], dtype=np.uint64))


def _first(view: OrbitView, nodes: Array, K: int) -> int:
    """The node among ``nodes`` with the shallowest orbit, then the smallest orbit, then the
    smallest key (keys are numbered in text order)."""
    orbit = nodes // K
    order = np.lexsort((nodes % K, orbit, view.compiled.depth[orbit]))
    return int(nodes[order[0]])


def _shallowest(view: OrbitView, nodes: Array, K: int) -> tuple[int, ...]:
    """Per key among ``nodes`` (keys in text order), the node with the shallowest orbit,
    then the smallest orbit (``orbit_find.find``'s starts)."""
    orbit, key = nodes // K, nodes % K
    order = np.lexsort((orbit, view.compiled.depth[orbit], key))
    _, first = np.unique(key[order], return_index=True)
    return tuple(int(n) for n in nodes[order[first]])


class Judge:
    """One property's search (``orbit_find.find``) on arrays; the fair components do not
    depend on the cut, so they are found once for both of ``judge``'s runs."""

    def __init__(self, base: Net, view: OrbitView, model: CompiledModel, prop: Property) -> None:
        self.view, self.prop = view, prop
        graph = view.compiled
        index = model.liveness_names.index(prop.name)
        codes, opened, goal = graph.atom_codes(index)  # orbit i's: opened[codes[i]]
        sizes = view.sizes
        if prop.kind == LEADS_TO:
            space = key_space(view, model, prop, index, opened)
        else:
            space = base.space
        self.space, K = space, space.K
        self.net = replace(base, space=space)
        self.pairs = ArrayPairs(view, space, self.net.mul)
        if prop.kind == LEADS_TO:
            bits = space.bits
            assert bits is not None  # key_space numbers the keys

            def allowed(pairs: Array) -> Array:  # the pairs whose key's Q is false
                mask: Array = (goal[codes[pairs // K]] >> bits[pairs % K]) & np.uint64(1) == 0
                return mask

            heads, self.opened = [], 0
            for k, bit in enumerate(bits):  # a key's obligations, CHUNK orbits at a time
                at = np.flatnonzero((((opened >> bit) & np.uint64(1)) != 0)[codes])
                self.opened += int(sizes[at].sum(dtype=np.int64))
                for start in range(0, len(at), CHUNK):
                    some = at[start : start + CHUNK]
                    pairs = some * K + space.best[space.cls[some], k]
                    heads.append(pairs[allowed(pairs)])
                del at
            self.heads = sorted_set(np.concatenate(heads)) if heads else np.zeros(0, np.int64)
            """The obligations whose key's Q is false (sorted pairs): the judgement's starts."""
            del opened, heads
            self.must = None
            self.nodes = self.net.reach(allowed, self.heads)
            """The allowed pairs the obligations reach (sorted): the judgement's nodes."""
        else:
            self.must = ((opened & np.uint64(1)) != 0)[codes]
            self.opened = int(sizes[self.must].sum(dtype=np.int64))
            self.nodes = np.arange(graph.n, dtype=np.int64)
        give_back()  # the temporaries of the starts and the reach
        self.owner = np.full(len(self.nodes), -1, dtype=np.int32)
        if len(self.nodes):
            self.owner = fair_components(self.net, self.nodes, self.must)
            give_back()
        self._reverse: tuple[Array, Array] | None = None

    def count(self) -> int:
        """The plain check's opened count (``orbit_find.opened``): concrete states times
        the keys they open."""
        return self.opened

    def doomed(self, seeds: Array) -> Array:
        """The positions in ``nodes`` that reach ``seeds`` (bool, by position) through them."""
        if self._reverse is None:  # the nodes' edges among themselves, by target
            self._reverse = self.net.before(self.nodes)
        ptr, before = self._reverse
        mark = seeds.copy()
        frontier = np.flatnonzero(mark)
        while len(frontier):
            _, idx = ranges(ptr[frontier], ptr[frontier + 1])
            found = before[idx]
            frontier = sorted_set(found[~mark[found]])
            mark[frontier] = True
        return mark

    def find(self, cuts: Array | None) -> Found | None:
        """``orbit_find.find`` with the ``cuts`` orbits (bool, or None) blocked as endings."""
        K, nodes, owner = self.space.K, self.nodes, self.owner
        if self.prop.kind != LEADS_TO and not self.must.any():  # type: ignore[union-attr]
            return None
        if self.prop.kind == LEADS_TO and not len(self.heads):
            return None
        orbit = nodes // K
        cut = np.zeros(len(nodes), dtype=bool) if cuts is None else cuts[orbit]
        if cut.any() and (owner >= 0).any():
            inside = owner >= 0
            total = np.bincount(owner[inside], minlength=int(owner.max()) + 1)
            cutting = np.bincount(owner[inside & cut], minlength=len(total))
            whole = total == cutting
            owner = np.where(inside & ~whole[np.maximum(owner, 0)], owner, -1)
        stops = self.net.en.none(orbit) & ~cut
        if self.must is not None:
            stops &= self.must[orbit]
            ends = nodes[stops | (owner >= 0)]
            if not len(ends):
                return None
            ending = Ending(Sorted(nodes[stops]), Sorted(nodes[:0]), Owner(nodes, owner))
            return Found(self.pairs, (_first(self.view, ends, 1),), ending, Mask(self.must))
        mark = self.doomed(stops | (owner >= 0))
        doomed = nodes[mark]
        starts = self.heads[mark[np.searchsorted(nodes, self.heads)]]  # heads are nodes
        if not len(starts):
            return None
        ending = Ending(Sorted(nodes[stops]), Sorted(doomed), Owner(nodes, owner))
        return Found(self.pairs, _shallowest(self.view, starts, K), ending, None)


def _judge_one(
    base: Net,
    setting: Setting,
    view: OrbitView,
    model: CompiledModel,
    prop: Property,
    cuts: Array | None,
) -> tuple[Verdict, list[tuple[Any, Any]] | None]:
    """``orbit_check.judge`` on arrays: the verdict and its lasso's ``(label, state)`` pairs."""
    judge = Judge(base, view, model, prop)
    count = judge.count()
    found = judge.find(cuts)
    why = ""
    if found is None and cuts is not None:
        found, why = judge.find(None), "cut"
    if found is None:
        return Verdict(prop, None, opened=count), None
    lasso, witness, key = orbit_lasso.shortest(setting, prop, found)
    cut_of = getattr(setting.spec, "cut", None)
    if why and cut_of is not None:
        why = cut_of(view.symmetry.canonical(witness.states[lasso.path[-1][1]]))
    never = tuple(lasso.never_taken(witness))
    pairs = [(None if k is None else witness.labels[k], witness.states[n]) for k, n in lasso.path]
    return Verdict(prop, lasso, key, count, never, why or ""), pairs


def _judged(*args: Any) -> tuple[Verdict, list[tuple[Any, Any]] | None]:
    """``_judge_one``, its arrays handed back to the system once they are freed."""
    try:
        return _judge_one(*args)
    finally:
        give_back()


def judge_orbits(
    spec: Spec,
    model: CompiledModel,
    graph: Any,
    symmetry: ReplicaSymmetry,
    props: list[Property],
    fairness: list[Fairness],
) -> Judged:
    """The verdicts and lassos of ``props`` on the compiled orbit ``graph``, equal to
    ``orbit_check.judge``'s on the reference's. Raises ``NotCompiled`` (keys or constraints
    the arrays cannot hold), ``ValueError`` (asymmetric fairness)."""
    view = OrbitView(graph, model, symmetry)
    named = {name: Named(name) for name in model.condition_names}
    setting = Setting(spec, view, fairness, getattr(spec, "replica_args", ()), named)
    cut_of = getattr(spec, "cut", None)
    cuts = (graph.conditions() & CUT) != 0 if cut_of is not None else None
    if cuts is not None and not cuts.any():
        cuts = None
    verdicts: list[Verdict] = []
    lassos: dict[str, list[tuple[Any, Any]]] = {}
    one = Space([None], np.zeros((len(view.group.perms), 1), dtype=np.int64), view)
    base = net_of(setting, view, model, one)  # the constraints: the same for every property
    # two properties at a time (numpy and the C walks let go of the GIL): a property's
    # arrays go when its verdict is in; each runs in a copy of this context, numpy's memory
    # handler with it (checker.liveness.scratch)
    contexts = [contextvars.copy_context() for _ in props]
    with ThreadPoolExecutor(max_workers=THREADS if len(view) <= ONE_AT_A_TIME else 1) as pool:
        done = pool.map(
            lambda c, p: c.run(_judged, base, setting, view, model, p, cuts), contexts, props
        )
        for prop, (verdict, lasso) in zip(props, done, strict=True):
            verdicts.append(verdict)
            if lasso is not None:
                lassos[prop.name] = lasso
    return Judged(verdicts, lassos, len(view), view.edges)
