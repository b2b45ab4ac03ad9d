"""A faithful port of the public TLA+ specification of Kafka replication
(hachikuji/kafka-specification: KafkaReplication, FiniteReplicatedLog, IdSequence and the
variant modules), so that hwcheck's counts can be compared with TLC's on the same state space.
"""

from spec.tla.config import TlaConfig
from spec.tla.model import TlaSpec

__all__ = ["TlaConfig", "TlaSpec"]
