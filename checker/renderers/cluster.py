"""What ``--cluster`` prints: the mapping from a cluster's settings to the model's options (a
rich table, with what is not modelled and what is ignored), and the answer after the run: the
verdicts with the bounds they hold within, so that nobody reads OK as "our cluster is safe".
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from checker.composition.cluster import Mapping
from checker.renderers.steps import counted
from checker.result import Status

PLAIN = {
    "NoCommittedLoss": "a committed record can be lost",
    "NoAckedLoss": "an acknowledged write can be lost",
    "NoDivergence": "two replicas can hold different records below their HWs",
    "NoUncommittedRead": "a consumer can read a record that is later lost",
}
"""The properties a Kafka engineer asks about, in words (violated)."""

KEPT = "no committed or acknowledged record is lost, no replica diverges"


def mapping_table(mapping: Mapping) -> Group:
    """The settings table: each mapped setting with its value, where it came from and the
    model option it became; then the settings that matter but are not modelled and the ones
    the model's actions cover; below it the ignored ones, grouped by reason."""
    table = Table(title=f"Your cluster → the model: {mapping.said}", title_justify="left")
    table.add_column("setting", max_width=26, overflow="fold")
    table.add_column("value", max_width=12, overflow="fold")
    table.add_column("from", max_width=22, overflow="fold")
    table.add_column("model option", max_width=18)
    table.add_column("note", ratio=1, min_width=24)
    for row in mapping.rows:
        table.add_row(row.setting, Text(row.value), row.source, row.option, row.note)
    for title, rows, style in (
        ("not modelled, but it matters", mapping.not_modelled, "yellow"),
        ("covered by the model", mapping.covered, "cyan"),
    ):
        if rows:
            table.add_section()
            for row in rows:
                table.add_row(
                    row.setting, Text(row.value), row.source, Text(title, style), row.note
                )
    grouped: dict[str, list[str]] = defaultdict(list)
    for row in mapping.ignored:
        grouped[row.note].append(row.setting)
    lines = [Text(f"Ignored: {', '.join(keys)} ({why})", "dim") for why, keys in grouped.items()]
    return Group(table, *lines)


def bounds_said(config: Any) -> str:
    """``3 replicas, 2 records, 1 crash, leader epochs ≤ 2, no power loss``: the bounds a
    verdict holds within, in a Kafka engineer's words."""
    parts = [
        counted(config.replicas, "replica"),
        counted(config.max_records, "record"),
        counted(config.max_crashes, "crash", "crashes"),
        f"leader epochs ≤ {config.max_epoch}",
    ]
    shutdowns = config.max_unclean_shutdowns
    parts.append(counted(shutdowns, "power loss", "power losses") if shutdowns else "no power loss")
    if config.max_lost_responses:
        parts.append(counted(config.max_lost_responses, "lost fetch response"))
    return ", ".join(parts)


def answer(mapping: Mapping, config: Any, result: Any) -> str:
    """The answer in rich markup: what the cluster runs, within which bounds, the verdict
    (kept, or what can go wrong and the shortest counterexample's length), and that outside
    the bounds nothing is known."""
    head = f"{mapping.said}."
    within = f"Within {bounds_said(config)}"
    if result.status == Status.OK:
        said = f"{within}: [green]{KEPT}[/green]: every property holds, every interleaving checked."
    elif result.status == Status.VIOLATED:
        found = []
        for violation in sorted(result.violations, key=lambda v: len(v.trace)):
            name = violation.prop.name
            what = PLAIN.get(name, f"{name} is violated")
            found.append(f"{what} ({name}, {counted(len(violation.trace), 'state')})")
        said = f"{within}: [red]" + "; ".join(found) + "[/red]."
    elif result.status == Status.VACUOUS:
        said = (
            f"{within}: [yellow]nothing is proved[/yellow], some behaviour was never reached "
            f"({', '.join(result.unreached)}): raise the bounds."
        )
    else:
        said = f"{within}: [yellow]unknown[/yellow], the search did not finish ({result.reason})."
    return f"{head}\n{said}\nOutside these bounds: unknown."
