"""Properties the checker evaluates: invariants, transition properties and "sometimes" guards.

Kinds (the vocabulary of TLC and Stateright):

- ``invariant``: ``predicate(state) -> bool`` must hold in every reachable state; it is
  evaluated once per distinct state, when the state is first seen.
- ``transition``: ``predicate(before, label, after) -> bool`` must hold for every transition
  (TLC's action properties); evaluated on every generated transition.
- ``sometimes``: ``predicate(before, label, after) -> bool`` must hold for *at least one*
  transition. These are vacuity guards: "holds" over a model in which nothing ever crashes
  means nothing, so a complete run in which a guard is never reached fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

INVARIANT = "invariant"
TRANSITION = "transition"
SOMETIMES = "sometimes"
KINDS = (INVARIANT, TRANSITION, SOMETIMES)


@dataclass(frozen=True)
class Property:
    """A named property of a model.

    ``name`` is PascalCase (``NoCommittedLoss``); ``description`` is one line shown beside every
    violation and by ``hwcheck list`` (a docstring's line breaks and indentation are folded
    into single spaces); ``kind`` is one of ``KINDS``; ``predicate`` has the
    signature of its kind (see the module docstring); ``explain``, when given, takes the
    violating state (for transition properties the ``(before, label, after)`` triple) and says
    in words what is wrong. ``prepare``, optional and for transition properties only, takes
    ``before`` and returns ``check(label, after) -> bool`` equal to ``predicate(before, label,
    after)``; the engine calls it once per expanded state, so work that depends only on
    ``before`` is done once rather than once per successor. ``symmetric`` is False for a
    property that names a replica (its verdict can change when replicas are renamed): symmetry
    reduction (``checker.symmetry``) refuses to run with such a property.
    """

    name: str
    description: str
    kind: str
    predicate: Callable[..., bool]
    explain: Callable[..., str | None] | None = field(default=None, compare=False)
    prepare: Callable[..., Callable[..., bool]] | None = field(default=None, compare=False)
    symmetric: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"property {self.name}: unknown kind {self.kind!r}")
        # a docstring passed as the description keeps its indentation: one line, as shown
        object.__setattr__(self, "description", " ".join(self.description.split()))


def transition_checker(prop: Property, before: Any) -> Callable[..., bool]:
    """``check(label, after) -> bool`` for the transition property ``prop`` at state ``before``
    (its ``prepare`` hook when it has one)."""
    if prop.prepare is not None:
        return prop.prepare(before)
    predicate = prop.predicate
    return lambda label, after: predicate(before, label, after)
