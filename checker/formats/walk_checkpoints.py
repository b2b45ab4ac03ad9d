"""``simulate --checkpoint`` / ``--resume``: a simulation's checkpoint is the index of the next
walk and the merged statistics of every walk before it (``checker.simulate.walks.Batch``), saved after
whole waves of chunks. Walks are numbered and seeded by index, so a resumed simulation takes
exactly the walks one long run would have taken after them.

The folder holds ``checkpoint.json`` (hwcheck's checkpoint format, ``kind`` ``simulate``:
identity, next walk, statistics) and ``fps-NNNNNN.npy`` (the distinct fingerprints visited),
each written beside the old one and swapped in as ``checker.checkpoint`` does.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from checker.checkpoint import read
from checker.checkpoint.format import (
    FORMAT,
    MANIFEST,
    VERSION,
    CheckpointError,
    CheckpointFailed,
    sealed,
)
from checker.checkpoint.write import write_arrays, write_file
from checker.model import Label
from checker.simulate.walks import Batch


class WalkCheckpointer:
    """Saves a simulation's checkpoints in ``folder`` every ``every`` seconds (0: never),
    as ``checker.checkpoint.write.Checkpointer`` does (same failure rules: ``warn`` once, or with
    ``required`` raise ``CheckpointFailed``)."""

    def __init__(
        self,
        folder: Path,
        identity: dict[str, Any],
        every: float,
        required: bool,
        warn: Any,
        seq: int = 0,
    ) -> None:
        self.folder, self.identity, self.every = Path(folder), identity, every
        self.required, self.warn, self.seq = required, warn, seq
        self.last, self.failed, self.saved_level = time.monotonic(), "", 0

    def wave(self, start: int, batch: Batch) -> None:
        """After a whole wave: save when the interval has passed."""
        if self.every > 0 and time.monotonic() - self.last >= self.every:
            self.save(start, batch)

    def save(self, start: int, batch: Batch) -> None:
        """Save walks ``0 .. start - 1``'s statistics ``batch`` now."""
        if self.failed or self.every <= 0:
            return
        seq = self.seq + 1
        batch.distinct  # noqa: B018 -- merges the fingerprints gathered so far
        name = f"fps-{seq:06d}.npy"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fps_sum = write_arrays(self.folder / name, [batch.fps])
            manifest = {
                "format": FORMAT,
                "version": VERSION,
                "kind": "simulate",
                "seq": seq,
                **self.identity,
                "next_walk": start,
                "batch": _to_json(batch),
                "fps": name,
                "fps_sum": fps_sum,
            }
            write_file(self.folder / MANIFEST, sealed(manifest))
        except OSError as exc:
            (self.folder / name).unlink(missing_ok=True)
            self.failed = f"cannot write the checkpoint in {self.folder}: {exc.strerror or exc}"
            kept = "the last one is kept" if self.saved_level else "none was written before"
            if self.required:
                raise CheckpointFailed(f"{self.failed}; {kept} (--checkpoint-required)") from None
            self.warn(f"Warning: {self.failed}; the walks go on without checkpoints, and {kept}.")
            return
        for path in self.folder.glob("fps-*.npy"):
            if path.name != name:
                path.unlink(missing_ok=True)
        self.seq, self.saved_level, self.last = seq, start, time.monotonic()


def saving(plan: Any, folder: Path, identity: dict[str, Any], warn: Any) -> tuple[Any, ...]:
    """``(WalkCheckpointer or None, resume or None)`` for ``simulate`` under the checkpoint
    ``plan`` (``checker.commands.checkpoints.Plan``), its run folder ``folder``. Raises
    ``CheckpointError`` when the checkpoint to resume is refused."""
    where = plan.folder(folder)
    resume, seq = None, 0
    if plan.resuming:
        start, batch, seq = load(where, identity)
        resume = (start, batch)
    if plan.every <= 0:
        return None, resume
    writer = WalkCheckpointer(where, identity, plan.every, plan.required, warn, seq)
    if resume is not None:
        writer.saved_level = resume[0]
    plan.used[str(where)] = writer
    return writer, resume


def load(folder: Path, identity: dict[str, Any]) -> tuple[int, Batch, int]:
    """``(next walk, merged Batch, seq)`` from the simulation checkpoint in ``folder``.
    Raises ``CheckpointError`` as ``checker.checkpoint.read.load`` does (and for a search's
    checkpoint)."""
    loaded = read.load(folder, identity)
    manifest = loaded.manifest
    if manifest.get("kind") != "simulate":
        raise CheckpointError(f"{folder} holds a search's checkpoint, not a simulation's")
    batch = _from_json(manifest["batch"])
    for name, (_, labels) in batch.first.items():
        try:
            for text in labels:
                Label.parse(text)
        except ValueError as exc:
            raise CheckpointError(f"{folder}: the first walk to violate {name}: {exc}") from None
    batch.fps = read.read_arrays(Path(folder), manifest["fps"], 1, manifest["fps_sum"])[0]
    return int(manifest["next_walk"]), batch, int(manifest["seq"])


def _to_json(batch: Batch) -> dict[str, Any]:
    return {
        "walks": batch.walks,
        "steps": batch.steps,
        "ends": batch.ends,
        "lengths": {str(k): v for k, v in batch.lengths.items()},
        "actions": batch.actions,
        "guards": sorted(batch.guards),
        "first": {name: [index, labels] for name, (index, labels) in batch.first.items()},
        "violating": batch.violating,
    }


def _from_json(data: dict[str, Any]) -> Batch:
    return Batch(
        walks=data["walks"],
        steps=data["steps"],
        ends=dict(data["ends"]),
        lengths={int(k): v for k, v in data["lengths"].items()},
        actions={k: list(v) for k, v in data["actions"].items()},
        guards=set(data["guards"]),
        first={name: (index, list(labels)) for name, (index, labels) in data["first"].items()},
        violating=dict(data["violating"]),
    )
