"""Seeded random walks: the one-walk loop and a batch's statistics (``hwcheck simulate``).

A walk starts at the first initial state and, at each step, picks one of the enabled
``(label, next state)`` pairs of ``spec.successors`` at random: **uniformly over the enabled
action instances** (so an action enabled for three replicas is three times as likely as one
enabled once), or, with ``weights`` (``{action name: weight}``, default 1, 0 disables it),
with probability proportional to the weight of each instance's action. Every invariant is
checked on every state (the initial state too), every transition property on every step; the
walk goes on after a violation, checking the properties not yet violated on it, and ends when
every checked property is violated, at a deadlock (nothing enabled, or only weight-0 actions)
or after ``depth`` states.

Determinism: walk ``i`` of seed ``S`` draws from ``random.Random("hwcheck-walk:S:i")`` (a
string seed is hashed with SHA-512, the same on every platform and Python 3 version), so a
walk is the same whichever process, worker or Spark partition runs it, and batches merged in
walk order give the same statistics for any split. The shape follows TLC's ``-simulate``
(random behaviours of bounded depth) with Stateright's per-walk seeding.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from checker.fingerprint import fingerprint
from checker.model import Label, Spec
from checker.properties import INVARIANT, SOMETIMES, TRANSITION, transition_checker

DEADLOCK, DEPTH, VIOLATION = "deadlock", "depth", "violation"
ENDS = (VIOLATION, DEADLOCK, DEPTH)


@dataclass(frozen=True)
class WalkPlan:
    """What every walk of a run does: ``seed`` (int), ``depth`` (most states on a walk, the
    initial state counting as 1, as TLC counts depth), ``weights`` (``(action, weight)``
    pairs; an action not named has weight 1)."""

    seed: int = 0
    depth: int = 100
    weights: tuple[tuple[str, float], ...] = ()


def walk_rng(seed: int, index: int) -> random.Random:
    """The generator of walk ``index`` of ``seed`` (see the module docstring)."""
    return random.Random(f"hwcheck-walk:{seed}:{index}")


@dataclass
class Walk:
    """One walk: its ``index``, the ``labels`` taken (texts, in order), how it ``end``-ed
    (one of ``ENDS``), ``violated``: per property violated on it, the number of states up to
    its first violation (a prefix of ``labels`` one shorter), and the fingerprints of every
    state it visited (``fps``, initial first)."""

    index: int
    labels: list[str]
    end: str
    violated: dict[str, int]
    fps: Any  # list[int], or the compiled core's uint64 array


def run_walk(
    spec: Spec, props: Sequence[Any], plan: WalkPlan, index: int, tally: Batch | None = None
) -> Walk:
    """Walk ``index`` of ``plan`` over ``spec`` checking ``props`` (invariants, transition
    properties; "sometimes" guards are noted as reached in ``tally``). After a violation the
    walk goes on checking the properties not yet violated on it, as ``explore`` goes on; it
    ends when every checked property is violated (end ``violation``), at a deadlock or at
    ``plan.depth`` states. Updates ``tally`` (action coverage, guards) when given. Raises
    whatever the spec raises."""
    rng = walk_rng(plan.seed, index)
    weights = dict(plan.weights)
    invariants = [p for p in props if p.kind == INVARIANT]
    transitions = [p for p in props if p.kind == TRANSITION]
    guards = [
        p for p in props if p.kind == SOMETIMES and (tally is None or p.name not in tally.guards)
    ]
    state = spec.init_states()[0]
    fps = [fingerprint(state)]
    labels: list[str] = []
    violated = {p.name: 1 for p in invariants if not p.predicate(state)}
    checked = len(invariants) + len(transitions)
    while len(fps) < plan.depth and not (checked and len(violated) == checked):
        moves = spec.successors(state)
        chances = [weights.get(label.action, 1.0) for label, _ in moves] if weights else None
        if not moves or (chances is not None and not any(chances)):
            return Walk(index, labels, DEADLOCK, violated, fps)
        if chances is None:
            label, after = moves[rng.randrange(len(moves))]
        else:
            label, after = moves[rng.choices(range(len(moves)), chances)[0]]
        if tally is not None:
            tally.take(moves, label)
            for guard in guards:
                if guard.name not in tally.guards and guard.predicate(state, label, after):
                    tally.guards.add(guard.name)
        at = len(fps) + 1
        for prop in transitions:
            if prop.name not in violated and not transition_checker(prop, state)(label, after):
                violated[prop.name] = at
        for prop in invariants:
            if prop.name not in violated and not prop.predicate(after):
                violated[prop.name] = at
        state = after
        labels.append(label.text)
        fps.append(fingerprint(state))
    end = VIOLATION if checked and len(violated) == checked else DEPTH
    return Walk(index, labels, end, violated, fps)


@dataclass
class Batch:
    """The statistics of a run of consecutive walks (or of several merged batches, in walk
    order): ``walks``, ``steps`` (transitions taken), ``ends`` (walks per end),
    ``lengths`` (walks per length in states), ``actions`` (per action name ``[enabled,
    taken]``: how often an instance was enabled at a step, how often one was taken), ``guards``
    (names of "sometimes" guards reached), ``first`` (per violated property, the first
    violating walk: ``(index, labels to its first violation)``), ``violating`` (per
    property, walks that violated it) and ``fps`` (sorted unique ``uint64`` fingerprints of every visited state)."""

    walks: int = 0
    steps: int = 0
    ends: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ENDS, 0))
    lengths: dict[int, int] = field(default_factory=dict)
    actions: dict[str, list[int]] = field(default_factory=dict)
    guards: set[str] = field(default_factory=set)
    first: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    violating: dict[str, int] = field(default_factory=dict)
    fps: Any = field(default_factory=lambda: np.empty(0, dtype=np.uint64))
    _parts: list[Any] = field(default_factory=list, repr=False)

    def take(self, moves: Any, label: Label) -> None:
        """Count one step: every enabled instance of ``moves``, then the ``label`` taken."""
        actions = self.actions
        for enabled, _ in moves:
            counts = actions.get(enabled.action)
            if counts is None:
                counts = actions[enabled.action] = [0, 0]
            counts[0] += 1
        actions[label.action][1] += 1

    def add(self, walk: Walk) -> None:
        """Count one finished walk (walks must be added in index order)."""
        self.walks += 1
        self.steps += len(walk.labels)
        self.ends[walk.end] += 1
        self.lengths[len(walk.fps)] = self.lengths.get(len(walk.fps), 0) + 1
        for name, states in walk.violated.items():
            self.violating[name] = self.violating.get(name, 0) + 1
            self.first.setdefault(name, (walk.index, walk.labels[: states - 1]))

    def merge(self, other: Batch) -> None:
        """Add ``other``, a batch of later walks, to this one."""
        self.walks += other.walks
        self.steps += other.steps
        for end, walks in other.ends.items():
            self.ends[end] += walks
        for length, walks in other.lengths.items():
            self.lengths[length] = self.lengths.get(length, 0) + walks
        for name, (enabled, taken) in other.actions.items():
            counts = self.actions.setdefault(name, [0, 0])
            counts[0] += enabled
            counts[1] += taken
        self.guards |= other.guards
        for name, count in other.violating.items():
            self.violating[name] = self.violating.get(name, 0) + count
        for name, first in other.first.items():
            if name not in self.first or first[0] < self.first[name][0]:
                self.first[name] = first
        self._parts.append(other.fps)
        if len(self._parts) >= 64:
            self._compact()

    def _compact(self) -> None:
        if self._parts:
            self.fps = sorted_unique(np.concatenate([self.fps, *self._parts]))
            self._parts = []

    @property
    def distinct(self) -> int:
        """Distinct states visited by the walks (concrete states, no symmetry)."""
        self._compact()
        return len(self.fps)


def run_batch(spec: Spec, props: Sequence[Any], plan: WalkPlan, start: int, count: int) -> Batch:
    """Walks ``start .. start + count - 1`` of ``plan``; their ``Batch``. Raises whatever the
    spec raises."""
    batch = Batch()
    for name in spec.action_names():
        batch.actions[name] = [0, 0]
    seen: list[int] = []
    for index in range(start, start + count):
        walk = run_walk(spec, props, plan, index, batch)
        batch.add(walk)
        seen.extend(walk.fps)
    batch.fps = sorted_unique(np.array(seen, dtype=np.uint64))
    return batch


def sorted_unique(fps: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The distinct values of ``fps`` (``uint64``), sorted. A sort and a comparison of
    neighbours: ``np.unique`` hashes ``uint64`` keys, several times slower at millions."""
    fps = np.sort(fps)
    if len(fps) < 2:
        return fps
    keep = np.empty(len(fps), dtype=bool)
    keep[0] = True
    np.not_equal(fps[1:], fps[:-1], out=keep[1:])
    return fps[keep]
