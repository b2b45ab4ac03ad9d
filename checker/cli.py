"""The ``hwcheck`` command line (click): ``explore`` and ``list``.

This module composes everything: the generic engine (``checker``), the models (``spec``) and
their properties (``invariants``). Exit codes are documented in README.md and
``checker.result``; a user mistake never prints a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

import invariants
from checker import __version__
from checker.bfs import Limits, explore
from checker.properties import Property
from checker.result import EXIT_ENVIRONMENT, EXIT_OK, Status
from checker.view import progress as progress_view
from checker.view import report, terminal
from spec.kafka import Config, ConfigError, KafkaSpec
from spec.kafka.config import ALIASES, TRUNCATION_VARIANTS
from spec.kafka.model import ACTIONS
from spec.kafka.variants import VARIANTS
from spec.tla import TlaSpec
from spec.tla.typeok import type_ok_property

DEFAULTS = Config()


def build_model(model: str, config: Any) -> tuple[Any, list[Property]]:
    """The spec and every property it offers: ``kafka`` (``spec.kafka.Config``) or ``tla``
    (``spec.tla.TlaConfig``).

    Raises ``ConfigError`` for impossible bounds and ``ValueError`` for an unknown model.
    """
    if model == "kafka":
        spec = KafkaSpec(config)
        return spec, invariants.catalog(spec)
    if model == "tla":
        spec = TlaSpec(config)
        props = invariants.tla_catalog(spec)
        return spec, [*props[:1], type_ok_property(spec.config), *props[1:]]
    raise ValueError(f"unknown model {model!r}")


def _choose(props: list[Property], names: tuple[str, ...]) -> list[Property]:
    """The safety properties named (all if none) plus every "sometimes" guard."""
    safety = [p for p in props if p.kind != "sometimes"]
    try:
        chosen = invariants.select(safety, list(names))
    except KeyError as exc:
        known = ", ".join(p.name for p in safety)
        raise click.BadParameter(f"unknown property {exc.args[0]!r}; known: {known}",
                                 param_hint="'--invariant'") from None
    return chosen + [p for p in props if p.kind == "sometimes"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hwcheck")
def cli() -> None:
    """hwcheck: an explicit-state model checker for Kafka's replication protocol."""


@cli.command(name="explore")
@click.option("--replicas", type=click.IntRange(1, 5), default=DEFAULTS.replicas,
              show_default=True, help="Replication factor N (replica ids 0..N-1).")
@click.option("--truncation", type=click.Choice(TRUNCATION_VARIANTS + tuple(ALIASES),
                                                case_sensitive=False),
              default=DEFAULTS.truncation, show_default=True,
              help="Follower truncation rule; 'epoch' is kip320.")
@click.option("--max-records", type=click.IntRange(min=0), default=DEFAULTS.max_records,
              show_default=True, help="Records produced over the whole run.")
@click.option("--max-epoch", type=click.IntRange(min=0), default=DEFAULTS.max_epoch,
              show_default=True, help="Largest leader epoch (controller decisions - 1).")
@click.option("--max-crashes", type=click.IntRange(min=0), default=DEFAULTS.max_crashes,
              show_default=True, help="Broker crashes over the whole run.")
@click.option("--min-isr", type=click.IntRange(min=1), default=DEFAULTS.min_isr,
              show_default=True, help="min.insync.replicas (acks=all).")
@click.option("--unclean/--clean", default=DEFAULTS.unclean_election, show_default=True,
              help="unclean.leader.election.enable.")
@click.option("--invariant", "names", multiple=True, metavar="NAME",
              help="Check only this property (repeatable; default all). See 'hwcheck list'.")
@click.option("--max-depth", type=click.IntRange(min=1), default=None,
              help="Stop after this many BFS levels (initial state = 1): INCOMPLETE, exit 3.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="Stop after this many seconds: INCOMPLETE, exit 3.")
@click.option("--stop-on-first", is_flag=True,
              help="End at the first violation (default: find every violated property).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for summary.json and traces [default: reports/<run-id>].")
@click.option("--no-progress", is_flag=True, help="No progress display on stderr.")
def explore_cmd(replicas, truncation, max_records, max_epoch, max_crashes, min_isr, unclean,
                names, max_depth, time_limit, stop_on_first, as_json, out, no_progress) -> None:
    """Explore every interleaving and check the invariants."""
    config = Config(replicas, max_records, max_epoch, max_crashes, min_isr, unclean,
                    truncation.lower())
    try:
        spec, props = build_model("kafka", config)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{exc.option}'") from None
    chosen = _choose(props, names)
    limits = Limits(max_depth=max_depth, time_limit=time_limit, stop_on_first=stop_on_first)
    with progress_view.for_search(enabled=not no_progress) as on_progress:
        result = explore(spec, chosen, limits, on_progress)
    folder = out or Path("reports") / report.run_id(spec, spec.config.truncation)
    try:
        summary = report.write_run(folder, spec, result)
    except OSError as exc:
        click.echo(f"Error: cannot write the reports to {folder}: {exc.strerror or exc}",
                   err=True)
        sys.exit(EXIT_ENVIRONMENT)
    _print(spec, result, summary, folder, as_json)
    sys.exit(result.exit_code)


def _print(spec, result, summary, folder: Path, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(summary, indent=1))
        return
    console = Console(width=None if sys.stdout.isatty() else 120)
    for violation in result.violations:
        views = [spec.view(step.state) for step in violation.trace]
        terminal.print_violation(console, violation, views)
    title = f"hwcheck explore: model {spec.name}, truncation {spec.config.truncation}"
    console.print(terminal.summary_table(title, spec.config_dict(), result))
    console.print(terminal.verdict_table(result))
    console.print(terminal.coverage_table(result))
    console.print(f"Reports written to {folder}/")
    if result.status == Status.OK and spec.config.truncation == "kip320":
        console.print("Hint: the pre-0.11 protocol loses committed data; see it with "
                      "[bold]hwcheck explore --replicas 2 --truncation hw[/bold]")
    elif result.status == Status.VACUOUS:
        console.print("[yellow]Every invariant holds, but some behaviour was never reached: "
                      "raise the bounds before trusting the verdict.[/yellow]")


@cli.command(name="list")
def list_cmd() -> None:
    """List truncation variants, actions, properties and the default bounds."""
    console = Console()
    _, props = build_model("kafka", DEFAULTS)
    variants = Table(title="Truncation variants (--truncation)", title_justify="left")
    for column in ("variant", "Kafka", "fenced", "rule"):
        variants.add_column(column)
    for variant in VARIANTS.values():
        variants.add_row(variant.name, variant.kafka, "yes" if variant.fenced else "no",
                         variant.description)
    actions = Table(title="Actions", title_justify="left")
    actions.add_column("action")
    actions.add_column("what it does")
    for name, func in ACTIONS:
        actions.add_row(name, (func.__doc__ or "").strip().splitlines()[0])
    properties = Table(title="Properties (--invariant)", title_justify="left")
    for column in ("property", "kind", "description"):
        properties.add_column(column)
    for prop in props:
        properties.add_row(prop.name, prop.kind, prop.description)
    bounds = Table(title="Default bounds", title_justify="left")
    bounds.add_column("option")
    bounds.add_column("default")
    for key, value in DEFAULTS.to_dict().items():
        bounds.add_row("--" + key.replace("_", "-"), str(value))
    for table in (variants, actions, properties, bounds):
        console.print(table)


def main() -> None:
    """Console-script entry point; exits with the documented codes."""
    try:
        cli.main(prog_name="hwcheck", standalone_mode=True)
    except KeyboardInterrupt:  # outside the search (which handles Ctrl-C itself)
        click.echo("interrupted", err=True)
        sys.exit(3)
    sys.exit(EXIT_OK)



if __name__ == "__main__":
    main()
