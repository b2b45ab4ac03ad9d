"""The local (reference) engine: level-synchronous breadth-first search over fingerprints.

- The seen set and parent pointers are sorted ``uint64`` arrays, level by level
  (``checker.search.reference.seen``: 20 bytes a state); only the current frontier keeps full
  states. Within a level, successors are deduplicated in a dict, after a cheap look at the last two
  levels' fingerprints; the rest of the seen set is consulted once per level, in one batch.
- Invariants are checked when a state is first seen; transition properties and "sometimes"
  guards on every generated transition.
- Level by level, so the first level at which a property fails gives a shortest
  counterexample. Ties are broken by value, not by visiting order, so that any engine and any
  partitioning reports the same trace: a new state's parent is the smallest
  ``(parent fingerprint, str(label))`` among its discoverers in that level, and the reported
  violation of a property is the one with the smallest fingerprint (for transition
  properties: the smallest ``(parent fingerprint, str(label))``).
- After a property is violated the search goes on (unless ``stop_on_first``) so that every
  other property gets its own verdict and shortest counterexample; it ends early once every
  checked safety property is violated.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from checker.checkpoint.saving import SaveOptions, Saving, run_search
from checker.fingerprint import fingerprint
from checker.limits import (
    DEPTH_REACHED,
    NO_LIMITS,
    LimitReached,
    Limits,
    Progress,
    signals_deferred,
)
from checker.model import Label, Spec
from checker.properties import INVARIANT, SOMETIMES, TRANSITION, Property, transition_checker
from checker.result import CheckResult, Stats, Status, Step, Violation, peak_rss_mb
from checker.search.reference.seen import Fresh, SeenLevels
from checker.symmetry import for_spec
from checker.trace import concrete_step, concrete_walk


def better(pfp: int, label: Label, best_pfp: int, best_label: Label) -> bool:
    """The deterministic tie-break: smaller parent fingerprint, then smaller label text."""
    return pfp < best_pfp or (pfp == best_pfp and str(label) < str(best_label))


def explore(
    spec: Spec,
    properties: Sequence[Property],
    limits: Limits = NO_LIMITS,
    on_progress: Callable[[Progress], None] | None = None,
    symmetry: bool = False,
    saving: SaveOptions | None = None,
) -> CheckResult:
    """Explore every reachable state of ``spec`` and check ``properties``.

    ``symmetry``: one state per orbit of replica renamings (``checker.symmetry``); traces stay
    concrete and as short. Raises ``SymmetryError`` where symmetry is unsound.

    Returns a ``CheckResult``: OK, VIOLATED (with a shortest counterexample per violated
    property), VACUOUS (a "sometimes" guard never reached), INCOMPLETE (a limit or Ctrl-C cut
    the search; ``reason`` says which) or ERROR (the spec raised; ``reason`` holds the message).
    Never raises for those outcomes. ``saving``: checkpoints and resume (``checker.checkpoint.saving``).
    """
    run = Search(spec, properties, limits, on_progress, symmetry)
    return run_search((saving or SaveOptions()).apply(run))


class Search(Saving):
    """State of one search: the local engine's level loop, and the bookkeeping (statistics,
    limits, progress, verdict) that the Spark engine (``checker.spark.engine``) shares."""

    engine = "local"

    def __init__(
        self,
        spec: Spec,
        properties: Sequence[Property],
        limits: Limits,
        on_progress: Callable[[Progress], None] | None,
        symmetry: bool = False,
    ) -> None:
        self.spec = spec
        self.canon = for_spec(spec, properties).canonical if symmetry else None
        self.symmetry = symmetry
        self.properties = tuple(properties)
        self.invariants = [p for p in properties if p.kind == INVARIANT]
        self.transitions = [p for p in properties if p.kind == TRANSITION]
        self.pending = [p for p in properties if p.kind == SOMETIMES]
        self.limits = limits
        self.on_progress = on_progress
        self.seen = SeenLevels()
        self.previous_level: set[int] = set()  # the fingerprints of the level before the frontier
        self.stats = Stats(actions={name: [0, 0] for name in spec.action_names()})
        self.violations: list[Violation] = []
        self.status: Status | None = None
        self.reason = ""
        self.exhausted = False
        self.note = ""
        self.start = time.perf_counter()
        self.deadline = (self.start + limits.time_limit) if limits.time_limit else None

    # -- the search -------------------------------------------------------------------------
    def initial_level(self) -> dict[int, object]:
        """Fingerprint and record the initial states (level 1), check the invariants on them;
        return ``{fingerprint: state}``. Both engines start here."""
        level: dict[int, object] = {}
        for state in self.spec.init_states():
            self.stats.generated += 1
            state = self.canon(state) if self.canon is not None else state
            level.setdefault(fingerprint(state), state)
        self.seen.add_level(level)
        self.stats.distinct = len(level)
        self.stats.depth = 1 if level else 0
        self._check_invariants({fp: (s, None, None) for fp, s in level.items()})
        return level

    def search(self) -> None:
        if self.resume is not None:
            self.restore_state(self.resume)
            frontier = self.restore_levels(self.resume)
        else:
            with signals_deferred():
                frontier = list(self.initial_level().items())
                self.level_committed()
        self.frontier, self.consistent = frontier, True
        while frontier and not self._done():
            self.boundary()
            self._report(len(frontier))
            if self.limits.max_depth is not None and self.stats.depth >= self.limits.max_depth:
                if self._has_new_successor(frontier):
                    self.stats.frontier = len(frontier)
                    raise LimitReached(DEPTH_REACHED.format(self.limits.max_depth))
                break
            frontier = self._expand(frontier)
        self.exhausted = not frontier
        self._report(0)

    def _done(self) -> bool:
        """A violation ends the run (``stop_on_first``, or every safety property violated)."""
        if not self.violations:
            return False
        return self.limits.stop_on_first or not (self.invariants or self.transitions)

    def _expand(self, frontier: list[Any]) -> list[Any]:
        """Expand one level; return the next frontier as ``[(fp, state)]``."""
        successors, canon = self.spec.successors, self.canon
        previous_level = self.previous_level
        current = {fp for fp, _ in frontier}
        generated: dict[str, int] = {}
        nxt: dict[int, list[Any]] = {}
        broken: dict[Property, tuple[int, Label, Any]] = {}
        transitions = self.transitions
        fresh, size = Fresh(self.seen), len(frontier)
        count = 0
        for pfp, state in frontier:
            count += 1
            if count & 1023 == 0:
                self._tick(len(nxt))
                if self.due():  # about once a second: this level's running counts
                    found = fresh.count(nxt)
                    self._report(size, False, count - 1, found, sum(generated.values()))
            checks = [(prop, transition_checker(prop, state)) for prop in transitions]
            for label, succ in successors(state):
                action = label.action
                generated[action] = generated.get(action, 0) + 1
                for prop, check in checks:
                    if not check(label, succ):
                        self._broken(broken, prop, pfp, label, succ)
                if self.pending:
                    self._check_sometimes(state, label, succ)
                if canon is not None:
                    succ = canon(succ)
                fp = fingerprint(succ)
                if fp in current or fp in previous_level:
                    continue
                entry = nxt.get(fp)
                if entry is None:
                    nxt[fp] = [succ, pfp, label]
                elif better(pfp, label, entry[1], entry[2]):
                    entry[1], entry[2] = pfp, label
        nxt = fresh.keep(nxt)
        with signals_deferred():
            self.previous_level = current
            self._commit_level(generated, nxt, broken)
            self.frontier = [(fp, entry[0]) for fp, entry in nxt.items()]
            if nxt:
                self.level_committed()
        expanded: list[Any] = self.frontier
        return expanded

    def _commit_level(
        self, generated: dict[Any, Any], nxt: dict[Any, Any], broken: dict[Any, Any]
    ) -> None:
        actions = self.stats.actions
        for action, n in generated.items():
            actions.setdefault(action, [0, 0])[0] += n
            self.stats.generated += n
        for _, _, label in nxt.values():
            actions[label.action][1] += 1
        level = self.stats.depth  # the frontier's level; the new states are one deeper
        if nxt:
            self.seen.add_level(nxt, [entry[1] for entry in nxt.values()])
            self.stats.depth += 1
        self.stats.distinct += len(nxt)
        for prop in sorted(broken, key=lambda p: p.name):
            pfp, label, succ = broken[prop]
            self.transition_violated(prop, pfp, level, str(label), succ)
        self._check_invariants(nxt)

    def _check_invariants(self, states: dict[Any, Any]) -> None:
        """Check every still-unviolated invariant on newly seen states (``fp -> entry``);
        per property keep the violating state with the smallest fingerprint. State by state,
        so a model's accessors can reuse what they computed for the previous invariant."""
        if not self.invariants:
            return
        checks = [(prop, prop.predicate) for prop in self.invariants]
        worst: dict[Property, int] = {}
        for fp, entry in states.items():
            state = entry[0]
            for prop, check in checks:
                if not check(state):
                    old = worst.get(prop)
                    if old is None or fp < old:
                        worst[prop] = fp
        for prop in self.invariants:
            if prop in worst:
                trace = self.trace_to(worst[prop], self.stats.depth)
                self.violations.append(Violation(prop, tuple(trace)))
        self.invariants = [p for p in self.invariants if p not in worst]

    def _broken(self, broken: Any, prop: Any, pfp: Any, label: Label, succ: Any) -> None:
        """Remember the violating transition of ``prop`` that wins the tie-break."""
        old = broken.get(prop)
        if old is None or better(pfp, label, old[0], old[1]):
            broken[prop] = (pfp, label, succ)

    def _check_sometimes(self, state: Any, label: Label, succ: Any) -> None:
        self.pending = [p for p in self.pending if not p.predicate(state, label, succ)]

    def _has_new_successor(self, frontier: list[Any]) -> bool:
        canon = self.canon or (lambda state: state)
        fps = {
            fingerprint(canon(succ))
            for _, state in frontier
            for _, succ in self.spec.successors(state)
        }
        return bool(self.seen.unseen(fps, len(fps)))

    def transition_violated(
        self, prop: Property, pfp: int, level: int, label_text: str, after: Any
    ) -> None:
        """Record the winning violation of transition property ``prop``: the step labelled
        ``label_text`` from ``pfp`` (a state of ``level``) to ``after`` (as generated, not
        canonical). With symmetry the last step is re-found from the concrete trace: the
        smallest label that lands in ``after``'s orbit and breaks ``prop``. Every engine
        records its violations here."""
        steps = self.trace_to(pfp, level)
        if self.canon is None:
            want, check, text = fingerprint(after), None, label_text
        else:
            want, check, text = fingerprint(self.canon(after)), prop, None
        steps.append(concrete_step(self.spec, steps[-1].state, want, self.canon, check, text))
        self.violations.append(Violation(prop, tuple(steps)))
        self.transitions = [p for p in self.transitions if p is not prop]

    def trace_to(self, fp: int, level: int) -> list[Step]:
        """The shortest trace to ``fp``, a state first seen at ``level`` (initial = 1), its
        states regenerated and concrete (``checker.trace.concrete_walk``)."""
        return concrete_walk(self.spec, self.seen.chain(fp, level), self.canon)

    def result(self) -> CheckResult:
        self.stats.seconds = time.perf_counter() - self.start
        self.stats.engine = self.engine
        self.stats.peak_rss_mb = peak_rss_mb()
        self.stats.symmetry = self.canon is not None
        status = self.status
        unreached = [p.name for p in self.pending]
        if self.violations and status == Status.INCOMPLETE:
            status = Status.VIOLATED  # a counterexample stands even if the search was cut
        if status is None:
            if self.violations:
                status = Status.VIOLATED
            elif unreached:
                status = Status.VACUOUS
                self.reason = "never reached: " + ", ".join(unreached)
            else:
                status = Status.OK
        return CheckResult(
            status,
            self.stats,
            self.properties,
            self.violations,
            unreached,
            self.reason,
            self.exhausted,
        )
