"""What the harness writes into each Kafka JVM's configuration, and why.

Every setting the harness changes from Kafka's defaults is in ``HARNESS_SETTINGS`` (brokers)
or ``CONTROLLER_SETTINGS`` (the controller), with its reason; docs/explanation/conformance.md
lists them. The rest of ``properties`` is a plain static KRaft quorum on 127.0.0.1 (one
controller in ``controller.quorum.voters``; no ``--standalone`` format needed).
"""

from __future__ import annotations

import base64
import uuid
from pathlib import Path

HARNESS_SETTINGS: dict[str, tuple[str, str]] = {
    "broker.heartbeat.interval.ms": ("200", "a crash is seen within a step, not in 2 s"),
    "replica.lag.time.max.ms": (
        "2000",
        "a paused or cut-off follower leaves the ISR within a step instead of 30 s",
    ),
    "replica.fetch.wait.max.ms": ("100", "followers fetch again at once (default 500 ms)"),
    "replica.high.watermark.checkpoint.interval.ms": (
        "50",
        (
            "the HW checkpoint file follows the HW in memory within a settle (default 5 s): "
            "a cut reads the file"
        ),
    ),
    "group.initial.rebalance.delay.ms": ("0", "no consumer group waits"),
    "num.partitions": ("1", "one partition per topic: the model's one partition"),
    "offsets.topic.replication.factor": ("1", "internal topics never wait for 3 brokers"),
    "transaction.state.log.replication.factor": ("1", "as above"),
    "transaction.state.log.min.isr": ("1", "as above"),
}
"""Setting -> (value, reason), for every broker."""

CONTROLLER_SETTINGS: dict[str, tuple[str, str]] = {
    "broker.session.timeout.ms": (
        "1500",
        (
            "the controller fences a killed or paused broker (and moves its leadership) within "
            "a step instead of 9 s (the controller's value is the one that counts)"
        ),
    ),
    "auto.leader.rebalance.enable": (
        "false",
        (
            "no preferred-leader election the schedule did not ask for (it would spend "
            "epochs; KRaft's controller runs them)"
        ),
    ),
}
"""Setting -> (value, reason), for the controller: it fences brokers and elects leaders."""


def properties(role: str, node_id: int, port: int, data: Path, voters: str) -> str:
    """The ``server.properties`` text of a node: its ``role`` (``controller`` or ``broker``),
    id, port on 127.0.0.1, data folder and the quorum's ``voters`` (``id@host:port``)."""
    lines = {
        "process.roles": role,
        "node.id": str(node_id),
        "controller.quorum.voters": voters,
        "controller.listener.names": "CONTROLLER",
        "log.dirs": str(data),
    }
    if role == "controller":
        lines["listeners"] = f"CONTROLLER://127.0.0.1:{port}"
        lines.update({k: v for k, (v, _) in CONTROLLER_SETTINGS.items()})
    else:
        lines["listeners"] = f"PLAINTEXT://127.0.0.1:{port}"
        lines["advertised.listeners"] = f"PLAINTEXT://127.0.0.1:{port}"
        lines["inter.broker.listener.name"] = "PLAINTEXT"
        lines["listener.security.protocol.map"] = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
        lines.update({k: v for k, (v, _) in HARNESS_SETTINGS.items()})
    if role == "controller":
        lines["listener.security.protocol.map"] = "CONTROLLER:PLAINTEXT"
    return "".join(f"{k}={v}\n" for k, v in lines.items())


LOG4J = """log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File={log}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.kafka.request.logger=WARN
"""
"""A reload4j configuration: each JVM logs to ``{log}`` (its folder's ``server.log``)."""


def cluster_id(root: Path) -> str:
    """A KRaft cluster id (a base64 UUID, as ``kafka-storage random-uuid``), kept in the
    run folder so a restarted run reuses it."""
    path = root / "cluster-id"
    if path.exists():
        return path.read_text().strip()
    text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    path.write_text(text + "\n")
    return text
