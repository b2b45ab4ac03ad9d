"""The notes under ``hwcheck compare``'s release matrix: where a release's known hole needs
larger bounds than the run's to show, and which runs say so.

Each note is shown only when its release is a column and the property it names holds in
that column, so it never contradicts the matrix above it. The bounds named are those of the
gallery and gate runs that show the hole (``checker.commands.gallery_entries``,
``hwcheck-gate.lock``), which the test suite repeats.
"""

from __future__ import annotations

from typing import Any

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
