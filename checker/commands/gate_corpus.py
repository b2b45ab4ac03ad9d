"""The gate's trace corpus: replay each trace file state by state on this hwcheck's model and
find the state at which each safety property first fails.

A search can find another path when a rule changes; a replayed trace cannot. Every action of
the trace must still be enabled and reach the state the file records (same fingerprint), and
each property must first fail where the lock file pins it (``checker.formats.pins``): a weakened
invariant or a changed rule shows here even when every search keeps its verdict. The replay
runs on the compiled core when the gate does and the model has one, else on the reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker.fingerprint import fingerprint
from checker.formats import tracefile
from checker.model import CompiledModel, Label, refusal
from checker.native.build import NativeUnavailable
from checker.native.core import Core
from checker.properties import INVARIANT, SOMETIMES, transition_checker
from checker.search import CoreName, choose_core


@dataclass
class Replayed:
    """One trace replayed: ``states`` replayed (state 1 is the initial state),
    ``first_violated_at`` (per safety property of the trace's model, the first state that
    violates it, ``None`` when it holds along the whole trace), the ``property`` the trace file
    was written for, and ``problem``: why the trace does not replay ("" when it does)."""

    states: int = 0
    first_violated_at: dict[str, int | None] = field(default_factory=dict)
    property: str = ""
    problem: str = ""

    def pins(self) -> dict[str, Any]:
        """The trace's pins for the lock file."""
        return {"states": self.states, "first_violated_at": dict(self.first_violated_at)}


class _Reference:
    """Steps and verdicts from the Python model: ``successors(state, label)`` gives each
    successor by the action ``label`` (text) with the transition properties it breaks;
    ``broken(state)`` the invariants ``state`` breaks."""

    def __init__(self, spec: Any, props: list[Any]) -> None:
        self.spec = spec
        self.invariants = [p for p in props if p.kind == INVARIANT]
        self.transitions = [p for p in props if p.kind not in (INVARIANT, SOMETIMES)]

    def successors(self, state: Any, label: str) -> list[tuple[Any, set[str]]]:
        found = [(lab, after) for lab, after in self.spec.successors(state) if str(lab) == label]
        if not found:
            return []
        checks = [(p.name, transition_checker(p, state)) for p in self.transitions]
        return [
            (after, {name for name, ok in checks if not ok(lab, after)}) for lab, after in found
        ]

    def broken(self, state: Any) -> set[str]:
        return {p.name for p in self.invariants if not p.predicate(state)}


class _Compiled:
    """``_Reference``'s calls answered by the compiled core (``checker.native.core``)."""

    def __init__(self, model: CompiledModel, props: list[Any]) -> None:
        bits = model.property_bits
        self.names = {bits[p.name]: p.name for p in props if p.kind != SOMETIMES}
        inv = sum(1 << bits[p.name] for p in props if p.kind == INVARIANT)
        trans = sum(1 << bits[p.name] for p in props if p.kind not in (INVARIANT, SOMETIMES))
        self.core = Core(model, inv=inv, trans=trans)

    def _names(self, mask: int) -> set[str]:
        return {name for bit, name in self.names.items() if mask >> bit & 1}

    def successors(self, state: Any, label: str) -> list[tuple[Any, set[str]]]:
        return [
            (after, self._names(bits))
            for lab, after, bits in self.core.successors(state)
            if str(lab) == label
        ]

    def broken(self, state: Any) -> set[str]:
        return self._names(self.core.invariants(state))


def _because(spec: Any, state: Any, label: str) -> str:
    """ " (the model's false guard)" when the model can say why ``label`` is disabled, else ""."""
    why = refusal(spec, state, Label.parse(label))
    return f" ({why.reason})" if why is not None else ""


def _stepper(spec: Any, props: list[Any], core: CoreName) -> Any:
    """The compiled core's stepper when ``core`` is ``compiled`` and it can run with every
    property (``checker.search.choose_core``; guards aside), else the reference's."""
    checked = [p for p in props if p.kind != SOMETIMES]
    model = choose_core(spec, checked, core).model
    if model is not None:
        try:
            return _Compiled(model, props)
        except NativeUnavailable:
            pass
    return _Reference(spec, props)


def replay(path: Path, core: CoreName = "compiled") -> Replayed:
    """Replay the trace file at ``path``; never raises for a bad or stale file: ``problem``
    says what is wrong (unreadable or invalid file, a config this model rejects, an action no
    longer enabled, a state with another fingerprint, or the trace's own property holding at
    its last state)."""
    try:
        document = tracefile.load(path)
        spec, props, labels, fps = tracefile.model_of(path, document)
    except tracefile.TraceFileError as exc:
        return Replayed(problem=str(exc))
    done = Replayed(
        property=document["property"]["name"],
        first_violated_at={p.name: None for p in props if p.kind != SOMETIMES},
    )
    stepper = _stepper(spec, props, core)
    state = next((s for s in spec.init_states() if fingerprint(s) == fps[0]), None)
    if state is None:
        done.problem = "state 1: no initial state of this model has the trace's fingerprint"
        return done
    _record(done, 1, stepper.broken(state))
    for index, label in enumerate(map(str, labels)):
        number = index + 2
        enabled = stepper.successors(state, label)
        reached = [(after, bad) for after, bad in enabled if fingerprint(after) == fps[index + 1]]
        if not reached:
            done.problem = (
                f"state {number}: {label} is no longer enabled{_because(spec, state, label)}"
                if not enabled
                else f"state {number}: {label} reaches another state than the trace "
                "records (another fingerprint)"
            )
            return done
        state, bad = reached[0]
        _record(done, number, bad | stepper.broken(state))
    done.states = len(fps)
    if "loop" in document:  # a lasso: it must close and still break its liveness property
        return _lasso(path, document, done)
    if (
        done.first_violated_at.get(done.property) is None
        and done.property in done.first_violated_at
    ):
        done.problem = (
            f"{done.property}, the property the trace was written for, holds along "
            "the whole trace: the property changed since the trace was written"
        )
    return done


def _lasso(path: Path, document: dict[str, Any], done: Replayed) -> Replayed:
    """A lasso's own check (``tracefile.replay``: the loop closes): the whole lasso is the
    violation of its liveness property, so that property's first violation is its length."""
    try:
        _, violation = tracefile.replay(path, document)
    except tracefile.TraceFileError as exc:
        done.problem = str(exc).removeprefix(f"{path}: ")
        return done
    if not tracefile.still_violated(violation):
        done.problem = (
            f"{done.property}, the liveness property the lasso was written for, holds on it: "
            "the property or the fairness changed since the trace was written"
        )
    done.first_violated_at[done.property] = done.states
    return done


def _record(done: Replayed, number: int, broken: set[str]) -> None:
    for name in broken:
        if done.first_violated_at.get(name, 0) is None:
            done.first_violated_at[name] = number
