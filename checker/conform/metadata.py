"""The controller's view of a partition, read from its KRaft metadata log.

The controller writes every decision to ``__cluster_metadata-0`` as records in v2 batches,
never compressed (``checker.conform.records.records`` reads them; a batch's leader epoch is
the quorum's there). A record's value is framed by ``MetadataRecordSerde``
as three unsigned varints (frame version 1, api key, record version) and then the record in
Kafka's flexible message encoding. This module reads the three records that make a
partition's state (schemas: Kafka's ``metadata/src/main/resources/common/metadata``):

- ``TopicRecord`` (api key 2): name, topic id.
- ``PartitionRecord`` (3): the whole state: replicas, ISR, leader, leader epoch, partition
  epoch, and (version 2+, tagged) the ELR and last known ELR (KIP-966).
- ``PartitionChangeRecord`` (5): what changed, every field but the partition and topic id
  tagged; a leader field (anything but -2, ``NO_LEADER_CHANGE``) starts a new leader epoch
  (``PartitionRegistration.merge``).

``partition_states`` replays them in log order; ``PartitionState`` is what a cut observes.
``fenced_brokers`` replays the brokers' registrations: ``RegisterBrokerRecord`` (0; the
controller registers every broker fenced, ``ClusterControlManager.registerBroker``),
``FenceBrokerRecord`` (7) and ``UnfenceBrokerRecord`` (8) before metadata version 3.3, and
``BrokerRegistrationChangeRecord`` (17), whose tagged ``Fenced`` is 1 to fence, -1 to unfence.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from checker.conform.records import LogFormatError, records_to

TOPIC_RECORD, PARTITION_RECORD, PARTITION_CHANGE_RECORD = 2, 3, 5
REGISTER_BROKER, FENCE_BROKER, UNFENCE_BROKER, REGISTRATION_CHANGE = 0, 7, 8, 17
NO_LEADER, NO_LEADER_CHANGE = -1, -2


@dataclass(frozen=True)
class PartitionState:
    """The controller's partition: ``leader`` (None for none), ``leader_epoch``, ``isr`` and
    ``elr`` (sorted broker ids), ``last_known`` (the last known leader: the one broker id of
    ``LastKnownElr``, None when it holds none or -1), and ``offset``, the metadata log offset
    of the record that made this state (not compared: a state is what it says, whichever
    record said it)."""

    leader: int | None
    leader_epoch: int
    isr: tuple[int, ...]
    elr: tuple[int, ...]
    last_known: int | None
    offset: int = field(compare=False)


class _Reader:
    """Kafka's flexible message encoding, read field by field."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def uvarint(self) -> int:
        shift = value = 0
        while True:
            byte = self.data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 35:
                raise IndexError(self.pos)

    def int32(self) -> int:
        (value,) = struct.unpack_from(">i", self.data, self.pos)
        self.pos += 4
        return int(value)

    def uuid(self) -> str:
        value = uuid.UUID(bytes=bytes(self.data[self.pos : self.pos + 16]))
        self.pos += 16
        return str(value)

    def string(self) -> str:
        length = self.uvarint() - 1
        text = bytes(self.data[self.pos : self.pos + length]).decode()
        self.pos += length
        return text

    def int32s(self) -> tuple[int, ...] | None:
        count = self.uvarint() - 1
        return None if count < 0 else tuple(self.int32() for _ in range(count))

    def skip_uuids(self) -> None:
        count = self.uvarint() - 1
        self.pos += 16 * max(count, 0)

    def tagged(self) -> dict[int, _Reader]:
        fields = {}
        for _ in range(self.uvarint()):
            tag, size = self.uvarint(), self.uvarint()
            fields[tag] = _Reader(self.data[self.pos : self.pos + size])
            self.pos += size
        return fields


def _partition_record(r: _Reader, version: int) -> tuple[str, int, dict[str, Any]]:
    partition, topic = r.int32(), r.uuid()
    r.int32s()  # replicas
    isr = r.int32s() or ()
    r.int32s()  # removing replicas
    r.int32s()  # adding replicas
    leader = r.int32()
    epoch = r.int32()
    r.int32()  # partition epoch
    if version >= 1:
        r.skip_uuids()  # directories
    tags = r.tagged()
    elr = tags[1].int32s() if version >= 2 and 1 in tags else ()
    known = tags[2].int32s() if version >= 2 and 2 in tags else ()
    fields = {"leader": leader, "epoch": epoch, "isr": isr, "elr": elr or ()}
    return topic, partition, fields | {"last_known_elr": known or ()}


def _change_record(r: _Reader, version: int) -> tuple[str, int, dict[str, Any]]:
    partition, topic = r.int32(), r.uuid()
    tags = r.tagged()
    change: dict[str, Any] = {}
    if 0 in tags:
        change["isr"] = tags[0].int32s() or ()
    if 1 in tags:
        change["leader"] = tags[1].int32()
    if version >= 2 and 6 in tags:  # tag 8 is the directories
        change["elr"] = tags[6].int32s() or ()
    if version >= 2 and 7 in tags:
        change["last_known_elr"] = tags[7].int32s() or ()
    return topic, partition, change


class MetadataLog:
    """A controller's metadata log folder (``__cluster_metadata-0``) followed as it grows:
    each ``refresh`` parses only the whole batches written since the last one, and keeps the
    records the readers below use. The controller appends a ``NoOpRecord`` every 500 ms
    (``metadata.max.idle.interval.ms``), so reading the whole log at every cut and every poll
    would cost more the longer a campaign runs. A segment that shrinks or disappears (a
    snapshot's cleaning) starts the reading over."""

    KEPT = frozenset(
        {
            TOPIC_RECORD,
            PARTITION_RECORD,
            PARTITION_CHANGE_RECORD,
            REGISTER_BROKER,
            FENCE_BROKER,
            UNFENCE_BROKER,
            REGISTRATION_CHANGE,
        }
    )

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._read: dict[str, int] = {}
        self._kept: list[tuple[str, int, int, int, bytes, int]] = []
        """(segment, offset, api key, version, value, where the record's fields start)"""

    def refresh(self) -> MetadataLog:
        """Read what was appended. Raises ``LogFormatError`` for bytes that are not Kafka's
        metadata records (a batch still being written is left for the next refresh)."""
        paths = sorted(self.folder.glob("*.log"))
        if not set(self._read) <= {p.name for p in paths}:  # a segment was removed
            self._read, self._kept = {}, []
        for path in paths:
            start = self._read.get(path.name, 0)
            with path.open("rb") as f:
                if f.seek(0, 2) < start:  # cut shorter: read everything again
                    self._read, self._kept = {}, []
                    return self.refresh()
                f.seek(start)
                found, end = records_to(f.read(), str(path))
            for record in found:
                r = _Reader(record.value)
                try:
                    frame, key, version = r.uvarint(), r.uvarint(), r.uvarint()
                except IndexError:
                    raise LogFormatError(f"{path}: offset {record.offset}: no frame") from None
                if frame == 1 and key in self.KEPT:  # another frame version: not known here
                    self._kept.append((str(path), record.offset, key, version, record.value, r.pos))
            self._read[path.name] = start + end
        return self

    def _records(self) -> Iterator[tuple[str, int, int, int, _Reader]]:
        """The kept records: segment, offset, api key, version, a reader at the fields."""
        for path, offset, key, version, value, pos in self._kept:
            r = _Reader(value)
            r.pos = pos
            yield path, offset, key, version, r

    def partition_states(self, topic: str, partition: int = 0) -> list[PartitionState]:
        """Every state ``topic``'s partition had, oldest first; ``[]`` before the topic
        exists. Raises ``LogFormatError`` for a record that is not what Kafka writes."""
        topic_id: str | None = None
        states: list[PartitionState] = []
        for path, offset, key, version, r in self._records():
            try:
                if key == TOPIC_RECORD:
                    if r.string() == topic:
                        topic_id = r.uuid()
                elif key in (PARTITION_RECORD, PARTITION_CHANGE_RECORD):
                    read = _partition_record if key == PARTITION_RECORD else _change_record
                    rid, number, fields = read(r, version)
                    if rid == topic_id and number == partition:
                        last = states[-1] if states else None
                        states.append(_apply(last, key, fields, offset))
            except (IndexError, struct.error, UnicodeDecodeError, ValueError):
                raise LogFormatError(f"{path}: offset {offset}: not a metadata record") from None
        return states

    def fenced_brokers(self) -> set[int]:
        """The ids of the brokers the controller holds fenced (module docstring); a broker
        never registered is in neither set. Raises ``LogFormatError`` as above."""
        fenced: dict[int, bool] = {}
        for path, offset, key, _version, r in self._records():
            try:
                if key in (REGISTER_BROKER, FENCE_BROKER):
                    fenced[r.int32()] = True
                elif key == UNFENCE_BROKER:
                    fenced[r.int32()] = False
                elif key == REGISTRATION_CHANGE:
                    broker = r.int32()
                    r.pos += 8  # the broker epoch
                    tags = r.tagged()
                    change = struct.unpack(">b", tags[0].data[:1])[0] if 0 in tags else 0
                    if change:
                        fenced[broker] = change > 0
            except (IndexError, struct.error, ValueError):
                raise LogFormatError(f"{path}: offset {offset}: not a metadata record") from None
        return {b for b, f in fenced.items() if f}


def partition_states(folder: Path, topic: str, partition: int = 0) -> list[PartitionState]:
    """``MetadataLog.partition_states`` of the metadata log folder ``folder``, read once."""
    return MetadataLog(folder).refresh().partition_states(topic, partition)


def fenced_brokers(folder: Path) -> set[int]:
    """``MetadataLog.fenced_brokers`` of the metadata log folder ``folder``, read once."""
    return MetadataLog(folder).refresh().fenced_brokers()


def _last_known(members: Any) -> int | None:
    """The last known leader in a ``LastKnownElr`` field: its one broker id, else None
    (Kafka writes ``[-1]`` when the ISR emptied under no leader; KIP-966)."""
    return int(members[0]) if len(members) == 1 and members[0] >= 0 else None


def _apply(
    last: PartitionState | None, key: int, fields: dict[str, Any], offset: int
) -> PartitionState:
    if key == PARTITION_RECORD or last is None:
        leader = int(fields.get("leader", NO_LEADER))
        return PartitionState(
            None if leader == NO_LEADER else leader,
            int(fields.get("epoch", 0)),
            tuple(sorted(fields.get("isr", ()))),
            tuple(sorted(fields.get("elr", ()))),
            _last_known(fields.get("last_known_elr", ())),
            offset,
        )
    state = replace(last, offset=offset)
    if "isr" in fields:
        state = replace(state, isr=tuple(sorted(fields["isr"])))
    if "elr" in fields:
        state = replace(state, elr=tuple(sorted(fields["elr"])))
    if "last_known_elr" in fields:
        state = replace(state, last_known=_last_known(fields["last_known_elr"]))
    leader = fields.get("leader", NO_LEADER_CHANGE)
    if leader != NO_LEADER_CHANGE:
        state = replace(
            state,
            leader=None if leader == NO_LEADER else int(leader),
            leader_epoch=state.leader_epoch + 1,
        )
    return state
