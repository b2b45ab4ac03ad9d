"""Fairness: which actions a behaviour may not neglect for ever.

A behaviour is a path through the state graph that either cycles for ever or ends by
stuttering in one state (TLA+'s ``[][Next]_vars`` allows both). A fairness constraint rules
some of those out, as TLA+'s ``WF_vars(A)`` and ``SF_vars(A)`` do:

- ``WF(A)`` (weak): ``A`` may not stay enabled for ever without happening.
- ``SF(A)`` (strong): ``A`` may not be enabled infinitely often without happening.

``A`` is either the action as a whole (any of its instances happening fulfils it: TLA+'s
``WF_vars(BecomeLeader)`` over ``\\E leader, epoch``) or, written ``WF(each A)``, every action
instance on its own (``\\A r : WF_vars(Fetch(r))``, the form Vanlightly's Kafka specs use).
As in TLA+, a step that changes nothing is a stutter: it neither enables nor fulfils.

Text forms (``--fair``, ``--unfair``, a gate check's ``fairness`` key): ``WF(Fetch)``,
``SF(LeaderWrite)``, ``WF(each Fetch)``; a bare ``Fetch`` means ``WF(each Fetch)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from checker.properties import STRONG, WEAK, Fairness


class FairnessError(ValueError):
    """A fairness text that does not parse, names no action of the model, or makes a
    perturbation fair; the message says which and what is allowed."""


_FORM = re.compile(
    r"^\s*(?:(WF|SF)\(\s*(each\s+)?([A-Za-z][A-Za-z0-9]*)(?:\s+when\s+([A-Za-z][A-Za-z0-9]*))?"
    r"\s*\)|([A-Za-z][A-Za-z0-9]*))\s*$"
)


def parse(text: str) -> Fairness:
    """``WF(A)``, ``SF(A)``, ``WF(each A)``, ``SF(each A)``, any of them with ``when C`` after
    the action (``WF(each Elect when LeaderOffline)``), or a bare ``A`` (= ``WF(each A)``).

    Raises ``FairnessError`` on anything else."""
    match = _FORM.match(text)
    if not match:
        raise FairnessError(
            f"not a fairness constraint: {text!r} (write WF(Action), SF(Action), "
            "WF(each Action) or a bare action name)"
        )
    kind, each, action, when, bare = match.groups()
    if bare:
        return Fairness(bare)
    return Fairness(action, WEAK if kind == "WF" else STRONG, bool(each), when or "")


def parse_list(text: str) -> tuple[Fairness, ...]:
    """A comma-separated list of constraints (``"WF(each Fetch), SF(LeaderWrite)"``), as
    ``render`` writes it; an empty text or ``none`` is no fairness at all. Raises
    ``FairnessError``."""
    if text.strip() == "none":
        return ()
    parts = [part for part in _split(text) if part.strip()]
    return tuple(parse(part) for part in parts)


def _split(text: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current]


def render(constraints: Iterable[Fairness]) -> str:
    """The list as text, the form ``parse_list`` reads (``none`` when empty)."""
    text = ", ".join(str(c) for c in constraints)
    return text or "none"


def adjust(
    declared: Sequence[Fairness],
    fair: Sequence[str],
    unfair: Sequence[str],
    actions: Sequence[str],
    perturbations: Sequence[str],
    conditions: Sequence[str] = (),
) -> tuple[Fairness, ...]:
    """The model's ``declared`` fairness changed by ``--fair`` texts (added, replacing any
    constraint on the same action) and ``--unfair`` action names (every constraint on them
    removed).

    ``actions`` are the model's action names; ``perturbations`` the ones that may never be
    fair (crashes, produce, lost responses: their budgets keep behaviours finite). Raises
    ``FairnessError`` naming the unknown action (and the known ones), an unknown condition
    (``conditions``: the model's) or the perturbation."""
    result = {c.action: c for c in declared}
    for name in unfair:
        known(name.strip(), actions)
        result.pop(name.strip(), None)
    for text in fair:
        constraint = parse(text)
        known(constraint.action, actions)
        if constraint.when and constraint.when not in conditions:
            raise FairnessError(
                f"no condition {constraint.when!r} in this model (its conditions: "
                f"{', '.join(conditions) or 'none'})"
            )
        if constraint.action in perturbations:
            raise FairnessError(
                f"{constraint.action} is a perturbation and cannot be fair: its budget "
                f"keeps behaviours finite (perturbations: {', '.join(perturbations)})"
            )
        result[constraint.action] = constraint
    return tuple(sorted(result.values(), key=lambda c: actions.index(c.action)))


def known(action: str, actions: Sequence[str]) -> None:
    """Raise ``FairnessError`` unless ``action`` is one of ``actions``."""
    if action not in actions:
        raise FairnessError(
            f"no action {action!r} in this model (its actions: {', '.join(actions)})"
        )
