"""The notes under ``hwcheck compare``'s release matrix: why each release column fails
(``tickets``), and where a release's known hole needs larger bounds than the run's to show
(``lines``).

``tickets`` gives a line per release column with a ✗: its Kafka versions, then per group
of violated properties the KIP or ticket behind them and the versions that fixed it, by the
rule of ``invariants.tickets`` on the verdicts at 2 replicas (``checker.composition.fixes``,
the source explore, show, trace.html and serve use too); a property that holds there (its
hole needs the run's larger bounds) is explained from the run's own columns when they hold
every later release. ``lines``' notes are shown only when their release is a column and the
property they name holds in that column, so they never contradict the matrix above them. The
bounds named are those of the gallery and gate runs that show the hole
(``checker.commands.gallery_entries``, ``hwcheck-gate.lock``), which the test suite repeats.
"""

from __future__ import annotations

from typing import Any

from checker.composition import fixes
from invariants import tickets as rule

LARGER_BOUNDS: tuple[tuple[str, str, str], ...] = (
    (
        "kafka-0.11",
        "NoCommittedLoss",
        (
            "kafka-0.11 (KIP-101) loses a committed record at --max-records 1 --max-epoch 3 "
            "--max-crashes 0 (3 replicas), as kafka-2.0 does: the gallery's kip279-hole"
        ),
    ),
    (
        "kafka-2.0",
        "NoCommittedLoss",
        (
            "kafka-2.0 (KIP-279) matches against a stale leader and loses a committed record at "
            "--max-records 1 --max-epoch 3 --max-crashes 0 (3 replicas): the gallery's kip279-hole"
        ),
    ),
    (
        "kafka-3.6",
        "NoCommittedLoss",
        (
            "kafka-3.6 (KAFKA-15510's cleared last fetched epoch) holds here and at every bound "
            "the bug zoo searched: see its kafka-15510 row for the bounds and state counts"
        ),
    ),
)
"""``(release preset, property, note)``: a hole the default bounds do not reach."""


def lines(cells: list[Any], releases: bool) -> list[str]:
    """The notes for a compare matrix of ``cells`` (``checker.renderers.matrix.Cell``), when
    its columns are the ``releases``; empty otherwise."""
    if not releases:
        return []
    out = []
    for preset, prop, note in LARGER_BOUNDS:
        cell = next((c for c in cells if c.variant == preset), None)
        if cell is None:
            continue
        checked = next((p for p in cell.result.checked if p.name == prop), None)
        if checked is not None and cell.result.verdict(checked) == "holds":
            out.append(f"Note: {note}.")
    return out


TICKETS_HEAD = (
    "Why each ✗: the KIP or ticket closed where the property first holds (2 replicas, "
    "docs/explanation/releases.md):"
)


def tickets(cells: list[Any], releases: bool) -> list[str]:
    """The ticket lines of a compare matrix of ``cells`` (``checker.renderers.matrix.Cell``)
    whose columns are ``releases``: ``TICKETS_HEAD``, then for each column of a release
    preset with no switches and the reference's options (``fixes.plain``: its min ISR too)
    that has a ✗,
    ``  3.0 (Kafka 2.8.1 - 2.8.2, 3.0 - 3.2): NoUncommittedRead, NoDivergence ✗ — KAFKA-14704,
    the follower takes the HW before it truncates; fixed in 3.4.1 and 3.5.0``; empty when no
    column has one."""
    if not releases:
        return []
    out = []
    for cell in cells:
        if cell.switches or not fixes.plain(cell.config):
            continue
        groups: dict[str, list[str]] = {}
        for prop in cell.result.checked:  # catalog order
            if cell.result.verdict(prop) == "violated":
                groups.setdefault(_why(cell, prop.name, cells), []).append(prop.name)
        if not groups or not rule.kafka_range(cell.variant):
            continue
        told = " · ".join(f"{', '.join(names)} ✗ — {why}" for why, names in groups.items())
        kafka = f"Kafka {rule.kafka_range(cell.variant)}"
        asked, name = ",".join(cell.asked), cell.variant.removeprefix("kafka-")
        label = (
            f"{asked} ({cell.variant}, {kafka})" if asked not in ("", name) else f"{name} ({kafka})"
        )
        out.append(f"  {label}: {told}")
    return [TICKETS_HEAD, *out] if out else []


def _why(cell: Any, prop: str, cells: list[Any]) -> str:
    """The words for ``prop`` violated in ``cell``: the tickets at 2 replicas and, where the
    run's own columns hold every release after it and first hold ``prop`` at another
    release, that release's tickets too (said so); or why the rule names none."""
    found = fixes.explain(cell.variant, prop, int(cell.config.get("min_isr", 1)))
    own_cells = {c.variant: c for c in cells if not c.switches}

    def holds(release: str) -> bool | None:
        other = own_cells.get(release)
        if other is None:
            return None
        checked = next((p for p in other.result.checked if p.name == prop), None)
        return None if checked is None else bool(other.result.verdict(checked) == "holds")

    told = rule.explain(cell.variant, prop, holds)
    own = told if told is not None and told.status == rule.FIXED else None
    if found is None:
        return ""
    if found.status == rule.HOLDS_HERE:
        if own is not None:
            return f"{own.text} (where it first holds at this run's bounds)"
        return (
            "holds at 2 replicas; at these bounds compare every release (no --releases) "
            "to see where it is closed"
        )
    if own is not None and own.at != found.at:
        return f"{found.text}; at this run's bounds it first holds in {own.at}: {own.text}"
    return found.text
