"""The files hwcheck reads and writes: trace files and their schema, ``summary.json``, the
gate's JUnit and lock files, and a simulation's checkpoint."""
