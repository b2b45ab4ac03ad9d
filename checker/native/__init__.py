"""The compiled core: the level loop in C (``engine.c``) linked with a model's compiled
successors, canonical form and properties (``model.h``), built once per machine and loaded
with ``ctypes`` (``build``), driven from Python (``engine``)."""
