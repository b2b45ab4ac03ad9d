"""Read ``trace.json`` files: parse, check against ``trace.schema.json`` (jsonschema), and
replay a trace against this hwcheck's model (a lasso of version 2 with its loop, which must
close: the last state is the state the loop goes back to).

Every problem ends in one ``TraceFileError`` whose message names the file and what is wrong
(missing, not JSON, truncated, another format or version, a field that breaks the schema, a
trace this model cannot reproduce); the CLI prints it and exits 4.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from checker import __version__
from checker.composition import compose
from checker.fingerprint import fp_hex
from checker.formats.report import TRACE_FORMAT, VERSIONS
from checker.jsontext import Unusable, not_json, not_text, parse, schema_error
from checker.liveness.run import liveness_of
from checker.model import Label, refusal
from checker.result import Loop, Violation
from checker.trace import Unreproduced, follow
from checker.trace import replay as replay_labels
from spec.kafka.config import UntrustedVariantFile

SCHEMA_PATH = Path(__file__).with_name("trace.schema.json")


class TraceFileError(ValueError):
    """A trace file that cannot be used; the message says which file and why."""


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of format ``hwcheck-trace`` (versions 1 and 2)."""
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def load(path: Path, variant_file: Path | str | None = None) -> dict[str, Any]:
    """Read and validate a trace file; return the document.

    ``variant_file``: the ``--variant-file`` the user gave the command (trusted by its flag),
    which replaces the one the trace's config names; without it, a trace that names one builds
    no model (``spec.kafka.plugins``: a file never makes hwcheck run code).

    Raises ``TraceFileError`` for a missing or unreadable file, invalid or truncated JSON, another
    format or version, or a document that breaks the schema.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise TraceFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise TraceFileError(f"{path}: {not_text(exc)}") from None
    try:
        document = parse(text)
    except json.JSONDecodeError as exc:
        raise TraceFileError(f"{path}: {not_json(exc)}") from None
    except Unusable as exc:
        raise TraceFileError(f"{path}: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != TRACE_FORMAT:
        raise TraceFileError(f'{path}: not an hwcheck trace (no "format": "{TRACE_FORMAT}")')
    if document.get("version") not in VERSIONS:
        raise TraceFileError(
            f"{path}: trace format version {document.get('version')!r}; this "
            f"hwcheck reads versions {' and '.join(map(str, VERSIONS))}"
        )
    error = schema_error(schema(), document)
    if error is not None:
        raise TraceFileError(f"{path}: {error}")
    if document["length"] != len(document["steps"]) or any(
        step["index"] != i for i, step in enumerate(document["steps"])
    ):
        raise TraceFileError(f"{path}: steps are not numbered 0..{document['length'] - 1}")
    loop = document.get("loop")
    if loop is not None and not (
        loop["back_to"] < document["length"]
        and (not loop["stutter"] or loop["back_to"] == document["length"] - 1)
    ):
        raise TraceFileError(
            f"{path}: field loop/back_to: {loop['back_to']} is not "
            + ("the last step's index" if loop["stutter"] else "the index of a step")
        )
    if variant_file is not None:
        document["config"]["variant_file"] = str(Path(variant_file).resolve())
    return document


def model_of(path: Path, document: dict[str, Any]) -> tuple[Any, list[Any], list[Label], list[int]]:
    """``(spec, every property, action labels, fingerprints)`` of a loaded trace: the model
    built here from the trace's config, the labels of steps 1.. and the fingerprints of every
    step (initial state first). Raises ``TraceFileError`` when the config does not build a
    model here or a label does not parse."""
    try:
        config = compose.make_config(document["model"], dict(document["config"]))
        spec, props = compose.build_model(document["model"], config)
    except UntrustedVariantFile as exc:
        raise TraceFileError(f"{path} {exc}") from None
    except (ValueError, TypeError) as exc:
        raise TraceFileError(
            f"{path}: its config does not build a {document['model']} model here: {exc}"
        ) from None
    steps = document["steps"]
    try:
        labels = [Label.parse(step["action"]) for step in steps[1:]]
    except ValueError as exc:
        raise TraceFileError(f"{path}: {exc}") from None
    return spec, props, labels, [int(step["fingerprint"], 16) for step in steps]


def replay(path: Path, document: dict[str, Any]) -> tuple[Any, Violation]:
    """Re-execute the trace's actions on this hwcheck's model and check every fingerprint.

    Returns ``(spec, violation)`` rebuilt from the model, a lasso with its ``Loop``. Raises
    ``TraceFileError`` when the model cannot be built from the trace's config, an action is not
    enabled, a state's fingerprint differs (a trace from another model version), or a
    cycle's loop does not close (its last state is not the state it goes back to).
    """
    spec, props, labels, fps = model_of(path, document)
    try:
        rebuilt = replay_labels(spec, fps[0], labels, fps[1:])
    except Unreproduced as exc:
        raise TraceFileError(rejection(path, document, spec, exc)) from None
    prop = {p.name: p for p in [*props, *liveness_of(spec)]}.get(document["property"]["name"])
    if prop is None:
        raise TraceFileError(
            f"{path}: this hwcheck has no property {document['property']['name']!r}"
        )
    lasso = prop.liveness
    if lasso != (document.get("loop") is not None):
        raise TraceFileError(
            f"{path}: {prop.name} is {'a liveness' if lasso else 'a safety'} property, so its "
            f"counterexample is {'a lasso (version 2, with a loop)' if lasso else 'a trace without a loop (version 1)'}"
        )
    return spec, Violation(prop, tuple(rebuilt), loop_of(path, document, fps))


def rejection(
    path: Path, document: dict[str, Any], spec: Any, exc: Unreproduced, where: str = ""
) -> str:
    """The message for a trace this model does not reproduce: which state (numbered as
    ``hwcheck show`` numbers them, 1 = the initial state), which check failed (the initial
    state's fingerprint; an action not enabled in the state before, with the false guard when
    the model can tell (``why_disabled``) and what was enabled; or an action enabled there that
    reaches another fingerprint), and the likely causes. ``where`` follows the state's number
    (" (aftermath)")."""
    number = exc.index + 1
    if exc.label is None:
        found = ", ".join(map(fp_hex, exc.reached)) or "none"
        check = (
            f"the initial state here has fingerprint {found}, not the file's "
            f"{fp_hex(exc.want or 0)}"
        )
    elif not exc.reached:
        why = refusal(spec, exc.before, exc.label)
        enabled = ", ".join(map(str, exc.enabled)) or "none (a deadlock)"
        check = (
            f"its action, {exc.label}, is not enabled in state {number - 1}"
            + (f" ({why.reason})" if why is not None else "")
            + f"; enabled there: {enabled}"
        )
    else:
        check = (
            f"its action, {exc.label}, is enabled in state {number - 1} but reaches a state "
            f"with fingerprint {', '.join(map(fp_hex, exc.reached))}, not the file's "
            f"{fp_hex(exc.want or 0)}"
        )
    return (
        f"{path}: rejected: this model does not reproduce state {number}{where}: {check}. "
        + _causes(document)
    )


def _causes(
    document: dict[str, Any], edited: str = "an action, a fingerprint or its config"
) -> str:
    return (
        f"Either the file was edited ({edited}) or it was written "
        f"by a hwcheck whose model differs (the file says hwcheck {document['hwcheck_version']}; "
        f"this is hwcheck {__version__})."
    )


def check_pictures(path: Path, document: dict[str, Any], spec: Any, violation: Violation) -> None:
    """Check what ``hwcheck show`` draws besides the actions, once ``replay`` rebuilt
    ``violation``: the aftermath (if any) must follow from the last state as the trace does
    (each action enabled, reaching the fingerprint recorded), and every state's ``view`` must
    be this model's picture of the state replayed. Raises ``TraceFileError`` naming the first
    state that differs (numbered as ``show`` numbers them)."""
    states = [step.state for step in violation.trace]
    steps = list(document["steps"])
    after = (document.get("aftermath") or {}).get("steps", [])
    if after:
        try:
            labels = [Label.parse(step["action"]) for step in after]
        except ValueError as exc:
            raise TraceFileError(f"{path}: aftermath: {exc}") from None
        fps = [int(step["fingerprint"], 16) for step in after]
        try:
            more = follow(spec, states[-1], labels, fps, start=len(states) - 1)
        except Unreproduced as exc:
            message = rejection(path, document, spec, exc, " (aftermath)")
            raise TraceFileError(message) from None
        states += [step.state for step in more]
        steps += after
    for number, (step, state) in enumerate(zip(steps, states), start=1):
        if _canonical(step["view"]) != _canonical(spec.view(state)):
            raise TraceFileError(
                f'{path}: rejected: the picture of state {number} (its "view") is not this '
                "model's picture of the state its fingerprint names. "
                + _causes(document, "a state's view")
            )


VIEW_NUMBERS = 64
"""The largest number (offset, epoch, count) an unchecked view may hold: the models' bounds
keep theirs under 16, and the drawings are as wide as the largest offset."""


def check_unchecked_views(path: Path, document: dict[str, Any]) -> None:
    """For ``show --no-check``, which draws the file's views without replaying them: raise
    ``TraceFileError`` naming the first state whose view holds a number past
    ``VIEW_NUMBERS`` (a view claiming an HW of 10^9 once made a page of gigabytes)."""
    after = (document.get("aftermath") or {}).get("steps", [])
    for number, step in enumerate([*document["steps"], *after], start=1):
        pending = [step["view"]]
        while pending:
            item = pending.pop()
            if isinstance(item, dict):
                pending.extend(item.values())
            elif isinstance(item, list):
                pending.extend(item)
            elif isinstance(item, int) and abs(item) > VIEW_NUMBERS:
                raise TraceFileError(
                    f"{path}: state {number}'s view holds {item}, past anything a model here "
                    f"draws (at most {VIEW_NUMBERS}); --no-check draws only views of that size"
                )


def _canonical(value: Any) -> str:
    """``value`` as JSON text with sorted keys: equal only when equal as JSON, so ``true`` is
    not ``1`` (Python's ``True == 1`` would let a boolean stand for a count)."""
    return json.dumps(value, sort_keys=True)


def loop_of(path: Path, document: dict[str, Any], fps: list[int]) -> Loop | None:
    """The document's ``Loop`` (None without one), after checking that a cycle closes."""
    loop = document.get("loop")
    if loop is None:
        return None
    back, last = loop["back_to"], len(fps) - 1
    if not loop["stutter"] and fps[last] != fps[back]:
        raise TraceFileError(
            f"{path}: the loop does not close: state {last + 1} is not state {back + 1} "
            f"(fingerprints {fps[last]:016x} and {fps[back]:016x})"
        )
    return Loop(
        back,
        loop["stutter"],
        tuple(loop["never_taken"]),
        loop["fairness"],
        loop["obligation"],
    )


def still_violated(violation: Violation) -> bool:
    """Whether the rebuilt trace's last state (or last transition) violates its property; for
    a lasso, whether its property fails on the behaviour the lasso stands for: ``P ~> Q``
    when ``Q`` stays false for a key ``P`` opens, in every state visited for ever after (the
    rest of the trace, and the loop's states), ``<>[]P`` when ``P`` is false in a loop state."""
    prop, last = violation.prop, violation.trace[-1]
    if violation.loop is not None:
        return _lasso_violated(violation, violation.loop)
    if prop.kind == "transition":
        return not prop.predicate(violation.trace[-2].state, last.label, last.state)
    return not prop.predicate(last.state)


def _lasso_violated(violation: Violation, loop: Loop) -> bool:
    prop, states = violation.prop, [step.state for step in violation.trace]
    if prop.kind == "eventually-always":
        return any(not prop.predicate(state) for state in states[loop.back_to :])
    assert prop.goal is not None
    return any(
        all(not prop.goal(state, key) for state in states[min(i, loop.back_to) :])
        for i, opened in enumerate(states)
        for key in prop.predicate(opened)
    )
