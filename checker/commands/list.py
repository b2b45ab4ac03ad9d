"""``hwcheck list``: the models, their variants, mechanisms, actions, properties and default
bounds, as tables (``checker.renderers.listing``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click
from rich.console import Console

from checker.commands.trusted import variant_file_option
from checker.composition.compose import build_model
from checker.formats import catalog
from checker.renderers import listing
from spec.kafka import Config, ConfigError
from spec.tla import TlaConfig

DEFAULTS = Config()
TLA = TlaConfig()


@click.command(name="list")
@variant_file_option("List your own rules and variants too.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the catalog as JSON (format hwcheck-catalog, checker/formats/catalog.schema.json).",
)
def list_cmd(variant_file: Path | None, as_json: bool) -> None:
    """List models, variants, mechanisms, actions, properties and default bounds (your own
    variants too: entry points of the group hwcheck.variants, or --variant-file). The kafka
    model's presets are named for KIPs (hw ... kip966) and for the Kafka releases that
    changed replication (kafka-0.10 ... kafka-4.1)."""
    kafka = DEFAULTS
    if variant_file is not None:
        kafka = dataclasses.replace(DEFAULTS, variant_file=str(variant_file.resolve()))
    models = []
    for model, config in (("kafka", kafka), ("tla", TLA)):
        try:
            models.append(build_model(model, config))
        except ConfigError as error:  # a broken --variant-file or entry point
            raise click.BadParameter(str(error), param_hint="--variant-file") from None
    if as_json:
        click.echo(json.dumps(catalog.document(models), indent=2))
        return
    console = Console()
    for spec, props in models:
        for table in listing.tables(spec, props):
            console.print(table)
