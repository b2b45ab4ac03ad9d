"""Fair cycles judged on the symmetry quotient: the annotated quotient of Emerson and Sistla.

The plain graph of a model with ``n`` interchangeable replicas is closed under the group ``G``
of renamings (``checker.symmetry``). Its quotient has one node per orbit, standing for the
orbit's canonical representative ``r_A``. Judging fairness on the bare quotient is unsound
for per-replica fairness (``WF(each Fetch)``): a quotient loop may serve a different replica
each time round, so a constraint the loop seems to neglect is in fact taken (Emerson and
Sistla, "Utilizing symmetry when model-checking under fairness assumptions", TOPLAS 1997).
Here every quotient edge carries the renaming that took its concrete target to the target's
representative, and a component's fairness is judged on the concrete component it stands
for, without building it:

- An edge ``A -> B`` with renaming ``g`` stands for the concrete step from ``r_A`` to
  ``g^-1 . r_B``, fulfilling the constraints ``cons`` (named in ``r_A``'s coordinates).
- Take a strongly connected set ``C`` of quotient nodes and a spanning tree of it from its
  root ``R``; give each node ``A`` the renaming ``tau_A`` (``tau_R`` the identity,
  ``tau_B = tau_A . g^-1`` along a tree edge), so that ``x_A = tau_A . r_A`` is reached from
  ``x_R = r_R``. Each edge of ``C`` then closes a loop whose renaming is
  ``gamma = tau_A . g^-1 . tau_B^-1``, and ``Gamma``, the group they generate, is exactly the
  set of renamings that map the concrete strongly connected component ``D`` of ``x_R`` onto
  itself: ``D = { h . x_A : A in C, h in Gamma }``. (Every concrete path from ``x_R`` inside
  the orbits of ``C`` ends at some ``h . x_A`` with ``h`` a product of gammas; and a state
  reachable from ``x_R`` there reaches ``x_R`` again, since ``h`` has a finite order.)
- So ``D`` takes the constraints ``Gamma . U`` with ``U = { tau_A . c : c in cons }`` over
  the edges of ``C``, and its state ``h . x_A`` enables ``h . tau_A . en(A)``. The weak and
  strong tests of ``checker.liveness.fair`` are applied to these sets; a component that
  breaks a strong constraint drops the nodes ``A`` with ``tau_A . en(A)`` meeting the broken
  set (closed under ``Gamma``, so a node goes whole) and is decomposed again.

The other concrete components over ``C`` are renamings of ``D`` and answer alike, so a
quotient node is in a fair component here exactly when some (every) member of its orbit is in
a fair component of the plain graph: the fairness constraints, their conditions and the
property must be symmetric as sets (renaming maps a constraint to a constraint).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

import networkx as nx

Perm = tuple[int, ...]
"""A renaming of ids ``0..n-1``: id ``r`` becomes ``perm[r]`` (``checker.symmetry``)."""


@dataclass(frozen=True)
class Group:
    """Every renaming of ``n`` ids, numbered (0 is the identity), with its products and
    inverses as tables: ``mul[a][b]`` is the renaming "``b``, then ``a``"."""

    n: int
    perms: tuple[Perm, ...] = field(init=False)
    index: dict[Perm, int] = field(init=False, repr=False)
    mul: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    inv: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        perms = tuple(permutations(range(self.n)))
        index = {p: k for k, p in enumerate(perms)}
        mul = tuple(
            tuple(index[tuple(a[b[r]] for r in range(self.n))] for b in perms) for a in perms
        )
        inv = tuple(mul[a].index(0) for a in range(len(perms)))
        object.__setattr__(self, "perms", perms)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "mul", mul)
        object.__setattr__(self, "inv", inv)

    def closure(self, generators: Iterable[int]) -> frozenset[int]:
        """The subgroup the renamings ``generators`` (numbers) generate."""
        gens = set(generators) - {0}
        found, todo = {0}, [0]
        while todo:
            a = todo.pop()
            for g in gens:
                b = self.mul[g][a]
                if b not in found:
                    found.add(b)
                    todo.append(b)
        return frozenset(found)


@dataclass
class Quotient:
    """An annotated quotient graph: nodes ``0..len(succ)-1`` (orbits, or orbit-and-key pairs),
    ``succ[A]`` its edges ``(B, g, cons)``: the step from ``A``'s representative to
    ``g^-1 . r_B`` (``g`` a number in ``group``; a step back to ``r_A`` itself is a stutter
    and not listed), fulfilling the fairness constraints ``cons`` (ids, in ``r_A``'s
    coordinates, conditions already applied). ``act[g][c]``: constraint ``c`` renamed by
    ``g``; ``strong[c]``: whether ``c`` is strong."""

    group: Group
    succ: list[list[tuple[int, int, frozenset[int]]]]
    act: Sequence[Sequence[int]]
    strong: Sequence[bool]

    def enabled(self, node: int) -> frozenset[int]:
        """The constraints enabled at ``node``'s representative (its coordinates)."""
        return frozenset().union(*(cons for _, _, cons in self.succ[node]))

    def rename(self, g: int, cons: Iterable[int]) -> frozenset[int]:
        """The constraints ``cons`` renamed by ``g``."""
        table = self.act[g]
        return frozenset(table[c] for c in cons)


@dataclass(frozen=True)
class Component:
    """A strongly connected set of quotient ``nodes`` (sorted) with ``tau`` (node -> renaming
    number, the root's the identity) and ``gamma``, the renamings that map the concrete
    component it stands for onto itself (see the module docstring)."""

    nodes: tuple[int, ...]
    tau: dict[int, int]
    gamma: frozenset[int]


def components(q: Quotient, allowed: Iterable[int]) -> list[list[int]]:
    """The strongly connected sets of ``allowed`` nodes that contain a cycle: more than one
    node, or one node with an edge to itself (a step to another member of its orbit)."""
    inside = set(allowed)
    sub: nx.DiGraph[int] = nx.DiGraph()
    sub.add_nodes_from(inside)
    loops = set()
    for node in inside:
        for target, _, _ in q.succ[node]:
            if target in inside:
                sub.add_edge(node, target)
                if target == node:
                    loops.add(node)
    return [
        sorted(c)
        for c in nx.strongly_connected_components(sub)
        if len(c) > 1 or next(iter(c)) in loops
    ]


def annotate(q: Quotient, nodes: Sequence[int]) -> Component:
    """``tau`` and ``gamma`` of the strongly connected ``nodes`` (breadth first from the
    smallest; the edges leaving ``nodes`` are ignored)."""
    inside = set(nodes)
    mul, inv = q.group.mul, q.group.inv
    root = min(nodes)
    tau = {root: 0}
    todo = [root]
    for node in todo:
        for target, g, _ in q.succ[node]:
            if target in inside and target not in tau:
                tau[target] = mul[tau[node]][inv[g]]
                todo.append(target)
    gens = {
        mul[mul[tau[node]][inv[g]]][inv[tau[target]]]
        for node in nodes
        for target, g, _ in q.succ[node]
        if target in inside
    }
    return Component(tuple(sorted(nodes)), tau, q.group.closure(gens))


def judge(q: Quotient, comp: Component) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """``(taken, enabled somewhere, enabled everywhere)``: the constraints, in concrete
    coordinates, of the concrete component ``comp`` stands for."""
    inside = set(comp.nodes)
    used: set[int] = set()
    anywhere: set[int] = set()
    everywhere: set[int] | None = None
    for node in comp.nodes:
        t = comp.tau[node]
        for target, _, cons in q.succ[node]:
            if target in inside:
                used |= q.rename(t, cons)
        here = q.rename(t, q.enabled(node))
        anywhere |= here
        for h in comp.gamma:
            seen = q.rename(h, here)
            everywhere = set(seen) if everywhere is None else everywhere & seen
    taken = frozenset(q.act[h][c] for h in comp.gamma for c in used)
    spread = frozenset(q.act[h][c] for h in comp.gamma for c in anywhere)
    return taken, spread, frozenset(everywhere or ())


def fair_components(
    q: Quotient, allowed: Iterable[int], must: set[int] | None = None
) -> list[Component]:
    """Every maximal strongly connected set of ``allowed`` nodes whose concrete component
    admits a fair cycle (and, with ``must``, contains a ``must`` node), sorted by nodes."""
    result: list[Component] = []
    pending = components(q, allowed)
    while pending:
        comp = annotate(q, pending.pop())
        taken, spread, everywhere = judge(q, comp)
        broken = {c for c in spread if q.strong[c] and c not in taken}
        if broken:
            rest = [n for n in comp.nodes if not broken & q.rename(comp.tau[n], q.enabled(n))]
            if len(rest) == len(comp.nodes):
                raise ValueError(
                    "a strong constraint's renaming is not strong: asymmetric fairness"
                )
            pending.extend(components(q, rest))
            continue
        if any(not q.strong[c] and c not in taken for c in everywhere):
            continue
        if must is not None and not must.intersection(comp.nodes):
            continue
        result.append(comp)
    return sorted(result, key=lambda c: c.nodes)


def stuttering(q: Quotient, allowed: Iterable[int]) -> list[int]:
    """The ``allowed`` nodes where a behaviour may stutter for ever: no fair constraint is
    enabled (the same at every member of the orbit)."""
    return [node for node in allowed if not q.enabled(node)]
