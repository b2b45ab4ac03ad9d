"""The gate's configuration read from TOML: ``[[tool.hwcheck.gate]]`` checks (or top-level
``[[gate]]`` in a file of its own) and ``gate_traces``, the corpus of trace files.

Every problem is one ``GateConfigError`` naming the file, the line and the key: a file that
cannot be read or is not TOML, ``tool`` or ``tool.hwcheck`` or a check that is not a table, a
key the schema does not allow or a value of the wrong type (``checker.gate.schema``), a
non-finite ``time_limit``, two checks with one name (a check's name keys its pins in the lock
file), a ``gate_traces`` pattern that matches no file.
"""

from __future__ import annotations

import difflib
import glob
import math
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema

from checker.gate.policy import Check
from checker.gate.schema import (
    BOUND_KEYS,
    CHECK_SCHEMA,
    CONFORM_KEYS,
    NAME_PATTERN,
    SIMULATE_KEYS,
)
from checker.jsontext import Validator, not_text


class GateConfigError(ValueError):
    """A malformed gate configuration; the message names the file, line and key."""


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
    text, table = _read(path)
    entries = table.get("gate")
    if not isinstance(entries, list) or not entries:
        raise GateConfigError(f"{path}: no [[tool.hwcheck.gate]] checks found")
    checks = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise GateConfigError(
                f"{path}:{_line_of(text, 0, 'gate')}: key 'gate': a list of tables "
                f"([[tool.hwcheck.gate]]), but check {index + 1} is {_toml_type(entry)}"
            )
        errors = sorted(
            Validator(CHECK_SCHEMA).iter_errors(entry),
            key=lambda e: list(e.path),
        )
        if errors:
            error = errors[0]
            key = error.path[0] if error.path else _unknown_key(entry)
            line = _line_of(text, index, key)
            what = f"key '{key}'" if key else "check"
            raise GateConfigError(
                f"{path}:{line}: gate check {index + 1}, {what}: {_say(error, key)}"
            )
        mode = entry.get("mode", "explore")
        allowed = {"simulate": SIMULATE_KEYS, "conform": CONFORM_KEYS}.get(mode, ())
        for key in (*SIMULATE_KEYS, *CONFORM_KEYS):
            if key in entry and key not in allowed:
                modes = " or ".join(
                    f'mode = "{m}"'
                    for m, keys in (("simulate", SIMULATE_KEYS), ("conform", CONFORM_KEYS))
                    if key in keys
                )
                raise GateConfigError(
                    f"{path}:{_line_of(text, index, key)}: gate check {index + 1}, key "
                    f"'{key}': applies only to {modes}"
                )
        if mode == "conform" and ("violates" in entry or entry.get("model", "kafka") != "kafka"):
            key = "violates" if "violates" in entry else "model"
            raise GateConfigError(
                f"{path}:{_line_of(text, index, key)}: gate check {index + 1}, key '{key}': "
                'a mode = "conform" check runs the kafka model and expects "holds"'
            )
        has = [key for key in ("truncation", "cluster") if key in entry]
        if len(has) != 1 or ("cluster" in entry) != ("kafka_version" in entry):
            key = "kafka_version" if len(has) == 1 else "cluster" if has else None
            raise GateConfigError(
                f"{path}:{_line_of(text, index, key)}: gate check {index + 1}: needs "
                "truncation, or cluster with kafka_version (the version picks the preset)"
            )
        if not math.isfinite(entry.get("time_limit", 0)):
            raise GateConfigError(
                f"{path}:{_line_of(text, index, 'time_limit')}: gate check {index + 1}, key "
                "'time_limit': seconds, a finite number greater than 0"
            )
        check = _check(entry, index, _line_of(text, index, None))
        check.lines.update({key: _line_of(text, index, key) for key in entry})
        checks.append(check)
    _refuse_twins(path, checks)
    return checks


def _read(path: Path) -> tuple[str, dict[str, Any]]:
    """``(text, table)``: the file's text and the table holding the gate's keys
    (``[tool.hwcheck]``, or the top level of a file of its own). Raises ``GateConfigError``
    for a file that cannot be read, is not TOML, nests past Python's limit, or whose ``tool``
    or ``tool.hwcheck`` is not a table."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GateConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise GateConfigError(f"{path}: {not_text(exc)}") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GateConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise GateConfigError(
            f"{path}: not a gate config: arrays or tables nest too deep"
        ) from None
    table: Any = document
    for key in ("tool", "hwcheck"):
        if key not in table:
            return text, document
        table = table[key]
        if not isinstance(table, dict):
            raise GateConfigError(
                f"{path}: key '{key}' is {_toml_type(table)}; the gate reads its checks "
                "from the table [tool.hwcheck]"
            )
    return text, table


def _toml_type(value: Any) -> str:
    """The TOML name of ``value``'s type with its article, for messages (``a table``, ``an
    integer``, ...)."""
    kinds: list[tuple[type, str]] = [(bool, "a boolean"), (int, "an integer"), (float, "a float")]
    kinds += [(str, "a string"), (list, "an array"), (dict, "a table")]
    return next((name for kind, name in kinds if isinstance(value, kind)), "a date or time")


def _refuse_twins(path: Path, checks: list[Check]) -> None:
    """Raise ``GateConfigError`` naming both lines when two checks have the same name (a
    check's name keys its pins in the lock file, so ``--update`` would pin only one) or
    names that make the same folder under ``--out`` (``Check.folder``)."""
    names: dict[str, Check] = {}
    folders: dict[str, Check] = {}
    for check in checks:
        first = names.setdefault(check.name, check)
        if first is not check:
            unnamed = "name" not in first.lines and "name" not in check.lines
            why = (
                "both unnamed, with the same model, truncation and replicas"
                if unnamed
                else "a check's name keys its pins"
            )
            raise GateConfigError(
                f"{path}:{check.line}: gate check at line {check.line} and the one at line "
                f"{first.line} are both named {check.name!r} ({why}); give each its own name"
            )
        first = folders.setdefault(check.folder, check)
        if first is not check:
            raise GateConfigError(
                f"{path}:{check.line}: gate check {check.name!r} (line {check.line}) and "
                f"{first.name!r} (line {first.line}) would write to one folder, "
                f"{check.folder}; give them names that differ in letters or digits"
            )


def load_traces(path: Path) -> tuple[list[Path], int]:
    """The corpus: ``(trace files, line)`` from ``gate_traces = ["glob", ...]`` beside the
    checks (globs relative to the config's folder, files sorted; line 0 when not given).

    Raises ``GateConfigError`` when ``gate_traces`` is not a list of strings or a pattern
    matches no file (a moved gallery must not silently empty the corpus).
    """
    text, table = _read(path)
    patterns = table.get("gate_traces", [])
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


def _say(error: jsonschema.ValidationError, key: str | None = None) -> str:
    if error.validator == "additionalProperties":
        allowed = sorted(CHECK_SCHEMA["properties"])
        close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.75) if key else []
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return f"unknown key{hint} (allowed: " + ", ".join(allowed) + ")"
    if error.validator == "pattern" and error.validator_value == NAME_PATTERN:
        return "a name without control characters (it names the check's JUnit test cases)"
    if error.validator == "oneOf":
        return 'needs exactly one of expect = "holds" or violates = [...]'
    return error.message


def _check(entry: dict[Any, Any], index: int, line: int) -> Check:
    model = entry.get("model", "kafka")
    bounds = {key: entry[key] for key in BOUND_KEYS if key in entry}
    name = entry.get("name") or (
        f"{model} {entry.get('truncation') or 'kafka-' + entry['kafka_version']} "
        f"r{bounds.get('replicas', 'default')}"
    )
    violates = frozenset(entry["violates"]) if "violates" in entry else None
    return Check(
        name,
        model,
        entry.get("truncation", ""),
        bounds,
        entry.get("engine", "local"),
        entry.get("time_limit"),
        violates,
        tuple(entry.get("invariants", ())),
        line,
        entry.get("symmetry"),
        entry.get("mode", "explore"),
        {
            key: entry[key]
            for key in (CONFORM_KEYS if entry.get("mode") == "conform" else SIMULATE_KEYS)
            if key in entry
        },
        liveness=bool(entry.get("liveness", False)),
        fairness=entry.get("fairness"),
    )
