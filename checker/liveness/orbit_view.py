"""The compiled core's orbit graph seen as ``checker.liveness.orbits.OrbitGraph``, and the
array judge's pairs and endings seen as ``checker.liveness.orbit_find``'s, so that one
lasso builder (``checker.liveness.orbit_lasso``) serves both cores.

Everything here is read on demand from the arrays (a state is decoded when asked for, a
pair's edges computed when walked): a lasso touches a few hundred orbits of millions.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

import numpy as np

from checker.liveness.annotated import Group
from checker.liveness.cgraph import NO_PARENT, Array
from checker.liveness.orbits import OrbitGraph
from checker.model import CompiledModel, Label, State
from checker.native.core import NLABELS
from checker.symmetry import ReplicaSymmetry


class _Rows(Sequence[State]):
    """The representatives, decoded when read."""

    def __init__(self, graph: Any, model: CompiledModel) -> None:
        self.graph, self.model = graph, model

    def __len__(self) -> int:
        return int(self.graph.n)

    def __getitem__(self, node: Any) -> Any:
        return self.model.decode(self.graph.row(int(node)))


class _Stabilizers(Sequence[tuple[int, ...]]):
    """Per orbit, the renaming numbers that fix its representative (from the bit masks)."""

    def __init__(self, masks: Array, count: int) -> None:
        self.masks, self.renamings = masks, count

    def __len__(self) -> int:
        return len(self.masks)

    def __getitem__(self, node: Any) -> Any:
        mask = int(self.masks[int(node)])
        return tuple(k for k in range(self.renamings) if mask >> k & 1)


class _Index:
    """Representative state -> orbit number (the C table), as a read-only mapping."""

    def __init__(self, graph: Any, model: CompiledModel) -> None:
        self.graph, self.model = graph, model

    def get(self, state: State, default: Any = None) -> Any:
        found = int(self.graph.find(self.model.encode(state)))
        return default if found < 0 else found

    def __getitem__(self, state: State) -> int:
        found = self.get(state)
        if found is None:
            raise KeyError("a state the orbit graph did not reach")
        return int(found)


class OrbitView(OrbitGraph):
    """``OrbitGraph``'s reading interface (``states``, ``labels``, ``depth``, ``stabilizer``,
    ``index``, ``locate``, ``path_to``, ``orbit_size``) over a ``CompiledOrbitGraph``. Label
    ids are numbered as ``orbits.build`` numbers them (first kept edge first): ``code_id``
    maps a label code to its id."""

    def __init__(self, graph: Any, model: CompiledModel, symmetry: ReplicaSymmetry) -> None:
        super().__init__(Group(symmetry.n), symmetry)
        self.compiled = graph
        codes = graph.codes()
        self.codes: Array = codes
        self.labels: list[Label] = [model.labels[int(c)] for c in codes]
        self.code_id: Array = np.full(NLABELS, -1, dtype=np.int64)
        self.code_id[codes] = np.arange(len(codes))
        self.states = _Rows(graph, model)  # type: ignore[assignment]
        self.depth = graph.depth
        self.stabilizer = _Stabilizers(graph.stab, len(self.group.perms))  # type: ignore[assignment]
        self.index = _Index(graph, model)  # type: ignore[assignment]
        self.sizes: Array = (len(self.group.perms) // np.bitwise_count(graph.stab)).astype(np.uint8)
        """Per orbit, how many concrete states it holds (at most 24)."""
        classes, cls = np.unique(graph.stab, return_inverse=True)
        self.classes: Array = classes
        """The distinct stabilizers (masks); ``cls[orbit]``: the orbit's among them."""
        self.cls: Array = cls.astype(np.int8 if len(classes) < 128 else np.int64)

    def __len__(self) -> int:
        return int(self.compiled.n)

    @property
    def edges(self) -> int:
        return int(self.compiled.edges)

    def orbit_size(self, node: int) -> int:
        return int(self.sizes[node])

    def path_to(self, node: int) -> list[tuple[int | None, int, int]]:
        g = self.compiled
        steps: list[tuple[int | None, int, int]] = []
        while True:
            up = int(g.parent[node])
            if up == NO_PARENT:
                steps.append((None, node, int(g.entry[node])))
                return steps[::-1]
            steps.append((int(self.code_id[g.plabel[node]]), node, int(g.pren[node])))
            node = up


class Space:
    """The pair nodes of a leads-to judgement: node ``orbit * K + k`` is the orbit with key
    number ``k`` (``keys[k]``, in the representative's names, the smallest under its
    stabilizer); for ``<>[]P`` ``K`` is 1 and the key None. ``keyren[g, k]``: key ``k``
    renamed by ``g``; ``best[s, k]`` / ``fix[s, k]``: for stabilizer class ``s``, the
    smallest renaming of ``k`` and the renaming that makes it; ``cls[orbit]``: the class."""

    def __init__(
        self, keys: list[Any], keyren: Array, view: OrbitView, bits: Array | None = None
    ) -> None:
        self.keys, self.K = keys, len(keys)
        self.bits = bits
        """Each key's number in the compiled atoms (``model_liveness``), for a leads-to."""
        self.kidx = {key: k for k, key in enumerate(keys)}
        self.keyren = keyren.astype(np.int16)
        classes, self.cls, group = view.classes, view.cls, view.group
        rank = np.arange(self.K)  # keys are numbered in text order
        self.best = np.zeros((len(classes), self.K), dtype=np.int32)
        self.fix = np.zeros((len(classes), self.K), dtype=np.uint8)
        for s, mask in enumerate(classes):
            members = [h for h in range(len(group.perms)) if int(mask) >> h & 1]
            for k in range(self.K):
                h = min(members, key=lambda h: (rank[keyren[h, k]], h))
                self.best[s, k], self.fix[s, k] = keyren[h, k], h
        self.trivial = self.K == 1
        """One key (``<>[]P``, or a leads-to with a single key): a pair is its orbit."""

    def step(
        self, target: Array, g: Array, k: Array, mul: Array, wide: bool = True
    ) -> tuple[Array, Array]:
        """``(pair nodes, renamings)`` of the steps to orbits ``target`` with renamings ``g``
        from pairs with keys ``k`` (arrays of one length); pairs ``int64``, or ``int32``
        unless ``wide``."""
        kind: Any = np.int64 if wide else np.int32
        if self.trivial:
            return target.astype(kind), g
        k2 = self.keyren[g, k]
        s = self.cls[target]
        pairs = target.astype(kind) * kind(self.K) + self.best[s, k2].astype(kind)
        return pairs, mul[self.fix[s, k2], g]


class ArrayPairs:
    """``orbit_find.Pairs``' reading interface over a ``Space``: ``orbit[n]``, ``key[n]``,
    ``succ[n]`` (``(label id, pair, g)`` per orbit edge, in order), ``index.get``."""

    def __init__(self, view: OrbitView, space: Space, mul: Array) -> None:
        self.view, self.space, self.mul = view, space, mul
        self.orbit = _Map(lambda n: n // space.K)
        self.key = _Map(lambda n: space.keys[n % space.K])
        self.succ = _Map(self._succ)
        self.index = self

    def _succ(self, node: int) -> list[tuple[int, int, int]]:
        g, K = self.view.compiled, self.space.K
        orbit, k = divmod(node, K)
        edges = np.arange(int(g.off[orbit]), int(g.off[orbit + 1]))
        targets, renamings = self.space.step(
            g.dst[edges].astype(np.int64),
            g.ren[edges].astype(np.int64),
            np.full(len(edges), k),
            self.mul,
        )
        labels = self.view.code_id[g.lab[edges]]
        return [
            (int(a), int(b), int(c)) for a, b, c in zip(labels, targets, renamings, strict=True)
        ]

    def get(self, pair: tuple[int, Any], default: int = -1) -> int:
        orbit, key = pair
        k = self.space.kidx.get(key)
        return default if k is None else orbit * self.space.K + k


class _Map:
    """``m[n]`` = ``f(n)``."""

    def __init__(self, f: Any) -> None:
        self.f = f

    def __getitem__(self, n: int) -> Any:
        return self.f(int(n))


class Mask(Container[int]):
    """Membership in a boolean array."""

    def __init__(self, mask: Array) -> None:
        self.mask = mask

    def __contains__(self, node: object) -> bool:
        return isinstance(node, (int, np.integer)) and bool(self.mask[node])


class Sorted(Container[int]):
    """Membership in a sorted array of node numbers."""

    def __init__(self, nodes: Array) -> None:
        self.nodes = nodes

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, (int, np.integer)) or not len(self.nodes):
            return False
        at = int(np.searchsorted(self.nodes, node))
        return at < len(self.nodes) and int(self.nodes[at]) == node


class Owner:
    """``orbit_find.Members`` over the sorted ``nodes`` and a component number for each
    (-1: none)."""

    def __init__(self, nodes: Array, owner: Array) -> None:
        self.nodes, self.owner = nodes, owner

    def get(self, node: int) -> Container[int] | None:
        comp = self._of(node)
        return None if comp < 0 else _Component(self, comp)

    def _of(self, node: object) -> int:
        if not isinstance(node, (int, np.integer)) or not len(self.nodes):
            return -1
        at = int(np.searchsorted(self.nodes, node))
        if at < len(self.nodes) and int(self.nodes[at]) == node:
            return int(self.owner[at])
        return -1


class _Component(Container[int]):
    """The nodes whose component number is ``comp``."""

    def __init__(self, owner: Owner, comp: int) -> None:
        self.of, self.comp = owner, comp

    def __contains__(self, node: object) -> bool:
        return self.of._of(node) == self.comp
