"""``reports/gallery/``: the canonical counterexamples, each as ``trace.json`` + ``trace.html``.

Regenerate with ``python -m checker.view.gallery`` (a test fails when the committed files are
out of date). Each entry is a search, not a hand-written trace: the shortest counterexample
the local engine finds for a property under a configuration (protocol.md's scenarios).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checker.bfs import explore
from checker.view import html, report
from checker.view.compose import build_model, choose, make_config

ROOT = Path(__file__).resolve().parents[2] / "reports" / "gallery"


@dataclass(frozen=True)
class Entry:
    """One gallery item: ``folder`` name, ``title``, the model ``options`` (``MODEL_OPTIONS``
    names), the violated ``prop`` to show and the ``model`` (``kafka`` or ``tla``)."""

    folder: str
    title: str
    options: tuple[tuple[str, Any], ...]
    prop: str
    model: str = "kafka"


ENTRIES = (
    Entry("hw-truncation-loss", "HW truncation loses a committed record (2 replicas)",
          (("replicas", 2), ("truncation", "hw"), ("max_epoch", 1)), "NoCommittedLoss"),
    Entry("hw-truncation-divergence", "HW truncation forks the committed log (2 replicas)",
          (("replicas", 2), ("truncation", "hw"), ("max_epoch", 1)), "NoDivergence"),
    Entry("kip101-hole", "KIP-101's epoch lookup still diverges after fast leader changes "
          "(2 replicas, 3 records, epoch 2, 2 crashes)",
          (("replicas", 2), ("truncation", "kip101"), ("max_records", 3), ("max_epoch", 2),
           ("max_crashes", 2)), "NoDivergence"),
    Entry("kip279-hole", "KIP-279 matches against a stale leader and loses a committed record "
          "(3 replicas, 1 record, epoch 3, no crash)",
          (("replicas", 3), ("truncation", "kip279"), ("max_records", 1), ("max_epoch", 3),
           ("max_crashes", 0)), "NoCommittedLoss"),
    Entry("kip279-divergence", "KIP-279 without fenced fetch forks the committed log "
          "(3 replicas, 2 records, epoch 2, no crash)",
          (("replicas", 3), ("truncation", "kip279"), ("max_records", 2), ("max_epoch", 2),
           ("max_crashes", 0)), "NoDivergence"),
    Entry("kip279-hole-tla", "The same KIP-279 hole in the public TLA+ spec: StrongIsr fails "
          "(tla model, 3 replicas)",
          (("replicas", 3), ("truncation", "kip279")), "StrongIsr", model="tla"),
    Entry("unclean-election", "Unclean leader election loses committed data even with KIP-320 "
          "(2 replicas)",
          (("replicas", 2), ("truncation", "kip320"), ("unclean_election", True), ("max_epoch", 1)),
          "NoCommittedLoss"),
)


def build(folder: Path = ROOT) -> list[Path]:
    """Search every entry and write its ``trace.json`` and ``trace.html`` under ``folder``;
    return the files written. Raises ``RuntimeError`` if an entry's property holds."""
    written = []
    for entry in ENTRIES:
        config = make_config(entry.model, dict(entry.options))
        spec, props = build_model(entry.model, config)
        result = explore(spec, choose(props, (entry.prop,)))
        found = [v for v in result.violations if v.prop.name == entry.prop]
        if not found:
            raise RuntimeError(f"{entry.folder}: {entry.prop} holds; the gallery is wrong")
        document = report.trace_document(spec, found[0])
        path = folder / entry.folder / "trace.json"
        report.write_json(path, document)
        report.write_text(path.with_name("trace.html"), html.render(document))
        written += [path, path.with_name("trace.html")]
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    for path in build(target):
        print(path)
