"""The ``hwcheck`` command line (click): ``explore`` and ``list``.

This module composes everything: the generic engine (``checker``), the models (``spec``) and
their properties (``invariants``). Exit codes are documented in README.md and
``checker.result``; a user mistake never prints a traceback.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console

from checker import __version__, gate
from checker.bfs import Limits, explore
from checker.result import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EXIT_OK, EXIT_SPEC_ERROR, Status
from checker.view import graph as graph_view
from checker.view import listing, matrix, report, terminal, trace_commands
from checker.view import progress as progress_view
from checker.view import simulate as simulate_view
from checker.view.compose import MODEL_OPTIONS, build_model
from checker.view.run import Engine, bounds, build, engine_from, engine_options, model_options, run
from spec.kafka import Config
from spec.kafka.config import MAX_REPLICAS, TRUNCATION_VARIANTS
from spec.tla import TlaConfig
from spec.tla.config import TLA_VARIANTS

DEFAULTS = Config()
TLA = TlaConfig()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hwcheck")
def cli() -> None:
    """hwcheck: an explicit-state model checker for Kafka's replication protocol."""


def _write(folder: Path, spec, result) -> dict:
    """``report.write_run``, or exit 5 with one message when the folder cannot be written."""
    try:
        return report.write_run(folder, spec, result)
    except OSError as exc:
        click.echo(f"Error: cannot write the reports to {folder}: {exc.strerror or exc}",
                   err=True)
        sys.exit(EXIT_ENVIRONMENT)


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
@engine_options
def explore_cmd(model, replicas, truncation, max_records, max_epoch, max_crashes, min_isr,
                unclean, log_size, names, max_depth, time_limit, stop_on_first, as_json, out,
                no_progress, **engine_flags) -> None:
    """Explore every interleaving and check the invariants."""
    given = bounds(replicas, truncation, max_records, max_epoch, max_crashes, min_isr, unclean,
                    log_size)
    limits = Limits(max_depth=max_depth, time_limit=time_limit, stop_on_first=stop_on_first)
    engine = engine_from(engine_flags)
    with progress_view.for_search(enabled=not no_progress) as on_progress:
        spec, result = run(model, given, names, limits, on_progress, engine)
    folder = out or Path("reports") / report.run_id(spec, spec.config.truncation)
    summary = _write(folder, spec, result)
    terminal.print_run(spec, result, summary, folder, as_json)
    sys.exit(result.exit_code)


@cli.command(name="compare")
@click.option("--model", type=click.Choice(sorted(MODEL_OPTIONS)), default="kafka",
              show_default=True, help="Which model's variants to compare.")
@click.option("--replicas", type=click.IntRange(1, MAX_REPLICAS), default=None,
              help="Replication factor.")
@click.option("--max-records", type=click.IntRange(min=0), default=None)
@click.option("--max-epoch", type=click.IntRange(min=0), default=None)
@click.option("--max-crashes", type=click.IntRange(min=0), default=None, help="(kafka)")
@click.option("--min-isr", "min_isrs", type=click.IntRange(min=1), multiple=True,
              help="min.insync.replicas (kafka); repeat to cross the matrix with each value.")
@click.option("--log-size", type=click.IntRange(min=0), default=None, help="(tla)")
@click.option("--unclean/--no-unclean", default=None,
              help="unclean.leader.election.enable for every run (kafka) [off].")
@click.option("--cross-unclean", is_flag=True,
              help="Run every variant with unclean leader election off and on (kafka).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="Per variant.")
@click.option("--json", "as_json", is_flag=True, help="Print the matrix as JSON.")
@click.option("--markdown", is_flag=True, help="Print the matrix as a markdown table.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the reports [default: reports/compare-<model>-<time>].")
@engine_options
def compare_cmd(model, replicas, max_records, max_epoch, max_crashes, min_isrs, log_size,
                unclean, cross_unclean, time_limit, as_json, markdown, out,
                **engine_flags) -> None:
    """Run every truncation variant and print a variant × property matrix."""
    engine = engine_from(engine_flags)
    variants = TRUNCATION_VARIANTS if model == "kafka" else TLA_VARIANTS
    folder = out or Path("reports") / f"compare-{model}-{report.stamp()}"
    cells = []
    for min_isr in min_isrs or (None,):
        for switch in ((False, True) if cross_unclean else (unclean,)):
            for variant in variants:
                given = bounds(replicas, variant, max_records, max_epoch, max_crashes,
                                min_isr, switch, log_size)
                shown = switch if cross_unclean else None
                switches = {k: v for k, v in (("unclean", shown), ("min_isr", min_isr))
                            if v is not None}
                spec, result = run(model, given, (), Limits(time_limit=time_limit),
                                   engine=engine)
                where = folder / "-".join([variant] + [f"{k}{v}" for k, v in switches.items()])
                _write(where, spec, result)
                cells.append(matrix.Cell(variant, switches, result, str(where)))
    if as_json:
        click.echo(json.dumps(matrix.compare_json(cells), indent=1))
    elif markdown:
        click.echo(matrix.compare_markdown(cells), nl=False)
    else:
        Console(width=None if sys.stdout.isatty() else 160).print(matrix.compare_table(cells))
        click.echo(f"Reports and traces: {folder}/")
    errors = [c for c in cells if c.result.status == Status.ERROR]
    sys.exit(EXIT_SPEC_ERROR if errors else EXIT_OK)


@cli.command(name="gate")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("pyproject.toml"), show_default=True,
              help="TOML file with [[tool.hwcheck.gate]] checks.")
@click.option("--junit-xml", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a JUnit XML report here.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for reports of failing checks [default: reports/gate-<time>].")
@click.option("--fail-fast", is_flag=True,
              help="Stop at the first check that does not pass (the rest are not run).")
@engine_options
def gate_cmd(config_path, junit_xml, out, fail_fast, **engine_flags) -> None:
    """Run the checks of a gate configuration and judge them against their expectations."""
    engine = engine_from(engine_flags)
    try:
        checks = gate.load_checks(config_path)
    except gate.GateConfigError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    folder = out or Path("reports") / f"gate-{report.stamp()}"
    outcomes = []
    for index, check in enumerate(checks):
        given = {"truncation": check.truncation, **check.bounds}
        given["unclean_election"] = given.pop("unclean", None)
        try:
            chosen = engine if check.symmetry is None else replace(engine,
                                                                   symmetry=check.symmetry)
            # with --fail-fast a "holds" check ends at its first violation, as TLC does
            limits = Limits(time_limit=check.time_limit,
                            stop_on_first=fail_fast and check.violates is None)
            if check.mode == "simulate":
                spec, result = simulate_view.for_gate(check, given, engine)
            else:
                spec, result = run(check.model, given, check.invariants, limits, engine=chosen)
        except click.BadParameter as exc:
            click.echo(f"Error: {config_path}:{check.line}: gate check {index + 1}: "
                       f"{exc.format_message()}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        outcome = gate.judge(check, result)
        outcome.details = {v.prop.name: report.counterexample_text(v)
                           for v in result.violations}
        if outcome.status != gate.PASS:
            where = folder / re.sub(r"[^A-Za-z0-9_.-]+", "-", check.name)
            _write(where, spec, result)
            outcome.report = str(where)
        outcomes.append(outcome)
        if fail_fast and outcome.status != gate.PASS:
            break
    Console(width=None if sys.stdout.isatty() else 160).print(matrix.gate_table(outcomes))
    if len(outcomes) < len(checks):
        click.echo(f"--fail-fast: stopped after {len(outcomes)} of {len(checks)} checks")
    if junit_xml is not None:
        junit_xml.write_text(gate.junit_xml(outcomes), encoding="utf-8")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in gate.github_annotations(outcomes):
            click.echo(line)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(gate.markdown_summary(outcomes))
    sys.exit(gate.exit_code(outcomes))


@cli.command(name="list")
def list_cmd() -> None:
    """List models, truncation variants, actions, properties and default bounds."""
    console = Console()
    for model, config in (("kafka", DEFAULTS), ("tla", TLA)):
        spec, props = build_model(model, config)
        for table in listing.tables(spec, props):
            console.print(table)


@cli.command(name="graph")
@model_options
@click.option("--format", "form", type=click.Choice(["dot", "graphml"]), default="dot",
              show_default=True, help="DOT (Graphviz) or GraphML.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The file to write.")
@click.option("--max-states", type=click.IntRange(min=1), default=20_000, show_default=True,
              help="Refuse to draw a graph with more states than this.")
def graph_cmd(model, replicas, truncation, max_records, max_epoch, max_crashes, min_isr,
              unclean, log_size, names, form, out, max_states) -> None:
    """Write the full reachable state graph, each shortest counterexample marked."""
    given = bounds(replicas, truncation, max_records, max_epoch, max_crashes, min_isr, unclean,
                    log_size)
    _, spec, _ = build(model, given)
    counted = explore(spec, [])  # no property: the count of the whole reachable graph
    if counted.stats.distinct > max_states:
        raise click.UsageError(f"the graph would have {counted.stats.distinct:,} states, more "
                               f"than --max-states {max_states:,}: raise it or lower the bounds")
    spec, result = run(model, given, names, Limits(), engine=Engine(symmetry=False))
    if result.status == Status.ERROR:
        click.echo(f"Error: {result.reason}", err=True)
        sys.exit(EXIT_SPEC_ERROR)
    drawn = graph_view.state_graph(spec, result)
    try:
        graph_view.write(drawn, out, form)
    except OSError as exc:
        click.echo(f"Error: cannot write {out}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    marked = ", ".join(f"{v.prop.name} ({v.length} states)" for v in result.violations)
    click.echo(f"Wrote {out}: {drawn.number_of_nodes():,} states, "
               f"{drawn.number_of_edges():,} transitions; counterexamples marked: "
               f"{marked or 'none (every property holds)'}")


cli.add_command(trace_commands.show_cmd)
cli.add_command(trace_commands.replay_cmd)
cli.add_command(simulate_view.simulate_cmd)


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
