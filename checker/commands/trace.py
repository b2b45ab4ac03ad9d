"""The CLI's trace commands, registered by ``checker/cli.py``: ``hwcheck show`` and
``hwcheck replay`` on trace files.

A missing, corrupt, truncated or wrong-version file, or a trace this model cannot reproduce,
ends in one message and exit code 4.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from checker.formats import report, tracefile
from checker.renderers import html, lasso, steps
from checker.renderers.terminal import stdout_console
from checker.result import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EXIT_OK

TRACE = click.argument("trace", type=click.Path(dir_okay=False, path_type=Path))


def _load(path: Path) -> dict[Any, Any]:
    try:
        return tracefile.load(path)
    except tracefile.TraceFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)


@click.command(name="show")
@TRACE
@click.option(
    "--step",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Show only state N (1 = the initial state).",
)
@click.option(
    "--changes-only", is_flag=True, help="In each state, show only the rows that changed."
)
@click.option(
    "--hide",
    multiple=True,
    type=click.Choice(steps.FIELDS),
    help="Hide a column or the controller line (repeatable).",
)
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the trace as a self-contained HTML page instead.",
)
def show_cmd(trace: Path, step: Any, changes_only: Any, hide: Any, html_out: Any) -> None:
    """Draw a counterexample trace (trace.json) state by state."""
    document = _load(trace)
    if html_out is not None:
        try:
            report.write_text(html_out, html.render(document))
        except OSError as exc:
            click.echo(f"Error: cannot write {html_out}: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_ENVIRONMENT)
        click.echo(f"Wrote {html_out}")
        sys.exit(EXIT_OK)
    if step is not None and step > document["length"]:
        raise click.BadParameter(
            f"the trace has {document['length']} states", param_hint="'--step'"
        )
    header = (
        f"[{document['model']} {document['variant']}, "
        + steps.config_text(document["config"])
        + "]"
    )
    steps.print_document(
        stdout_console(120), document, header, step=step, hide=hide, changes_only=changes_only
    )
    sys.exit(EXIT_OK)


@click.command(name="replay")
@TRACE
def replay_cmd(trace: Path) -> None:
    """Re-execute a trace's actions on this hwcheck's model and check every fingerprint."""
    document = _load(trace)
    try:
        _, violation = tracefile.replay(trace, document)
    except tracefile.TraceFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    name, loop = violation.prop.name, violation.loop
    where = "on the last state" if loop is None else "on this lasso"
    if not tracefile.still_violated(violation):
        click.echo(
            f"Error: {trace}: every fingerprint matches, but {name} holds {where} "
            "with this hwcheck: the property changed since the trace was written",
            err=True,
        )
        sys.exit(EXIT_BAD_INPUT)
    head = (
        f"{trace}: replayed {violation.length - 1} actions from the initial state; all "
        f"{violation.length} fingerprints match"
    )
    if loop is None:
        click.echo(f"{head} and the last state violates {name}.")
    else:
        click.echo(
            f"{head}; {lasso.closes(loop.back_to, loop.stutter, violation.length)}; "
            f"the lasso violates {name}."
        )
    sys.exit(EXIT_OK)
