"""hwcheck's generic explicit-state model checker (knows nothing about Kafka)."""

__version__ = "0.5.0"
