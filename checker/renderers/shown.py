"""Which counterexamples ``explore`` and ``simulate`` draw in the terminal, and in what order.

People read the verdicts first, then one story. So after the summary and the verdict table,
the command draws the most important violated property's counterexample in full (``--show
first``, the default), and the first liveness counterexample (a lasso: its stem, its loop and
what the loop never does) in full too, as it tells another story than any safety trace;
every other violated property gets one line with its length and its
trace file, and a property whose trace is the same as one already named says "same trace as
...". ``--show all`` draws every distinct trace; ``--show none`` draws none (lines only). The
files (``trace.json``, ``trace.html``) are written for every violated property either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from checker.renderers import steps

SHOW = ("first", "all", "none")
"""The values of ``--show``."""

IMPORTANCE = (
    "NoCommittedLoss",
    "NoAckedLoss",
    "NoDivergence",
    "NoUncommittedRead",
    "StrongIsr",
    "WeakIsr",
)
"""Violated properties in the order they are drawn: data lost, then a forked log, then an
uncommitted record a consumer may read, then an ISR that does not hold the committed prefix;
every other property after these, in the model's catalog order."""


def ordered(names: Sequence[str]) -> list[str]:
    """``names`` (violated properties in catalog order) in drawing order (``IMPORTANCE``)."""
    rank = {name: i for i, name in enumerate(IMPORTANCE)}
    return sorted(names, key=lambda name: (rank.get(name, len(rank)), names.index(name)))


def load(summary: dict[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """``(property, trace document, trace file)`` for every violated property of a run's
    ``summary`` (its ``properties`` name the trace files just written), in drawing order.

    Raises ``OSError`` or ``ValueError`` when a trace file cannot be read back."""
    files = {
        name: entry["trace"] for name, entry in summary["properties"].items() if entry.get("trace")
    }
    return [
        (name, json.loads(Path(files[name]).read_text(encoding="utf-8")), files[name])
        for name in ordered(list(files))
    ]


def _key(document: dict[str, Any]) -> tuple[str, ...]:
    return tuple(step["fingerprint"] for step in document["steps"])


def print_counterexamples(
    console: Console,
    entries: Sequence[tuple[str, dict[str, Any], str]],
    show: str = "first",
    intro: Callable[[dict[str, Any]], str] | None = None,
) -> None:
    """Draw ``entries`` (``load``'s triples) as ``show`` asks (``first``: the first safety
    trace and the first lasso): in full, or one line each
    (``NoAckedLoss violated (11 states): same trace as NoCommittedLoss; trace: FILE``).
    ``intro``, when given, returns a line printed above each trace drawn in full (simulate:
    how the walk found it)."""
    drawn: set[tuple[str, ...]] = set()
    kinds: set[str] = set()
    named: dict[tuple[str, ...], str] = {}
    lines = []
    for name, document, path in entries:
        key = _key(document)
        kind = "lasso" if document.get("loop") else "safety"
        first = show == "first" and kind not in kinds
        full = key not in drawn and (show == "all" or first)
        if full:
            if intro is not None:
                console.print(Text(intro(document), style="bold"))
            steps.print_document(console, document)
            console.print()
            drawn.add(key)
            kinds.add(kind)
            named.setdefault(key, name)
            continue
        head = f"{name} violated ({document['length']} states)"
        same = named.get(key)
        what = f"same trace as {same}; trace" if same else "trace"
        lines.append(Text.assemble((head, "bold red"), f": {what}: {path}"))
        named.setdefault(key, name)
    for line in lines:
        console.print(line)
    if lines:
        console.print(
            Text(
                "Draw one with: hwcheck show <trace.json> (or open its trace.html); "
                "--show all draws every distinct trace here.",
                style="dim",
            )
        )
