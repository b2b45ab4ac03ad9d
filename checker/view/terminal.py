"""Terminal rendering with rich: the run summary, property verdicts, coverage, and each
counterexample as a table of steps (one column per replica, changed cells highlighted)."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from checker.result import CheckResult, Status, Violation
from checker.view.report import explanation

STATUS_STYLE = {Status.OK: "bold green", Status.VIOLATED: "bold red",
                Status.VACUOUS: "bold yellow", Status.INCOMPLETE: "bold yellow",
                Status.ERROR: "bold red"}


def summary_table(title: str, config: dict[str, Any], result: CheckResult) -> Table:
    """Status, bounds and statistics of a run as a two-column table."""
    stats = result.stats
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    table.add_row("status", Text(result.status.value, style=STATUS_STYLE[result.status]))
    if result.reason:
        table.add_row("reason", result.reason)
    table.add_row("config", ", ".join(f"{k}={v}" for k, v in config.items()))
    table.add_row("distinct states", f"{stats.distinct:,}")
    table.add_row("states generated", f"{stats.generated:,}")
    table.add_row("depth", str(stats.depth))
    table.add_row("seconds", f"{stats.seconds:.2f}")
    table.add_row("distinct states/s", f"{stats.states_per_second:,.0f}")
    table.add_row("fingerprint collision", f"{stats.collision_probability:.1e} (optimistic)")
    on_spark = sum(1 for level in stats.levels if level["where"] == "spark")
    table.add_row("engine", stats.engine + (
        f", {on_spark} of {len(stats.levels)} levels as Spark jobs" if stats.levels else ""))
    table.add_row("peak memory", f"{stats.peak_rss_mb:,.0f} MiB"
                  + (" (driver process)" if stats.engine != "local" else ""))
    return table


def verdict_table(result: CheckResult) -> Table:
    """One row per checked property: kind, verdict, description."""
    lengths = {v.prop.name: v.length for v in result.violations}
    table = Table(title="Properties", title_justify="left")
    for column in ("property", "kind", "verdict", "description"):
        table.add_column(column)
    for prop in result.checked:
        verdict = result.verdict(prop)
        text = {"violated": Text(f"✗ violated ({lengths.get(prop.name)} states)", style="red"),
                "holds": Text("✓ holds", style="green"),
                "reached": Text("✓ reached", style="green"),
                "not reached": Text("✗ never reached", style="yellow"),
                "unknown": Text("? unknown (search cut)", style="yellow")}[verdict]
        table.add_row(prop.name, prop.kind, text, prop.description)
    return table


def coverage_table(result: CheckResult) -> Table:
    """TLC-style action coverage: how often each action fired and reached a new state."""
    table = Table(title="Action coverage", title_justify="left")
    table.add_column("action")
    table.add_column("generated", justify="right")
    table.add_column("distinct", justify="right")
    for name, (generated, distinct) in result.stats.actions.items():
        style = "yellow" if generated == 0 else ""
        table.add_row(Text(name, style=style), f"{generated:,}", f"{distinct:,}")
    return table


def _log_text(replica: dict[str, Any]) -> str:
    """``m0:0 m1:0 ┃ m2:1`` — records as id:epoch, ``┃`` where the HW falls."""
    cells = [f"m{rid}:{epoch}" for rid, epoch in replica["log"]]
    hw = replica["hw"]
    cells.insert(min(hw, len(cells)), "┃")
    return " ".join(cells)


def _replica_cell(replica: dict[str, Any]) -> str:
    role = replica["role"]
    head = role if role in ("down", "no leader") else \
        f"{role} e{replica['epoch']} isr{replica['isr']}"
    if role == "follower":
        head += f" →{replica['leader']}"
    return f"{head}\n{_log_text(replica)}\nhw={replica['hw']} leo={replica['leo']}"


def _controller_cell(view: dict[str, Any]) -> str:
    ctrl = view["controller"]
    committed = " ".join(f"{o}:m{i}" for o, i in view.get("committed", [])) or "-"
    return f"e{ctrl['epoch']} leader={ctrl['leader']}\nisr{ctrl['isr']}\ncommitted {committed}"


def trace_table(violation: Violation, views: list[Any]) -> Table:
    """The counterexample, one row per step; a cell that changed since the previous step is
    highlighted. ``views`` are the model's ``view(state)`` of each step."""
    prop = violation.prop
    table = Table(title=f"{prop.name}: {prop.description}", title_justify="left",
                  caption="records as m<id>:<epoch>; ┃ marks the HW", caption_justify="left",
                  show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("action", min_width=20, overflow="fold")
    if views and isinstance(views[0], dict) and "replicas" in views[0]:
        for replica in views[0]["replicas"]:
            table.add_column(f"replica {replica['replica']}")
        table.add_column("controller")
        previous: list[str] | None = None
        for index, (step, view) in enumerate(zip(violation.trace, views)):
            cells = [_replica_cell(r) for r in view["replicas"]] + [_controller_cell(view)]
            styled = [Text(c, style="bold yellow" if previous and c != previous[i] else "")
                      for i, c in enumerate(cells)]
            label = "(initial state)" if step.label is None else str(step.label)
            table.add_row(str(index + 1), label, *styled)
            previous = cells
    else:
        table.add_column("state")
        for index, (step, view) in enumerate(zip(violation.trace, views)):
            label = "(initial state)" if step.label is None else str(step.label)
            table.add_row(str(index + 1), label, json.dumps(view))
    return table


def print_violation(console: Console, violation: Violation, views: list[Any]) -> None:
    """Print one counterexample: the steps, then the property's explanation."""
    console.print(trace_table(violation, views))
    why = explanation(violation)
    if why:
        console.print(Text(f"Why {violation.prop.name} fails: {why}", style="red"))
    console.print()


def print_run(spec, result, summary, folder, as_json: bool) -> None:
    """What ``hwcheck explore`` prints: JSON, or the counterexamples, summary, verdicts,
    coverage and a hint."""
    if as_json:
        print(json.dumps(summary, indent=1))
        return
    console = Console(width=None if sys.stdout.isatty() else 120)
    for violation in result.violations:
        views = [spec.view(step.state) for step in violation.trace]
        print_violation(console, violation, views)
    title = f"hwcheck explore: model {spec.name}, truncation {spec.config.truncation}"
    console.print(summary_table(title, spec.config_dict(), result))
    console.print(verdict_table(result))
    console.print(coverage_table(result))
    console.print(f"Reports written to {folder}/")
    if result.status == Status.OK and spec.name == "kafka" and spec.config.truncation == "kip320":
        console.print("Hint: the pre-0.11 protocol loses committed data; see it with "
                      "[bold]hwcheck explore --replicas 2 --truncation hw[/bold]")
    elif result.status == Status.VACUOUS:
        console.print("[yellow]Every invariant holds, but some behaviour was never reached: "
                      "raise the bounds before trusting the verdict.[/yellow]")
