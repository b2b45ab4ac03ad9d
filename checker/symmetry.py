"""Symmetry reduction over interchangeable process ids (TLC's ``SYMMETRY Permutations(S)``).

A model whose replicas are interchangeable (renaming replica ids maps behaviours to behaviours
and leaves every property's verdict unchanged) can be explored one orbit at a time: every state
is replaced by a canonical representative of its orbit under the permutations of the ids, so
the number of distinct states is the number of orbits reached.

The canonical form is exact (two states get the same representative if and only if one is a
renaming of the other). The model gives two functions:

- ``keys(state)``: per replica a key that does not depend on how the replicas are named
  (``keys(π·s)[π(r)] == keys(s)[r]``: the replica's log, HW, whether it leads, ...);
- ``permute(state, perm)``: the state with replica ``r`` renamed ``perm[r]`` everywhere (its
  slot moves to ``perm[r]`` and every id that names it changes).

``canonical`` sorts the replicas by key; where keys tie, it tries every order of the tied
replicas and keeps the renamed state with the smallest encoding (marshal bytes). The set of
states tried is the same for every member of an orbit (renaming the input renames the keys
with it), so its minimum is the orbit's. Source: Ip and Dill, "Better verification through
symmetry" (1996), as TLC and Murphi apply it; sorting first (Stateright's ``Representative``)
keeps the permutations tried to the ties.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import permutations, product
from typing import Any

from checker.fingerprint import encode

State = Any


class SymmetryError(ValueError):
    """Symmetry was asked for where it is not sound: the model has no symmetry, or a
    property names a replica (its verdict depends on how replicas are named)."""


class ReplicaSymmetry:
    """The canonicaliser of one model with ``n`` interchangeable replicas (see the module
    docstring for ``keys`` and ``permute``)."""

    def __init__(
        self,
        n: int,
        keys: Callable[[State], Sequence[Any]],
        permute: Callable[[State, tuple[int, ...]], State],
    ) -> None:
        self.n = n
        self.keys = keys
        self.permute = permute
        self._identity = tuple(range(n))
        self._order = list(self._identity)

    def canonical(self, state: State) -> State:
        """The orbit's representative: ``state`` itself when it already is one."""
        keys = self.keys(state)
        order = sorted(self._identity, key=keys.__getitem__)
        previous, tied = keys[order[0]], False
        for r in order[1:]:
            key = keys[r]
            if key == previous:
                tied = True
                break
            previous = key
        if not tied:  # every key differs: the one renaming that sorts them
            if order == self._order:
                return state
            perm = [0] * self.n
            for new, old in enumerate(order):
                perm[old] = new
            return self.permute(state, tuple(perm))
        best = best_bytes = None
        for perm in self._orders(order, _tie_groups(order, keys)):
            candidate = self.permute(state, perm) if perm != self._identity else state
            data = encode(candidate)
            if best_bytes is None or data < best_bytes:
                best, best_bytes = candidate, data
        return best

    def _orders(self, order: list[int], groups: list[tuple[int, int]]) -> Iterator[Any]:
        """Every renaming that sorts the keys: tied replicas in every order."""
        choices = [permutations(order[a:b]) for a, b in groups]
        for pick in product(*choices):
            perm = [0] * self.n
            position = 0
            for block in pick:
                for old in block:
                    perm[old] = position
                    position += 1
            yield tuple(perm)


def _tie_groups(order: list[int], keys: Sequence[Any]) -> list[tuple[int, int]]:
    """The runs ``[a, b)`` of ``order`` whose keys are equal (every run, singletons too)."""
    runs, start = [], 0
    for i in range(1, len(order) + 1):
        if i == len(order) or keys[order[i]] != keys[order[start]]:
            runs.append((start, i))
            start = i
    return runs


def orbit(symmetry: ReplicaSymmetry, state: State) -> list[State]:
    """Every renaming of ``state`` (with repeats when some renamings agree); for tests and
    for checking that a model's canonical form is exact."""
    return [symmetry.permute(state, perm) for perm in permutations(range(symmetry.n))]


def for_spec(spec: Any, properties: Sequence[Any] = ()) -> ReplicaSymmetry:
    """The canonicaliser of ``spec``, which offers symmetry through ``replica_keys(state)``,
    ``permute(state, perm)`` and ``symmetric_ids`` (how many interchangeable ids).

    Raises ``SymmetryError`` when the spec offers none (saying why when the spec has a
    ``no_symmetry`` text), or when one of ``properties`` is not
    symmetric (``Property.symmetric`` is False: it names a replica).
    """
    n = getattr(spec, "symmetric_ids", 0)
    if not n or not hasattr(spec, "replica_keys") or not hasattr(spec, "permute"):
        why = getattr(spec, "no_symmetry", "")
        raise SymmetryError(
            f"the {getattr(spec, 'name', '?')} model offers no symmetry"
            + (f" ({why})" if why else "")
            + "; run with --no-symmetry"
        )
    named = [p.name for p in properties if not getattr(p, "symmetric", True)]
    if named:
        raise SymmetryError(
            f"{', '.join(named)} names a replica, so renaming replicas can "
            "change its verdict: symmetry reduction would be unsound; run "
            "with --no-symmetry"
        )
    return ReplicaSymmetry(n, spec.replica_keys, spec.permute)
