"""What the tests of ``hwcheck conform`` share (``tests/test_conform*.py``): ``hwcheck`` in a
process of its own, the Kafka JVMs a run folder's cluster left, and a v2 record batch as Kafka
lays it out. Importing it skips the importing module without confluent_kafka (the ``conform``
extra), as every conform test module is skipped."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from checker.conform.records import crc32c

pytest.importorskip("confluent_kafka")

HWCHECK = [sys.executable, "-m", "checker.cli"]


def hwcheck(*args: str) -> subprocess.CompletedProcess[str]:
    """``hwcheck ARGS`` in a process of its own (at most 240 s), its output captured."""
    return subprocess.run(
        [*HWCHECK, *args], capture_output=True, text=True, timeout=240, check=False
    )


def kafka_pids(marker: str) -> list[int]:
    """Pids of Kafka JVMs whose command line names ``marker`` (a run folder)."""
    out = subprocess.run(
        ["pgrep", "-f", marker], check=False, capture_output=True, text=True
    ).stdout
    return [int(p) for p in out.split() if int(p) != os.getpid()]


def _zigzag(n: int) -> bytes:
    raw, out = (n << 1) ^ (n >> 63), b""
    while True:
        byte = raw & 0x7F
        raw >>= 7
        if raw:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _batch(base: int, epoch: int, values: list[bytes]) -> bytes:
    """A v2 record batch as Kafka lays it out (uncompressed, no key, no headers)."""
    import struct

    records = b""
    for delta, value in enumerate(values):
        body = b"\x00" + _zigzag(0) + _zigzag(delta) + _zigzag(-1) + _zigzag(len(value))
        body += value + _zigzag(0)
        records += _zigzag(len(body)) + body
    tail = struct.pack(">hiqqqhii", 0, len(values) - 1, 0, 0, -1, -1, -1, len(values)) + records
    crc = crc32c(tail)
    head = struct.pack(">qiiBI", base, 4 + 1 + 4 + len(tail), epoch, 2, crc)
    return head + tail
