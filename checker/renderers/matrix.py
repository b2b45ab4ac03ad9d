"""Tables for ``hwcheck compare`` (variant × property matrix) and ``hwcheck gate``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from checker.gate.policy import Outcome
from checker.result import CheckResult

GATE_STYLE = {"PASS": "green", "FAIL": "red", "INCOMPLETE": "yellow", "ERROR": "red"}


@dataclass
class Cell:
    """One row of the comparison: a variant under some switches, its result and the folder
    its reports went to; the Kafka versions the user ``asked`` for that the variant models
    (``compare --releases``, as written), the run's ``config`` (``spec.config_dict()``) and,
    when its model is an earlier column's (kafka-4.0 runs kafka-3.7's rules), that column's
    title in ``same_as``: its result is that run's, not a run of its own."""

    variant: str
    switches: dict[str, Any]
    result: CheckResult
    folder: str
    asked: tuple[str, ...] = ()
    config: dict[str, Any] = field(default_factory=dict)
    same_as: str = ""

    @property
    def title(self) -> str:
        return title(self.variant, self.switches)

    def header(self, releases: bool) -> str:
        """The column's name: the title, without ``kafka-`` when the columns are all
        ``releases``; the versions asked for instead, with the preset below in brackets,
        when they are not its name."""
        name = self.title[len(RELEASE_PREFIX) :] if releases else self.title
        asked = ",".join(self.asked)
        if not asked or asked in (name, self.title):
            return name
        return f"{asked}\n({name})"


def title(variant: str, switches: dict[str, Any]) -> str:
    """A column's title: the variant, then its switches as ``key=value``."""
    extra = " ".join(f"{k}={v}" for k, v in switches.items())
    return f"{variant} {extra}".strip()


def _verdict(cell: Cell, name: str) -> tuple[str, str | None]:
    """``(✓ / ✗ n / ~ / ?, trace path or None)`` for property ``name`` in ``cell``."""
    prop = next((p for p in cell.result.checked if p.name == name), None)
    if prop is None:
        return "–", None
    verdict = cell.result.verdict(prop)
    if verdict == "violated":
        length = next(v.length for v in cell.result.violations if v.prop.name == name)
        return f"✗ {length}", f"{cell.folder}/{name}/trace.json"
    return {"holds": "✓", "reached": "✓", "not reached": "✗ never", "unknown": "?"}[verdict], None


def property_names(cells: list[Cell]) -> list[str]:
    """Every property checked in any cell, in catalog order."""
    names: list[str] = []
    for cell in cells:
        for prop in cell.result.checked:
            if prop.name not in names:
                names.append(prop.name)
    return names


def compare_table(cells: list[Cell]) -> Table:
    """The matrix, one column per variant (and switch combination), one row per property:
    ✓ holds, ✗ n violated with an n-state shortest counterexample; then states and seconds."""
    releases = all(cell.title.startswith(RELEASE_PREFIX) for cell in cells)
    wide = len(cells) > 11  # past 11 columns the vertical rules go, to fit 120 columns
    widest = len(cells) > 13  # past 13 the edges go too, and counts take 4 characters
    table = Table(
        show_edge=not widest,
        title="hwcheck compare" + (": Kafka releases (kafka-X.Y)" if releases else ""),
        title_justify="left",
        box=box.SIMPLE_HEAD if wide else box.HEAVY_HEAD,
        padding=(0, 1, 0, 0) if wide else (0, 1),
        caption="✓ holds (guards: reached) · ✗ n violated, shortest "
        "counterexample n states · ? search cut short",
        caption_justify="left",
    )
    table.add_column("property", overflow="fold", no_wrap=wide)
    for cell in cells:  # release columns drop the common "kafka-" to fit them in 120 columns
        table.add_column(
            cell.header(releases), justify="center", overflow="fold", max_width=6 if wide else None
        )
    for name in property_names(cells):
        marks = []
        for cell in cells:
            text, _ = _verdict(cell, name)
            marks.append(
                Text(
                    text,
                    style="red" if text.startswith("✗") else "green" if text == "✓" else "yellow",
                )
            )
        table.add_row(name, *marks)
    compact = 2 if widest else 1 if len(cells) > 6 else 0
    table.add_row(count_label(cells), *[_count(c.result.stats.distinct, compact) for c in cells])
    table.add_row("seconds", *[_seconds(c, releases) for c in cells])
    return table


def _seconds(cell: Cell, releases: bool) -> str:
    """The cell's search seconds, or ``=3.7`` (``=kafka-3.7``) for a cell that shares an
    earlier column's run."""
    if cell.same_as:
        prefix = len(RELEASE_PREFIX) if releases and cell.same_as.startswith(RELEASE_PREFIX) else 0
        return "=" + cell.same_as[prefix:]
    return f"{cell.result.stats.seconds:.1f}"


RELEASE_PREFIX = "kafka-"
"""Every release preset's name starts with it (``spec.kafka.releases``)."""


def count_label(cells: list[Cell]) -> str:
    """The count row's name: ``orbits`` when every cell searched the symmetry quotient (one
    state per renaming of the replicas, as explore's summary says), else ``states``."""
    return "orbits" if cells and all(c.result.stats.symmetry for c in cells) else "states"


def _count(n: int, compact: int) -> str:
    """``2,602,079``; with ``compact`` 1 (a wide matrix) ``2.60M`` / ``9.7k`` from 10,000
    on; with 2 (the widest) at most 4 characters: ``2.6M``, ``15k``, ``9.6k``."""
    if compact == 2 and n >= 1_000:
        if n >= 1_000_000:
            return f"{n / 1e6:.1f}M"
        return f"{n / 1e3:.0f}k" if n >= 10_000 else f"{n / 1e3:.1f}k"
    if not compact or n < 10_000:
        return f"{n:,}"
    return f"{n / 1e6:.2f}M" if n >= 1_000_000 else f"{n / 1e3:.1f}k"


def compare_markdown(cells: list[Cell]) -> str:
    """The matrix as a markdown table; each ✗ links to its trace file."""
    names = property_names(cells)
    lines = [
        "| variant | " + " | ".join(names) + f" | {count_label(cells)} | seconds |",
        "|---" * (len(names) + 3) + "|",
    ]
    for cell in cells:
        marks = []
        for name in names:
            text, path = _verdict(cell, name)
            marks.append(f"[{text}]({path})" if path else text)
        asked = ",".join(cell.asked)
        shown = f"{asked} ({cell.title})" if asked and asked != cell.title else cell.title
        lines.append(
            f"| {shown} | "
            + " | ".join(marks)
            + f" | {cell.result.stats.distinct} | {_seconds(cell, False)} |"
        )
    return "\n".join(lines) + "\n"


def compare_json(cells: list[Cell]) -> dict[str, Any]:
    """The matrix for machines: per row the variant (and the versions ``asked`` for, with
    ``--releases``), switches, status, states, seconds and per property its verdict,
    counterexample length and trace path."""
    rows = []
    for cell in cells:
        props = {}
        for prop in cell.result.checked:
            _, path = _verdict(cell, prop.name)
            entry: dict[str, Any] = {"verdict": cell.result.verdict(prop)}
            if path:
                entry["length"] = next(
                    v.length for v in cell.result.violations if v.prop.name == prop.name
                )
                entry["trace"] = path
            props[prop.name] = entry
        rows.append(
            {
                "variant": cell.variant,
                **({"asked": list(cell.asked)} if cell.asked else {}),
                **cell.switches,
                "status": cell.result.status.value,
                "states": cell.result.stats.distinct,
                "seconds": 0.0 if cell.same_as else round(cell.result.stats.seconds, 3),
                **({"same_model_as": cell.same_as} if cell.same_as else {}),
                "report": cell.folder,
                "properties": props,
            }
        )
    return {"format": "hwcheck-compare", "version": 1, "rows": rows}


def gate_table(outcomes: list[Outcome]) -> Table:
    """One row per gate check: expectation, outcome, states, seconds, and why."""
    table = Table(title="hwcheck gate", title_justify="left")
    for column in ("check", "expectation", "outcome", "states", "seconds", "detail"):
        table.add_column(column, overflow="fold")  # long names and paths wrap, never cut
    for o in outcomes:
        stats = o.result.stats if o.result is not None else None
        table.add_row(
            o.check.name,
            o.check.expectation,
            Text(o.status, style=GATE_STYLE[o.status]),
            f"{stats.distinct:,}" if stats else "-",
            f"{stats.seconds:.1f}" if stats else "-",
            o.message + (f" (report: {o.report})" if o.report else ""),
        )
    return table
