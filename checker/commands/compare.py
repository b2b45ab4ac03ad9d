"""``hwcheck compare``: every variant, one matrix, one Ctrl-C.

It shows progress on stderr (``checker.commands.batch``); one Ctrl-C ends the whole command,
prints what was done marked as partial, and exits 3. Exit codes are README's: 0 whatever the
matrix's cells say (12 with ``--fail-on-violation`` when a cell is violated), 75 when a
variant's spec raised, 3 interrupted. ``hwcheck gate`` is
``checker.commands.gate``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from checker.commands import batch, checkpoints, cores, versions
from checker.commands.checkpoint_flags import CHECKPOINT_FLAGS
from checker.commands.engines import engine_from, engine_options, run
from checker.commands.options import (
    MODEL_FLAG,
    PROTOCOL_FLAGS,
    bounds,
    build,
    protocol_from,
    with_options,
)
from checker.commands.values import Integer, Seconds
from checker.composition import compose
from checker.composition.compose import MODEL_OPTIONS
from checker.formats import report
from checker.limits import Limits, interruption
from checker.renderers import matrix, notes, terminal
from checker.result import (
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_SPEC_ERROR,
    EXIT_VIOLATED,
    Status,
)
from spec.bounds import ConfigError
from spec.kafka.config import Config
from spec.kafka.variants import BUILTIN_PRESETS, KIP_PRESETS, PRESETS, RELEASE_PRESETS
from spec.tla.config import TLA_VARIANTS


@click.command(name="compare")
@click.option(
    "--model",
    type=click.Choice(sorted(MODEL_OPTIONS)),
    default="kafka",
    show_default=True,
    help="Which model's variants to compare.",
)
@MODEL_FLAG["replicas"]
@MODEL_FLAG["max_records"]
@MODEL_FLAG["max_epoch"]
@MODEL_FLAG["max_crashes"]
@click.option(
    "--min-isr",
    "min_isrs",
    type=Integer(min=1),
    multiple=True,
    help="min.insync.replicas (kafka); repeat to cross the matrix with each value.",
)
@MODEL_FLAG["log_size"]
@MODEL_FLAG["unclean"]
@click.option(
    "--cross-unclean",
    is_flag=True,
    help="Run every variant with unclean leader election off and on (kafka).",
)
@with_options(PROTOCOL_FLAGS)
@click.option(
    "--time-limit",
    type=Seconds(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Per variant.",
)
@click.option(
    "--kips",
    is_flag=True,
    help="Compare the presets named for KIPs (hw, kip101, kip279, kip320, kip966) instead of "
    "the Kafka releases (kafka). Your own variants come after either.",
)
@click.option(
    "--releases",
    "releases",
    type=versions.Releases(),
    multiple=True,
    metavar="VERSIONS",
    help="Compare only these Kafka versions, comma-separated or repeated (3.4.0,3.6.1,4.1.0): "
    "each runs the release preset that models it, in a column named as you wrote it (kafka).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the matrix as JSON.")
@click.option("--markdown", is_flag=True, help="Print the matrix as a markdown table.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the reports [default: reports/compare-<model>-<time>].",
)
@click.option("--no-progress", is_flag=True, help="No progress display on stderr.")
@click.option(
    "--fail-on-violation",
    is_flag=True,
    help="Exit 12 when any cell is violated (default: exit 0, the matrix is the "
    "answer; for scripts that gate on it).",
)
@engine_options
@with_options(CHECKPOINT_FLAGS)
def compare_cmd(
    model: str,
    replicas: int | None,
    max_records: int | None,
    max_epoch: int | None,
    max_crashes: int | None,
    min_isrs: Any,
    log_size: int | None,
    unclean: bool | None,
    cross_unclean: Any,
    time_limit: float | None,
    kips: bool,
    releases: Any,
    as_json: bool,
    markdown: Any,
    out: Any,
    no_progress: bool,
    fail_on_violation: Any,
    **engine_flags: Any,
) -> None:
    """Run every truncation variant and print a variant × property matrix.

    For the kafka model the columns are the Kafka releases that changed replication, from
    kafka-0.10 to kafka-4.1 (--kips: the presets named for KIPs instead; --releases: the
    versions you name), and a line under the matrix names, per release column with a ✗, the
    KIP or ticket behind it and the versions that fixed it. --with / --without
    change every preset alike (a column per preset, named by the result: ``kip101
    +fenced-fetch``)."""
    protocol = protocol_from(engine_flags)
    plan = checkpoints.plan_from(engine_flags)
    engine = engine_from(engine_flags)
    asked = _asked(model, kips, releases)
    variants = (
        (tuple(asked) or _kafka_presets(protocol.get("variant_file"), kips))
        if model == "kafka"
        else TLA_VARIANTS
    )
    folder = out or plan.earlier() or Path("reports") / f"compare-{model}-{report.stamp()}"
    runs, built = [], []
    for min_isr in min_isrs or (None,):
        for switch in (False, True) if cross_unclean else (unclean,):
            for variant in variants:
                shown = switch if cross_unclean else None
                switches = {
                    k: v for k, v in (("unclean", shown), ("min_isr", min_isr)) if v is not None
                }
                given = bounds(
                    replicas,
                    variant,
                    max_records,
                    max_epoch,
                    max_crashes,
                    min_isr,
                    switch,
                    log_size,
                    **protocol,
                )
                _, spec, _ = build(model, given)  # a bad bound fails before any run starts
                runs.append((compose.variant_of(spec), switches, given, spec.config_dict()))
                built.append((_model_identity(spec), spec))
    cores.warn_if_stale(engine.core)
    cells, stop = [], batch.Interrupt()
    answers: dict[Any, Any] = {}  # a model's result, for a later column of the same model
    with batch.progress(len(runs), "variant", not no_progress) as board:
        try:
            for (variant, switches, given, config), (identity, built_spec) in zip(
                runs, built, strict=True
            ):
                board.begin(matrix.title(variant, switches))
                key = "-".join([report.slug(variant)] + [f"{k}{v}" for k, v in switches.items()])
                same_as = ""
                if identity is not None and identity in answers:
                    spec = built_spec  # built above, to refuse a bad bound before any run
                    same_as, result = answers[identity]
                else:
                    spec, result = run(
                        model,
                        given,
                        (),
                        Limits(time_limit=time_limit),
                        board.search,
                        engine,
                        plan,
                        lambda spec, key=key: (plan.folder(folder, key), True),
                    )
                    if identity is not None and not checkpoints.partial(result):
                        answers[identity] = (matrix.title(variant, switches), result)
                where = folder / key
                batch.write_reports(where, spec, result)
                asks = asked.get(variant, ())
                cells.append(
                    matrix.Cell(variant, switches, result, str(where), asks, config, same_as)
                )
                board.done()
                if stop.cut(result):
                    break
        except KeyboardInterrupt:
            stop.caught()
    if as_json:
        document = matrix.compare_json(cells)
        document["partial"] = stop.hit
        click.echo(json.dumps(document, indent=1))
    elif markdown:
        click.echo(matrix.compare_markdown(cells), nl=False)
        if stop.hit:
            click.echo(
                f"\n_Partial: {interruption()} during variant {board.index} of {len(runs)}._"
            )
    else:
        terminal.stdout_console().print(matrix.compare_table(cells))
        for line in notes.lines(cells, model == "kafka" and not kips):
            click.echo(line)
        for line in notes.tickets(cells, model == "kafka" and not kips):
            click.echo(line)
        for cell in (c for c in cells if c.same_as):
            click.echo(
                f"{cell.title} runs {cell.same_as}'s model (the same truncation rule and "
                "switches): explored once, shown in both columns."
            )
        click.echo(f"Reports and traces: {folder}/")
    if stop.hit:
        click.echo(stop.line(board.index, len(runs), "variant"), err=True)
    checkpoints.finish(
        plan,
        stop.hit or any(checkpoints.partial(c.result) for c in cells),
        "compare",
        same_flags=True,
        reports=folder,
    )
    if stop.hit:
        sys.exit(EXIT_INCOMPLETE)
    if any(c.result.status == Status.ERROR for c in cells):
        sys.exit(EXIT_SPEC_ERROR)
    violated = any(c.result.status == Status.VIOLATED for c in cells)
    sys.exit(EXIT_VIOLATED if violated and fail_on_violation else EXIT_OK)


def _asked(model: str, kips: bool, releases: Any) -> dict[str, tuple[str, ...]]:
    """The release presets ``--releases`` names (``versions.Releases``' pairs), in the order
    first asked, each with the versions written for it; each mapped version said once on
    stderr (``versions.say_preset``). Raises ``click.UsageError`` with ``--kips`` or
    ``--model tla``."""
    if not releases:
        return {}
    if kips or model != "kafka":
        raise click.UsageError("--releases compares Kafka releases: not with --kips or --model tla")
    asked: dict[str, tuple[str, ...]] = {}
    for text, preset in (pair for value in releases for pair in value):
        if text not in asked.get(preset, ()):
            asked[preset] = asked.get(preset, ()) + (text,)
        versions.say_preset(model, text, preset)
    return asked


def _kafka_presets(variant_file: str | None, kips: bool) -> tuple[str, ...]:
    """The release presets (``kips``: the KIP-named ones), then the team's own (entry points,
    ``variant_file``). Raises ``click.BadParameter`` when one fails to load."""
    try:
        Config(variant_file=variant_file).load_variants()
    except ConfigError as error:
        raise click.BadParameter(str(error), param_hint="--variant-file") from None
    own = tuple(name for name in PRESETS if name not in BUILTIN_PRESETS)
    return (KIP_PRESETS if kips else RELEASE_PRESETS) + own


def _model_identity(spec: Any) -> Any:
    """What makes two columns one model: a kafka spec's truncation rule and switches
    (``Variant.mechanisms``) and its bounds but the preset's name, so that kafka-4.0, which
    runs kafka-3.7's rules, is explored once and shown twice. None for a model whose
    variants are all distinct (the TLA+ port's)."""
    variant = getattr(spec, "variant", None)
    if variant is None:
        return None
    config = {k: v for k, v in spec.config_dict().items() if k != "truncation"}
    return (variant.mechanisms, json.dumps(config, sort_keys=True, default=str))
