"""The CI invariant gate: checks with expectations, read from TOML, judged against results.

A check names a model, a truncation variant, replicas, bounds, an engine, an optional time
limit, a ``mode`` (``explore``, the default, or ``simulate`` with ``seed``, ``walks`` and
``depth``: random walks, where "holds" means no walk found a violation) and its expectation: ``expect = "holds"`` (every property holds and every vacuity guard
is reached) or ``violates = [names]`` (exactly these properties are violated: a known-buggy
variant stays pinned as buggy, and a change that silently makes it stop failing fails too).
Beside its verdict, every check's run is compared with its pins in the lock file
(``checker.formats.pins``), and the trace files named by ``gate_traces`` are replayed (the corpus).
This module knows no model: ``checker.commands.gate`` runs each check and hands back the
result; ``checker.formats.gate_output`` writes JUnit, annotations and the markdown summary.
"""

from __future__ import annotations

import glob
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from checker.gate.schema import BOUND_KEYS, CHECK_SCHEMA, GATE_WALKS, SIMULATE_KEYS
from checker.result import CheckResult, Status

PASS, FAIL, INCOMPLETE, ERROR = "PASS", "FAIL", "INCOMPLETE", "ERROR"
EXIT_UNMET = 1


class GateConfigError(ValueError):
    """A malformed gate configuration; the message names the file, line and key."""


@dataclass(frozen=True)
class Check:
    """One gate check. ``bounds`` maps option names (``replicas``, ``max_epoch``, ...) to
    values; ``violates`` is None for ``expect = "holds"``."""

    name: str
    model: str
    truncation: str
    bounds: dict[str, Any]
    engine: str = "local"
    time_limit: float | None = None
    violates: frozenset[str] | None = None
    invariants: tuple[str, ...] = ()
    line: int = 0
    symmetry: bool | None = None
    mode: str = "explore"
    plan: dict[str, int] = field(default_factory=dict)
    """For ``mode = "simulate"``: ``seed``, ``walks`` and ``depth`` as given."""
    lines: dict[str, int] = field(default_factory=dict)
    """The line (1-based) of each key the check gives, for messages."""
    liveness: bool = False
    """Also check every liveness property (``explore --liveness``)."""
    fairness: str | None = None
    """The liveness check's fairness, in ``--fair``'s text form, comma-separated; replaces
    the model's declared fairness (``"none"`` or ``""``: no fairness). None: the model's."""

    @property
    def expectation(self) -> str:
        """``holds`` or ``violates A, B`` (with ``, in N walks`` for a simulation); for a
        corpus trace (``mode = "replay"``), ``replays as pinned``."""
        if self.mode == "replay":
            return "replays as pinned"
        said = "holds" if self.violates is None else "violates " + ", ".join(sorted(self.violates))
        return said + (
            f", in {self.plan.get('walks', GATE_WALKS):,} walks" if self.mode == "simulate" else ""
        )


@dataclass
class Outcome:
    """A check, its result and the verdict: PASS, FAIL, INCOMPLETE or ERROR, with why."""

    check: Check
    status: str
    message: str
    result: CheckResult | None = None
    report: str | None = None
    details: dict[str, str] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    """What changed against the check's pins (``checker.formats.pins``), most telling first."""
    pins: str = ""
    """How the pins went: ``match``, ``differ``, ``none`` (not pinned yet), ``updated``,
    ``new`` (pinned by this ``--update``) or "" (not compared: the verdict failed or the
    run was cut short)."""


def _line_of(text: str, index: int, key: str | None) -> int:
    """Line (1-based) of check ``index``'s header, or of ``key`` inside that check."""
    lines = text.splitlines()
    headers = [
        i
        for i, line in enumerate(lines)
        if re.match(r"\s*\[\[\s*(tool\.hwcheck\.)?gate\s*\]\]", line)
    ]
    if index >= len(headers):
        return 0
    start = headers[index]
    end = headers[index + 1] if index + 1 < len(headers) else len(lines)
    if key:
        for i in range(start, end):
            if re.match(rf"\s*{re.escape(key)}\s*=", lines[i]):
                return i + 1
    return start + 1


def load_checks(path: Path) -> list[Check]:
    """Read ``[[tool.hwcheck.gate]]`` tables (or top-level ``[[gate]]``) from a TOML file.

    Raises ``GateConfigError`` naming the line and key for unreadable TOML, a missing gate
    list, an unknown key, a wrong type or a missing expectation.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GateConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GateConfigError(f"{path}: not valid TOML: {exc}") from None
    table = document.get("tool", {}).get("hwcheck", document)
    entries = table.get("gate")
    if not isinstance(entries, list) or not entries:
        raise GateConfigError(f"{path}: no [[tool.hwcheck.gate]] checks found")
    checks = []
    for index, entry in enumerate(entries):
        errors = sorted(
            jsonschema.Draft202012Validator(CHECK_SCHEMA).iter_errors(entry),
            key=lambda e: list(e.path),
        )
        if errors:
            error = errors[0]
            key = error.path[0] if error.path else _unknown_key(entry)
            line = _line_of(text, index, key)
            what = f"key '{key}'" if key else "check"
            raise GateConfigError(f"{path}:{line}: gate check {index + 1}, {what}: {_say(error)}")
        if entry.get("mode", "explore") != "simulate":
            for key in SIMULATE_KEYS:
                if key in entry:
                    raise GateConfigError(
                        f"{path}:{_line_of(text, index, key)}: gate check "
                        f"{index + 1}, key '{key}': applies only to "
                        'mode = "simulate"'
                    )
        check = _check(entry, index, _line_of(text, index, None))
        check.lines.update({key: _line_of(text, index, key) for key in entry})
        checks.append(check)
    return checks


def load_traces(path: Path) -> tuple[list[Path], int]:
    """The corpus: ``(trace files, line)`` from ``gate_traces = ["glob", ...]`` beside the
    checks (globs relative to the config's folder, files sorted; line 0 when not given).

    Raises ``GateConfigError`` when ``gate_traces`` is not a list of strings or a pattern
    matches no file (a moved gallery must not silently empty the corpus).
    """
    text = path.read_text(encoding="utf-8")
    document = tomllib.loads(text)
    patterns = document.get("tool", {}).get("hwcheck", document).get("gate_traces", [])
    line = next(
        (i + 1 for i, row in enumerate(text.splitlines()) if re.match(r"\s*gate_traces\s*=", row)),
        0,
    )
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise GateConfigError(
            f"{path}:{line}: key 'gate_traces': a list of glob patterns "
            "of trace files, relative to this file's folder"
        )
    files: set[Path] = set()
    for pattern in patterns:
        found = sorted(
            Path(f) for f in glob.glob(os.path.join(path.parent, pattern), recursive=True)
        )
        if not found:
            raise GateConfigError(
                f"{path}:{line}: key 'gate_traces': {pattern!r} matches "
                f"no file under {path.parent.resolve()}"
            )
        files.update(found)
    return sorted(files), line


def _unknown_key(entry: dict[Any, Any]) -> str | None:
    extra = set(entry) - set(CHECK_SCHEMA["properties"])
    return min(extra) if extra else None


def _say(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        return "unknown key (allowed: " + ", ".join(sorted(CHECK_SCHEMA["properties"])) + ")"
    if error.validator == "oneOf":
        return 'needs exactly one of expect = "holds" or violates = [...]'
    return error.message


def _check(entry: dict[Any, Any], index: int, line: int) -> Check:
    model = entry.get("model", "kafka")
    bounds = {key: entry[key] for key in BOUND_KEYS if key in entry}
    name = entry.get("name") or (
        f"{model} {entry['truncation']} r{bounds.get('replicas', 'default')}"
    )
    violates = frozenset(entry["violates"]) if "violates" in entry else None
    return Check(
        name,
        model,
        entry["truncation"],
        bounds,
        entry.get("engine", "local"),
        entry.get("time_limit"),
        violates,
        tuple(entry.get("invariants", ())),
        line,
        entry.get("symmetry"),
        entry.get("mode", "explore"),
        {key: entry[key] for key in SIMULATE_KEYS if key in entry},
        liveness=bool(entry.get("liveness", False)),
        fairness=entry.get("fairness"),
    )


def judge(check: Check, result: CheckResult) -> Outcome:
    """Compare a result with the check's expectation (see the module docstring)."""
    violated = {v.prop.name for v in result.violations}
    if result.status == Status.ERROR:
        return Outcome(check, ERROR, result.reason, result)
    if check.violates is None:
        if result.status == Status.OK:
            said = (
                f"no violation in {result.sampled:,} walks (simulation: not a proof)"
                if result.sampled
                else "every property holds"
            )
            return Outcome(check, PASS, said, result)
        if violated:
            return Outcome(
                check, FAIL, "expected to hold, but violates " + ", ".join(sorted(violated)), result
            )
        if result.status == Status.VACUOUS:
            return Outcome(
                check, FAIL, "vacuous: never reached " + ", ".join(result.unreached), result
            )
        return Outcome(check, INCOMPLETE, result.reason or "search cut short", result)
    unexpected, missing = violated - check.violates, check.violates - violated
    if unexpected:
        return Outcome(
            check, FAIL, "unexpected violation of " + ", ".join(sorted(unexpected)), result
        )
    if not missing:
        return Outcome(
            check, PASS, "violates " + ", ".join(sorted(violated)) + " as expected", result
        )
    if result.exhausted:
        return Outcome(
            check,
            FAIL,
            "expected violation not found (the model may have been "
            "weakened): " + ", ".join(sorted(missing)),
            result,
        )
    if result.sampled and result.status != Status.INCOMPLETE:
        return Outcome(
            check,
            FAIL,
            f"expected violation not found in {result.sampled:,} walks "
            "(the model may have been weakened): " + ", ".join(sorted(missing)),
            result,
        )
    return Outcome(
        check,
        INCOMPLETE,
        (result.reason or "search cut short") + "; not yet violated: " + ", ".join(sorted(missing)),
        result,
    )


def exit_code(outcomes: list[Outcome]) -> int:
    """0 when every check passed; 1 when any failed or errored; 3 when some were only
    incomplete."""
    statuses = {o.status for o in outcomes}
    if statuses & {FAIL, ERROR}:
        return EXIT_UNMET
    return 3 if INCOMPLETE in statuses else 0
