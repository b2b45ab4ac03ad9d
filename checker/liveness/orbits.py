"""The orbit graph: the reachable states of a symmetric model, one per orbit, each edge with
the renaming that took its concrete target to the target's representative (the annotated
quotient of ``checker.liveness.annotated``), and the concrete walks it stands for.

A model offers it when it declares which label arguments name replicas
(``replica_args``: ``Fetch(follower=2, leader=0)``'s ``follower`` and ``leader``) besides its
symmetry (``checker.symmetry``); a property keyed by replicas says where its keys name them
(``Property.key_ids``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from checker.liveness.annotated import Group
from checker.liveness.graph import GraphTooLarge
from checker.model import Label, Spec, State
from checker.symmetry import ReplicaSymmetry


def rename_label(label: Label, perm: tuple[int, ...], names: Iterable[str]) -> Label:
    """``label`` with replica ``r`` renamed ``perm[r]`` in the arguments ``names`` (an id, or
    a sorted tuple of ids); the others unchanged."""
    ids = set(names)
    args = tuple(
        (name, _rename_value(value, perm) if name in ids else value) for name, value in label.args
    )
    return label if args == label.args else Label(label.action, args)


def _rename_value(value: Any, perm: tuple[int, ...]) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return perm[value]
    return tuple(sorted(perm[v] for v in value))


def rename_key(key: Any, perm: tuple[int, ...], key_ids: tuple[int, ...]) -> Any:
    """An obligation's key with the replica ids at positions ``key_ids`` renamed (a key that
    is a single id, not a tuple, is its position 0)."""
    if not key_ids:
        return key
    if not isinstance(key, tuple):
        return perm[key]
    return tuple(perm[v] if i in key_ids else v for i, v in enumerate(key))


@dataclass
class OrbitGraph:
    """Orbits ``0..n-1``, numbered breadth first. ``states[A]``: the representative ``r_A``.
    ``succ[A]``: ``(label id, B, g)``: the step with that label (in ``r_A``'s names) from
    ``r_A`` to ``g^-1 . r_B`` (``g`` a renaming number of ``group``); a step back to ``r_A``
    itself is a stutter and is dropped. ``parent[A]``: ``(orbit, label id, g)`` of its
    breadth-first parent, or ``None`` for an initial orbit, whose initial state is
    ``entry[A]^-1 . r_A``. ``stabilizer[A]``: the renamings that leave ``r_A`` as it is."""

    group: Group
    symmetry: ReplicaSymmetry
    states: list[State] = field(default_factory=list)
    succ: list[list[tuple[int, int, int]]] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    parent: list[tuple[int, int, int] | None] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    entry: dict[int, int] = field(default_factory=dict)
    stabilizer: list[tuple[int, ...]] = field(default_factory=list)
    index: dict[State, int] = field(default_factory=dict, repr=False)
    seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.states)

    @property
    def edges(self) -> int:
        """Edges kept (stutters dropped)."""
        return sum(len(out) for out in self.succ)

    def orbit_size(self, node: int) -> int:
        """How many concrete states orbit ``node`` holds."""
        return len(self.group.perms) // len(self.stabilizer[node])

    def locate(self, state: State) -> tuple[int, int]:
        """``(orbit, g)`` with ``g . state`` the orbit's representative; raises ``KeyError``
        for a state not reached."""
        rep = self.symmetry.canonical(state)
        return self.index[rep], self.renaming(state, rep)

    def renaming(self, state: State, rep: State) -> int:
        """The number of a renaming that takes ``state`` to ``rep`` (its orbit's)."""
        if state == rep:
            return 0
        for k, perm in enumerate(self.group.perms):
            if k and self.symmetry.permute(state, perm) == rep:
                return k
        raise ValueError("the state is not in the representative's orbit")

    def path_to(self, node: int) -> list[tuple[int | None, int, int]]:
        """The breadth-first path from an initial orbit to ``node``: ``(label id or None,
        orbit, g)`` steps, the first with the initial state's ``entry`` renaming."""
        steps: list[tuple[int | None, int, int]] = []
        while True:
            up = self.parent[node]
            if up is None:
                steps.append((None, node, self.entry[node]))
                return steps[::-1]
            steps.append((up[1], node, up[2]))
            node = up[0]


def build(
    spec: Spec,
    symmetry: ReplicaSymmetry,
    max_states: int,
    on_progress: Callable[[int, int], None] | None = None,
) -> OrbitGraph:
    """Every orbit reachable from ``spec``'s initial states, breadth first, in the model's
    successor order. Raises ``GraphTooLarge`` past ``max_states`` orbits."""
    start = time.monotonic()
    group = Group(symmetry.n)
    graph = OrbitGraph(group, symmetry)
    label_ids: dict[Label, int] = {}

    def add(rep: State, parent: tuple[int, int, int] | None, depth: int) -> tuple[int, bool]:
        found = graph.index.get(rep)
        if found is not None:
            return found, False
        if len(graph.states) >= max_states:
            raise GraphTooLarge(
                f"the liveness orbit graph passed {max_states:,} orbits at depth {depth} "
                "(liveness holds the whole graph in memory; lower the bounds)"
            )
        graph.index[rep] = len(graph.states)
        graph.states.append(rep)
        graph.succ.append([])
        graph.parent.append(parent)
        graph.depth.append(depth)
        graph.stabilizer.append(
            tuple(k for k, p in enumerate(group.perms) if symmetry.permute(rep, p) == rep)
        )
        return len(graph.states) - 1, True

    frontier: list[int] = []
    for state in spec.init_states():
        rep = symmetry.canonical(state)
        node, new = add(rep, None, 1)
        if new:
            graph.entry[node] = graph.renaming(state, rep)
            frontier.append(node)
    depth = 1
    while frontier:
        if on_progress is not None:
            on_progress(len(graph.states), depth)
        following: list[int] = []
        for node in frontier:
            here = graph.states[node]
            for label, state in spec.successors(here):
                if state == here:
                    continue
                rep = symmetry.canonical(state)
                g = graph.renaming(state, rep)
                label_id = label_ids.get(label)
                if label_id is None:
                    label_id = label_ids[label] = len(graph.labels)
                    graph.labels.append(label)
                target, new = add(rep, (node, label_id, g), depth + 1)
                if new:
                    following.append(target)
                graph.succ[node].append((label_id, target, g))
        frontier = following
        depth += 1
    graph.seconds = time.monotonic() - start
    return graph
