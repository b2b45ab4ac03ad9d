"""Properties the checker evaluates: invariants, transition properties and "sometimes" guards.

Kinds (the vocabulary of TLC and Stateright):

- ``invariant``: ``predicate(state) -> bool`` must hold in every reachable state; it is
  evaluated once per distinct state, when the state is first seen.
- ``transition``: ``predicate(before, label, after) -> bool`` must hold for every transition
  (TLC's action properties); evaluated on every generated transition.
- ``sometimes``: ``predicate(before, label, after) -> bool`` must hold for *at least one*
  transition. These are vacuity guards: "holds" over a model in which nothing ever crashes
  means nothing, so a complete run in which a guard is never reached fails.
- ``leads-to`` (liveness, TLA+'s ``P ~> Q``): ``predicate(state)`` returns the *obligations*
  that ``P`` opens in ``state`` (an iterable of hashable keys, e.g. ``(epoch, replica)`` for a
  property quantified over them; empty where ``P`` is false) and ``goal(state, key) -> bool``
  says whether ``Q`` holds for that key. It holds when every fair behaviour that reaches a
  state opening ``key`` later (or there) reaches a state where ``goal(state, key)``.
- ``eventually-always`` (liveness, ``<>[]P``): ``predicate(state) -> bool``; it holds when
  every fair behaviour ends in states where ``P`` holds for ever.

Liveness properties are judged over the fair behaviours of the whole, bounded state graph
(``checker.liveness``), never by the safety engines; a model lists them in ``liveness()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

INVARIANT = "invariant"
TRANSITION = "transition"
SOMETIMES = "sometimes"
LEADS_TO = "leads-to"
EVENTUALLY_ALWAYS = "eventually-always"
LIVENESS_KINDS = (LEADS_TO, EVENTUALLY_ALWAYS)
KINDS = (INVARIANT, TRANSITION, SOMETIMES, *LIVENESS_KINDS)


@dataclass(frozen=True)
class Property:
    """A named property of a model.

    ``name`` is PascalCase (``NoCommittedLoss``); ``description`` is one line shown beside every
    violation and by ``hwcheck list`` (a docstring's line breaks and indentation are folded
    into single spaces); ``kind`` is one of ``KINDS``; ``predicate`` has the
    signature of its kind (see the module docstring); ``explain``, when given, takes the
    violating state (for transition properties the ``(before, label, after)`` triple) and says
    in words what is wrong; for a ``leads-to`` property it takes an obligation's key and
    names it (``record m1 at offset 0``). ``prepare``, optional and for transition properties only, takes
    ``before`` and returns ``check(label, after) -> bool`` equal to ``predicate(before, label,
    after)``; the engine calls it once per expanded state, so work that depends only on
    ``before`` is done once rather than once per successor. ``symmetric`` is False for a
    property that names a replica (its verdict can change when replicas are renamed): symmetry
    reduction (``checker.symmetry``) refuses to run with such a property. ``goal``: for a
    ``leads-to`` property only, ``goal(state, key) -> bool`` (its ``Q``). ``formula``: for a
    liveness property, its statement in TLA+ (shown by ``hwcheck list`` and in traces).
    ``key_ids``: see the field. ``named_only``: why a run checks the property only when it is named (``--invariant``),
    as TLC checks only the invariants a ``.cfg`` names; empty (the default): a run that names
    no property checks it too.
    """

    name: str
    description: str
    kind: str
    predicate: Callable[..., Any]
    """``-> bool`` for every kind but ``leads-to``, whose predicate returns its obligations."""
    explain: Callable[..., str | None] | None = field(default=None, compare=False)
    prepare: Callable[..., Callable[..., bool]] | None = field(default=None, compare=False)
    symmetric: bool = True
    goal: Callable[..., bool] | None = field(default=None, compare=False)
    formula: str = ""
    named_only: str = ""
    key_ids: tuple[int, ...] | None = None
    """For a ``leads-to`` property: the positions in its obligations' keys that hold replica
    ids (``(0,)`` for ``(replica, epoch)``; ``()`` when no key names one). ``None``, not said:
    liveness then runs on the plain graph, not on the symmetry quotient."""

    @property
    def liveness(self) -> bool:
        """Whether this is a liveness property (``leads-to`` or ``eventually-always``)."""
        return self.kind in LIVENESS_KINDS

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"property {self.name}: unknown kind {self.kind!r}")
        if (self.kind == LEADS_TO) != (self.goal is not None):
            raise ValueError(f"property {self.name}: a goal is given exactly for leads-to")
        # a docstring passed as the description keeps its indentation: one line, as shown
        object.__setattr__(self, "description", " ".join(self.description.split()))


WEAK = "weak"
STRONG = "strong"


@dataclass(frozen=True, order=True)
class Fairness:
    """One fairness constraint of a liveness check (``checker.liveness.fairness`` reads and
    writes the text forms): ``action`` (an action name of the model), ``strength``
    (``weak`` or ``strong``) and ``each`` (one constraint per action instance, i.e. per
    label, instead of one for the action as a whole)."""

    action: str
    strength: str = WEAK
    each: bool = True
    when: str = ""
    """A condition the model names (``spec.conditions()``): the constraint covers the action
    only in states where it holds (TLA+'s ``WF_vars(A /\\ C)``), e.g. ``Elect`` only while the
    partition has no live leader. Empty: always."""

    def __str__(self) -> str:
        kind = "WF" if self.strength == WEAK else "SF"
        when = f" when {self.when}" if self.when else ""
        return f"{kind}({'each ' if self.each else ''}{self.action}{when})"


def transition_checker(prop: Property, before: Any) -> Callable[..., bool]:
    """``check(label, after) -> bool`` for the transition property ``prop`` at state ``before``
    (its ``prepare`` hook when it has one)."""
    if prop.prepare is not None:
        return prop.prepare(before)
    predicate = prop.predicate
    return lambda label, after: predicate(before, label, after)
