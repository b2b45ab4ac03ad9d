"""Checkpoints on a URL (``--checkpoint file:///…``, ``hdfs://…``, ``s3a://…``): written by
Spark's tasks through Spark's own I/O and described by a manifest the driver writes from
their answers; read back re-partitioned by a Spark job. The driver holds no per-state data
of a level that ran on Spark, at any point.

The folder (``checker.spark.hadoop.Place``) holds:

- ``levels/B000003/``: the levels committed since checkpoint 2, as ``RDD.saveAsPickleFile``
  writes them (part files of pickled records) in one job: ``(k, "N", fps, parent fps)``,
  level k's states in ``uint64`` arrays. Written once, never changed.
- ``frontier-000003/``: the frontier of checkpoint 3, records ``(p, "F", fps, rows)``
  (compiled-core rows, ``uint8`` (n, width)) or ``(p, "F", fps, states)`` (marshal bytes).
- ``checkpoint-000003.json``: the manifest (the same fields as a folder checkpoint's
  ``checkpoint.json``, ``checker.checkpoint.write``, plus ``"layout": "spark"``); for each
  level and the frontier its folder, its number of states and ``sum``, the sum modulo
  2^64 of each record's CRC-32 as the tasks reported it (the records' order in the files is
  not the order they were written, so the check does not depend on it). The manifest with
  the highest number is the checkpoint; it is written under a temporary name and renamed,
  and older manifests and frontiers are deleted after it.

A record ``p`` is only where it was written: a resume splits every record by ``fp % P`` for
its own P, so a checkpoint of P partitions resumes on any P, or on the local engine.
"""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.format import FORMAT, VERSION, CheckpointError, Frontier, sealed
from checker.checkpoint.identity import check_manifest
from checker.checkpoint.read import Loaded
from checker.checkpoint.write import Checkpointer
from checker.jsontext import parse
from checker.spark.hadoop import Place, said
from checker.spark.records import (
    chunked_frontier,
    chunked_level,
    crc,
    driver_records,
    record_frontier,
    save_records,
)

MANIFEST = re.compile(r"checkpoint-(\d{6})\.json")
LAYOUT = "spark"


def newest(place: Place) -> int:
    """The number of the newest manifest in ``place`` (0: none)."""
    found = [int(m.group(1)) for name in place.names() if (m := MANIFEST.fullmatch(name))]
    return max(found, default=0)


def read_manifest(place: Place) -> dict[str, Any]:
    """The newest manifest in ``place``. Raises ``CheckpointError`` when there is none or it
    is not JSON."""
    try:
        seq = newest(place)
        if not seq:
            raise CheckpointError(f"{place.url} holds no checkpoint (no checkpoint-*.json)")
        name = f"checkpoint-{seq:06d}.json"
        manifest = parse(place.read(name).decode("utf-8"))
    except OSError as exc:
        raise CheckpointError(f"{place.url} cannot be read: {exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{place.join(name)} is not a checkpoint manifest: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("layout") != LAYOUT:
        raise CheckpointError(f"{place.join(name)} is not an hwcheck checkpoint")
    return manifest


def load(place: Place, identity: dict[str, Any]) -> UrlLoaded:
    """The checkpoint in ``place`` checked against this command's ``identity`` (as
    ``checker.checkpoint.read.load``). Raises ``CheckpointError`` naming what differs."""
    manifest = read_manifest(place)
    check_manifest(manifest, identity, place.url)
    return UrlLoaded(Path(place.url), manifest, place)


@dataclass
class UrlLoaded(Loaded):
    """A URL checkpoint read back: the manifest here, the records read by Spark jobs. The
    Spark engine re-partitions them on the executors (``checker.spark.rdds.Levels.adopt``);
    ``levels`` (``level_tables``) and ``frontier`` collect them into this process for the other
    engines."""

    place: Any = None

    def read(self, path: str, what: str) -> list[tuple[Any, ...]]:
        """The records of folder ``path`` (``what`` it holds, for messages), in the order
        of their first field. Raises ``CheckpointError`` when it cannot be read."""
        place = self.place
        try:
            records = place.sc.pickleFile(place.join(path)).collect()
        except Exception as exc:  # noqa: BLE001 -- Py4J: missing or unreadable files
            raise CheckpointError(
                f"the checkpoint in {place.url} is incomplete: {what} cannot be read ({said(exc)})"
            ) from None
        return sorted(records, key=lambda record: record[0])

    def level_tables(self) -> Any:
        batch: dict[int, list[Any]] = {}
        path = ""
        for k in range(1, self.level + 1):
            entry = self.manifest["levels"][str(k)]
            if entry["path"] != path:  # the levels one checkpoint wrote, read once
                path = entry["path"]
                batch = {}
                for record in self.read(path, f"level {k}"):
                    batch.setdefault(record[0], []).append(record)
            records = batch.pop(k, [])
            check(entry, records, self.place.url, f"level {k}")
            fps = np.concatenate([r[2] for r in records] or [np.zeros(0, np.uint64)])
            parents = np.concatenate([r[3] for r in records] or [np.zeros(0, np.uint64)])
            yield k, fps, parents

    def frontier(self) -> Frontier:
        entry = self.manifest["frontier"]
        records = self.read(entry["path"], "the frontier")
        check(entry, records, self.place.url, "the frontier")
        return Frontier.join([record_frontier(r) for r in records])

    def frontier_file(self) -> Any:
        return None

    def seen(self) -> Any:
        return None

    def seen_runs(self) -> list[Any]:
        return []


def check(entry: dict[str, Any], records: list[Any], url: str, what: str) -> None:
    """Raise ``CheckpointError`` unless ``records`` hold ``entry``'s states and sum."""
    total = sum(crc(record) for record in records) % (1 << 64)
    got = {"states": sum(len(record[2]) for record in records), "sum": f"{total:016x}"}
    verify(entry, got, what, url)


def verify(entry: dict[str, Any], got: dict[str, Any] | None, what: str, url: str) -> None:
    """Raise ``CheckpointError`` unless ``got`` (``{"states", "sum"}``: ``totals``' answer,
    None for none) is ``entry``'s states and sum."""
    got = got or {"states": 0, "sum": f"{0:016x}"}
    if got["states"] != entry["states"] or got["sum"] != entry["sum"]:
        raise CheckpointError(
            f"the checkpoint in {url} is damaged: {what} holds {got['states']:,} states with "
            f"sum {got['sum']}, its manifest says {entry['states']:,} with sum {entry['sum']}"
        )


class UrlCheckpointer(Checkpointer):
    """``checker.checkpoint.write.Checkpointer`` for a URL (``place``): the levels a search
    commits wait (the driver's as arrays, Spark's as their RDDs) until the next checkpoint
    writes them; the frontier and manifest as ``save`` is called. Failures are handled as
    there (a warning, or ``CheckpointFailed`` with ``required``)."""

    links = False  # (the compiled local engine writes its level files here)

    def __init__(
        self,
        place: Place,
        identity: dict[str, Any],
        every: float,
        required: bool = False,
        warn: Any = None,
        resumed: Loaded | None = None,
    ) -> None:
        # ``folder``: only where the local compiled engine keeps its spilled runs (beside
        # a folder checkpoint, to link them in; a URL checkpoint keeps none): the temp folder
        super().__init__(Path(tempfile.gettempdir()), identity, every, required, warn)
        self.place = place
        self.level_entries: dict[int, dict[str, Any]] = {}
        self.waiting: dict[int, Any] = {}  # level -> (fps, parents) or an RDD of its records
        if resumed is not None:
            self.level_entries = {int(k): v for k, v in resumed.manifest["levels"].items()}
            self.seq, self.saved_level = resumed.manifest["seq"], resumed.level

    @property
    def where(self) -> str:
        return str(self.place.url)

    def level(self, k: int, fps: np.ndarray[Any, Any], parents: np.ndarray[Any, Any]) -> None:
        """Level ``k`` committed in the driver: kept until the next checkpoint writes it."""
        if not self.failed:
            self.waiting[k] = (np.array(fps, np.uint64), np.array(parents, np.uint64))

    def level_rdd(self, k: int, records: Any) -> None:
        """Level ``k`` committed on Spark: ``records``, an RDD of its records."""
        if not self.failed:
            self.waiting[k] = records

    def save(
        self,
        level: int,
        frontier: Any,
        seen: Any,
        search: dict[str, Any],
        runs: Any = (),
        key_levels: Any = (),
        kind: str | None = None,
    ) -> bool:
        """Write the checkpoint after ``level``: its levels not written yet, the
        ``frontier`` (a ``Frontier``, or an RDD of records of ``kind`` "rows" or "states")
        and the manifest. ``seen``, ``runs`` and ``key_levels`` (the compiled local
        engine's) are not kept: a resume rebuilds the seen set from the levels. Returns
        whether it was written."""
        if self.failed:
            return False
        sc, seq = self.place.sc, self.seq + 1
        try:
            if self.waiting:
                self._write_levels(seq)
            missing = [k for k in range(1, level + 1) if k not in self.level_entries]
            if missing:
                raise OSError(f"level {missing[0]} was never recorded")
            if isinstance(frontier, Frontier):
                kind = "rows" if frontier.rows is not None else "states"
                frontier = driver_records(sc, chunked_frontier(frontier))
            path = f"frontier-{seq:06d}"
            self.place.delete(path)
            entry = {"path": path, "states": 0, "sum": f"{0:016x}"}
            entry.update(save_records(sc, frontier, self.place.join(path)).get("F", {}))
            manifest = {
                "format": FORMAT,
                "version": VERSION,
                "layout": LAYOUT,
                "seq": seq,
                "level": level,
                "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                **self.identity,
                "files": {},
                "frontier": entry,
                "frontier_kind": kind,
                "frontier_size": entry["states"],
                "seen_runs": [],
                "levels": {str(k): self.level_entries[k] for k in range(1, level + 1)},
                "search": search,
            }
            self.place.write(f"checkpoint-{seq:06d}.json", sealed(manifest))
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # noqa: BLE001 -- OSError, or a Spark job that failed
            self._discard(seq)
            self._failed(exc)
            return False
        self.seq, self.saved_level, self.last = seq, level, time.monotonic()
        self._drop_older(seq)
        return True

    def _write_levels(self, seq: int) -> None:
        """Write the levels waiting as one folder, ``levels/B<seq>``, in one job."""
        sc, path = self.place.sc, f"levels/B{seq:06d}"
        held = [chunked_level(k, *w) for k, w in self.waiting.items() if isinstance(w, tuple)]
        parts = [w for w in self.waiting.values() if not isinstance(w, tuple)]
        records = [record for level in held for record in level]
        if records or not parts:
            parts.append(driver_records(sc, records))
        self.place.delete(path)  # left by a checkpoint cut while it wrote
        answers = save_records(
            sc, parts[0] if len(parts) == 1 else sc.union(parts), self.place.join(path)
        )
        for k in self.waiting:
            self.level_entries[k] = {"path": path, "states": 0, "sum": f"{0:016x}"}
            self.level_entries[k].update(answers.get(k, {}))
        self.waiting = {}

    def _discard(self, seq: int) -> None:
        """Delete what a checkpoint that failed wrote (its levels' folder and frontier; no
        manifest names them), as far as the file system still answers."""
        for name in (f"frontier-{seq:06d}", f"levels/B{seq:06d}"):
            try:
                self.place.delete(name)
            except Exception:  # noqa: BLE001,S112 -- a file system or a context that is gone
                continue

    def _drop_older(self, seq: int) -> None:
        """Delete the manifests and frontiers older than ``seq`` (a failure is harmless)."""
        try:
            for name in self.place.names():
                found = MANIFEST.fullmatch(name) or re.fullmatch(r"frontier-(\d{6})", name)
                if found and int(found.group(1)) < seq:
                    self.place.delete(name)
        except OSError:
            pass
