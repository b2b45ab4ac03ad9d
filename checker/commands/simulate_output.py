"""What ``hwcheck simulate`` shows and writes: rich progress with an ETA, the shrunk
counterexamples (drawn as ``explore`` draws them), the statistics, and the reports
(``summary.json`` of format ``hwcheck-simulation`` and one ``trace.json`` + ``trace.html`` per
violated property, each saying how the simulation found it)."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from checker import __version__
from checker.composition import compose
from checker.formats import report
from checker.model import Spec
from checker.renderers import html, shown, steps
from checker.renderers.progress import walk_line
from checker.renderers.terminal import stdout_console
from checker.simulate.simulation import Simulation, Tick, as_check_result

SUMMARY_FORMAT = "hwcheck-simulation"
SUMMARY_VERSION = 1

STATUS_STYLE = {
    "violated": "bold red",
    "none found": "bold green",
    "vacuous": "bold yellow",
    "incomplete": "bold yellow",
    "error": "bold red",
}


@contextlib.contextmanager
def progress(enabled: bool = True, time_limit: float | None = None) -> Iterator[Any]:
    """Yield a ``Tick`` callback drawing a bar on stderr (walks of ``--walks``, or seconds of
    ``--time-limit``) with steps/s, violations and an ETA; None when disabled or not a
    terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[what]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("starting", total=None, what="")

        def update(tick: Tick) -> None:
            what = walk_line(tick)
            if tick.note:
                bar.update(task, description=tick.note, what=what)
            elif tick.total is not None:
                bar.update(
                    task, description="walking", total=tick.total, completed=tick.walks, what=what
                )
            else:  # --time-limit: the bar is the time
                bar.update(
                    task,
                    description="walking",
                    total=time_limit,
                    completed=min(tick.seconds, time_limit or 0.0),
                    what=what,
                )

        yield update


def _found_by(result: Simulation, name: str, shrunk: Any) -> dict[str, Any]:
    return {
        "mode": "simulate",
        "seed": result.plan.seed,
        "walk": result.batch.first[name][0],
        "depth": result.plan.depth,
        "lengths": {
            "walk": shrunk.walk,
            "loops": shrunk.loops,
            "deletion": shrunk.deletion,
            "search": shrunk.search,
        },
    }


def summary_document(
    spec: Spec,
    result: Simulation,
    walks: int | None,
    time_limit: float | None,
    traces: dict[str, str],
) -> dict[str, Any]:
    """The JSON summary of a simulation (``traces``: property name -> its trace file)."""
    batch, judged = result.batch, as_check_result(result)
    shrunk = {s.violation.prop.name: s for s in result.shrunk}
    properties = {}
    for prop in result.checked:
        entry: dict[str, Any] = {
            "kind": prop.kind,
            "description": prop.description,
            "verdict": judged.verdict(prop),
        }
        if prop.name in shrunk:
            entry.update(
                walks_violating=batch.violating[prop.name],
                length=shrunk[prop.name].violation.length,
                trace=traces.get(prop.name),
                found_by=_found_by(result, prop.name, shrunk[prop.name]),
            )
        properties[prop.name] = entry
    return {
        "format": SUMMARY_FORMAT,
        "version": SUMMARY_VERSION,
        "hwcheck_version": __version__,
        "model": spec.name,
        "config": spec.config_dict(),
        "seed": result.plan.seed,
        "depth": result.plan.depth,
        "weights": dict(result.plan.weights),
        "walks_requested": walks,
        "time_limit": time_limit,
        "status": result.status,
        "exit_code": result.exit_code,
        "reason": result.reason,
        "interrupted": result.interrupted,
        "stats": {
            "walks": batch.walks,
            "steps": batch.steps,
            "distinct": batch.distinct,
            "seconds": round(result.seconds, 3),
            "walk_seconds": round(result.walk_seconds, 3),
            "steps_per_second": round(batch.steps / result.walk_seconds, 1)
            if result.walk_seconds > 0
            else 0.0,
            "ends": dict(batch.ends),
            "lengths": {str(k): v for k, v in sorted(batch.lengths.items())},
            "actions": {name: {"enabled": e, "taken": t} for name, (e, t) in batch.actions.items()},
            "engine": result.engine,
            "core": result.core,
            "peak_rss_mb": round(result.peak_rss_mb, 1),
        },
        "properties": properties,
    }


def write(
    folder: Path, spec: Spec, result: Simulation, walks: Any, time_limit: Any
) -> dict[str, Any]:
    """Write each shrunk trace (``trace.json``, ``trace.html``), then ``summary.json``; return
    the summary. Raises ``OSError`` when the folder cannot be written."""
    traces = {}
    for shrunk in result.shrunk:
        name = shrunk.violation.prop.name
        document = report.trace_document(spec, shrunk.violation)
        document["found_by"] = _found_by(result, name, shrunk)
        path = folder / re.sub(r"[^A-Za-z0-9_-]", "_", name) / "trace.json"
        report.write_json(path, document)
        report.write_text(path.with_name("trace.html"), html.render(document))
        traces[name] = str(path)
    summary = summary_document(spec, result, walks, time_limit, traces)
    report.write_json(folder / "summary.json", summary)
    return summary


def print_simulation(
    spec: Spec,
    result: Simulation,
    summary: dict[str, Any],
    folder: Path,
    as_json: bool,
    show: str = "first",
) -> None:
    """Print the JSON summary; or the statistics, the property table, the action coverage,
    then the shrunk counterexamples as ``show`` asks (``checker.renderers.shown``), each drawn one
    with how its walk found it, where the reports are, and a closing line that says what a
    simulation does not prove."""
    if as_json:
        print(json.dumps(summary, indent=1))
        return
    console = stdout_console(120)
    console.print(stats_table(spec, result, summary))
    console.print(property_table(result))
    console.print(coverage_table(result))
    console.print()
    shown.print_counterexamples(console, shown.load(summary), show, intro=_found_line)
    console.print(f"Reports written to {folder}/")
    if result.status in ("none found", "vacuous"):
        console.print(
            Text(
                f"No property was violated in {result.batch.walks:,} random walks of at most "
                f"{result.plan.depth} states. Simulation samples behaviours: it proves nothing "
                "(hwcheck explore does, within its bounds).",
                style="green",
            )
        )


def _found_line(document: dict[str, Any]) -> str:
    """How simulate found a drawn counterexample: its walk, seed and the shrinking passes."""
    found = document["found_by"]
    lengths = found["lengths"]
    return (
        f"{document['property']['name']}: found by walk {found['walk']:,} of seed "
        f"{found['seed']} at its state {lengths['walk']}; shrunk {lengths['walk']} → "
        f"{lengths['loops']} (loops removed) → {lengths['deletion']} (steps deleted) → "
        f"{lengths['search']} states (neighbourhood search)"
    )


def stats_table(spec: Spec, result: Simulation, summary: dict[str, Any]) -> Table:
    """Status, bounds, seed and the walk statistics as a two-column table."""
    batch, stats = result.batch, summary["stats"]
    table = Table(
        title=f"hwcheck simulate: model {spec.name}, variant {compose.variant_of(spec)}",
        show_header=False,
        title_justify="left",
    )
    table.add_column(style="bold")
    table.add_column()
    table.add_row("status", Text(result.status.upper(), style=STATUS_STYLE[result.status]))
    table.add_row("reason", result.reason)
    table.add_row("config", steps.config_text(spec.config_dict()))
    weights = ", ".join(f"{k}={v:g}" for k, v in result.plan.weights)
    table.add_row(
        "walks",
        f"{batch.walks:,} (seed {result.plan.seed}, at most "
        f"{result.plan.depth} states each; uniform over enabled actions"
        + (f", weights {weights}" if weights else "")
        + ")",
    )
    table.add_row(
        "steps", f"{batch.steps:,} ({stats['steps_per_second']:,.0f} steps/s while walking)"
    )
    table.add_row("distinct states", f"{batch.distinct:,} (visited by the walks)")
    ends = batch.ends
    table.add_row(
        "walk ends",
        f"depth bound {ends['depth']:,}, all checked properties "
        f"violated {ends['violation']:,}, deadlock {ends['deadlock']:,}",
    )
    table.add_row("walk length", length_line(batch.lengths))
    table.add_row(
        "seconds",
        f"{result.seconds:.2f} ({result.walk_seconds:.2f} walking; the "
        "rest starting workers and shrinking)",
    )
    table.add_row("engine", result.engine)
    table.add_row("core", result.core)
    table.add_row("peak memory", f"{result.peak_rss_mb:,.0f} MiB (this process)")
    return table


def length_line(lengths: dict[int, int]) -> str:
    """Min, median and max walk length (states) and the share at the longest."""
    if not lengths:
        return "-"
    flat = sorted(lengths.items())
    total = sum(lengths.values())
    seen, median = 0, flat[0][0]
    for length, count in flat:
        seen += count
        if seen * 2 >= total:
            median = length
            break
    longest = flat[-1]
    return (
        f"min {flat[0][0]}, median {median}, max {longest[0]} states "
        f"({100 * longest[1] / total:.0f}% of walks at the max)"
    )


def property_table(result: Simulation) -> Table:
    """Per property: kind, verdict, walks violating it, the first one and the shrunk length."""
    shrunk = {s.violation.prop.name: s for s in result.shrunk}
    table = Table(title="Properties", title_justify="left")
    for column in ("property", "kind", "verdict", "walks", "first walk", "description"):
        table.add_column(column)
    judged = as_check_result(result)
    for prop in result.checked:
        said = judged.verdict(prop)
        text = {
            "violated": Text(
                f"✗ violated ({shrunk[prop.name].violation.length} states)"
                if prop.name in shrunk
                else "✗ violated",
                style="red",
            ),
            "not found": Text("– no violation found", style="green"),
            "reached": Text("✓ reached", style="green"),
            "not reached": Text("✗ never reached", style="yellow"),
        }[said]
        count = result.batch.violating.get(prop.name)
        first = result.batch.first.get(prop.name)
        table.add_row(
            prop.name,
            prop.kind,
            text,
            f"{count:,}" if count else "",
            f"{first[0]:,}" if first else "",
            prop.description,
        )
    return table


def coverage_table(result: Simulation) -> Table:
    """Per action: how often an instance was enabled at a step and how often one was taken."""
    table = Table(title="Action coverage", title_justify="left")
    table.add_column("action", justify="left")
    for column in ("enabled", "taken", "share of steps"):
        table.add_column(column, justify="right")
    steps = max(result.batch.steps, 1)
    for name, (enabled, taken) in result.batch.actions.items():
        style = "yellow" if taken == 0 else ""
        table.add_row(
            Text(name, style=style), f"{enabled:,}", f"{taken:,}", f"{100 * taken / steps:.1f}%"
        )
    return table
