"""What the harness writes into each Kafka JVM's configuration, and why.

Every setting the harness changes from Kafka's defaults is in ``HARNESS_SETTINGS`` (brokers)
or ``CONTROLLER_SETTINGS`` (the controller), with its reason; docs/explanation/conformance.md
lists them. The rest of ``properties`` is a plain static KRaft quorum on 127.0.0.1 (one
controller in ``controller.quorum.voters``; no ``--standalone`` format needed), with one
listener per link so that ``checker.conform.proxy`` can cut each link alone: broker ``r``
has a ``CLIENT`` listener (the producer's), and a ``REPL<f>`` listener for each broker ``f``,
which ``f`` fetches through (``f``'s ``inter.broker.listener.name`` is ``REPL<f>``), advertised
at the port of the proxy of link ``f->r``; and broker ``r`` reaches the controller at the port
of the proxy of link ``r->controller``.
"""

from __future__ import annotations

import base64
import uuid
from pathlib import Path

HARNESS_SETTINGS: dict[str, tuple[str, str]] = {
    "broker.heartbeat.interval.ms": ("100", "a live broker heartbeats well within the session"),
    "replica.lag.time.max.ms": (
        "1500",
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
    "log.initial.task.delay.ms": (
        "100",
        (
            "the log manager's periodic tasks (the recovery-point checkpoint) start at once, "
            "not 30 s after the broker"
        ),
    ),
    "log.flush.offset.checkpoint.interval.ms": (
        "50",
        (
            "the recovery-point checkpoint follows the flushes within a settle (default 60 s): "
            "a power loss cuts each log at it (Kafka never flushes a partition on its own: "
            "log.flush.interval.* stay at their default, Long.MAX_VALUE)"
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
        "1000",
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


def properties(
    role: str,
    node_id: int,
    data: Path,
    voters: str,
    listeners: dict[str, tuple[int, int]],
    inter_broker: str | None = None,
) -> str:
    """The ``server.properties`` text of a node: its ``role`` (``controller`` or ``broker``),
    id, data folder, the quorum's ``voters`` (``id@127.0.0.1:port``, as this node reaches
    the controller), and its ``listeners``: name -> (port it listens on, port it advertises,
    a proxy's when the two differ). A broker talks to other brokers on ``inter_broker``."""
    names = ",".join(f"{name}:PLAINTEXT" for name in listeners)
    lines = {
        "process.roles": role,
        "node.id": str(node_id),
        "controller.quorum.voters": voters,
        "controller.listener.names": "CONTROLLER",
        "log.dirs": str(data),
        "listeners": ",".join(f"{n}://127.0.0.1:{port}" for n, (port, _) in listeners.items()),
    }
    if role == "controller":
        lines["listener.security.protocol.map"] = names
        lines.update({k: v for k, (v, _) in CONTROLLER_SETTINGS.items()})
    else:
        lines["advertised.listeners"] = ",".join(
            f"{n}://127.0.0.1:{shown}" for n, (_, shown) in listeners.items()
        )
        lines["inter.broker.listener.name"] = inter_broker or next(iter(listeners))
        lines["listener.security.protocol.map"] = names + ",CONTROLLER:PLAINTEXT"
        lines.update({k: v for k, (v, _) in HARNESS_SETTINGS.items()})
    return "".join(f"{k}={v}\n" for k, v in lines.items())


LOG4J = """log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File={log}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.kafka.request.logger=WARN
"""
"""A reload4j configuration (the binding ``pom.xml`` adds, and 3.x distributions'): each JVM
logs to ``{log}`` (its folder's ``server.log``)."""

LOG4J2 = """appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.clients.name = org.apache.kafka.clients
logger.clients.level = WARN
"""
"""The same for log4j2, the binding of 4.x distributions (``--kafka-libs``)."""


def cluster_id(root: Path) -> str:
    """A new KRaft cluster id (a base64 UUID, as ``kafka-storage random-uuid``), written to
    ``root/cluster-id``, which marks the folder as a cluster of hwcheck's."""
    path = root / "cluster-id"
    text = "-"
    while text.startswith("-"):  # as Kafka's Uuid.randomUuid: a leading '-' reads as a flag
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
    path.write_text(text + "\n")
    return text
