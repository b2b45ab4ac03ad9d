"""Reaching Spark within a bounded wait, and telling Spark's failures from the model's.

- Before any JVM starts, a ``spark://`` master must accept a TCP connection within the
  connect timeout (``reachable``): a closed port or an unknown host ends the command at once,
  not after the standalone client's three 20-second registration attempts.
- The JVM is launched with its stderr (and so its Python workers') going to ``spark.log``;
  this process's own stderr is left alone, so the progress line keeps drawing its clock.
- On a ``spark://`` master, with the JVM hwcheck launched, the application must be registered
  with the master within that timeout of the JVM's start, and a first executor registered
  with the application within that timeout again (``start``); otherwise the message says which of the two was missing. A master that stops
  the application (Spark's client gives up, or the master removes it) is caught before the
  context is used, instead of an ``addFile`` or a job racing the context's own shutdown.
- ``from_spark`` tells an exception of Spark, py4j or a JVM that went away (exit 5) from one
  the model raised (exit 75).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from checker.spark import lifecycle

DEFAULT_TIMEOUT = 20.0
"""Seconds ``--spark-connect-timeout`` gives a master to answer and to give an executor."""

STANDALONE_PORT = 7077


class Unreachable(RuntimeError):
    """Spark cannot be reached or used: the message is the one line the user sees
    (``checker.spark.session`` raises it again as ``SparkUnavailable``)."""


def addresses(master: str) -> list[tuple[str, int]]:
    """The ``(host, port)`` pairs of a ``spark://`` URL (several for a list of standby
    masters, ``spark://a:7077,b:7077``; port 7077 when left out); empty for another URL or
    one that does not parse (Spark then says what is wrong with it)."""
    if not master.startswith("spark://"):
        return []
    found = []
    for part in master[len("spark://") :].split(","):
        try:
            parts = urlsplit(f"spark://{part}")
            host, port = parts.hostname, parts.port or STANDALONE_PORT
        except ValueError:
            return []
        if not host:
            return []
        found.append((host, port))
    return found


def reachable(master: str, timeout: float) -> None:
    """Return once some master of the ``spark://`` URL ``master`` accepts a TCP connection
    within ``timeout`` seconds (at once for other URLs); else raise ``Unreachable`` naming the
    master and why."""
    hosts = addresses(master)
    causes = []
    for host, port in hosts:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return
        except OSError as exc:
            why = cause(exc, timeout)
            causes.append(f"{host}:{port} {why}" if len(hosts) > 1 else why)
    if causes:
        raise Unreachable(f"cannot reach Spark master {master}: {', '.join(causes)}")


def cause(exc: OSError, timeout: float) -> str:
    """Why a TCP connection failed, in a few lowercase words."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError | socket.timeout):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, socket.gaierror):
        return f"unknown host ({exc.strerror or exc})"
    text = exc.strerror or str(exc) or type(exc).__name__
    return text[:1].lower() + text[1:]


def start(conf: Any, log: Path, timeout: float, on_phase: Callable[[str], None]) -> Any:
    """A started SparkContext for ``conf`` (under ``spark-submit``, on its JVM), the JVM's
    stderr going to ``log``. On a ``spark://`` master, ``timeout`` seconds from the JVM's
    start for the master to register the application, then ``timeout`` seconds more for it
    to give an executor (``on_phase`` is told which is awaited). Raises ``Unreachable`` when
    either does not happen or Spark stopped the context, and any exception of Spark's own
    start-up."""
    from pyspark import SparkContext
    from pyspark.java_gateway import launch_gateway

    gateway = None
    if not lifecycle.submitted() and SparkContext._gateway is None:
        with log.open("ab") as err:
            # pyspark's own function, untyped; popen_kwargs is its documented hook
            gateway = launch_gateway(conf, popen_kwargs={"stderr": err})  # type: ignore[no-untyped-call]
    master = conf.get("spark.master", "")
    expired = threading.Event()
    timer = threading.Timer(timeout, _give_up, (expired,))
    timer.daemon = True
    if master.startswith("spark://") and not lifecycle.submitted():
        on_phase(f"registering with {master}")
        timer.start()
    late = Unreachable(
        f"Spark master {master} did not register hwcheck's application within {timeout:g} s "
        "of the JVM's start (not a Spark 4 master, or a slow start: see "
        f"--spark-connect-timeout); see {log}"
    )
    try:
        sc = SparkContext._active_spark_context or SparkContext(conf=conf, gateway=gateway)
    except Exception:
        if expired.is_set():
            raise late from None
        raise
    finally:
        timer.cancel()
    quiet_accumulators(sc)
    try:
        if expired.is_set():  # the timer fired as the context came up
            raise late
        stopped(sc, log)
        if str(sc.master).startswith("spark://") and not _dynamic(sc):
            on_phase(f"waiting for a worker: {sc.master}")
            _wait_for_executor(sc, time.monotonic() + timeout, timeout, log)
    except BaseException:
        lifecycle.stop_quietly(sc)
        raise
    return sc


def _give_up(expired: threading.Event) -> None:
    """The registration took too long: stop the JVM hwcheck launched, so that the
    SparkContext being built fails at once."""
    expired.set()
    lifecycle.terminate_jvm()


def _dynamic(sc: Any) -> bool:
    """Whether dynamic allocation is on (the application may start with no executor)."""
    return str(sc.getConf().get("spark.dynamicAllocation.enabled", "false")).lower() == "true"


def _wait_for_executor(sc: Any, deadline: float, timeout: float, log: Path) -> None:
    """Return once an executor has registered with ``sc`` (the driver is one entry of the
    status tracker's list); raise ``Unreachable`` at ``deadline``, or when Spark stops the
    context meanwhile."""
    tracker = sc._jsc.sc().statusTracker()
    while len(tracker.getExecutorInfos()) < 2:
        stopped(sc, log)
        if time.monotonic() > deadline:
            raise Unreachable(
                f"Spark master {sc.master} has no workers for hwcheck: no executor "
                f"registered within {timeout:g} s (start a worker, or free cores and memory "
                f"on one); see {log}"
            )
        time.sleep(0.2)


def stopped(sc: Any, log: Path) -> None:
    """Raise ``Unreachable`` if Spark itself stopped ``sc`` (its master gave up on the
    application or removed it), naming Spark's reason from ``log``."""
    if sc._jsc.sc().isStopped():
        raise Unreachable(
            f"Spark master {sc.master} ended hwcheck's application ({last_error(log)}); see {log}"
        )


def last_error(log: Path) -> str:
    """The message of the last ERROR line of ``spark.log`` (Spark's own reason), or a
    stand-in when there is none."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    errors = [line for line in lines if " ERROR " in line]
    if not errors:
        return "no reason in its log"
    return errors[-1].split(": ", 1)[-1].strip()[:200]


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
