"""A JSON file that does not parse, in words: where and what, and whether the file was cut
short, for the messages of every file hwcheck reads back (traces, lock files, checkpoints).
In the engine's folder, since a checkpoint's manifest is read there (``checker.checkpoint.read``) and
the engine imports no other room; ``checker.formats`` and the commands use it from here."""

from __future__ import annotations

import json


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


def unreadable(exc: json.JSONDecodeError | UnicodeDecodeError) -> str:
    """``not_json`` or ``not_text``, whichever ``exc`` is (reading a JSON file as text)."""
    return not_json(exc) if isinstance(exc, json.JSONDecodeError) else not_text(exc)
