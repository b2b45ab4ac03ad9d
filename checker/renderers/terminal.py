"""Terminal rendering with rich: the run summary, property verdicts, coverage, what the
bounds mean, then the counterexamples (``checker.renderers.shown``, drawn by
``checker.renderers.steps``)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from checker.composition.compose import variant_of
from checker.model import Spec
from checker.renderers import shown, steps
from checker.renderers.steps import counted
from checker.result import CheckResult, Stats, Status

STATUS_STYLE = {
    Status.OK: "bold green",
    Status.VIOLATED: "bold red",
    Status.VACUOUS: "bold yellow",
    Status.INCOMPLETE: "bold yellow",
    Status.ERROR: "bold red",
}


SMALL_FOR_SPARK = (
    ": no level's frontier reached --spark-min-frontier, so every level ran in this process "
    "(a model this small gains nothing from Spark)"
)
"""What the summary adds when ``--engine spark`` ran no level on Spark (issue 64)."""


def collision_text(stats: Stats) -> str:
    """The summary's collision row: TLC's estimate for the key the seen set dedups on, named
    (``Stats.key``: the compiled local engine's row hash, 64 or 128 bits, or a fingerprint)."""
    bits = stats.key_bits
    return (
        f"{stats.collision_probability:.1e}: the chance that two distinct states shared the "
        f"{bits}-bit {stats.key} the seen set dedups on, so one was never explored (TLC's "
        f"optimistic estimate n·(g−n)/2^{bits}, n distinct, g generated)"
    )


def stdout_console(piped_width: int = 160) -> Console:
    """A console for stdout: the terminal's width, or ``COLUMNS`` when set (rich reads it),
    else ``piped_width`` columns so that logs and pipes get whole rows."""
    wide = sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit()
    return Console(width=None if wide else piped_width)


def summary_table(title: str, config: dict[str, Any], result: CheckResult) -> Table:
    """Status, bounds and statistics of a run as a two-column table."""
    stats = result.stats
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    table.add_row("status", Text(result.status.value, style=STATUS_STYLE[result.status]))
    if result.reason:
        table.add_row("reason", result.reason)
    table.add_row("config", steps.config_text(config))
    table.add_row(
        "distinct states",
        f"{stats.distinct:,}"
        + (" (orbits: one state per renaming of the replicas)" if stats.symmetry else ""),
    )
    table.add_row("states generated", f"{stats.generated:,}")
    table.add_row("depth", str(stats.depth))
    table.add_row("seconds", f"{stats.seconds:.2f}")
    table.add_row("distinct states/s", f"{stats.states_per_second:,.0f}")
    table.add_row("fingerprint collision", Text(collision_text(stats)))
    on_spark = sum(1 for level in stats.levels if level["where"] == "spark")
    table.add_row(
        "engine",
        stats.engine
        + (
            f", {on_spark} of {len(stats.levels)} levels as Spark jobs"
            + (SMALL_FOR_SPARK if not on_spark else "")
            if stats.engine.startswith("spark") and stats.levels
            else ""
        ),
    )
    table.add_row("core", stats.core)
    memory = f"{stats.peak_rss_mb:,.0f} MiB"
    if stats.workers_peak_rss_mb:
        memory += f" (driver process; largest worker {stats.workers_peak_rss_mb:,.0f} MiB)"
    elif "workers" in stats.engine or stats.engine.startswith("spark"):
        memory += " (driver process)"
    if stats.disk_mb:
        memory += f"; {stats.disk_mb:,.0f} MiB on disk past --memory"
    table.add_row("peak memory", memory)
    if stats.seen_held:
        held = stats.seen_held
        parents = f"parent tables {stats.parent_bytes / held:.1f} bytes"
        if stats.parent_file_bytes:
            parents += f" ({stats.parent_file_bytes / (1 << 20):,.0f} MiB more in files)"
        table.add_row(
            "memory per state",
            f"seen set {stats.seen_bytes / held:.1f} bytes, {parents}; {held:,} states in memory",
        )
    return table


def _length(violation: Any) -> str:
    """``11 states``; a lasso's says how it goes on: ``14 states, then stutters`` or ``8
    states, loops from 6``."""
    loop = violation.loop
    if loop is None:
        return f"{violation.length} states"
    if loop.stutter:
        return f"{violation.length} states, then stutters"
    return f"{violation.length} states, loops from {loop.back_to + 1}"


def verdict_table(result: CheckResult) -> Table:
    """One row per checked property: kind, verdict, description."""
    lengths = {v.prop.name: _length(v) for v in result.violations}
    table = Table(title="Properties", title_justify="left")
    for column in ("property", "kind", "verdict", "description"):
        table.add_column(column)
    for prop in result.checked:
        verdict = result.verdict(prop)
        text = {
            "violated": Text(f"✗ violated ({lengths.get(prop.name)})", style="red"),
            "holds": Text("✓ holds", style="green"),
            "reached": Text("✓ reached", style="green"),
            "not reached": Text("✗ never reached", style="yellow"),
            "unknown": Text(
                "? unknown (the reason above)"
                if prop.name in result.unsettled
                else "? unknown (search cut)",
                style="yellow",
            ),
        }[verdict]
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


def print_run(
    spec: Spec,
    result: Any,
    summary: Any,
    folder: Any,
    as_json: bool,
    show: str = "first",
    hint: bool = True,
) -> None:
    """What ``hwcheck explore`` prints: JSON; or the summary, the verdicts, the coverage and
    what the bounds mean, then the counterexamples as ``show`` asks (``checker.renderers.shown``:
    the most important in full, the others one line each), where the reports are, and (unless
    ``hint`` is false: a ``--cluster`` run ends with its own answer) a hint."""
    if as_json:
        print(json.dumps(summary, indent=1))
        return
    console = stdout_console(120)
    title = f"hwcheck explore: model {spec.name}, variant {variant_of(spec)}"
    console.print(summary_table(title, spec.config_dict(), result))
    console.print(verdict_table(result))
    console.print(coverage_table(result))
    line = bounds_line(spec, result)
    if line:
        console.print(line)
    console.print()
    shown.print_counterexamples(console, shown.load(summary), show)
    console.print(f"Reports written to {folder}/")
    if hint and result.status == Status.OK and spec.name == "kafka" and " " not in variant_of(spec):
        console.print(
            "Hint: the pre-0.11 protocol loses committed data; see it with "
            "[bold]hwcheck explore --replicas 2 --truncation hw[/bold], and every Kafka "
            "release from 0.10 to 4.1 side by side with [bold]hwcheck compare[/bold]"
        )
    elif result.status == Status.VACUOUS:
        console.print(
            "[yellow]Every invariant holds, but some behaviour was never reached: "
            "raise the bounds before trusting the verdict.[/yellow]"
        )


def bounds_line(spec: Any, result: Any) -> str:
    """One line saying what the bounds meant in Kafka terms, and how much of that space was
    checked ("every interleaving" only when the search was exhausted)."""
    cfg = spec.config
    epochs = (
        f"leader epochs 0-{cfg.max_epoch} ({cfg.max_epoch + 1} controller decisions)"
        if cfg.max_epoch
        else "leader epoch 0 only (one election)"
    )
    parts = [
        counted(cfg.replicas, "replica"),
        "at most " + counted(cfg.max_records, "record"),
        epochs,
    ]
    if spec.name == "kafka":
        parts.append("at most " + counted(cfg.max_crashes, "crash", "crashes"))
        parts.append(f"min.insync.replicas={cfg.min_isr}")
        parts.append("unclean election" if cfg.unclean_election else "clean elections only")
        if cfg.max_unclean_shutdowns:
            n = cfg.max_unclean_shutdowns
            parts.append(
                f"at most {counted(n, 'unclean shutdown')} "
                f"({'an fsync per append' if cfg.flush == 'always' else 'background flush'})"
            )
        if cfg.acks != "all":
            parts.append(f"acks={cfg.acks}")
        if cfg.max_lost_responses:
            parts.append("at most " + counted(cfg.max_lost_responses, "lost fetch response"))
    elif cfg.truncation == "async-isr":
        parts[1:] = [f"offsets up to {cfg.max_offset}", f"ISR versions up to {cfg.max_version}"]
    else:
        parts.append(f"LogSize {cfg.log_size}")
    if result.exhausted:
        done = "every interleaving of them was checked"
    else:
        done = "the search stopped before every interleaving was checked"
    return "Bounds: " + ", ".join(parts) + f"; {done}."
