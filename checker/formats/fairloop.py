"""Which actions a lasso's loop leaves undone, and why fairness does not force them.

A lasso (``checker.liveness.lasso``) is fair: no action under a weak fairness constraint stays
enabled through its whole loop without happening, and none under a strong one is enabled in
any loop state without happening. A reader looking at a loop state still sees actions that
could happen and never do; this module says, for each, why the lasso may leave it undone:

- it is under no fairness constraint (a perturbation such as ``Crash``, ``Produce`` or a lost
  response, or an action ``--unfair`` removed): ``not assumed fair``;
- its step changes nothing in a loop state (a follower's fetch at the leader's LEO): a stutter,
  which as in TLA+ neither enables nor fulfils a constraint;
- it is enabled in some loop states only, so ``WF`` does not force it;
- the constraint's ``when`` condition is false where it is enabled (``WF(each Elect when
  LeaderOffline)`` while a leader is online);
- a constraint on the action as a whole is fulfilled by another instance taken in the loop.

An action enabled where its constraint holds in every loop state and never taken would make
the lasso unfair; ``note`` then says so plainly (the checker never writes such a lasso). The
results go into the trace document's ``loop.enabled`` (``trace.schema.json``), drawn by
``checker.renderers.lasso`` and ``hwcheck serve``. Source: Lamport, *Specifying Systems*,
ch. 8 (``WF_vars`` / ``SF_vars``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checker.liveness.fairness import FairnessError, parse_list
from checker.properties import STRONG, Fairness


def loop_indices(length: int, back_to: int, stutter: bool) -> list[int]:
    """The 0-based indices of the states a lasso visits for ever: the last one when it
    stutters, else ``back_to`` up to (not including) the last, which is ``back_to`` again."""
    return [length - 1] if stutter else list(range(back_to, length - 1))


def analyse(
    spec: Any,
    states: Sequence[Any],
    labels: Sequence[str | None],
    back_to: int,
    stutter: bool,
    fairness: str,
) -> list[dict[str, Any]]:
    """One entry per action instance a loop state offers and the loop never takes, in the
    model's order: ``action`` (label text), ``fairness`` (its constraint as text, '' when
    none), ``enabled_in`` (1-based states of the loop where it is a real step),
    ``stutters_in`` (1-based loop states where it changes nothing) and ``note`` (why the lasso
    may leave it undone, in words).

    ``states``/``labels``: the trace's states and the label into each (``None`` first).
    Raises nothing for fairness text it cannot read (the entries then say ``not assumed
    fair``)."""
    try:
        constraints = {c.action: c for c in parse_list(fairness)}
    except FairnessError:
        constraints = {}
    conditions: dict[str, Any] = getattr(spec, "conditions", dict)()
    perturbations = set(getattr(spec, "perturbations", ()))
    loop = loop_indices(len(states), back_to, stutter)
    taken = set() if stutter else {text for text in labels[back_to + 1 :] if text is not None}
    enabled: dict[str, list[int]] = {}
    stutters: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for index in loop:
        for label, after in spec.successors(states[index]):
            text = str(label)
            names[text] = label.action
            enabled.setdefault(text, [])
            if after == states[index]:
                stutters.setdefault(text, []).append(index)
            else:
                enabled[text].append(index)
    out = []
    for text, where in enabled.items():
        if text in taken:
            continue
        action = names[text]
        constraint = constraints.get(action)
        if constraint is None:
            note = "a perturbation, never assumed fair" if action in perturbations else ""
            note = note or "not assumed fair"
        else:
            fair = [i for i in where if _covers(constraint, conditions, states[i])]
            note = _why(constraint, fair, where, stutters.get(text, []), loop, taken)
        out.append(
            {
                "action": text,
                "fairness": str(constraint) if constraint else "",
                "enabled_in": [i + 1 for i in where],
                "stutters_in": [i + 1 for i in stutters.get(text, [])],
                "note": note,
            }
        )
    return out


def _covers(constraint: Fairness, conditions: dict[str, Any], state: Any) -> bool:
    """Whether ``constraint``'s ``when`` condition holds in ``state`` (always without one)."""
    guard = conditions.get(constraint.when) if constraint.when else None
    return guard is None or bool(guard(state))


def _why(
    constraint: Fairness,
    fair: list[int],
    where: list[int],
    stutters: list[int],
    loop: list[int],
    taken: set[str],
) -> str:
    """The note of one entry of ``analyse`` under ``constraint``: ``fair``, the loop indices
    where it is enabled and its condition holds; ``where``, where it is a real step."""
    if not constraint.each:
        other = sorted(t for t in taken if t.split("(")[0] == constraint.action)
        if other:
            return f"{constraint} is met by {other[0]} in the loop"
    off = [i for i in loop if i not in fair]
    strong = constraint.strength == STRONG
    if (strong and fair) or (not strong and not off):  # WF: enabled throughout; SF: at all
        return f"enabled under {constraint} and never taken: this lasso is not fair"
    first = (where or loop)[0] if strong else off[0]
    if first in where:
        reason = f"{constraint.when} is false in state {first + 1}"
    elif first in stutters:
        reason = f"it changes nothing in state {first + 1} (a stutter)"
    else:
        reason = f"it is not enabled in state {first + 1}"
    return f"not fairly enabled: {reason}"
