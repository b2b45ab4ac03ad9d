"""``hwcheck conform``: real Kafka brokers driven through schedules, each consistent cut held
against the model (docs/explanation/conformance.md)."""
