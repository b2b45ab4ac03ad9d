"""Run artefacts: ``summary.json`` and one versioned ``trace.json`` per violation.

Files are written to a temporary name and renamed into place, so a reader never sees half a
file; ``summary.json`` is written last and carries the run's status, so an interrupted run is
never presented as complete.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from checker import __version__
from checker.composition import compose, fixes
from checker.fingerprint import fingerprint, fp_hex
from checker.formats import fairloop
from checker.model import Spec
from checker.renderers import expected, html
from checker.result import CheckResult, Violation
from invariants import aftermath, story

TRACE_FORMAT = "hwcheck-trace"
TRACE_VERSION = 1
LASSO_VERSION = 2
"""A liveness counterexample (a lasso, with its ``loop``) is written as version 2; every other
trace stays version 1, so readers of version 1 keep reading safety traces."""
VERSIONS = (TRACE_VERSION, LASSO_VERSION)
SUMMARY_FORMAT = "hwcheck-summary"
SUMMARY_VERSION = 1
SUMMARY_SCHEMA_PATH = Path(__file__).with_name("summary.schema.json")
"""The JSON Schema of ``summary.json`` (the tests check every summary they write against it)."""


def to_json(value: Any) -> Any:
    """A state (nested tuples of ints, bools, None, str) as JSON-friendly nested lists."""
    if isinstance(value, tuple):
        return [to_json(item) for item in value]
    return value


def stamp() -> str:
    """The current UTC time as ``YYYYmmddTHHMMSSZ``, for folder names."""
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def slug(variant: str) -> str:
    """A variant name as a folder name part: ``kip320 -fenced-fetch`` -> ``kip320-no-fenced-fetch``."""
    return variant.replace(" +", "+").replace(" -", "-no-").replace(" ", "-")


def run_id(spec: Spec, variant: str | None = None) -> str:
    """``<model>-<variant>-r<replicas>-<UTC time>``: a folder name for one run (a release
    preset names the model already: ``kafka-4.1-r3-...``, not ``kafka-kafka-4.1-...``)."""
    replicas = spec.config_dict().get("replicas", "")
    name = slug(variant or compose.variant_of(spec))
    if not name.startswith(f"{spec.name}-"):
        name = f"{spec.name}-{name}"
    return f"{name}-r{replicas}-{stamp()}"


def explanation(violation: Violation) -> str:
    """The property's own words on why the last step violates it ('' if it has none)."""
    prop, last = violation.prop, violation.trace[-1]
    if violation.loop is not None:
        return lasso_explanation(violation)
    if prop.explain is None:
        return ""
    if prop.kind == "transition":
        return prop.explain(violation.trace[-2].state, last.label, last.state) or ""
    return prop.explain(last.state) or ""


def lasso_explanation(violation: Violation) -> str:
    """A lasso in one sentence: what is never answered (or never settles) and how the
    behaviour goes on for ever."""
    loop = violation.loop
    assert loop is not None
    if loop.stutter:
        ending = f"the behaviour stutters in state {violation.length} for ever, where no fair action is enabled"
    else:
        ending = f"the behaviour loops back to state {loop.back_to + 1} for ever, fairly"
    if violation.prop.kind == "leads-to":
        whom = f" {loop.obligation}" if loop.obligation else ""
        return f"What {violation.prop.name} promises{whom} never happens: {ending}."
    return f"It never settles: {ending}, and the property is false there."


def lasso_story(violation: Violation) -> list[str]:
    """A lasso's story: the promise, in TLA+ (the loop, what stays enabled and the fairness
    are drawn beside the states: ``checker.renderers.lasso``)."""
    return [f"The promise: {violation.prop.formula or violation.prop.description}"]


def counterexample_text(violation: Violation) -> str:
    """A counterexample in words: the property, its explanation, then one action per line."""
    steps = "\n".join(f"{i}. {step.label}" for i, step in enumerate(violation.trace[1:], 2))
    return (
        f"{violation.prop.name} violated ({violation.length} states): "
        f"{explanation(violation)}\n1. (initial state)\n{steps}"
    )


def trace_document(spec: Spec, violation: Violation) -> dict[str, Any]:
    """The versioned JSON document of one counterexample (format ``hwcheck-trace``,
    ``trace.schema.json``: version 1, or 2 for a lasso, with its ``loop``); a loss property's document also carries its ``aftermath``
    (``invariants.aftermath``), computed here on ``spec``, and a violation README documents
    as expected its one-line ``expected`` note (``checker.renderers.expected``), and a release
    preset's violation its ``tickets``: the KIP or ticket behind it and the versions that
    fixed it (``checker.composition.fixes``)."""
    config = spec.config_dict()
    views = [spec.view(step.state) for step in violation.trace]
    actions = [None if step.label is None else str(step.label) for step in violation.trace]
    document: dict[str, Any] = {
        "format": TRACE_FORMAT,
        "version": TRACE_VERSION,
        "hwcheck_version": __version__,
        "model": spec.name,
        "variant": compose.variant_of(spec),
        "config": config,
        "property": {
            "name": violation.prop.name,
            "kind": violation.prop.kind,
            "description": violation.prop.description,
        },
        "explanation": explanation(violation),
        "story": story.tell(violation.prop.name, compose.variant_of(spec), actions, views),
        "length": violation.length,
        "steps": [
            _step(i, action, step.fingerprint, step.state, view)
            for i, (step, action, view) in enumerate(zip(violation.trace, actions, views))
        ],
    }
    if violation.loop is not None:
        document.update(version=LASSO_VERSION, loop=loop_document(violation, spec))
        document["story"] = document["story"] or lasso_story(violation)
        document["property"]["formula"] = violation.prop.formula
    note = expected.hint(violation.prop.name, spec.name, config, document["variant"], actions)
    if note:
        document["expected"] = note
    named = fixes.trace_lines(spec.name, document["variant"], violation.prop.name, config)
    if named:
        document["tickets"] = named
    after = aftermath.search(spec, violation.trace[-1].state, violation.prop.name)
    if after is not None and after.steps:
        more_actions: list[str | None] = [str(label) for label, _ in after.steps]
        more_views = [spec.view(state) for _, state in after.steps]
        told = aftermath.tell(
            violation.prop.name,
            document["variant"],
            actions + more_actions,
            views + more_views,
            violation.length,
            after.record,
            after.everywhere,
        )
        document["aftermath"] = {
            "record": after.record,
            "everywhere": after.everywhere,
            "story": told,
            "steps": [
                _step(violation.length + i, action, fingerprint(state), state, view)
                for i, (action, (_, state), view) in enumerate(
                    zip(more_actions, after.steps, more_views)
                )
            ],
        }
    return document


def loop_document(violation: Violation, spec: Spec) -> dict[str, Any]:
    """A lasso's ``loop`` entry: the step it goes back to (0-based), whether it stutters, the
    actions always enabled that never happen in it, the fairness assumed, the obligation left
    unanswered, and ``enabled``: every action a loop state offers that the loop never takes,
    with why fairness does not force it (``checker.formats.fairloop``, on ``spec``)."""
    loop = violation.loop
    assert loop is not None
    labels = [None if step.label is None else str(step.label) for step in violation.trace]
    return {
        "back_to": loop.back_to,
        "stutter": loop.stutter,
        "never_taken": list(loop.never_taken),
        "fairness": loop.fairness,
        "obligation": loop.obligation,
        "enabled": fairloop.analyse(
            spec,
            [step.state for step in violation.trace],
            labels,
            loop.back_to,
            loop.stutter,
            loop.fairness,
        ),
    }


def _step(index: int, action: str | None, fp: int, state: Any, view: Any) -> dict[str, Any]:
    """One entry of a trace document's ``steps`` (or its aftermath's)."""
    return {
        "index": index,
        "action": action,
        "fingerprint": fp_hex(fp),
        "state": to_json(state),
        "view": view,
    }


def summary_document(spec: Spec, result: CheckResult, traces: dict[str, str]) -> dict[str, Any]:
    """The JSON summary of a run; ``traces`` maps property name to its trace file."""
    verdicts = {}
    lengths = {v.prop.name: v.length for v in result.violations}
    for prop in result.checked:
        entry: dict[str, Any] = {
            "kind": prop.kind,
            "description": prop.description,
            "verdict": result.verdict(prop),
        }
        if prop.name in lengths:
            entry.update(length=lengths[prop.name], trace=traces.get(prop.name))
        verdicts[prop.name] = entry
    return {
        "format": SUMMARY_FORMAT,
        "version": SUMMARY_VERSION,
        "hwcheck_version": __version__,
        "model": spec.name,
        "config": spec.config_dict(),
        "status": result.status.value,
        "exit_code": result.exit_code,
        "reason": result.reason,
        "exhausted": result.exhausted,
        "stats": result.stats.to_dict(),
        "properties": verdicts,
    }


def write_json(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``path`` atomically (temporary file, then rename)."""
    write_text(path, json.dumps(document, indent=1, sort_keys=False) + "\n")


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)  # gone after the rename; left by a failed write


def write_violation(folder: Path, spec: Spec, violation: Violation) -> Path:
    """Write ``violation`` as ``folder/<property>/trace.json`` and its page ``trace.html``;
    return the ``trace.json`` path. Raises ``OSError`` when the folder cannot be written."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", violation.prop.name)
    path = folder / name / "trace.json"
    document = trace_document(spec, violation)
    write_json(path, document)
    write_text(path.with_name("trace.html"), html.render(document))
    return path


def write_run(folder: Path, spec: Spec, result: CheckResult) -> dict[str, Any]:
    """Write every trace (``trace.json`` and its page ``trace.html``), then ``summary.json``,
    into ``folder``; return the summary.

    Raises ``OSError`` when the folder cannot be written.
    """
    traces = {}
    for violation in result.violations:
        traces[violation.prop.name] = str(write_violation(folder, spec, violation))
    summary = summary_document(spec, result, traces)
    write_json(folder / "summary.json", summary)
    return summary
