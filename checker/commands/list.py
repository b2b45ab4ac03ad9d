"""``hwcheck list [TOPIC]``: a short summary of the models, their presets and properties, or
one topic of them in full (presets, mechanisms, actions, properties, fairness, bounds, all),
as tables (``checker.renderers.listing``, ``checker.renderers.overview``); ``--json`` prints
the whole catalog (``checker.formats.catalog``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from checker.commands.trusted import variant_file_option
from checker.composition.compose import build_model
from checker.formats import catalog
from checker.renderers import listing, overview
from spec.kafka import Config, ConfigError
from spec.tla import TlaConfig

DEFAULTS = Config()
TLA = TlaConfig()


@click.command(name="list")
@click.argument("topic", required=False, metavar="[TOPIC]", type=click.Choice(overview.TOPICS))
@click.option(
    "--model",
    "only",
    type=click.Choice(["kafka", "tla"]),
    default=None,
    help="List this model only [default: both].",
)
@variant_file_option("List your own rules and variants too.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the whole catalog as JSON (format hwcheck-catalog, "
    "checker/formats/catalog.schema.json); takes no TOPIC.",
)
def list_cmd(topic: str | None, only: str | None, variant_file: Path | None, as_json: bool) -> None:
    """List the models, their presets and properties in short, or one TOPIC in full: presets
    (with the Kafka versions each models, its other names and what it leaves out),
    mechanisms, actions, properties (with each liveness one's TLA+), fairness, bounds (the
    defaults and the range each one accepts), or all. The kafka model's presets are named
    for KIPs (hw ... kip966) and for the Kafka releases that changed replication (kafka-0.10
    ... kafka-4.1); your own variants come too (entry points of the group hwcheck.variants,
    or --variant-file)."""
    if as_json and (topic not in (None, "all") or only is not None):
        raise click.UsageError(
            "--json prints the whole catalog (format hwcheck-catalog): leave out TOPIC and "
            "--model, and pick from it with a JSON tool (jq '.models[0].presets')"
        )
    kafka = DEFAULTS
    if variant_file is not None:
        kafka = dataclasses.replace(DEFAULTS, variant_file=str(variant_file.resolve()))
    models = []
    for model, config in (("kafka", kafka), ("tla", TLA)):
        if only not in (None, model):
            continue
        try:
            models.append(build_model(model, config))
        except ConfigError as error:  # a broken --variant-file or entry point
            raise click.BadParameter(str(error), param_hint="--variant-file") from None
    if as_json:
        click.echo(json.dumps(catalog.document(models), indent=2))
        return
    console = Console()
    if topic is None:
        console.print(_summary(overview.summary_lines(models)))
        return
    for spec, props in models:
        chosen = listing.sections(spec, props)
        if topic != "all":
            chosen = listing.topics(spec, props)[topic]
            if topic == "presets" and spec.name == "kafka":
                chosen = [*chosen, overview.aliases(), overview.left_out()]
        if not chosen:
            console.print(Text(f"{spec.name} model: no {topic} (the kafka model has them)"))
        for table in listing.section_tables(chosen):
            console.print(table)


def _summary(lines: list[tuple[str, str]]) -> Table:
    """The summary as a two-column grid: a heading, then its text wrapped beside it."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for heading, text in lines:
        grid.add_row(Text(heading), Text(text))
    return grid
