"""Telling Spark's failures from the model's.

``from_spark`` tells an exception of Spark, py4j or a JVM that went away (exit 5) from one
the model raised (exit 75); ``quiet_accumulators`` keeps pyspark's accumulator thread from
printing a traceback when the JVM dies (hwcheck says so once).
"""

from __future__ import annotations

from typing import Any


def quiet_accumulators(sc: Any) -> None:
    """A JVM that dies makes pyspark's accumulator server print an ``EOFError`` traceback
    from its own thread; hwcheck says once that the JVM ended, so that one is dropped."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, address: None


SPARK_PACKAGES = ("py4j", "pyspark")


def from_spark(exc: BaseException) -> bool:
    """Whether ``exc`` is Spark's, not the model's: an exception class of py4j or pyspark,
    or any exception raised inside their code (a socket to a JVM that is gone, a call on a
    stopped context). The model's exceptions are raised by its own code (exit 75); these
    are an environment problem (exit 5)."""
    if any(cls.__module__.split(".")[0] in SPARK_PACKAGES for cls in type(exc).__mro__):
        return True
    trace = exc.__traceback__
    while trace is not None:
        module = str(trace.tb_frame.f_globals.get("__name__", ""))
        if module.split(".")[0] in SPARK_PACKAGES:
            return True
        trace = trace.tb_next
    return False
