"""Check a model's liveness properties and fold the answers into a search's ``CheckResult``.

The safety search (any engine, any core) runs first; liveness then builds the model's state
graph (under symmetry the orbit graph, ``checker.liveness.orbit_run``; else the whole plain
graph) and judges each property under the run's fairness: on the compiled core
(``checker.liveness.compiled``: the graph in C, the check on arrays) when the caller passes
the model's compiled core, else on the reference core (``checker.liveness.graph``,
``checker.liveness.check``). Both give the same verdicts and the same lassos.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from checker.fingerprint import fingerprint
from checker.liveness import fairness as fair_text
from checker.liveness import orbit_run
from checker.liveness.budget import budget
from checker.liveness.check import Verdict, judge_all
from checker.liveness.fair import Constraints
from checker.liveness.fairness import FairnessError
from checker.liveness.graph import GraphTooLarge, build
from checker.model import CompiledModel, Spec
from checker.native.build import NativeUnavailable
from checker.properties import LEADS_TO, Fairness, Property
from checker.result import CheckResult, Loop, Status, Step, Violation, peak_rss_mb


def core_for(model: CompiledModel | None, props: Sequence[Property]) -> tuple[str, str]:
    """``("compiled", "")`` when ``props`` can be judged on ``model`` (a compiled core's
    codec, or None), else ``("reference", why not)``."""
    if model is None:
        return "reference", "no compiled core"
    from checker.liveness import compiled  # numpy: only when liveness runs

    why = compiled.unsupported(model, list(props))
    return ("reference", why) if why else ("compiled", "")


@dataclass
class Liveness:
    """What a liveness pass found: ``verdicts`` in property order, the ``graph``'s size
    (``states``, ``edges``), ``seconds`` spent, the ``fairness`` assumed, or ``error`` (the
    graph was too large) with no verdicts."""

    verdicts: list[Verdict]
    states: int = 0
    edges: int = 0
    seconds: float = 0.0
    fairness: tuple[Fairness, ...] = ()
    error: str = ""
    lassos: dict[str, list[tuple[Any, Any]]] = field(default_factory=dict)
    """Per violated (or cut) property, its lasso's ``(label or None, state)`` pairs."""
    core: str = "reference"
    """The core that judged them; ``note``: why the reference did when compiled was asked."""
    note: str = ""
    graph: str = "plain"
    """``orbits`` (the symmetry quotient: ``states`` counts orbits) or ``plain``;
    ``plain_why``: why a run under symmetry judged on the plain graph."""
    plain_why: str = ""


def liveness_of(spec: Spec) -> list[Property]:
    """The model's liveness properties (none for a model without ``liveness()``)."""
    offered = getattr(spec, "liveness", None)
    return list(offered()) if offered is not None else []


def fairness_of(
    spec: Spec, fair: Sequence[str] = (), unfair: Sequence[str] = (), instead: str | None = None
) -> tuple[Fairness, ...]:
    """The model's declared fairness (or, with ``instead``, the constraints that text lists,
    ``"none"`` for none) changed by ``--fair`` / ``--unfair``; raises ``FairnessError``
    (``checker.liveness.fairness.adjust``)."""
    declared = getattr(spec, "fairness", lambda: ())()
    if instead is not None:
        declared = ()
        fair = [*map(str, fair_text.parse_list(instead)), *fair]
    conditions: dict[str, Any] = getattr(spec, "conditions", dict)()
    return fair_text.adjust(
        declared,
        fair,
        unfair,
        list(spec.action_names()),
        tuple(getattr(spec, "perturbations", ())),
        tuple(conditions),
    )


def check(
    spec: Spec,
    props: Sequence[Property],
    fairness: Sequence[Fairness],
    max_states: int | None = None,
    on_level: Callable[[int, int], None] | None = None,
    core: str = "reference",
    model: CompiledModel | None = None,
    symmetric: bool = False,
    folder: str | None = None,
) -> Liveness:
    """Build the graph and judge ``props`` under ``fairness``: on the compiled core of
    ``model`` (its codec) when ``core`` is ``compiled`` and it can (``core_for``), else on
    the reference, with ``note`` saying why. With ``symmetric`` (the search ran under
    symmetry) the graph is the orbit graph where ``orbit_run.unfit`` allows it. With
    ``folder`` the compiled graph's arrays are files there (``checker.liveness.budget``
    says when). A graph past ``max_states`` (default: the core's ``budget``), or whose files
    fail (a full disk), gives a ``Liveness`` whose ``error`` says so; the model's exceptions
    pass through."""
    start = time.monotonic()
    plain_why = orbit_run.unfit(spec, props) if symmetric else ""
    if symmetric and not plain_why:
        cap = budget(core) if max_states is None else max_states
        try:
            verdicts, lassos, n, edges, used, why = orbit_run.check_orbits(
                spec, props, fairness, cap, core, model, folder
            )
        except GraphTooLarge as exc:
            return Liveness([], fairness=tuple(fairness), error=str(exc), core=core)
        except OSError as exc:
            if folder is None or exc.filename != folder:
                raise
            return Liveness([], fairness=tuple(fairness), error=files_failed(exc), core=core)
        seconds = time.monotonic() - start
        return Liveness(
            verdicts, n, edges, seconds, tuple(fairness), "", lassos, used, why, "orbits"
        )
    note = "--core reference"
    if core == "compiled":
        core, note = core_for(model, props)
    if core == "compiled" and model is not None:
        from checker.liveness import compiled

        cap = budget(core) if max_states is None else max_states
        try:
            done = compiled.judge_compiled(spec, model, list(props), list(fairness), cap, folder)
        except GraphTooLarge as exc:
            return Liveness([], fairness=tuple(fairness), error=str(exc), core=core)
        except OSError as exc:
            if folder is None or exc.filename != folder:
                raise
            return Liveness([], fairness=tuple(fairness), error=files_failed(exc), core=core)
        except (compiled.NotCompiled, NativeUnavailable) as exc:
            note = str(exc)
        else:
            seconds = time.monotonic() - start
            return Liveness(
                done.verdicts,
                done.states,
                done.edges,
                seconds,
                tuple(fairness),
                "",
                done.lassos,
                "compiled",
                plain_why=plain_why,
            )
    if folder is not None:  # past memory, and only the compiled core holds a graph in files
        error = orbit_run.past_memory(note)
        return Liveness([], fairness=tuple(fairness), error=error, note=note)
    try:
        graph = build(spec, budget("reference") if max_states is None else max_states, on_level)
    except GraphTooLarge as exc:
        return Liveness([], fairness=tuple(fairness), error=str(exc), note=note)
    conditions: dict[str, Any] = getattr(spec, "conditions", dict)()
    rules = Constraints.over(graph, fairness, conditions)
    verdicts = judge_all(graph, props, rules, getattr(spec, "cut", None))
    lassos = {
        v.prop.name: [
            (None if k is None else graph.labels[k], graph.states[n]) for k, n in v.lasso.path
        ]
        for v in verdicts
        if v.lasso is not None
    }
    seconds = time.monotonic() - start
    return Liveness(
        verdicts,
        len(graph),
        graph.edges,
        seconds,
        tuple(fairness),
        "",
        lassos,
        note=note,
        plain_why=plain_why,
    )


def files_failed(exc: OSError) -> str:
    """Why a graph held in files failed (``CompiledGraph``'s ``OSError``), in one line."""
    return (
        f"the liveness graph's files in {exc.filename}: {exc.strerror} (TMPDIR names the "
        "folder they go in)"
    )


def violation(verdict: Verdict, found: Liveness) -> Violation:
    """The lasso of a violated (or cut) verdict as a ``Violation`` with its ``Loop``."""
    assert verdict.lasso is not None
    steps = tuple(
        Step(label, state, fingerprint(state)) for label, state in found.lassos[verdict.prop.name]
    )
    fairness = found.fairness
    obligation = obligation_text(verdict.prop, verdict.key)
    loop = Loop(
        verdict.lasso.back_to,
        verdict.lasso.stutter,
        verdict.never_taken,
        fair_text.render(fairness),
        obligation,
        verdict.cut,
    )
    return Violation(verdict.prop, steps, loop)


def obligation_text(prop: Property, key: Any) -> str:
    """The unanswered obligation in words: ``for record m1 at offset 0`` (the property's
    ``explain`` names the key), ``for (0, 2)`` without one, "" for ``<>[]P``."""
    if key is None:
        return ""
    if prop.explain is not None:
        return f"for {prop.explain(key)}"
    return "" if key == () else f"for {key!r}"


def merge(result: CheckResult, found: Liveness, props: Sequence[Property]) -> None:
    """Fold ``found`` into ``result``: the properties join ``checked``; violations (with
    their lassos) join ``violations``; a cut verdict joins ``unsettled``. The status becomes
    VIOLATED for a violation, INCOMPLETE when the graph was too large or a verdict is
    unknown (an otherwise OK run), else stays."""
    result.checked = tuple(result.checked) + tuple(props)
    result.stats.peak_rss_mb = max(result.stats.peak_rss_mb, peak_rss_mb())
    if found.error:
        for prop in props:
            result.unsettled[prop.name] = found.error
    for verdict in found.verdicts:
        if verdict.lasso is None:
            continue
        if verdict.cut:
            result.unsettled[verdict.prop.name] = verdict.cut
        else:
            result.violations.append(violation(verdict, found))
    if any(v.loop is not None for v in result.violations):
        result.status = Status.VIOLATED if result.status != Status.ERROR else result.status
    elif result.unsettled and result.status in (Status.OK, Status.VACUOUS):
        result.status = Status.INCOMPLETE
        reasons = dict.fromkeys(result.unsettled.values())
        result.reason = "liveness: " + "; ".join(reasons)


def describe(found: Liveness) -> str:
    """One line for the terminal: the graph liveness was judged on, and the fairness."""
    if found.error:
        return f"Liveness: not judged: {found.error}."
    if found.graph == "orbits":
        line = (
            f"Liveness: judged on the orbit graph ({found.states:,} orbits, {found.edges:,} "
            f"edges, {found.seconds:.2f} s on the {found.core} core; the annotated quotient, "
            f"sound under symmetry) under {fair_text.render(found.fairness)}."
        )
    else:
        why = f": {found.plain_why}" if found.plain_why else ""
        line = (
            f"Liveness: judged on the whole plain graph ({found.states:,} states, "
            f"{found.edges:,} edges, {found.seconds:.2f} s on the {found.core} core; no "
            f"symmetry reduction{why}) under {fair_text.render(found.fairness)}."
        )
    vacuous = [
        v.prop.name
        for v in found.verdicts
        if v.prop.kind == LEADS_TO and v.lasso is None and not v.opened
    ]
    if vacuous:
        line += (
            f" {', '.join(vacuous)} hold{'s' if len(vacuous) == 1 else ''} vacuously: no "
            "reachable state opens an obligation (raise the bounds before trusting it)."
        )
    return line


__all__ = ["FairnessError", "Liveness", "check", "describe", "fairness_of", "liveness_of", "merge"]
