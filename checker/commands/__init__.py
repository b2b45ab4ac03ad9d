"""One module per ``hwcheck`` command: each parses its options and composes the engine, the
model and the output. ``engines`` is the one door to the Spark executor (``checker.spark``)."""
