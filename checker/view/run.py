"""For the CLI (``checker/cli.py``): build a model from command-line options and run it on the chosen engine.

``engine_options`` adds the engine flags to a click command; ``run`` explores with the local
engine (``checker.bfs``) or the Spark engine (``checker.spark.engine``). Usage mistakes become
click errors (exit 2); a Spark that cannot run ends the process with one message, exit 5.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from checker import pool
from checker.bfs import Limits, explore
from checker.result import EXIT_ENVIRONMENT
from checker.symmetry import SymmetryError, for_spec
from checker.view import checkpoints, compose, cores
from checker.view.cores import CORE_OPTION
from spec.kafka import Config, ConfigError
from spec.kafka.config import ACKS, FLUSH_MODES, MAX_REPLICAS, TRUNCATION_VARIANTS
from spec.kafka.variants import MECHANISMS
from spec.tla import TlaConfig
from spec.tla.config import TLA_MAX_REPLICAS, TLA_VARIANTS

DEFAULTS = Config()
TLA = TlaConfig()


@dataclass(frozen=True)
class Engine:
    """The engine a command runs on: ``name`` (``local`` or ``spark``); for Spark, its
    ``checker.spark.session.SparkOptions``; ``symmetry`` (None: the model's default, on for
    kafka, off for tla); ``workers``, the local engine's processes (1: in-process), or its
    threads on the compiled core; ``core``: ``compiled`` (the model's compiled core where it
    has one, ``checker.native``) or ``reference`` (the Python model)."""

    name: str = "local"
    spark: Any = None
    symmetry: bool | None = None
    workers: int = 1
    core: str = "compiled"


PROTOCOL_FLAGS = (
    click.option("--variant-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                  default=None, metavar="RULES.PY",
                  help="A Python file of your own truncation rules and variants (kafka): its "
                       "variants join --truncation, its rules --with. See examples/."),
    click.option("--with", "with_mechanisms", multiple=True, metavar="MECHANISM",
                  help="Turn a mechanism on, on top of --truncation (kafka; repeatable): "
                       + ", ".join(MECHANISMS) + ". See 'hwcheck list'."),
    click.option("--without", "without_mechanisms", multiple=True, metavar="MECHANISM",
                  help="Turn a mechanism of the --truncation preset off (kafka; repeatable)."),
    click.option("--max-unclean-shutdowns", type=click.IntRange(min=0), default=None,
                  help="Unclean shutdowns (power loss: the unflushed tail is lost) over the "
                       f"whole run (kafka) [{DEFAULTS.max_unclean_shutdowns}: logs durable]."),
    click.option("--flush", type=click.Choice(FLUSH_MODES), default=None,
                  help="background: the OS flushes when it likes (Kafka's default); always: "
                       f"fsync per append (kafka) [{DEFAULTS.flush}]."),
    click.option("--acks", type=click.Choice(ACKS), default=None,
                  help="Producer acks: all (acknowledged once committed) or 1 (on the "
                       f"leader's append) (kafka) [{DEFAULTS.acks}]."),
)
"""The kafka model's mechanism, durability and acks flags (also on ``compare``)."""

MODEL_FLAGS = (
    click.option("--model", type=click.Choice(sorted(compose.MODEL_OPTIONS)), default="kafka",
                  show_default=True, help="kafka: hwcheck's model; tla: the public TLA+ spec."),
    click.option("--replicas", type=click.IntRange(1, MAX_REPLICAS), default=None,
                  help=f"Replication factor N [kafka: {DEFAULTS.replicas}, tla: {TLA.replicas}; tla at most {TLA_MAX_REPLICAS}]."),
    click.option("--truncation", default=None, metavar="VARIANT",
                  help="Protocol variant. kafka: " + ", ".join(TRUNCATION_VARIANTS)
                  + " ('epoch' is kip320), or one of your own (--variant-file, entry points); "
                    "tla: " + ", ".join(TLA_VARIANTS) + " [kip320]; see 'hwcheck list'."),
    click.option("--max-records", type=click.IntRange(min=0), default=None,
                  help=f"Records produced over the whole run [{DEFAULTS.max_records}]."),
    click.option("--max-epoch", type=click.IntRange(min=0), default=None,
                  help=f"Largest leader epoch [kafka: {DEFAULTS.max_epoch}, tla: {TLA.max_epoch}]."),
    click.option("--max-crashes", type=click.IntRange(min=0), default=None,
                  help=f"Broker crashes over the whole run (kafka) [{DEFAULTS.max_crashes}]."),
    click.option("--min-isr", type=click.IntRange(min=1), default=None,
                  help=f"min.insync.replicas, acks=all (kafka) [{DEFAULTS.min_isr}]."),
    click.option("--unclean/--clean", default=None,
                  help="unclean.leader.election.enable (kafka) [clean]."),
    *PROTOCOL_FLAGS,
    click.option("--log-size", type=click.IntRange(min=0), default=None,
                  help=f"LogSize: slots per log (tla) [{TLA.log_size}]."),
    click.option("--invariant", "names", multiple=True, metavar="NAME",
                  help="Check only this property (repeatable; default all). See 'hwcheck list'."),
)
"""The model and property flags that ``explore`` and ``graph`` share."""


PROTOCOL_KEYS = ("with_mechanisms", "without_mechanisms", "max_unclean_shutdowns", "flush",
                 "acks", "variant_file")
"""The model flags a command receives as keyword arguments (``protocol_from``)."""


def protocol_from(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Pop the ``PROTOCOL_KEYS`` flags out of a command's ``kwargs``; an empty ``--with`` /
    ``--without`` list becomes None (the model's default)."""
    flags = {key: kwargs.pop(key, None) for key in PROTOCOL_KEYS}
    if flags["variant_file"] is not None:  # reports and traces record where it was
        flags["variant_file"] = str(Path(flags["variant_file"]).resolve())
    return {key: (value or None) if isinstance(value, tuple) else value
            for key, value in flags.items()}


def bounds(replicas=None, truncation=None, max_records=None, max_epoch=None,
            max_crashes=None, min_isr=None, unclean=None, log_size=None, **protocol) -> dict:
    """The model options as ``compose.make_config`` takes them (None: the model's default);
    ``protocol`` holds ``PROTOCOL_KEYS`` values (see ``protocol_from``)."""
    return {"replicas": replicas, "truncation": truncation, "max_records": max_records,
            "max_epoch": max_epoch, "max_crashes": max_crashes, "min_isr": min_isr,
            "unclean_election": unclean, "log_size": log_size,
            **{key: protocol.get(key) for key in PROTOCOL_KEYS}}


def with_options(options):
    """A decorator adding the click ``options`` (in order) to a command."""

    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


model_options = with_options(MODEL_FLAGS)
"""Decorate a click command with ``MODEL_FLAGS``."""


def _conf_pairs(ctx, param, values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values:
        key, sep, setting = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r} is not KEY=VALUE", ctx=ctx, param=param)
        pairs.append((key.strip(), setting))
    return tuple(pairs)


SYMMETRY_OPTION = click.option(
    "--symmetry/--no-symmetry", default=None,
    help="Explore one state per orbit of replica renamings (exact; traces stay concrete) "
         "[kafka: on, tla: off, so counts are TLC's].")

JOB_OPTIONS = (
    click.option("--workers", type=click.IntRange(min=1), default=None, metavar="N",
                 help="Threads (compiled core) or processes (reference core) for the local "
                      "engine; same answers as 1 [every core: "
                      f"{os.cpu_count() or 1}]."),
    click.option("--engine", type=click.Choice(["local", "spark"]), default="local",
                 show_default=True,
                 help="local: this machine (see --core, --workers); spark: frontier split across "
                      "Spark partitions (same answers)."),
    click.option("--master", default=None, metavar="URL",
                 help="Spark master (spark engine) [local[*]; under spark-submit, its own]."),
    click.option("--partitions", type=click.IntRange(min=1), default=None,
                 help="Fingerprint partitions P (spark engine) [the cores Spark has]."),
    click.option("--spark-conf", "spark_conf", multiple=True, metavar="KEY=VALUE",
                 callback=_conf_pairs, help="A Spark setting (repeatable)."),
)
"""Where the work runs: local workers or Spark (``explore``, ``simulate``)."""

ENGINE_OPTIONS = (
    SYMMETRY_OPTION,
    CORE_OPTION,
    *JOB_OPTIONS,
    click.option("--spark-min-frontier", type=click.IntRange(min=0), default=20_000,
                 show_default=True, metavar="STATES",
                 help="Levels with a smaller frontier run in the driver (0: all on Spark)."),
    click.option("--work-dir", default=None, metavar="DIR",
                 help="Folder for the Spark engine's level files; on a cluster, a path every "
                      "executor sees [a temporary folder, deleted after the run]."),
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
    defaults = {"master": None, "partitions": None, "spark_conf": (),
                "spark_min_frontier": 20_000, "work_dir": None, "spark_ui": False}
    flags = {key: kwargs.pop(key, default) for key, default in defaults.items()}
    if name == "local":
        given = [key for key in ("master", "partitions", "work_dir") if flags[key]]
        given += ["spark_conf"] if flags["spark_conf"] else []
        given += ["spark_ui"] if flags["spark_ui"] else []
        if given:
            option = "--" + given[0].replace("_", "-")
            raise click.UsageError(f"{option} applies only to --engine spark")
        return Engine(symmetry=symmetry, workers=workers or pool.default_workers(),
                      core=core)
    if workers is not None:
        raise click.UsageError("--workers applies only to --engine local (Spark: --partitions)")
    from checker.spark.session import SparkOptions

    return Engine("spark", SparkOptions(
        master=flags["master"], partitions=flags["partitions"], conf=flags["spark_conf"],
        min_frontier=flags["spark_min_frontier"], work_dir=flags["work_dir"],
        ui=flags["spark_ui"]), symmetry=symmetry, core=core)


def config(model: str, given: dict[str, Any]) -> Any:
    """``compose.make_config``, with errors as click usage errors."""
    try:
        return compose.make_config(model, given)
    except compose.OptionError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{exc.option}'") from None


def choose(props: list, names: tuple[str, ...]) -> list:
    """``compose.choose``, with an unknown name as a click usage error."""
    try:
        return compose.choose(props, names)
    except KeyError as exc:
        known = ", ".join(p.name for p in props if p.kind != "sometimes")
        raise click.BadParameter(f"unknown property {exc.args[0]!r}; known: {known}",
                                 param_hint="'--invariant'") from None


def build(model: str, given: dict[str, Any]) -> tuple[Any, Any, list]:
    """``(config, spec, every property)`` of the model built from the options ``given``.

    Raises ``click.BadParameter`` for options or bounds the model rejects.
    """
    cfg = config(model, given)
    try:
        spec, props = compose.build_model(model, cfg)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{exc.option}'") from None
    return cfg, spec, props


@checkpoints.refusing
def run(model: str, given: dict[str, Any], names, limits: Limits, on_progress=None,
        engine: Engine = Engine(), plan: checkpoints.Plan | None = None,
        checkpoint_at=None):
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
    save = checkpoints.save_options(plan, checkpoint_at, spec,
                                    (model, cfg, tuple(names), chosen, symmetry, limits))
    if engine.name == "local":
        core = checkpoints.local_core(save, engine.core)
        result, why = cores.compiled(spec, chosen, limits, on_progress, symmetry, core,
                                     engine.workers, save)
        if result is not None:
            return spec, result
        if engine.workers <= 1:
            result = explore(spec, chosen, limits, on_progress, symmetry, save)
        else:
            result = pool.explore(recipe, engine.workers, limits, on_progress, symmetry,
                                  saving=save)
        result.stats.core = f"reference ({why})"
        return spec, result
    from checker.spark import engine as spark_engine

    core, why = cores.for_partitions(spec, chosen, engine.core)
    try:
        result = spark_engine.explore(recipe, limits, on_progress, engine.spark, symmetry, core,
                                      save)
        result.stats.core = core if core == "compiled" else f"reference ({why})"
        return spec, result
    except spark_engine.SparkUnavailable as exc:
        spark_engine.session.failed()  # keep spark.log, which the message names
        click.echo(f"Error: the Spark engine cannot run: {exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)

