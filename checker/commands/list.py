"""``hwcheck list``: the models, their variants, mechanisms, actions, properties and default
bounds, as tables (``checker.renderers.listing``)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
from rich.console import Console

from checker.models.compose import build_model
from checker.renderers import listing
from spec.kafka import Config, ConfigError
from spec.tla import TlaConfig

DEFAULTS = Config()
TLA = TlaConfig()


@click.command(name="list")
@click.option(
    "--variant-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    metavar="RULES.PY",
    help="List your own rules and variants too.",
)
def list_cmd(variant_file: Path | None) -> None:
    """List models, variants, mechanisms, actions, properties and default bounds (your own
    variants too: entry points of the group hwcheck.variants, or --variant-file)."""
    console = Console()
    kafka = DEFAULTS
    if variant_file is not None:
        kafka = dataclasses.replace(DEFAULTS, variant_file=str(variant_file.resolve()))
    for model, config in (("kafka", kafka), ("tla", TLA)):
        try:
            spec, props = build_model(model, config)
        except ConfigError as error:  # a broken --variant-file or entry point
            raise click.BadParameter(str(error), param_hint="--variant-file") from None
        for table in listing.tables(spec, props):
            console.print(table)
