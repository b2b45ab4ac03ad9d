"""Read ``trace.json`` files: parse, check against ``trace.schema.json`` (jsonschema), and
replay a trace against this hwcheck's model.

Every problem ends in one ``TraceFileError`` whose message names the file and what is wrong
(missing, not JSON, truncated, another format or version, a field that breaks the schema, a
trace this model cannot reproduce); the CLI prints it and exits 4.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from checker.formats.report import TRACE_FORMAT, TRACE_VERSION
from checker.model import Label, NondeterministicSpec
from checker.models import compose
from checker.result import Violation
from checker.trace import replay as replay_labels

SCHEMA_PATH = Path(__file__).with_name("trace.schema.json")


class TraceFileError(ValueError):
    """A trace file that cannot be used; the message says which file and why."""


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of format ``hwcheck-trace`` version 1."""
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def load(path: Path) -> dict[str, Any]:
    """Read and validate a trace file; return the document.

    Raises ``TraceFileError`` for a missing or unreadable file, invalid or truncated JSON, another
    format or version, or a document that breaks the schema.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceFileError(
            f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc})"
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        # a string cut by the end of the file reports where the string starts
        early = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        ending = " (the file ends early: truncated?)" if early else ""
        raise TraceFileError(
            f"{path}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{ending}"
        ) from None
    if not isinstance(document, dict) or document.get("format") != TRACE_FORMAT:
        raise TraceFileError(f'{path}: not an hwcheck trace (no "format": "{TRACE_FORMAT}")')
    if document.get("version") != TRACE_VERSION:
        raise TraceFileError(
            f"{path}: trace format version {document.get('version')!r}; this "
            f"hwcheck reads version {TRACE_VERSION}"
        )
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema()).iter_errors(document)
    )
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        raise TraceFileError(f"{path}: field {where}: {error.message}")
    if document["length"] != len(document["steps"]) or any(
        step["index"] != i for i, step in enumerate(document["steps"])
    ):
        raise TraceFileError(f"{path}: steps are not numbered 0..{document['length'] - 1}")
    return document


def model_of(path: Path, document: dict[str, Any]) -> tuple[Any, list[Any], list[Label], list[int]]:
    """``(spec, every property, action labels, fingerprints)`` of a loaded trace: the model
    built here from the trace's config, the labels of steps 1.. and the fingerprints of every
    step (initial state first). Raises ``TraceFileError`` when the config does not build a
    model here or a label does not parse."""
    try:
        config = compose.make_config(document["model"], dict(document["config"]))
        spec, props = compose.build_model(document["model"], config)
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

    Returns ``(spec, violation)`` rebuilt from the model. Raises ``TraceFileError`` when the
    model cannot be built from the trace's config, an action is not enabled, or a state's
    fingerprint differs (a trace from another model version).
    """
    written_by = document["hwcheck_version"]
    spec, props, labels, fps = model_of(path, document)
    try:
        rebuilt = replay_labels(spec, fps[0], labels, fps[1:])
    except NondeterministicSpec as exc:
        raise TraceFileError(
            f"{path}: rejected: written by hwcheck {written_by}, and this model does not "
            f"reproduce it ({exc})"
        ) from None
    prop = {p.name: p for p in props}.get(document["property"]["name"])
    if prop is None:
        raise TraceFileError(
            f"{path}: this hwcheck has no property {document['property']['name']!r}"
        )
    return spec, Violation(prop, tuple(rebuilt))


def still_violated(violation: Violation) -> bool:
    """Whether the rebuilt trace's last state (or last transition) violates its property."""
    prop, last = violation.prop, violation.trace[-1]
    if prop.kind == "transition":
        return not prop.predicate(violation.trace[-2].state, last.label, last.state)
    return not prop.predicate(last.state)
