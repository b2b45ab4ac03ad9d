"""hwcheck's model of Kafka replication (protocol.md): one partition, 1..5 replicas."""

from spec.bounds import ConfigError
from spec.kafka.config import Config
from spec.kafka.model import KafkaSpec

__all__ = ["Config", "ConfigError", "KafkaSpec"]
