"""For the CLI (``checker/cli.py``): build a model from command-line options and run it on the chosen engine.

``engine_options`` adds the engine flags to a click command; ``run`` explores with the local
engine (``checker.bfs``) or the Spark engine (``checker.spark.engine``). Usage mistakes become
click errors (exit 2); a Spark that cannot run ends the process with one message, exit 5.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import click

from checker.bfs import Limits, explore
from checker.result import EXIT_ENVIRONMENT
from checker.view import compose
from spec.kafka import ConfigError


@dataclass(frozen=True)
class Engine:
    """The engine a command runs on: ``name`` (``local`` or ``spark``) and, for Spark, its
    ``checker.spark.session.SparkOptions``."""

    name: str = "local"
    spark: Any = None


def _conf_pairs(ctx, param, values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values:
        key, sep, setting = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r} is not KEY=VALUE", ctx=ctx, param=param)
        pairs.append((key.strip(), setting))
    return tuple(pairs)


ENGINE_OPTIONS = (
    click.option("--engine", type=click.Choice(["local", "spark"]), default="local",
                 show_default=True,
                 help="local: the in-process reference engine; spark: frontier split across "
                      "Spark partitions (same answers)."),
    click.option("--master", default=None, metavar="URL",
                 help="Spark master (spark engine) [local[*]; under spark-submit, its own]."),
    click.option("--partitions", type=click.IntRange(min=1), default=None,
                 help="Fingerprint partitions P (spark engine) [the cores Spark has]."),
    click.option("--spark-conf", "spark_conf", multiple=True, metavar="KEY=VALUE",
                 callback=_conf_pairs, help="A Spark setting (repeatable)."),
    click.option("--spark-min-frontier", type=click.IntRange(min=0), default=20_000,
                 show_default=True, metavar="STATES",
                 help="Levels with a smaller frontier run in the driver (0: all on Spark)."),
    click.option("--work-dir", default=None, metavar="DIR",
                 help="Folder for the Spark engine's level files; on a cluster, a path every "
                      "executor sees [a temporary folder, deleted after the run]."),
    click.option("--spark-ui", is_flag=True, help="Keep Spark's web UI on (off by default)."),
)


def engine_options(command):
    """Decorate a click command with the engine flags (they arrive as keyword arguments;
    turn them into an ``Engine`` with ``engine_from``)."""
    for option in reversed(ENGINE_OPTIONS):
        command = option(command)
    return command


def engine_from(kwargs: dict[str, Any]) -> Engine:
    """Pop the engine flags out of a command's ``kwargs``; return the ``Engine``.

    Raises ``click.UsageError`` when a Spark flag is given with ``--engine local``.
    """
    name = kwargs.pop("engine")
    flags = {key: kwargs.pop(key) for key in ("master", "partitions", "spark_conf",
                                              "spark_min_frontier", "work_dir", "spark_ui")}
    if name == "local":
        given = [key for key in ("master", "partitions", "work_dir") if flags[key]]
        given += ["spark_conf"] if flags["spark_conf"] else []
        given += ["spark_ui"] if flags["spark_ui"] else []
        if given:
            option = "--" + given[0].replace("_", "-")
            raise click.UsageError(f"{option} applies only to --engine spark")
        return Engine()
    from checker.spark.session import SparkOptions

    return Engine("spark", SparkOptions(
        master=flags["master"], partitions=flags["partitions"], conf=flags["spark_conf"],
        min_frontier=flags["spark_min_frontier"], work_dir=flags["work_dir"],
        ui=flags["spark_ui"]))


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


def run(model: str, given: dict[str, Any], names, limits: Limits, on_progress=None,
        engine: Engine = Engine()):
    """Build the model from the options ``given`` and explore it; return ``(spec, result)``.

    Raises ``click.BadParameter`` for options or bounds the model rejects; exits 5 with one
    message when the Spark engine cannot run here.
    """
    cfg, spec, props = build(model, given)
    chosen = choose(props, names)
    if engine.name == "local":
        return spec, explore(spec, chosen, limits, on_progress)
    from checker.spark import engine as spark_engine

    recipe = compose.Recipe(model, cfg, tuple(names))
    try:
        return spec, spark_engine.explore(recipe, limits, on_progress, engine.spark)
    except spark_engine.SparkUnavailable as exc:
        click.echo(f"Error: the Spark engine cannot run: {exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)
