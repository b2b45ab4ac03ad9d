"""Pins: what a gate check explored, kept in a lock file and compared on every gate run.

Verdicts alone miss a change that keeps every verdict (a weakened invariant, a rule changed
where no property looks, an engine that merges states). So each gate check also pins, in
``hwcheck-gate.lock`` next to its config, the numbers and traces of its run, the way snapshot
tests (insta, syrupy, Jest) pin output: distinct states (orbits under symmetry), successors
generated, depth, action coverage (distinct states first reached by each action, TLC's
coverage), the "sometimes" guards reached, and per violated property the length and action
labels of its shortest counterexample. A replayed trace of the corpus pins, per property, the
state at which it first fails. Every pin is the same on every engine and core (the engines'
tests prove their counts and shortest traces equal), so one lock file serves them all.

The lock file is JSON, keys sorted and indented, so a reviewed change reads as a small diff.
This module knows no model: ``checker.commands.gate`` runs the checks and hands results in.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker.jsontext import Unusable, parse, schema_error, unreadable
from checker.result import CheckResult

LOCK_NAME = "hwcheck-gate.lock"
LOCK_FORMAT = "hwcheck-gate-lock"
LOCK_VERSION = 1
SHOWN = 3
"""How many differences a one-line summary shows before "; and N more changes"."""

_COUNT = {"type": "integer", "minimum": 0}
_CHECK_PINS = {
    "type": "object",
    "required": ["check", "states", "generated", "depth", "coverage", "guards", "violations"],
    "properties": {
        "check": {"type": "object"},
        "states": _COUNT,
        "generated": _COUNT,
        "depth": _COUNT,
        "walks": _COUNT,
        "coverage": {"type": "object", "additionalProperties": _COUNT},
        "guards": {"type": "array", "items": {"type": "string"}},
        "violations": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["length", "trace"],
                "properties": {
                    "length": _COUNT,
                    "trace": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
    },
}
_TRACE_PINS = {
    "type": "object",
    "required": ["states", "first_violated_at"],
    "properties": {
        "states": _COUNT,
        "first_violated_at": {
            "type": "object",
            "additionalProperties": {"type": ["integer", "null"]},
        },
    },
}
LOCK_SCHEMA = {
    "type": "object",
    "required": ["format", "version", "checks", "traces"],
    "properties": {
        "format": {"const": LOCK_FORMAT},
        "version": {"const": LOCK_VERSION},
        "checks": {"type": "object", "additionalProperties": _CHECK_PINS},
        "traces": {"type": "object", "additionalProperties": _TRACE_PINS},
    },
}


class LockError(ValueError):
    """A lock file that cannot be used (unreadable, not JSON, another format or version, or a
    field that breaks ``LOCK_SCHEMA``); the message names the file and what is wrong."""


@dataclass
class Lock:
    """A lock file's pins: ``checks`` by check name, ``traces`` by trace path (relative to the
    gate config's folder, ``/``-separated). ``found``: the file existed when read."""

    path: Path
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)
    traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    found: bool = False


def read_lock(path: Path) -> Lock:
    """The pins in ``path``; an empty ``Lock`` (``found`` False) when there is no such file.

    Raises ``LockError`` for a file that exists but cannot be read or used.
    """
    if not path.exists():
        return Lock(path)
    try:
        document = parse(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LockError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError, Unusable) as exc:
        said = unreadable(exc)
        raise LockError(
            f"{path}: {said}; restore it from version control "
            "or write it again with hwcheck gate --update"
        ) from None
    if not isinstance(document, dict) or document.get("format") != LOCK_FORMAT:
        raise LockError(f'{path}: not an hwcheck gate lock file (no "format": "{LOCK_FORMAT}")')
    if document.get("version") != LOCK_VERSION:
        raise LockError(
            f"{path}: lock format version {document.get('version')!r}; this "
            f"hwcheck reads version {LOCK_VERSION}"
        )
    error = schema_error(LOCK_SCHEMA, document)
    if error is not None:
        raise LockError(f"{path}: {error}")
    return Lock(path, document["checks"], document["traces"], True)


def lock_text(lock: Lock) -> str:
    """The lock file's text: JSON, keys sorted, two-space indent, one trailing newline."""
    document = {
        "format": LOCK_FORMAT,
        "version": LOCK_VERSION,
        "checks": lock.checks,
        "traces": lock.traces,
    }
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_lock(lock: Lock) -> None:
    """Write ``lock`` beside its old file and rename it into place, so an interrupted write
    never leaves a half-written lock file. Raises ``OSError`` when it cannot be written."""
    temporary = lock.path.with_name(lock.path.name + ".tmp")
    try:
        temporary.write_text(lock_text(lock), encoding="utf-8")
        os.replace(temporary, lock.path)
    finally:
        temporary.unlink(missing_ok=True)


def check_pins(definition: dict[str, Any], result: CheckResult) -> dict[str, Any]:
    """The pins of one complete run: ``definition`` (the check's model, variant, bounds,
    properties, symmetry and mode, as the caller states them) and what ``result`` found.
    Coverage leaves out actions that first reached no state (engines differ in whether they
    list them)."""
    stats = result.stats
    pins = {
        "check": definition,
        "states": stats.distinct,
        "generated": stats.generated,
        "depth": stats.depth,
        "coverage": {
            name: distinct for name, (_, distinct) in sorted(stats.actions.items()) if distinct
        },
        "guards": sorted(
            p.name
            for p in result.checked
            if p.kind == "sometimes" and p.name not in result.unreached
        ),
        "violations": {
            v.prop.name: {"length": v.length, "trace": [str(step.label) for step in v.trace[1:]]}
            for v in result.violations
        },
    }
    if result.sampled:
        pins["walks"] = result.sampled
    return pins


def _n(value: int) -> str:
    return f"{value:,}"


def _change(what: str, old: int, new: int, percent: bool = False) -> str:
    text = f"{what} {_n(old)} → {_n(new)}"
    if percent and old:
        text += f" ({(new - old) / old * 100:+.1f} %)"
    return text


def check_differences(
    old: dict[str, Any], new: dict[str, Any], defaults: dict[str, Any] | None = None
) -> list[str]:
    """What changed from pins ``old`` to pins ``new``, most telling first: the check's own
    definition, states, depth, successors generated, coverage (largest change first), guards
    reached, then per property its shortest counterexample's length and the first step where
    its trace differs. Empty when the pins are equal. ``defaults``: the model's value of
    each definition key a check may leave out, said for a key left out (``2 (default)``)."""
    out = []
    before, after = old["check"], new["check"]
    for key in sorted(set(before) | set(after)):
        if before.get(key) != after.get(key):
            was, now = (_said(side.get(key), key, defaults or {}) for side in (before, after))
            out.append(f"check's {key} {was} → {now} since it was pinned")
    if old["states"] != new["states"]:
        out.append(_change("states", old["states"], new["states"], percent=True))
    if old["depth"] != new["depth"]:
        out.append(_change("depth", old["depth"], new["depth"]))
    if old.get("walks") != new.get("walks"):
        out.append(_change("walks", old.get("walks", 0), new.get("walks", 0)))
    if old["generated"] != new["generated"]:
        out.append(
            _change("successors generated", old["generated"], new["generated"], percent=True)
        )
    was, now = old["coverage"], new["coverage"]
    moved = sorted(
        (a for a in set(was) | set(now) if was.get(a, 0) != now.get(a, 0)),
        key=lambda a: (-abs(now.get(a, 0) - was.get(a, 0)), a),
    )
    out += [_change(f"{a} first reached", was.get(a, 0), now.get(a, 0)) for a in moved]
    out += [f"guard {g} no longer reached" for g in sorted(set(old["guards"]) - set(new["guards"]))]
    out += [f"guard {g} now reached" for g in sorted(set(new["guards"]) - set(old["guards"]))]
    out += _violation_differences(old["violations"], new["violations"])
    return out


def _said(value: Any, key: str = "", defaults: dict[str, Any] | None = None) -> str:
    if value is None:
        if defaults and defaults.get(key) is not None:
            return f"{_said(defaults[key])} (default)"
        return "(none)"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]" if value else "none"
    return str(value)


def _violation_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = []
    for name in sorted(set(old) | set(new)):
        if name not in new:
            out.append(f"{name} no longer violated (pinned: shortest {old[name]['length']} states)")
        elif name not in old:
            out.append(f"{name} now violated (shortest {new[name]['length']} states)")
        else:
            a, b = old[name], new[name]
            if a["length"] != b["length"]:
                out.append(f"{name} shortest {a['length']} → {b['length']} states")
            differs = first_difference(a["trace"], b["trace"])
            if differs:
                out.append(f"{name} trace differs from {differs}")
    return out


def first_difference(old: list[str], new: list[str]) -> str:
    """Where two traces' action labels first differ, as ``state N: old ↔ new`` (state 1 is
    the initial state, so label i leads to state i + 2); "" when they are equal."""
    for index in range(max(len(old), len(new))):
        a = old[index] if index < len(old) else "(trace ends)"
        b = new[index] if index < len(new) else "(trace ends)"
        if a != b:
            return f"state {index + 2}: {a} ↔ {b}"
    return ""


def trace_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed in a replayed trace's pins: its length, then per property the state at
    which it first fails (``None``: it holds along the whole trace)."""
    out = []
    if old["states"] != new["states"]:
        out.append(_change("states", old["states"], new["states"]))
    was, now = old["first_violated_at"], new["first_violated_at"]
    for name in sorted(set(was) | set(now)):
        if name not in now:
            out.append(f"{name} is no longer a property of this model")
        elif name not in was:
            out.append(f"{name} is new: {_at(now[name])}")
        elif was[name] != now[name]:
            out.append(f"{name} {_at(was[name])} → {_at(now[name])}")
    return out


def _at(state: int | None) -> str:
    return "holds throughout" if state is None else f"first fails at state {state}"


def summary(differences: list[str]) -> str:
    """The first ``SHOWN`` differences on one line, then how many more there are (``depth
    21 → 23; and 11 more changes``)."""
    more = len(differences) - SHOWN
    tail = f"; and {more} more change{'s' if more > 1 else ''}" if more > 0 else ""
    return "; ".join(differences[:SHOWN]) + tail
