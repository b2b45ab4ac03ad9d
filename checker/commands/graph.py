"""``hwcheck graph``: the reachable state graph (``checker.renderers.graph``) of a small
configuration, or one counterexample with its neighbourhood (``--trace``), written as DOT or
GraphML. Exit codes are README's: 2 a usage error or a graph above ``--max-states``, 4 a bad
trace file, 5 a file that cannot be written, 75 the spec raised.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from checker.commands.engines import SYMMETRY_OPTION, Engine, run
from checker.commands.options import bounds, build, model_options, protocol_from
from checker.commands.values import Integer
from checker.formats import tracefile
from checker.limits import Limits
from checker.renderers import graph as graph_view
from checker.renderers.steps import counted
from checker.result import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EXIT_SPEC_ERROR, Status
from checker.symmetry import SymmetryError, for_spec

TRACE_PARAMS = ("trace_file", "radius", "form", "out", "max_states", "variant_file")
"""The options that go with ``--trace``; every other one (the model flags, ``--symmetry``)
the trace replaces, since it names its model and bounds (but not the code of a variant file
it names, which only the user can vouch for)."""


@click.command(name="graph")
@model_options
@SYMMETRY_OPTION
@click.option(
    "--trace",
    "trace_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    metavar="TRACE.JSON",
    help="Draw this counterexample and the states within --radius actions of it "
    "(its model and bounds come from the trace) instead of the whole graph.",
)
@click.option(
    "--radius",
    type=Integer(min=0),
    default=1,
    show_default=True,
    metavar="K",
    help="With --trace: actions away from the trace to draw.",
)
@click.option(
    "--format",
    "form",
    type=click.Choice(["dot", "graphml"]),
    default="dot",
    show_default=True,
    help="DOT (Graphviz) or GraphML.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The file to write.",
)
@click.option(
    "--max-states",
    type=Integer(min=1),
    default=20_000,
    show_default=True,
    help="Refuse to draw a graph with more nodes than this (states, or orbits with --symmetry).",
)
def graph_cmd(
    model: str,
    replicas: int | None,
    truncation: str | None,
    max_records: int | None,
    max_epoch: int | None,
    max_crashes: int | None,
    min_isr: int | None,
    unclean: bool | None,
    log_size: int | None,
    names: tuple[str, ...],
    symmetry: Any,
    trace_file: Any,
    radius: Any,
    form: Any,
    out: Any,
    max_states: Any,
    **flags: Any,
) -> None:
    """Write the reachable state graph, each shortest counterexample marked; or, with
    --trace, one counterexample and its neighbourhood.

    The whole graph has one node per state (no symmetry, so its count is explore
    --no-symmetry's); --symmetry draws one node per orbit, as explore counts by default."""
    ctx = click.get_current_context()
    if trace_file is not None:
        options = [
            param.opts[0]
            for param in ctx.command.params
            if param.name not in TRACE_PARAMS
            and ctx.get_parameter_source(param.name) == ParameterSource.COMMANDLINE
        ]
        if options:
            raise click.UsageError(
                f"{options[0]} does not go with --trace: the trace names its model and bounds"
            )
        drawn, what = _neighbourhood(trace_file, radius, max_states, flags.get("variant_file"))
    else:
        if ctx.get_parameter_source("radius") == ParameterSource.COMMANDLINE:
            raise click.UsageError("--radius applies only with --trace")
        given = bounds(
            replicas,
            truncation,
            max_records,
            max_epoch,
            max_crashes,
            min_isr,
            unclean,
            log_size,
            **protocol_from(flags),
        )
        drawn, what = _whole(model, given, names, bool(symmetry), max_states)
    try:
        graph_view.write(drawn, out, form)
    except OSError as exc:
        click.echo(f"Error: cannot write {out}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    nodes = counted(drawn.number_of_nodes(), "orbit" if symmetry else "state")
    click.echo(f"Wrote {out}: {nodes}, {counted(drawn.number_of_edges(), 'transition')}; {what}")


def _too_large(max_states: int, symmetry: bool) -> click.UsageError:
    counts = (
        "orbits (--symmetry)"
        if symmetry
        else "states, counted without symmetry (explore counts orbits; --symmetry draws one "
        "node per orbit)"
    )
    return click.UsageError(
        f"the graph has more than --max-states {max_states:,} {counts}: "
        "raise it, lower the bounds, or draw one counterexample with "
        "--trace"
    )


def _whole(model: Any, given: Any, names: Any, symmetry: bool, max_states: int) -> Any:
    """``(graph, what was marked)``: every reachable state (or orbit), the shortest
    counterexamples marked."""
    _, spec, props = build(model, given)
    canonical = None
    if symmetry:
        try:
            canonical = for_spec(spec, props).canonical
        except SymmetryError as exc:
            raise click.UsageError(str(exc)) from None
    try:  # first the graph, which stops as soon as it passes the limit
        drawn = graph_view.state_graph(spec, max_states, canonical)
    except graph_view.TooLarge:
        raise _too_large(max_states, symmetry) from None
    spec, result = run(model, given, names, Limits(), engine=Engine(symmetry=False))
    if result.status == Status.ERROR:
        click.echo(f"Error: {result.reason}", err=True)
        sys.exit(EXIT_SPEC_ERROR)
    graph_view.mark(drawn, result, canonical)
    marked = ", ".join(f"{v.prop.name} ({v.length} states)" for v in result.violations)
    return drawn, f"counterexamples marked: {marked or 'none (every property holds)'}"


def _neighbourhood(path: Path, radius: int, max_states: int, variant_file: Any) -> Any:
    """``(graph, what was drawn)`` for ``--trace``: the trace replayed on this model (with
    the user's ``--variant-file`` for one that names a variant file), then every state within
    ``radius`` actions of it."""
    try:
        document = tracefile.load(path, variant_file)
        spec, violation = tracefile.replay(path, document)
    except tracefile.TraceFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    steps = [(step.label, step.state) for step in violation.trace]
    try:
        drawn = graph_view.neighbourhood(spec, steps, violation.prop.name, radius, max_states)
    except graph_view.TooLarge:
        raise _too_large(max_states, False) from None
    return drawn, (
        f"{violation.prop.name}'s {violation.length}-state counterexample marked, "
        f"with every state within {counted(radius, 'action')} of it"
    )
