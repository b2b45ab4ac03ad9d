"""Read what a Kafka broker wrote: v2 record batches in segment files, and the checkpoint
files of a log folder.

Sources: the record batch format (magic 2, KIP-98) as Kafka's ``DefaultRecordBatch`` and
``DefaultRecord`` lay it out; ``CheckpointFile`` (a version line, a count line, one entry a
line) for ``replication-offset-checkpoint`` and ``recovery-point-offset-checkpoint``
(``topic partition offset``) and
``leader-epoch-checkpoint`` (``epoch start-offset``). Offsets are 0-based; every reader
returns plain tuples and raises ``LogFormatError`` on bytes that are not what Kafka writes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HEADER = struct.Struct(">qiiBIhiqqqhii")
"""baseOffset, batchLength, partitionLeaderEpoch, magic, crc, attributes, lastOffsetDelta,
baseTimestamp, maxTimestamp, producerId, producerEpoch, baseSequence, recordsCount (61 bytes)."""
LENGTH_END = 12
"""The bytes a batch's length counts from: after baseOffset and batchLength."""
CRC_START = 21
"""The CRC-32C covers the batch from its attributes to its end."""
COMPRESSION_MASK, CONTROL_BIT = 0x07, 0x20


class LogFormatError(ValueError):
    """A file that is not what Kafka writes (the message gives the file and byte)."""


@dataclass(frozen=True)
class Record:
    """One record of a partition's log: its ``offset``, the batch's ``leader_epoch`` (the
    epoch of the leader that appended it) and its ``value`` bytes."""

    offset: int
    leader_epoch: int
    value: bytes


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()
_google_crc32c: Any
try:
    import google_crc32c as _google_crc32c
except ImportError:  # a base install: conform is not run, the fuzz tests read files
    _google_crc32c = None


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), as Kafka's ``Crc32C`` computes it: Google's ``google-crc32c``
    (a C extension, in the ``conform`` extra), else a table in Python, about a hundred times
    slower."""
    if _google_crc32c is not None:
        return int(_google_crc32c.value(bytes(data)))
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """A zigzag varint at ``pos``: ``(value, next position)``."""
    shift = raw = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise IndexError(pos)
        byte = data[pos]
        pos += 1
        raw |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (raw >> 1) ^ -(raw & 1), pos
        shift += 7


def batches(data: bytes, name: str = "segment") -> tuple[list[tuple[tuple[int, ...], bytes]], int]:
    """Every whole batch of a segment's bytes, as ``(header fields, records bytes)``, and the
    byte where they end: a tail too short for its batch (a write the crash cut off) is left
    out, so the end is below ``len(data)``.

    Raises ``LogFormatError`` for a magic other than 2 or a CRC that does not match."""
    found, pos = [], 0
    while pos + HEADER.size <= len(data):
        header = HEADER.unpack_from(data, pos)
        end = pos + LENGTH_END + header[1]
        if header[1] < HEADER.size - LENGTH_END or end > len(data):
            break
        if header[3] != 2:
            raise LogFormatError(f"{name}: byte {pos}: record batch magic {header[3]}, not 2")
        if crc32c(data[pos + CRC_START : end]) != header[4]:
            raise LogFormatError(f"{name}: byte {pos}: record batch CRC does not match")
        found.append((header, data[pos + HEADER.size : end]))
        pos = end
    return found, pos


def records(data: bytes, name: str = "segment") -> list[Record]:
    """The data records of a segment's bytes, in offset order; control batches (transaction
    markers) are skipped. Raises ``LogFormatError`` for a compressed batch (the harness
    produces uncompressed) or a record that runs past its batch."""
    return records_to(data, name)[0]


def records_to(data: bytes, name: str = "segment") -> tuple[list[Record], int]:
    """``records`` and the byte where the whole batches end (``batches``): a reader that
    follows a growing file goes on from there."""
    out = []
    found, end = batches(data, name)
    for header, body in found:
        base, epoch, attributes, count = header[0], header[2], header[5], header[12]
        if attributes & CONTROL_BIT:
            continue
        if attributes & COMPRESSION_MASK:
            raise LogFormatError(f"{name}: offset {base}: a compressed batch")
        pos = 0
        try:
            for _ in range(count):
                length, pos = _varint(body, pos)
                stop = pos + length
                pos += 1  # attributes
                _, pos = _varint(body, pos)  # timestamp delta
                delta, pos = _varint(body, pos)
                key_length, pos = _varint(body, pos)
                pos += max(key_length, 0)
                value_length, pos = _varint(body, pos)
                value = body[pos : pos + value_length] if value_length >= 0 else b""
                out.append(Record(base + delta, epoch, bytes(value)))
                pos = stop
        except IndexError:
            raise LogFormatError(f"{name}: offset {base}: a record runs past its batch") from None
        if pos != len(body):
            raise LogFormatError(
                f"{name}: offset {base}: {len(body) - pos} bytes after the records"
            )
    return out, end


def read_log(folder: Path) -> list[Record]:
    """Every record of a partition folder's segments (``*.log``, by base offset)."""
    out: list[Record] = []
    for path in sorted(folder.glob("*.log")):
        out.extend(records(path.read_bytes(), str(path)))
    return out


def _checkpoint_lines(path: Path, width: int) -> list[list[str]]:
    lines = path.read_text().splitlines()
    if not lines:
        return []  # created empty at startup (``CheckpointFile`` makes the file if missing)
    try:
        version, count = int(lines[0]), int(lines[1])
    except (IndexError, ValueError):
        raise LogFormatError(f"{path}: no version and count lines") from None
    entries = [line.split() for line in lines[2:] if line.strip()]
    if version != 0 or count != len(entries) or any(len(e) != width for e in entries):
        raise LogFormatError(f"{path}: version {version}, {count} entries expected, not so")
    return entries


def high_watermark(data_dir: Path, topic: str, partition: int = 0) -> int | None:
    """The HW that ``replication-offset-checkpoint`` holds for ``topic``'s partition, or
    None when the file or the entry is missing (the broker never checkpointed it)."""
    path = data_dir / "replication-offset-checkpoint"
    if not path.exists():
        return None
    for name, number, offset in _checkpoint_lines(path, 3):
        if name == topic and int(number) == partition:
            return int(offset)
    return None


def recovery_points(data_dir: Path) -> dict[tuple[str, int], int]:
    """``recovery-point-offset-checkpoint``'s entries, ``{(topic, partition): offset}``: the
    offset below which each partition's log was flushed ({} when the file is missing)."""
    path = data_dir / "recovery-point-offset-checkpoint"
    if not path.exists():
        return {}
    return {(name, int(p)): int(offset) for name, p, offset in _checkpoint_lines(path, 3)}


def epoch_cache(folder: Path) -> tuple[tuple[int, int], ...]:
    """``leader-epoch-checkpoint``'s entries ``(leader epoch, start offset)``, oldest first
    (``()`` when the file is missing)."""
    path = folder / "leader-epoch-checkpoint"
    if not path.exists():
        return ()
    return tuple((int(e), int(o)) for e, o in _checkpoint_lines(path, 2))
