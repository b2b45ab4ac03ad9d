"""Play a hand-written schedule on a model and judge every property along it
(``hwcheck scenario``, ``hwcheck serve --scenario``).

No search: from the model's first initial state each label is taken as the successor of that
name, in the model's successor order (``Spec.successors``), as ``checker.trace.replay`` does
for traces. Invariants are judged on every state, the initial one included; transition
properties on every step. "sometimes" guards speak about a whole state space, not one run,
and are not judged here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from checker.fingerprint import fingerprint
from checker.model import Label, Refusal, Spec, refusal
from checker.properties import INVARIANT, TRANSITION, Property, transition_checker
from checker.result import Step, Violation


@dataclass(frozen=True)
class Disabled:
    """Where a schedule stopped: step ``index`` (1 = its first label), whose ``label`` is not
    enabled in the state before it; ``enabled`` are the labels that were, in the model's
    order; ``refusal``, the model's words on which guard is false (its ``why_disabled``), or
    None when it cannot tell."""

    index: int
    label: Label
    enabled: tuple[Label, ...]
    refusal: Refusal | None = None


@dataclass
class Played:
    """What playing a schedule gave: ``steps`` (initial state first, then one per label that
    was enabled), ``first`` (property name → index into ``steps`` of the first state at which
    it fails: for an invariant the state that violates it, for a transition property the
    state its step reached) and ``disabled`` (None when every label was enabled)."""

    steps: list[Step]
    judged: list[Property]
    first: dict[str, int] = field(default_factory=dict)
    disabled: Disabled | None = None

    def violations(self) -> list[Violation]:
        """One counterexample per property that failed: the schedule cut at the state where it
        first fails, in the order they first fail (ties in ``judged`` order)."""
        order = {prop.name: n for n, prop in enumerate(self.judged)}
        failed = sorted(self.first, key=lambda name: (self.first[name], order[name]))
        by_name = {prop.name: prop for prop in self.judged}
        return [
            Violation(by_name[name], tuple(self.steps[: self.first[name] + 1])) for name in failed
        ]


def judged(props: Sequence[Property]) -> list[Property]:
    """The properties a schedule is judged on: the invariants and transition properties of
    ``props``, in their order."""
    return [prop for prop in props if prop.kind in (INVARIANT, TRANSITION)]


def play(spec: Spec, props: Sequence[Property], labels: Sequence[Label]) -> Played:
    """Take ``labels`` one by one from ``spec``'s first initial state, judging ``props`` (see
    ``judged``) along the way. Stops at the first label that is not enabled (``Played.disabled``
    says which, what was enabled and, when the model has ``why_disabled``, why). Exceptions
    raised by the model propagate."""
    chosen = judged(props)
    invariants = [prop for prop in chosen if prop.kind == INVARIANT]
    transitions = [prop for prop in chosen if prop.kind == TRANSITION]
    state: Any = spec.init_states()[0]
    played = Played([Step(None, state, fingerprint(state))], chosen)
    _judge_state(played, invariants, state, 0)
    for index, label in enumerate(labels, start=1):
        successors = spec.successors(state)
        after = next((succ for succ_label, succ in successors if succ_label == label), None)
        if after is None:
            enabled = tuple(lab for lab, _ in successors)
            played.disabled = Disabled(index, label, enabled, refusal(spec, state, label))
            break
        for prop in transitions:
            if prop.name not in played.first and not transition_checker(prop, state)(label, after):
                played.first[prop.name] = index
        state = after
        played.steps.append(Step(label, state, fingerprint(state)))
        _judge_state(played, invariants, state, index)
    return played


def _judge_state(played: Played, invariants: list[Property], state: Any, index: int) -> None:
    for prop in invariants:
        if prop.name not in played.first and not prop.predicate(state):
            played.first[prop.name] = index
