"""hwcheck's model of Kafka replication (protocol.md): one partition, 1..5 replicas."""

from spec.kafka.config import Config, ConfigError
from spec.kafka.model import KafkaSpec

__all__ = ["Config", "ConfigError", "KafkaSpec"]
