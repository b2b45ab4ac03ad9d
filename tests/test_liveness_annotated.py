"""The annotated quotient (``checker.liveness.annotated``) against the plain graph it stands for.

Random quotients over the renamings of 2 and 3 ids are unfolded into their plain graphs
(state ``(A, p)`` is orbit ``A``'s representative renamed by ``p``), whose fair components
come from ``checker.liveness.fair`` (itself held to a brute force in
``test_liveness_fair.py``): an orbit is in a fair component of the quotient exactly when a
member of it is in one of the plain graph. And the textbook case where the bare quotient
(renamings dropped) is wrong: a loop that serves a different replica each time round.
"""

from __future__ import annotations

import random

import pytest

from checker.liveness import annotated, fair
from checker.liveness.annotated import Group, Quotient
from checker.liveness.graph import StateGraph
from checker.model import Label


def universe(n: int) -> list[tuple[str, tuple[int, ...]]]:
    ids = range(n)
    return (
        [("Fetch", (r,)) for r in ids]
        + [("Send", (r, s)) for r in ids for s in ids if r != s]
        + [("Elect", ())]
    )


def action_table(group: Group, cons: list[tuple[str, tuple[int, ...]]]) -> list[list[int]]:
    where = {c: k for k, c in enumerate(cons)}
    return [[where[(name, tuple(p[a] for a in args))] for name, args in cons] for p in group.perms]


def random_quotient(rng: random.Random, n: int, nodes: int) -> Quotient:
    group = Group(n)
    cons = universe(n)
    succ: list[list[tuple[int, int, frozenset[int]]]] = [[] for _ in range(nodes)]
    for a in range(nodes):
        for _ in range(rng.randint(0, 3)):
            b, g = rng.randrange(nodes), rng.randrange(len(group.perms))
            if b == a and g == 0:
                continue  # a step to the state itself: a stutter
            taken = frozenset(rng.sample(range(len(cons)), rng.choice([0, 1, 1, 2])))
            succ[a].append((b, g, taken))
    strength = {name: rng.random() < 0.3 for name in ("Fetch", "Send", "Elect")}
    strong = [strength[name] for name, _ in cons]  # per action: renaming keeps it
    return Quotient(group, succ, action_table(group, cons), strong)


def unfold(q: Quotient) -> tuple[StateGraph, fair.Constraints]:
    """The plain graph: state ``(A, p)`` numbered ``A * |G| + p``; one label per set of
    constraints a step fulfils."""
    size = len(q.group.perms)
    graph = StateGraph()
    labels: dict[frozenset[int], int] = {}
    for a in range(len(q.succ)):
        for p in range(size):
            graph.states.append((a, p))
            out = []
            for b, g, cons in q.succ[a]:
                renamed = q.rename(p, cons)
                label = labels.setdefault(renamed, len(labels))
                out.append((label, b * size + q.group.mul[p][q.group.inv[g]]))
            graph.succ.append(out)
    graph.labels = [Label("Step", (("k", k),)) for k in range(len(labels))]
    of_label = [()] * len(labels)
    for cons, k in labels.items():
        of_label[k] = tuple(sorted(cons))
    names = tuple(f"c{c}" for c in range(len(q.strong)))
    return graph, fair.Constraints(names, tuple(q.strong), tuple(of_label), (None,) * len(names))


def fair_orbits_plain(q: Quotient, allowed: list[int], must: set[int] | None) -> set[int]:
    graph, rules = unfold(q)
    size = len(q.group.perms)
    plain_allowed = [a * size + p for a in allowed for p in range(size)]
    plain_must = None if must is None else {a * size + p for a in must for p in range(size)}
    comps = fair.fair_components(graph, plain_allowed, rules, plain_must)
    return {node // size for comp in comps for node in comp}


def fair_orbits_quotient(q: Quotient, allowed: list[int], must: set[int] | None) -> set[int]:
    return {n for comp in annotated.fair_components(q, allowed, must) for n in comp.nodes}


@pytest.mark.parametrize("n", [2, 3])
def test_random_quotients_agree_with_their_plain_graphs(n):
    rng = random.Random(20261130 + n)
    differ_from_bare = unfair = proper = 0
    for _ in range(300 if n == 2 else 120):
        q = random_quotient(rng, n, rng.randint(1, 7))
        allowed = sorted(rng.sample(range(len(q.succ)), rng.randint(1, len(q.succ))))
        must = {rng.choice(allowed)} if rng.random() < 0.3 else None
        want = fair_orbits_plain(q, allowed, must)
        comps = annotated.components(q, allowed)
        unfair += {node for comp in comps for node in comp} != want
        proper += any(0 < len(annotated.annotate(q, c).gamma) < 6 for c in comps if n == 3)
        assert fair_orbits_quotient(q, allowed, must) == want, (q.succ, q.strong, allowed)
        stutter_plain = {a for a in allowed if not q.enabled(a)}
        assert set(annotated.stuttering(q, allowed)) == stutter_plain
        bare = Quotient(
            q.group, [[(b, 0, c) for b, _, c in out] for out in q.succ], q.act, q.strong
        )
        differ_from_bare += fair_orbits_quotient(bare, allowed, must) != want
    assert differ_from_bare > 0, "no random case needed the renamings: the test is too weak"
    assert unfair > 0 and (proper > 0 or n == 2), "too few unfair components or proper subgroups"


def test_the_bare_quotient_misses_a_loop_that_serves_each_replica_in_turn():
    """Two replicas: from ``r``, ``Fetch(0)`` leads to ``r`` with the ids swapped, and
    ``Fetch(1)`` leads away (to the orbit that would answer an obligation). Going round
    ``r -> swap(r) -> r`` takes ``Fetch(0)`` and then, in ``swap(r)``, ``Fetch(1)``: a fair
    cycle that never leaves. The bare quotient sees one self-loop that takes ``Fetch(0)``
    only, with ``Fetch(1)`` enabled for ever, and calls it unfair."""
    group = Group(2)
    cons = universe(2)
    fetch0, fetch1 = cons.index(("Fetch", (0,))), cons.index(("Fetch", (1,)))
    swap = group.index[(1, 0)]
    succ = [[(0, swap, frozenset({fetch0})), (1, 0, frozenset({fetch1}))], []]
    q = Quotient(group, succ, action_table(group, cons), [False] * len(cons))
    assert fair_orbits_plain(q, [0], None) == {0}
    (comp,) = annotated.fair_components(q, [0])
    assert comp.nodes == (0,) and comp.gamma == {0, swap}
    bare = Quotient(group, [[(0, 0, frozenset({fetch0})), succ[0][1]], []], q.act, q.strong)
    assert annotated.fair_components(bare, [0]) == []


def test_a_group_of_three_ids():
    group = Group(3)
    assert len(group.perms) == 6 and group.perms[0] == (0, 1, 2)
    for a in range(6):
        assert group.mul[a][group.inv[a]] == 0
    rotate = group.index[(1, 2, 0)]
    assert group.closure([rotate]) == {0, rotate, group.mul[rotate][rotate]}
    assert len(group.closure([rotate, group.index[(1, 0, 2)]])) == 6
