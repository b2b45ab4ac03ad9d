"""What ``--cluster`` does with the settings it does not map to a model option: the ones that
matter but the model cannot express (``NOT_MODELLED``), the ones whose behaviour the model
already covers (``COVERED``), and the rest, ignored by kind (``IGNORED``). Plain data: keys are
Kafka's broker (``KafkaConfig``) and topic (``TopicConfig``) names.
"""

from __future__ import annotations

import re

TIME = "the model abstracts time"

NOT_MODELLED: dict[str, str] = {
    "replica.lag.time.max.ms": f"when a lagging follower leaves the ISR: {TIME} (any step may "
    "shrink the ISR, the harder case)",
    "log.flush.interval.ms": f"fsync by time: {TIME}",
    "flush.ms": f"fsync by time: {TIME}",
    "log.flush.scheduler.interval.ms": f"fsync by time: {TIME}",
    "broker.session.timeout.ms": f"when a silent broker is fenced: {TIME}",
    "broker.heartbeat.interval.ms": f"when a silent broker is fenced: {TIME}",
    "zookeeper.session.timeout.ms": f"when a silent broker's session expires: {TIME}",
    "log.dirs": "a failed log directory (JBOD) is not modelled: a broker fails whole",
    "log.dir": "a failed log directory (JBOD) is not modelled: a broker fails whole",
    "enable.idempotence": "the producer's retries are not modelled (a write is sent once)",
    "retries": "the producer's retries are not modelled (a write is sent once)",
}
"""Settings that change replication's outcome, which the model cannot express, and why."""

COVERED: dict[str, str] = {
    "auto.leader.rebalance.enable": "preferred-leader elections: the model's Elect moves "
    "leadership to any live ISR member at any step",
    "leader.imbalance.check.interval.seconds": "preferred-leader elections: covered by Elect "
    "at any step",
    "leader.imbalance.per.broker.percentage": "preferred-leader elections: covered by Elect "
    "at any step",
    "controlled.shutdown.enable": "a clean shutdown moves leadership first (Elect); the "
    "model's crashes are abrupt, the harder case",
    "replica.selector.class": "consumers reading from followers (KIP-392): NoUncommittedRead "
    "checks every replica's HW either way",
}
"""Settings whose behaviour the model's actions already include, and how."""

IGNORED: tuple[tuple[str, str], ...] = (
    (
        r"(offsets\.topic|transaction\.state\.log)\.",
        "internal topics' settings: another partition (check it with its own values)",
    ),
    (
        (
            r"(advertised\.)?listeners$|listener\.|.*\.listener\.names?$|socket\.|connections\.|"
            r"max\.connections|num\.network\.threads|port$|host\.name$|advertised\."
        ),
        "network settings: not replication semantics",
    ),
    (
        r"ssl\.|sasl\.|security\.|authorizer\.|super\.users|principal\.|delegation\.token\.",
        "security: not replication semantics",
    ),
    (
        r".*threads|queued\.max\.|background\.threads",
        "threads and queues: speed, not replication semantics",
    ),
    (
        (
            r"(log\.)?(retention|segment|roll|cleaner|cleanup|index|local\.retention)|"
            r"delete\.retention|min\.compaction|max\.compaction|remote\.|file\.delete|"
            r"log\.preallocate|preallocate$|min\.cleanable"
        ),
        "retention, segments, compaction: the model's log starts at 0 and is never cleaned",
    ),
    (r"num\.partitions$", "partitions replicate independently: the model is one partition"),
    (
        (
            r"broker\.id|node\.id|broker\.rack|controller\.quorum\.|zookeeper\.|process\.roles$|"
            r"metadata\.|controller\.|cluster\.id|initial\.broker\.registration"
        ),
        "identity and the controller's own quorum: not the partition's replication",
    ),
    (r"group\.|offsets\.|consumer\.", "consumer groups: not replication semantics"),
    (
        r"auto\.create\.topics|delete\.topic|create\.topic|alter\.config",
        "topic management: not replication semantics",
    ),
    (r".*metric|kafka\.metrics|.*reporters?$", "metrics: not replication semantics"),
    (
        r"compression\.|message\.|max\.message\.bytes|log\.message\.|.*\.bytes$",
        "record format and sizes: the model's records are ids",
    ),
    (r".*quota", "quotas: not replication semantics"),
    (r"transaction|producer\.id", "transactions: the model's producer writes plain records"),
    (
        r"replica\.fetch|num\.replica\.|replica\.socket|replica\.high\.watermark",
        "fetch tuning: how fast, not what (the model fetches at any step)",
    ),
)
"""``(regex, reason)``: the first pattern matching a key (from its start) gives the reason."""


UNUSED = {
    "default.replication.factor": "the topic's replication.factor overrides it",
    "log.flush.interval.messages": "the topic's flush.messages overrides it",
    "inter.broker.protocol.version": "no effect on the preset here (KRaft: metadata.version "
    "decides; ZooKeeper: at or above 2.7-IV1, or a release before 2.8)",
}
"""Why a mapped key did not count: a topic key overrode it, or it changes nothing here."""

OTHER = "not a setting the model reads"


def ignored_reason(key: str) -> str:
    """Why ``key`` (a setting neither mapped, ``NOT_MODELLED`` nor ``COVERED``) is ignored."""
    return next((why for pattern, why in IGNORED if re.match(pattern, key)), OTHER)
