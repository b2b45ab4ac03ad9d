"""Liveness by simulation, where exhaustive search cannot reach: a walk, then fair steps only.

Each of ``hwcheck simulate``'s walks is a random prefix (perturbations included, within their
budgets). From its last state the walk goes on with *fair* steps only, scheduled fairly: at
each step the enabled fair constraint that has waited longest goes first (ties by label
text), for at most ``bound`` steps. Along the whole path an obligation of ``P ~> Q`` that
opens must be answered; ``<>[]P`` must not be false where the walk ends up. The
continuation ends

- stuttering, where no fair constraint is enabled: a real lasso (the behaviour may stutter
  there for ever), so an unanswered obligation is a real violation;
- on a fair cycle: the state repeats and the steps in between form a fair loop (checked by
  the definition, ``checker.liveness.fair``), again a real violation when ``Q`` is false
  all along it;
- at ``bound`` steps with the obligation still open: a *suspected* violation, which proves
  nothing (the loop may be unfair, or ``Q`` just later).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from checker.fingerprint import fingerprint
from checker.model import Label, Spec
from checker.properties import LEADS_TO, Fairness, Property

Path = list[tuple[Label | None, Any]]


@dataclass(frozen=True)
class Found:
    """A liveness failure on one walk: ``path`` (label into each state, initial state first),
    ``back_to`` and ``stutter`` as ``checker.result.Loop`` has them, ``suspected`` (the bound
    ended the walk: not a proof), ``key`` (the unanswered obligation)."""

    path: Path
    back_to: int
    stutter: bool
    suspected: bool
    key: Any = None


class Schedule:
    """Which fair constraints a step fulfils, and the fair choice among enabled steps."""

    def __init__(self, fairness: Sequence[Fairness], conditions: dict[str, Callable[..., bool]]):
        self.fairness = list(fairness)
        self.conditions = conditions

    def keys(self, state: Any, label: Label) -> list[tuple[Any, ...]]:
        """The constraints a step with ``label`` out of ``state`` fulfils (and enables)."""
        out = []
        for f in self.fairness:
            if f.action != label.action:
                continue
            if f.when and not self.conditions[f.when](state):
                continue
            out.append((str(f), label.text) if f.each else (str(f),))
        return out

    def strong(self, key: tuple[Any, ...]) -> bool:
        """Whether the constraint ``key`` is strong fairness."""
        return str(key[0]).startswith("SF(")


def continue_fairly(
    spec: Spec, path: Path, schedule: Schedule, bound: int
) -> tuple[Path, int, str]:
    """Extend ``path`` with up to ``bound`` fair steps; return ``(path, back_to, end)``
    where ``end`` is ``stutter``, ``cycle`` (a fair loop back to ``back_to``) or ``bound``."""
    path = list(path)
    waited: dict[tuple[Any, ...], int] = {}
    seen: dict[int, list[int]] = {}
    for step in range(bound + 1):
        state = path[-1][1]
        fp = fingerprint(state)
        for start in seen.get(fp, []):
            if fair_loop(spec, path[start:], schedule):
                return path, start, "cycle"
        seen.setdefault(fp, []).append(len(path) - 1)
        if step == bound:
            break
        moves = []
        for label, after in spec.successors(state):
            if after == state:
                continue
            keys = schedule.keys(state, label)
            if keys:
                moves.append((min(waited.get(k, -1) for k in keys), label.text, label, after, keys))
        if not moves:
            return path, len(path) - 1, "stutter"
        _, _, label, after, keys = min(moves, key=lambda m: (m[0], m[1]))
        for key in keys:
            waited[key] = step
        path.append((label, after))
    return path, len(path) - 1, "bound"


def fair_loop(spec: Spec, loop: Path, schedule: Schedule) -> bool:
    """Whether the cycle ``loop`` (its last state equals its first) is fair on its own: every
    constraint taken in it, or (weak) disabled in one of its states, (strong) in all."""
    states = [state for _, state in loop[:-1]]
    taken = {
        key
        for (_, before), (label, _) in pairwise(loop)
        if label is not None
        for key in schedule.keys(before, label)
    }
    enabled = [
        {k for label, after in spec.successors(s) if after != s for k in schedule.keys(s, label)}
        for s in states
    ]
    for key in set().union(*enabled) - taken:
        on = [key in here for here in enabled]
        if all(on) or (schedule.strong(key) and any(on)):
            return False
    return True


def judge_walk(
    spec: Spec, prop: Property, prefix: Path, schedule: Schedule, bound: int
) -> Found | None:
    """Continue the walk ``prefix`` fairly and judge ``prop`` on it; ``None`` when it holds
    there."""
    path, back_to, end = continue_fairly(spec, prefix, schedule, bound)
    states = [state for _, state in path]
    loop = range(back_to, len(states))
    if prop.kind == LEADS_TO:
        assert prop.goal is not None
        for at, state in enumerate(states):
            for key in prop.predicate(state):
                if not any(prop.goal(later, key) for later in states[at:]):
                    return Found(path, back_to, end == "stutter", end == "bound", key)
        return None
    if any(not prop.predicate(states[i]) for i in loop):
        return Found(path, back_to, end == "stutter", end == "bound")
    return None


def replay(spec: Spec, labels: Sequence[str]) -> Path:
    """The states of a walk's labels from the first initial state (a label not enabled where
    it comes ends the path there)."""
    state = spec.init_states()[0]
    path: Path = [(None, state)]
    for text in labels:
        step = next(((lb, s) for lb, s in spec.successors(state) if lb.text == text), None)
        if step is None:
            break
        path.append(step)
        state = step[1]
    return path


def shrink(
    spec: Spec, prop: Property, found: Found, schedule: Schedule, bound: int, budget: int = 200
) -> Found:
    """Drop prefix steps one at a time (first to last) while the walk still fails the same
    way (real stays real); at most ``budget`` replays."""
    labels = [label.text for label, _ in found.path[1:] if label is not None]
    cut = found.back_to if not found.suspected else len(found.path) - 1
    prefix = labels[: max(cut, 0)]
    best = found
    i = 0
    while i < len(prefix) and budget > 0:
        budget -= 1
        trial = prefix[:i] + prefix[i + 1 :]
        path = replay(spec, trial)
        again = (
            judge_walk(spec, prop, path, schedule, bound) if len(path) == len(trial) + 1 else None
        )
        if (
            again is not None
            and again.suspected == found.suspected
            and len(again.path) < len(best.path)
        ):
            best, prefix = again, trial
        else:
            i += 1
    return best
