"""A conformance run in the terminal: one line per schedule as it ends, a summary table at
the end. Both read the report's JSON shape (``checker/conform/conform.schema.json``), as the
HTML timeline does (``checker.renderers.conform_page``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

CHECKS = ("explained", "reachable", "unreachable", "beyond")


def schedule_line(console: Console, s: dict[str, Any]) -> None:
    """``seed N: operations: K cuts, verdict``, then up to three cuts that fail, each with up
    to six differences or safety violations."""
    bad = [c for c in s["cuts"] if c["check"] != "explained" or c["unsafe"]]
    mark = "[green]conforms[/]" if not bad else "[red]does not conform[/]"
    if bad and all(c["check"] == "beyond" and not c["unsafe"] for c in bad):
        mark = "[yellow]beyond the model's bounds[/]"
    elif bad and all(c["check"] == "explained" for c in bad):  # the model foresaw the harm
        mark = "[green]conforms[/], [red]unsafe on the real cluster[/]"
    console.print(f"seed {s['seed']}: {' '.join(s['operations'])}: {len(s['cuts'])} cuts, {mark}")
    for c in bad[:3]:
        console.print(f"  cut {c['index']} after {c['after']}: {c['check']}")
        for line in (c["differences"] + c["unsafe"])[:6]:
            console.print(f"    {line}")


def counts(schedules: list[dict[str, Any]]) -> dict[str, int]:
    """Cuts per check (``CHECKS``), ``unsafe`` cuts, and ``cuts``."""
    cuts = [c for s in schedules for c in s["cuts"]]
    found = {k: sum(c["check"] == k for c in cuts) for k in CHECKS}
    return {**found, "unsafe": sum(bool(c["unsafe"]) for c in cuts), "cuts": len(cuts)}


def summary(console: Console, schedules: list[dict[str, Any]], partial: bool) -> None:
    """The summary table: schedules, cuts, each verdict's count, cuts per minute."""
    n = counts(schedules)
    seconds = sum(s["seconds"] for s in schedules)
    table = Table(title="Conformance" + (" (partial)" if partial else ""), show_header=False)
    table.add_column("", style="bold")
    table.add_column("", justify="right")
    rows = (
        ("schedules", len(schedules)),
        ("cuts", n["cuts"]),
        ("explained by a step from the previous cut", n["explained"]),
        ("reachable, but no step from the previous cut", n["reachable"]),
        ("reached by no model state", n["unreachable"]),
        ("beyond the model's bounds", n["beyond"]),
        ("unsafe on the real cluster", n["unsafe"]),
        ("cuts per minute", f"{60 * n['cuts'] / seconds:.0f}" if seconds else "-"),
    )
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)
