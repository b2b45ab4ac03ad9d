"""The liveness pass on the orbit graph: when the safety search ran under symmetry, and the
properties and fairness allow it, liveness is judged on the symmetry quotient (the annotated
quotient of ``checker.liveness.annotated``), soundly, instead of on the whole plain graph.

Both cores build the same orbit graph and find the same verdicts and lassos: the compiled
one in C and on arrays (``checker.liveness.corbits``, ``checker.liveness.orbit_arrays``),
the reference one in Python (``checker.liveness.orbits``, ``checker.liveness.orbit_check``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checker import symmetry
from checker.liveness import orbit_check, orbits
from checker.liveness.check import Verdict
from checker.liveness.graph import GraphTooLarge
from checker.model import CompiledModel, Spec
from checker.native.build import NativeUnavailable
from checker.properties import LEADS_TO, Fairness, Property

MAX_IDS = 4
"""The most interchangeable replicas the compiled orbit graph takes (renamings as a 32-bit
mask: 4! = 24)."""


def unfit(spec: Spec, props: Sequence[Property]) -> str:
    """Why ``props`` cannot be judged on ``spec``'s orbit graph (one line), or "": the model
    must say which label arguments name replicas (``replica_args``) and each leads-to
    property where its keys do (``Property.key_ids``)."""
    if not getattr(spec, "replica_args", ()):
        return "the model does not say which label arguments name replicas"
    for prop in props:
        if prop.kind == LEADS_TO and prop.key_ids is None:
            return f"{prop.name} does not say where its keys name replicas"
    return ""


def too_many_ids(spec: Spec) -> str:
    """Why the compiled core cannot build ``spec``'s orbit graph (more interchangeable
    replicas than ``MAX_IDS``), or ""."""
    if symmetry.for_spec(spec).n > MAX_IDS:
        return f"the compiled orbit graph takes at most {MAX_IDS} replicas"
    return ""


def check_orbits(
    spec: Spec,
    props: Sequence[Property],
    fairness: Sequence[Fairness],
    max_states: int,
    core: str,
    model: CompiledModel | None,
    folder: str | None = None,
) -> tuple[list[Verdict], dict[str, list[tuple[Any, Any]]], int, int, str, str]:
    """``(verdicts, lassos, orbits, edges, the core that judged, why not compiled)``; with
    ``folder`` the compiled graph's arrays are files there (``CompiledGraph``), the judge's
    too (``checker.liveness.scratch``). Raises
    ``GraphTooLarge`` past ``max_states`` orbits, or with ``folder`` where the compiled core
    cannot build it (the reference's graph would be in memory), ``ValueError`` for asymmetric
    fairness, ``OSError`` when the folder takes no file or its disk fills."""
    sym = symmetry.for_spec(spec)
    note = ""
    if core == "compiled" and model is not None:
        note = too_many_ids(spec)
        if not note:
            from checker.liveness import orbit_arrays, scratch  # numpy: when liveness runs
            from checker.liveness.compiled import NotCompiled
            from checker.liveness.corbits import CompiledOrbitGraph
            from checker.native.core import give_back, map_large

            try:
                map_large()  # the judge's large arrays given back as they are freed
                rows = [model.encode(s) for s in spec.init_states()]
                graph = CompiledOrbitGraph(model, rows, max_states, folder)
                give_back()  # what the build let go (its table, its rows' window)
                try:  # the judge's arrays beside the graph's
                    with scratch.held_in(graph.lib, folder, graph.n):
                        done = orbit_arrays.judge_orbits(
                            spec, model, graph, sym, list(props), list(fairness)
                        )
                finally:
                    graph.close()
                return done.verdicts, done.lassos, done.states, done.edges, "compiled", ""
            except (NotCompiled, NativeUnavailable) as exc:
                note = str(exc)
    if folder is not None:
        raise GraphTooLarge(past_memory(note))
    graph_ = orbits.build(spec, sym, max_states)
    setting = orbit_check.Setting(spec, graph_, fairness, getattr(spec, "replica_args", ()))
    verdicts: list[Verdict] = []
    lassos: dict[str, list[tuple[Any, Any]]] = {}
    for prop in props:
        verdict, witness = orbit_check.judge(setting, prop, getattr(spec, "cut", None))
        verdicts.append(verdict)
        if verdict.lasso is not None and witness is not None:
            lassos[prop.name] = [
                (None if k is None else witness.labels[k], witness.states[n])
                for k, n in verdict.lasso.path
            ]
    return verdicts, lassos, len(graph_), graph_.edges, "reference", note or "--core reference"


def past_memory(why: str) -> str:
    """Why a graph past the memory budget is not judged: the compiled core, the only one that
    holds a graph in files, cannot build it (``why``); the reference's is in memory."""
    return (
        f"the graph is past the memory budget and the compiled core cannot build it ({why}); "
        "the reference core would hold it in memory: raise --memory or lower the bounds"
    )


__all__ = ["GraphTooLarge", "check_orbits", "past_memory", "too_many_ids", "unfit"]
