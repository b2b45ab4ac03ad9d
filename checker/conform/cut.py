"""Consistent cuts of a running cluster, and what they show in the model's terms.

``take_cut`` stops every JVM (SIGSTOP: no thread runs, every ``write`` already made is in
the files), reads each broker's log, HW checkpoint and epoch cache and the controller's
metadata log, and continues them. A ``Cut`` is the raw reading; ``Naming.observation`` gives
the model's ``Observation`` (``checker.conform.judge``), with each record's payload mapped to
the model's record id: records are numbered in the order they first appear in any log.

What the mapping approximates: the model's HW is the one in memory, the cut reads the
checkpoint file; ``settle`` (in ``checker.conform.run``) takes cuts until two in a row agree,
with the checkpoint written every 50 ms (``HARNESS_SETTINGS``), so the file has caught up. A
broker that is down shows the HW it will load: the checkpoint capped at its log end, as
``UnifiedLog`` caps it when the log is loaded (a power loss leaves the fsynced checkpoint
above the cut log).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker.conform.cluster import Cluster
from checker.conform.metadata import PartitionState
from checker.conform.records import Record, epoch_cache, high_watermark, read_log


@dataclass(frozen=True)
class BrokerCut:
    """One broker at a cut: its log's records, HW checkpoint (None: never written for this
    partition), epoch cache ``(epoch, start offset)`` entries, and whether its process runs
    (``alive``; a paused one does) and is paused."""

    records: tuple[Record, ...]
    hw: int | None
    epochs: tuple[tuple[int, int], ...]
    alive: bool
    paused: bool


@dataclass(frozen=True)
class Cut:
    """What one consistent cut read: per broker a ``BrokerCut``, and the controller's
    partition state (None before the topic exists). Two cuts are equal when they read the
    same, whatever metadata offset made the controller's state (a settled cut)."""

    brokers: tuple[BrokerCut, ...]
    controller: PartitionState | None


def take_cut(cluster: Cluster, topic: str) -> Cut:
    """Freeze the cluster, read it, thaw it (module docstring). Raises ``LogFormatError``
    when a file is not what Kafka writes."""
    cluster.freeze()
    try:
        brokers = []
        for node in cluster.brokers:
            folder = node.data / f"{topic}-0"
            log = tuple(read_log(folder)) if folder.exists() else ()
            hw = high_watermark(node.data, topic)
            if hw is not None and not node.alive:  # what it will load (a power loss cut the log)
                hw = min(hw, len(log))
            brokers.append(
                BrokerCut(
                    log,
                    hw,
                    epoch_cache(folder) if folder.exists() else (),
                    node.alive,
                    node.paused,
                )
            )
        states = cluster.metadata().partition_states(topic)
    finally:
        cluster.thaw()
    return Cut(tuple(brokers), states[-1] if states else None)


@dataclass
class Naming:
    """Payload -> model record id, in the order records first appear (module docstring)."""

    ids: dict[bytes, int] = field(default_factory=dict)

    def learn(self, cut: Cut) -> None:
        """Number the payloads ``cut`` shows for the first time (by offset, then payload)."""
        new = sorted({(rec.offset, rec.value) for b in cut.brokers for rec in b.records})
        for _, value in new:
            if value not in self.ids:
                self.ids[value] = len(self.ids)

    def observation(self, cut: Cut, elr: bool) -> tuple[Any, ...]:
        """The model's ``Observation`` of ``cut`` (``elr``: the model's controller carries
        the ELR)."""
        self.learn(cut)
        replicas = tuple(
            (
                tuple((self.ids[rec.value], rec.leader_epoch) for rec in b.records),
                b.hw or 0,
                b.alive,
            )
            for b in cut.brokers
        )
        c = cut.controller
        controller: tuple[Any, ...] = (
            (c.leader_epoch, c.leader, c.isr) if c else (-1, None, tuple(range(len(replicas))))
        )
        if elr:
            controller += (c.elr, c.last_known) if c else ((), None)
        return replicas, controller
