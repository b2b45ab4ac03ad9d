"""A JSON file that does not parse, in words: where and what, and whether the file was cut
short, for the messages of every file hwcheck reads back (traces, lock files, checkpoints).
In the engine's folder, since a checkpoint's manifest is read there (``checker.checkpoint.read``) and
the engine imports no other room; ``checker.formats`` and the commands use it from here."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

MAX_DEPTH = 64
"""How deeply arrays and objects may nest in a file hwcheck reads (its own files nest at most
about 8 deep: a trace's state is a tuple of replicas of logs of records)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_ESCAPE = re.compile(r"\\[ubf]")
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def _whole_number(_: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


Validator: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole_number),
)
"""JSON Schema draft 2020-12 as hwcheck reads its files: an ``integer`` is a whole number
written without a point (``1``, not ``1.0``, which the draft also calls an integer and
Python's ``"{:06d}"`` refuses), and never a boolean."""


def schema_error(schema: dict[str, Any], document: Any) -> str | None:
    """The most telling way ``document`` breaks ``schema`` (``Validator``), as ``field
    steps/2/action: None is not of type 'string'`` (the message cut at 160 characters), or
    None when it follows the schema."""
    error = jsonschema.exceptions.best_match(Validator(schema).iter_errors(document))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
    said = error.message if len(error.message) <= 160 else error.message[:159] + "…"
    return f"field {where}: {said}"


class Unusable(ValueError):
    """JSON that parses but that hwcheck will not read: nested past ``MAX_DEPTH``, a number
    too long to read, or a string that is not printable text (a lone surrogate such as
    ``\\ud800``, which no terminal or file can print, or a control character such as ESC).
    Its message is one phrase, as ``not_json``'s."""


def parse(text: str) -> Any:
    """``json.loads(text)`` for a file's text, with a depth limit and strings checked for
    encodability, so that no reader meets Python's recursion limit or fails later when it
    prints a string.

    Raises ``json.JSONDecodeError`` for text that is not JSON and ``Unusable`` for JSON nested
    deeper than ``MAX_DEPTH``, a number past Python's 4,300 digits, or a string holding a
    lone surrogate (``\\ud800`` with no partner) or a control character other than tab and
    line breaks."""
    depth = deepest = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                raise Unusable(f"nested deeper than {MAX_DEPTH} levels of arrays and objects")
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # a number past int()'s 4,300 digits
        raise Unusable("a number with more digits than any count hwcheck writes") from None
    if _ESCAPE.search(text):  # only an escape makes a control character or a lone surrogate
        _check_strings(document)
    return document


def _check_strings(document: Any) -> None:
    """Raise ``Unusable`` for the first string (or key) in ``document`` holding a control
    character other than tab and line breaks (a terminal escape such as ESC would act on
    the reader's terminal) or a lone surrogate; looked at without recursion."""
    pending = [document]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str) and (bad := _NOT_TEXT.search(item)) is not None:
            char = ord(bad.group())
            if 0xD800 <= char <= 0xDFFF:
                raise Unusable(f"a string holds \\u{char:04x}, half of a surrogate pair, not text")
            raise Unusable(f"a string holds the control character U+{char:04X}")


def not_json(exc: json.JSONDecodeError) -> str:
    """``exc`` (from ``json.loads`` of a file's text) as one phrase: ``not valid JSON:
    unterminated string starting at line 16 column 3 (the file ends early — truncated?)``.

    The file ends early when the parser stopped at its end, or in a string that never closes
    (a string cannot hold a line break, so only the end of the file leaves one open)."""
    text = exc.doc
    if not text.strip():
        return "not valid JSON: the file is empty"
    what = exc.msg[:1].lower() + exc.msg[1:]
    where = f"line {exc.lineno} column {exc.colno}"
    said = f"{what} {where}" if what.endswith(" at") else f"{what} at {where}"
    early = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
    return f"not valid JSON: {said}" + (" (the file ends early — truncated?)" if early else "")


def not_text(exc: UnicodeDecodeError) -> str:
    """``exc`` (decoding a file as UTF-8) as one phrase: ``not UTF-8 text (byte 0xff at
    offset 0)``."""
    return f"not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})"


def unreadable(exc: json.JSONDecodeError | UnicodeDecodeError | Unusable) -> str:
    """``not_json``, ``not_text`` or ``Unusable``'s phrase, whichever ``exc`` is (reading a
    JSON file as text with ``parse``)."""
    if isinstance(exc, json.JSONDecodeError):
        return not_json(exc)
    if isinstance(exc, UnicodeDecodeError):
        return not_text(exc)
    return str(exc)
