""" "Did you mean ...?" for a misspelt name on the command line or in a gate check (issue 64):
a property, a ``--truncation`` preset or a mechanism. The gate's config keys get the same
hint from ``checker.gate.config``, which may not import this room."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from spec.kafka.variants import MECHANISMS, PRESETS
from spec.tla.config import TLA_MODULES


def suggestion(word: str, known: Iterable[str]) -> str:
    """``" (did you mean 'X'?)"`` for the known name closest to ``word`` (difflib's ratio
    0.75 or more, case aside), else ``""``."""
    names = {name.lower(): name for name in known}
    close = difflib.get_close_matches(word.lower(), list(names), n=1, cutoff=0.75)
    return f" (did you mean {names[close[0]]!r}?)" if close else ""


def unknown_property(name: str, props: list[Any]) -> str:
    """The message for ``--invariant name`` that ``props`` (a model's properties) has not:
    the closest known name, then every one a run can name (the "sometimes" guards aside)."""
    names = [p.name for p in props if p.kind != "sometimes"]
    return f"unknown property {name!r}{suggestion(name, names)}; known: {', '.join(names)}"


def misspelt(model: str, option: str, given: dict[str, object]) -> str:
    """The hint for the ``--truncation`` or ``--with`` / ``--without`` value among ``given``
    (``compose.make_config``'s options) that ``option``'s error is about ('' if none is
    close to a known one)."""
    if option == "--truncation" and isinstance(given.get("truncation"), str):
        known = list(PRESETS) if model == "kafka" else list(TLA_MODULES)
        return suggestion(str(given["truncation"]), known)
    if option.startswith(("--with", "--without")):
        for key in ("with_mechanisms", "without_mechanisms"):
            for name in given.get(key) or ():  # type: ignore[attr-defined]
                if name not in MECHANISMS:
                    return suggestion(str(name), MECHANISMS)
    return ""
