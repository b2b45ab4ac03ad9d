"""The report of a conformance run: ``conform.json`` (schema ``conform.schema.json`` beside
this module); ``write`` puts it, and the HTML timeline, in place whole (temporary file, then
rename)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from checker.conform.run import CutReport, ScheduleReport

SCHEMA = Path(__file__).with_name("conform.schema.json")
FORMAT, VERSION = "hwcheck-conform", 1


def _cut(c: CutReport) -> dict[str, Any]:
    controller = c.cut.controller
    return {
        "index": c.index,
        "after": c.after,
        "produced": c.produced,
        "settled": c.settled,
        "check": c.verdict.check,
        "path": c.verdict.path,
        "differences": c.verdict.nearest,
        "visited": c.verdict.visited,
        "unsafe": c.unsafe,
        "brokers": [
            {
                "records": [
                    [r.offset, r.leader_epoch, r.value.decode(errors="replace")] for r in b.records
                ],
                "hw": b.hw,
                "epoch_cache": [list(e) for e in b.epochs],
                "alive": b.alive,
                "paused": b.paused,
            }
            for b in c.cut.brokers
        ],
        "controller": None
        if controller is None
        else {
            "leader": controller.leader,
            "leader_epoch": controller.leader_epoch,
            "isr": list(controller.isr),
            "elr": list(controller.elr),
            "last_known_leader": controller.last_known,
            "metadata_offset": controller.offset,
        },
    }


def document(
    header: dict[str, Any], schedules: list[ScheduleReport], partial: bool
) -> dict[str, Any]:
    """The JSON document: ``header`` (Kafka version, preset, bounds, settings) and each
    schedule with its cuts; ``partial`` when an interrupt cut the run short."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "partial": partial,
        **header,
        "schedules": [schedule(s) for s in schedules],
    }


def schedule(s: ScheduleReport) -> dict[str, Any]:
    """One schedule of the document: seed, topic, operations, seconds, verdicts, cuts."""
    return {
        "seed": s.seed,
        "topic": s.topic,
        "operations": s.operations,
        "seconds": round(s.seconds, 3),
        "conforms": s.conforms,
        "safe": s.safe,
        "cuts": [_cut(c) for c in s.cuts],
    }


def write(folder: Path, name: str, text: str) -> Path:
    """Write ``text`` as ``folder/name``, whole or not at all; returns the path. Raises
    ``OSError``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    tmp = path.with_name(name + ".tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
