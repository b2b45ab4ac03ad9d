"""The ``hwcheck`` command line (click): ``explore`` and ``list``.

This module composes everything: the generic engine (``checker``), the models (``spec``) and
their properties (``invariants``). Exit codes are documented in README.md and
``checker.result``; a user mistake never prints a traceback.
"""

from __future__ import annotations

import dataclasses
import signal
import sys
from pathlib import Path

import click
from rich.console import Console

from checker import __version__
from checker.bfs import Limits
from checker.limits import interrupted, received, signal_name
from checker.result import EXIT_OK
from checker.view import (
    batch,
    checkpoints,
    compare_gate,
    cores,
    gate_run,
    graph_cmd,
    listing,
    report,
    shown,
    terminal,
    trace_commands,
)
from checker.view import progress as progress_view
from checker.view import simulate as simulate_view
from checker.view.compose import build_model
from checker.view.run import (
    bounds,
    engine_from,
    engine_options,
    model_options,
    protocol_from,
    run,
    with_options,
)
from checker.view.web.serve import serve_cmd
from spec.kafka import Config, ConfigError
from spec.tla import TlaConfig

DEFAULTS = Config()
TLA = TlaConfig()


class _Commands(click.Group):
    """A group whose ``--help`` lists each command with its first sentence whole (click cuts
    it at the terminal's width with "...")."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, _first_sentence(command.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _first_sentence(text: str) -> str:
    """The first sentence of a command's help, on one line."""
    words = " ".join(text.split("\n\n")[0].split())
    head, dot, _ = words.partition(". ")
    return head + "." if dot else words


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hwcheck")
def cli() -> None:
    """hwcheck: an explicit-state model checker for Kafka's replication protocol."""


@cli.command(name="explore")
@model_options
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
@shown.SHOW_OPTION
@engine_options
@with_options(checkpoints.CHECKPOINT_FLAGS)
@click.pass_context
def explore_cmd(ctx, model, replicas, truncation, max_records, max_epoch, max_crashes, min_isr,
                unclean, log_size, names, max_depth, time_limit, stop_on_first, as_json, out,
                no_progress, show, **flags) -> None:
    """Explore every interleaving and check the invariants."""
    given = bounds(replicas, truncation, max_records, max_epoch, max_crashes, min_isr, unclean,
                    log_size, **protocol_from(flags))
    limits = Limits(max_depth=max_depth, time_limit=time_limit, stop_on_first=stop_on_first)
    plan = checkpoints.plan_from(flags)
    engine = engine_from(flags)
    if plan.resuming:
        default = ctx.get_parameter_source("model") == click.core.ParameterSource.DEFAULT
        model, given, names, limits, symmetry = checkpoints.resumed(
            plan.base, None if default else model, given, names, limits, engine.symmetry)
        engine = dataclasses.replace(engine, symmetry=symmetry)
    if engine.core == "compiled":
        cores.warn_if_stale()  # before the progress display starts
    folders: list[Path] = []

    def checkpoint_at(spec) -> tuple[Path, bool]:
        folders.append(out or Path("reports") / report.run_id(spec))
        work_dir = engine.spark.work_dir if engine.spark is not None else None
        return plan.folder(folders[0], "", work_dir), False

    with progress_view.for_search(enabled=not no_progress) as on_progress:
        spec, result = run(model, given, names, limits, on_progress, engine, plan,
                           checkpoint_at)
    if interrupted(result.reason):
        click.echo(f"Interrupted ({signal_name()}): the results below are partial.", err=True)
    folder = folders[0] if folders else out or Path("reports") / report.run_id(spec)
    summary = batch.write_reports(folder, spec, result)
    terminal.print_run(spec, result, summary, folder, as_json, show)
    checkpoints.finish(plan, checkpoints.partial(result), "explore")
    sys.exit(result.exit_code)


@cli.command(name="list")
@click.option("--variant-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, metavar="RULES.PY", help="List your own rules and variants too.")
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


cli.add_command(compare_gate.compare_cmd)
cli.add_command(graph_cmd.graph_cmd)
cli.add_command(gate_run.gate_cmd)
cli.add_command(trace_commands.show_cmd)
cli.add_command(trace_commands.replay_cmd)
cli.add_command(simulate_view.simulate_cmd)
cli.add_command(serve_cmd)


def main() -> None:
    """Console-script entry point; exits with the documented codes. SIGTERM (what CI runners
    and schedulers send) ends a command as one Ctrl-C does: partial results marked partial,
    workers and JVM stopped, exit 3; a second SIGTERM ends the process at once."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        cli.main(prog_name="hwcheck", standalone_mode=True)
    except KeyboardInterrupt:  # outside the search (which handles Ctrl-C itself)
        click.echo("interrupted", err=True)
        sys.exit(3)
    finally:
        _close_spark()
    sys.exit(EXIT_OK)


def _terminated(signum: int, frame: object) -> None:
    """The SIGTERM handler: the next SIGTERM gets the default action (end at once); this one
    becomes the KeyboardInterrupt every command already handles as one Ctrl-C."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    received.append("SIGTERM")
    raise KeyboardInterrupt


def _close_spark() -> None:
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


if __name__ == "__main__":
    main()
