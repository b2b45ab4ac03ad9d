"""The Kafka replication models that hwcheck explores (``spec.kafka``; later ``spec.tla``)."""
