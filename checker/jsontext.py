"""A JSON file that does not parse, in words: where and what, and whether the file was cut
short, for the messages of every file hwcheck reads back (traces, lock files, checkpoints).
In the engine's folder, since a checkpoint's manifest is read there (``checker.checkpoint.read``) and
the engine imports no other room; ``checker.formats`` and the commands use it from here."""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
"""How deeply arrays and objects may nest in a file hwcheck reads (its own files nest at most
about 8 deep: a trace's state is a tuple of replicas of logs of records)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


class Unusable(ValueError):
    """JSON that parses but that hwcheck will not read: nested past ``MAX_DEPTH``, or a string
    that is not Unicode text (a lone surrogate such as ``\\ud800``, which no terminal or file
    can print). Its message is one phrase, as ``not_json``'s."""


def parse(text: str) -> Any:
    """``json.loads(text)`` for a file's text, with a depth limit and strings checked for
    encodability, so that no reader meets Python's recursion limit or fails later when it
    prints a string.

    Raises ``json.JSONDecodeError`` for text that is not JSON and ``Unusable`` for JSON nested
    deeper than ``MAX_DEPTH`` or holding a lone surrogate (``\\ud800`` with no partner)."""
    depth = deepest = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > MAX_DEPTH:
                raise Unusable(f"nested deeper than {MAX_DEPTH} levels of arrays and objects")
    document = json.loads(text)
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(document, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            lone = f"\\u{ord(exc.object[exc.start]):04x}"
            raise Unusable(f"a string holds {lone}, half of a surrogate pair, not text") from None
    return document


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
