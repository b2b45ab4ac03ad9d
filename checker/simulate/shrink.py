"""Shrinking a violating random walk to a short counterexample (``hwcheck simulate``).

A walk of 40 random steps explains nothing; the shrinker turns it into a behaviour a person
can read, in four deterministic passes, each keeping a *real* behaviour (every label enabled
where it is taken, replayed from the initial state) that still violates the *same* property:

1. **cut** at the first state (or transition) that violates the property;
2. **loops**: a state visited twice means the steps between are a loop, and go;
3. **deletion** (delta debugging, as QuickCheck and hypothesis shrink): delete blocks of
   steps, halving the block size down to single steps, keeping a deletion whenever the rest
   still replays and still violates the property (where it violates earlier, it is cut there).
   Replay is loose here: a label no longer enabled is replaced by the enabled instance of the
   same action that differs in one argument (an election deleted, a later
   ``BecomeFollower(replica=0, epoch=6)`` becomes ``epoch=5``);
4. **neighbourhood search**, when cheap: a breadth-first search from the initial state that
   takes only the action instances (labels) the shrunk trace uses, for a behaviour shorter
   than it, giving up after ``budget`` distinct states. What it finds is the shortest
   counterexample over those labels.

The lengths after each pass (in states, the initial state counting) are reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from checker.fingerprint import fingerprint
from checker.model import Label, Spec
from checker.properties import INVARIANT, Property, transition_checker
from checker.result import Violation
from checker.trace import replay

BUDGET = 100_000
"""States the neighbourhood search may visit before it gives up (states)."""


@dataclass(frozen=True)
class Shrunk:
    """A shrunk counterexample: the ``violation`` (its trace a real behaviour) and the length
    in states after each pass: ``walk`` (the walk cut at its first violation), ``loops``,
    ``deletion`` and ``search`` (equal to ``deletion`` when the search found nothing shorter
    or gave up)."""

    violation: Violation
    walk: int
    loops: int
    deletion: int
    search: int


def violates_at(spec: Spec, prop: Property, labels: Sequence[str]) -> int | None:
    """Replay label texts from the first initial state; the number of states up to the first
    violation of ``prop``, or None when a label is not enabled where it is taken or ``prop``
    is never violated."""
    taken = replay_to_violation(spec, prop, labels, loose=False)
    return None if taken is None else len(taken) + 1


def replay_to_violation(
    spec: Spec, prop: Property, labels: Sequence[str], loose: bool = True
) -> list[str] | None:
    """Replay label texts as ``violates_at`` does, but (``loose``) where a label is not
    enabled take the enabled instance of the same action that differs from it in exactly one
    argument (the smallest label text): deleting an election shifts the epochs named by later
    labels, and this keeps the rest of the behaviour. Returns the labels actually taken, up
    to the first violation of ``prop``, or None when a step has no such instance or ``prop``
    is never violated."""
    state = spec.init_states()[0]
    if prop.kind == INVARIANT and not prop.predicate(state):
        return []
    taken: list[str] = []
    for text in labels:
        moves = spec.successors(state)
        chosen = next(((label, after) for label, after in moves if label.text == text), None)
        if chosen is None and loose:
            chosen = _nearest(moves, Label.parse(text))
        if chosen is None:
            return None
        label, after = chosen
        taken.append(label.text)
        if _violates(prop, state, label, after):
            return taken
        state = after
    return None


def _violates(prop: Property, state: Any, label: Label, after: Any) -> bool:
    """The step ``state --label--> after`` violates ``prop`` (an invariant: at ``after``)."""
    if prop.kind == INVARIANT:
        return not prop.predicate(after)
    return not transition_checker(prop, state)(label, after)


def _nearest(moves: Any, wanted: Label) -> Any:
    """The move whose label has ``wanted``'s action and differs in exactly one argument."""
    best = None
    for label, after in moves:
        if label.action != wanted.action or len(label.args) != len(wanted.args):
            continue
        differ = sum(1 for a, b in zip(label.args, wanted.args) if a != b)
        if differ == 1 and (best is None or label.text < best[0].text):
            best = (label, after)
    return best


def drop_loops(spec: Spec, labels: list[str]) -> list[str]:
    """The labels with every loop removed: each state keeps only its last visit."""
    state = spec.init_states()[0]
    kept: list[str] = []
    where = {fingerprint(state): 0}
    for text in labels:
        state = next(after for label, after in spec.successors(state) if label.text == text)
        fp = fingerprint(state)
        if fp in where:
            del kept[where[fp] :]
            where = {f: i for f, i in where.items() if i <= len(kept)}
        else:
            kept.append(text)
            where[fp] = len(kept)
    return kept


def delete_blocks(spec: Spec, prop: Property, labels: list[str]) -> list[str]:
    """Delete blocks of steps, largest first, while the rest still violates ``prop``."""
    size = max(1, len(labels) // 2)
    while True:
        start = len(labels) - size
        while start >= 0:
            taken = replay_to_violation(spec, prop, labels[:start] + labels[start + size :])
            if taken is not None:
                labels = taken
                start = min(start, len(labels)) - size
            else:
                start -= 1
        if size == 1:
            return labels
        size = max(1, size // 2)


def neighbourhood(
    spec: Spec, prop: Property, labels: list[str], budget: int = BUDGET
) -> list[str] | None:
    """The shortest behaviour that violates ``prop`` using only the label texts in ``labels``,
    when it is shorter than ``labels`` and found within ``budget`` states; else None."""
    alphabet = set(labels)
    init = spec.init_states()[0]
    parents: dict[int, tuple[int, str] | None] = {fingerprint(init): None}
    frontier = [init]
    for _ in range(len(labels) - 1):
        nxt = []
        for state in frontier:
            here = fingerprint(state)
            for label, after in spec.successors(state):
                if label.text not in alphabet:
                    continue
                fp = fingerprint(after)
                if fp in parents and prop.kind == INVARIANT:
                    continue  # checked when first seen
                if _violates(prop, state, label, after):
                    path = [label.text]
                    while (parent := parents[here]) is not None:
                        here, text = parent
                        path.append(text)
                    return path[::-1]
                if fp in parents:
                    continue
                parents[fp] = (here, label.text)
                nxt.append(after)
                if len(parents) > budget:
                    return None
        frontier = nxt
    return None


def shrink(spec: Spec, prop: Property, labels: Sequence[str], budget: int = BUDGET) -> Shrunk:
    """Shrink a violating walk's ``labels`` (texts) for ``prop``: see the module docstring.

    Raises ``ValueError`` when ``labels`` do not replay to a violation of ``prop`` (a walk of
    another model or seed).
    """
    cut = violates_at(spec, prop, labels)
    if cut is None:
        raise ValueError(f"the walk does not violate {prop.name} when replayed")
    current = list(labels[: cut - 1])
    walk = len(current) + 1
    # a loop removed before a transition property's violating step can take that step away
    looped = replay_to_violation(spec, prop, drop_loops(spec, current), loose=False)
    current = current if looped is None else looped
    loops = len(current) + 1
    current = delete_blocks(spec, prop, current)
    deletion = len(current) + 1
    found = neighbourhood(spec, prop, current, budget) if len(current) > 1 else None
    if found is not None:
        current = found
    steps = replay(spec, fingerprint(spec.init_states()[0]), [Label.parse(t) for t in current])
    return Shrunk(Violation(prop, tuple(steps)), walk, loops, deletion, len(current) + 1)
