"""The segment reader of ``hwcheck conform`` (``checker.conform.records``) on record batches
laid out as Kafka lays them: CRC-32C is Castagnoli's, whole batches are read with their
epochs, a torn tail is left out and a flipped byte refused. The reader on files real brokers
wrote is in ``test_conform``."""

from __future__ import annotations

import pytest
from conformance import _batch

from checker.conform.records import crc32c

confluent_kafka = pytest.importorskip("confluent_kafka")


def test_crc32c_is_castagnoli():
    assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value


def test_the_segment_reader_checks_crc_and_leaves_a_torn_tail_out():
    """Whole batches are read with their epochs; a batch cut short by a crash is left out;
    a flipped byte is a ``LogFormatError`` naming the byte."""
    from checker.conform.records import LogFormatError, records

    data = _batch(0, 0, [b"a", b"b"]) + _batch(2, 3, [b"c"])
    assert [(r.offset, r.leader_epoch, r.value) for r in records(data)] == [
        (0, 0, b"a"),
        (1, 0, b"b"),
        (2, 3, b"c"),
    ]
    assert [r.value for r in records(data[:-5])] == [b"a", b"b"]
    broken = bytearray(data)
    broken[-2] ^= 0xFF
    with pytest.raises(LogFormatError, match="CRC"):
        records(bytes(broken))
