"""Where a search runs: the engine flags (``--engine``, ``--workers``, ``--core``, the Spark
flags), the ``Engine`` they choose, and ``run``, which explores on it.

This is the one door to the Spark executor: no module under ``checker/`` outside
``checker/spark/`` imports it but this one (a test enforces it), so a command without Spark
never loads pyspark. A Spark that cannot run ends the process with one message, exit 5.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

import click

from checker import search
from checker.commands import checkpoints, cores
from checker.commands.cores import CORE_OPTION
from checker.commands.options import build, choose, with_options
from checker.commands.values import WORKERS, Integer, Seconds
from checker.composition import compose
from checker.limits import Limits
from checker.result import EXIT_ENVIRONMENT
from checker.search.partitioned import pool
from checker.simulate import simulation
from checker.spark.connect import DEFAULT_TIMEOUT as DEFAULT_CONNECT_TIMEOUT  # no pyspark
from checker.symmetry import SymmetryError, for_spec


@dataclass(frozen=True)
class Engine:
    """The engine a command runs on: ``name`` (``local`` or ``spark``); for Spark, its
    ``checker.spark.session.SparkOptions``; ``symmetry`` (None: the model's default, on for
    kafka, off for tla); ``workers``, the local engine's processes (1: in-process), or its
    threads on the compiled core; ``core``: the core asked for, ``compiled`` (the model's
    compiled core where it can run: ``checker.search.choose_core``) or ``reference`` (the
    Python model); ``memory``: the local compiled engine's budget in bytes before it spills
    to disk (None: what the machine has free; ``checker.search.tier.spill``); ``key_bits``: the
    width of its seen set's keys, 64 or 128 (None: 64, widened past 1e-3:
    ``checker.search.compiled.width``)."""

    name: str = "local"
    spark: Any = None
    symmetry: bool | None = None
    workers: int = 1
    core: search.CoreName = "compiled"
    memory: int | None = None
    key_bits: int | None = None


def _conf_pairs(ctx: Any, param: Any, values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values:
        key, sep, setting = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r} is not KEY=VALUE", ctx=ctx, param=param)
        pairs.append((key.strip(), setting))
    return tuple(pairs)


SYMMETRY_OPTION = click.option(
    "--symmetry/--no-symmetry",
    default=None,
    help="Explore one state per orbit of replica renamings (exact; traces stay concrete) "
    "[kafka: on, tla: off, so counts are TLC's].",
)

JOB_OPTIONS = (
    click.option(
        "--workers",
        type=WORKERS,
        default=None,
        metavar="N",
        help="Threads (compiled core) or processes (reference core) for the local "
        f"engine; same answers as 1 [every core: {os.cpu_count() or 1}].",
    ),
    click.option(
        "--engine",
        type=click.Choice(["local", "spark"]),
        default="local",
        show_default=True,
        help="local: this machine (see --core, --workers); spark: frontier split across "
        "Spark partitions (same answers).",
    ),
    click.option(
        "--master",
        default=None,
        metavar="URL",
        help="Spark master (spark engine) [local[*]; under spark-submit, its own].",
    ),
    click.option(
        "--partitions",
        type=Integer(min=1),
        default=None,
        help="Fingerprint partitions P (spark engine) [the cores Spark has].",
    ),
    click.option(
        "--spark-conf",
        "spark_conf",
        multiple=True,
        metavar="KEY=VALUE",
        callback=_conf_pairs,
        help="A Spark setting (repeatable).",
    ),
    click.option(
        "--spark-connect-timeout",
        type=Seconds(min=0, min_open=True),
        default=None,
        metavar="SECONDS",
        help="Seconds a spark:// master gets for each step of connecting: to accept a TCP "
        "connection, to register hwcheck (from the JVM's start) and to give it a first "
        f"executor; past any, exit 5 [{DEFAULT_CONNECT_TIMEOUT:g}].",
    ),
)
"""Where the work runs: local workers or Spark (``explore``, ``simulate``)."""


ENGINE_OPTIONS = (
    SYMMETRY_OPTION,
    CORE_OPTION,
    *JOB_OPTIONS,
    cores.MEMORY_OPTION,
    cores.KEY_BITS_OPTION,
    click.option(
        "--spark-min-frontier",
        type=Integer(min=0),
        default=20_000,
        show_default=True,
        metavar="STATES",
        help="Levels with a smaller frontier run in the driver (0: all on Spark).",
    ),
    click.option(
        "--work-dir",
        default=None,
        metavar="DIR",
        help="Folder for the level files of the levels the Spark engine runs in the "
        "driver; given on a cluster, a path every executor sees, where they read the level "
        "Spark takes over at (else it is sent with the job) [a temporary folder, deleted "
        "after the run].",
    ),
    click.option("--spark-ui", is_flag=True, help="Keep Spark's web UI on (off by default)."),
)


engine_options = with_options(ENGINE_OPTIONS)
"""Decorate a click command with the engine flags (they arrive as keyword arguments; turn
them into an ``Engine`` with ``engine_from``)."""


def engine_from(kwargs: dict[str, Any]) -> Engine:
    """Pop the engine flags out of a command's ``kwargs`` (``ENGINE_OPTIONS``, or only
    ``JOB_OPTIONS``: the others take their defaults); return the ``Engine``.

    Raises ``click.UsageError`` when a Spark flag is given with ``--engine local``.
    """
    name = kwargs.pop("engine")
    symmetry, workers = kwargs.pop("symmetry", None), kwargs.pop("workers")
    core = kwargs.pop("core", "compiled")
    memory = kwargs.pop("memory", None)
    key_bits = kwargs.pop("key_bits", None)
    defaults = {
        "master": None,
        "partitions": None,
        "spark_conf": (),
        "spark_min_frontier": 20_000,
        "work_dir": None,
        "spark_ui": False,
        "spark_connect_timeout": None,
    }
    flags = {key: kwargs.pop(key, default) for key, default in defaults.items()}
    if name == "local":
        given = [
            key
            for key in ("master", "partitions", "work_dir", "spark_connect_timeout")
            if flags[key]
        ]
        given += ["spark_conf"] if flags["spark_conf"] else []
        given += ["spark_ui"] if flags["spark_ui"] else []
        if given:
            option = "--" + given[0].replace("_", "-")
            raise click.UsageError(f"{option} applies only to --engine spark")
        cores.compiled_only(core, memory, key_bits)
        return Engine(
            symmetry=symmetry,
            workers=workers or pool.default_workers(),
            core=core,
            memory=memory,
            key_bits=key_bits,
        )
    cores.compiled_only("spark", memory, key_bits)
    if workers is not None:
        raise click.UsageError("--workers applies only to --engine local (Spark: --partitions)")
    from checker.spark.session import SparkOptions

    return Engine(
        "spark",
        SparkOptions(
            master=flags["master"],
            partitions=flags["partitions"],
            conf=flags["spark_conf"],
            min_frontier=flags["spark_min_frontier"],
            work_dir=flags["work_dir"],
            ui=flags["spark_ui"],
            connect_timeout=flags["spark_connect_timeout"] or DEFAULT_CONNECT_TIMEOUT,
        ),
        symmetry=symmetry,
        core=core,
    )


@checkpoints.refusing
def run(
    model: str,
    given: dict[str, Any],
    names: Any,
    limits: Limits,
    on_progress: Any = None,
    engine: Engine = Engine(),
    plan: checkpoints.Plan | None = None,
    checkpoint_at: Any = None,
) -> Any:
    """Build the model from the options ``given`` and explore it; return ``(spec, result)``.
    With a ``plan``, the search saves checkpoints (and resumes) in the folder
    ``checkpoint_at(spec)`` gives, with whether a missing checkpoint there starts afresh.

    Raises ``click.BadParameter`` for options or bounds the model rejects; exits 5 with one
    message when the Spark engine cannot run here, 4 when a checkpoint cannot be resumed.
    """
    cfg, spec, props = build(model, given)
    chosen = choose(props, names)
    symmetry = spec.default_symmetry if engine.symmetry is None else engine.symmetry
    if symmetry:
        try:
            for_spec(spec, chosen)
        except SymmetryError as exc:
            raise click.UsageError(str(exc)) from None
    recipe = compose.Recipe(model, cfg, tuple(names))
    save = checkpoints.save_options(
        plan, checkpoint_at, spec, (model, cfg, tuple(names), chosen, symmetry, limits)
    )
    if engine.name == "local":
        result = search.explore(
            spec,
            chosen,
            limits,
            on_progress,
            symmetry,
            core=checkpoints.local_core(save, engine.core),
            workers=engine.workers,
            recipe=recipe,
            saving=save,
            memory=engine.memory,
            key_bits=engine.key_bits,
            on_note=cores.note,
            on_compile=cores.compile_note,
        )
        return spec, result
    from checker.spark import engine as spark_engine

    core = search.choose_core(spec, chosen, engine.core, cores.note, cores.compile_note)
    try:
        result = spark_engine.explore(
            recipe, limits, on_progress, engine.spark, symmetry, core.levels, save
        )
        result.stats.core = core.text
        return spec, result
    except spark_engine.SparkUnavailable as exc:
        _cannot_run(exc)


def simulate(
    recipe: Any,
    plan: Any,
    walks: Any,
    time_limit: Any,
    engine: Engine,
    on_progress: Any = None,
    resume: Any = None,
    on_wave: Any = None,
) -> Any:
    """``checker.simulate.simulation.simulate`` on ``engine``'s workers or Spark (``resume`` /
    ``on_wave``: its checkpoints); exits 5 with one message when Spark cannot run."""

    def walk(spark: Any = None) -> Any:
        return simulation.simulate(
            recipe,
            plan,
            walks,
            time_limit,
            engine.workers,
            on_progress,
            spark,
            core=engine.core,
            on_compile=cores.compile_note,
            resume=resume,
            on_wave=on_wave,
        )

    if engine.spark is None:
        return walk()
    from checker.spark import session
    from checker.spark import walks as spark_walks

    try:
        return walk(spark_walks.on(engine.spark))
    except session.SparkUnavailable as exc:
        _cannot_run(exc)


class CannotRun(click.ClickException):
    """Spark cannot run: click prints "Error: the Spark engine cannot run: ..." once the
    command has unwound (after the progress line is gone), exit 5."""

    exit_code = EXIT_ENVIRONMENT


def _cannot_run(exc: Exception) -> NoReturn:
    """End the command with one message and exit 5 for a Spark that cannot run, keeping
    ``spark.log`` (``session.failed``), which the message names (raises ``CannotRun``)."""
    from checker.spark import session

    session.failed()
    raise CannotRun(f"the Spark engine cannot run: {exc}")


def close_spark() -> None:
    """Stop Spark if a command started it and delete its ``hwcheck-spark-*`` folder, unless
    a failed run asked to keep it (``session.failed``: its message names ``spark.log``)."""
    if "checker.spark.session" not in sys.modules:  # no Spark in this command
        return
    from checker.spark import lifecycle, session

    try:
        session.close()
        lifecycle.stop_jvm()
    except KeyboardInterrupt:  # a second Ctrl-C while the JVM stops
        pass
