"""A power loss on a killed broker's folders: what was never flushed is cut off.

The harness never lets Kafka flush a partition's log on its own (``log.flush.interval.*``
left at their defaults, ``Long.MAX_VALUE``, and segments far larger than a schedule writes;
``checker.conform.settings``), so what a power loss keeps of a partition is known: the log up
to its recovery point, the offset below which Kafka has flushed
(``recovery-point-offset-checkpoint``, which the harness has Kafka rewrite every 50 ms).
``cut`` removes everything at or past it from the segment files, as a machine that lost its
page cache would find them, and the index files of the cut segments (Kafka rebuilds them in
its recovery of the unflushed segments, ``LogLoader.recoverLog``). The checkpoint files
(HW, leader epochs) are written with an fsync, so they stay: Kafka caps the HW at the log end
and trims the epoch cache to it when it loads the log. This is the model's
``UncleanShutdown`` with nothing flushed since the partition was created (its ``Flush``
never happens on the real cluster).

Sources: ``UnifiedLog.flush`` and ``LogLoader`` (Kafka 4.1.0: the recovery point only moves
when the log is flushed, and recovery starts there); the record batch layout of
``checker.conform.records``.
"""

from __future__ import annotations

from pathlib import Path

from checker.conform.records import (
    HEADER,
    LENGTH_END,
    LogFormatError,
    batches,
    recovery_points,
)

INDEX_SUFFIXES = (".index", ".timeindex", ".txnindex")


def cut(data_dir: Path) -> dict[str, int]:
    """Cut every partition of ``data_dir`` (a broker's ``log.dirs``, the broker killed) to
    its recovery point, 0 for a partition the checkpoint does not list yet (a new log has
    never been flushed); the topics whose names start with ``__`` (the metadata log, internal
    topics) are left alone. Returns ``{partition folder name: records cut}``. Raises
    ``LogFormatError`` when a segment or the checkpoint is not what Kafka writes."""
    points = recovery_points(data_dir)
    out: dict[str, int] = {}
    for folder in sorted(p for p in data_dir.iterdir() if p.is_dir()):
        topic, _, partition = folder.name.rpartition("-")
        if topic.startswith("__") or not partition.isdigit() or not any(folder.glob("*.log")):
            continue
        out[folder.name] = _cut_folder(folder, points.get((topic, int(partition)), 0))
    return out


def _cut_folder(folder: Path, point: int) -> int:
    """Remove every batch at or past offset ``point`` from ``folder``'s segments; the records
    removed."""
    removed = 0
    for segment in sorted(folder.glob("*.log")):
        data = segment.read_bytes()
        keep = _keep_bytes(data, point, str(segment))
        if keep == len(data):
            continue
        removed += sum(header[12] for header, _ in batches(data[keep:], str(segment))[0])
        with segment.open("r+b") as f:
            f.truncate(keep)
        for suffix in INDEX_SUFFIXES:
            segment.with_suffix(suffix).unlink(missing_ok=True)
    return removed


def _keep_bytes(data: bytes, point: int, name: str) -> int:
    """The bytes of a segment before its first batch at or past offset ``point``."""
    pos = 0
    while pos + HEADER.size <= len(data):
        base, length = HEADER.unpack_from(data, pos)[:2]
        if base >= point:
            return pos
        end = pos + LENGTH_END + length
        if length < HEADER.size - LENGTH_END or end > len(data):
            raise LogFormatError(f"{name}: byte {pos}: a batch that runs past the segment")
        pos = end
    return pos
