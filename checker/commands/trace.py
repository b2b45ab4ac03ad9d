"""The CLI's trace commands, registered by ``checker/cli.py``: ``hwcheck show`` and
``hwcheck replay`` on trace files.

A missing, corrupt, truncated or wrong-version file, or a trace this model cannot reproduce
(an action not enabled, another fingerprint, a property that no longer fails; for ``show``
also a state drawn otherwise than the model draws it, or an aftermath that does not follow),
ends in one message and exit code 4. ``show --no-check`` draws the file unchecked and says so.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click
from rich.text import Text

from checker.commands.trusted import variant_file_option
from checker.commands.values import Integer
from checker.formats import report, tracefile
from checker.formats.retell import retold
from checker.renderers import html, lasso, steps
from checker.renderers.terminal import stdout_console
from checker.result import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EXIT_OK, Violation

TRACE = click.argument("trace", type=click.Path(dir_okay=False, path_type=Path))
VARIANT_FILE = variant_file_option(
    "The variant file of a trace made with one (kafka). A trace only names it: "
    "hwcheck runs a variant file only when you name it here."
)


def _load(path: Path, variant_file: Path | None = None) -> dict[Any, Any]:
    try:
        return tracefile.load(path, variant_file)
    except tracefile.TraceFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)


UNCHECKED = "Unchecked (--no-check): drawn as the file says, not replayed on this model."
"""What ``show --no-check`` says on screen and on the page."""


def _checked(trace: Path, document: dict[Any, Any]) -> tuple[Any, Violation]:
    """``(spec, violation)`` rebuilt by re-executing the trace on this model
    (``tracefile.replay``: every action enabled, every fingerprint, a lasso's loop), whose
    property must still fail on it; otherwise one message, exit 4."""
    try:
        spec, violation = tracefile.replay(trace, document)
    except tracefile.TraceFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    if not tracefile.still_violated(violation):
        where = "on the last state" if violation.loop is None else "on this lasso"
        click.echo(
            f"Error: {trace}: every fingerprint matches, but {violation.prop.name} holds "
            f"{where} with this hwcheck: the property changed since the trace was written",
            err=True,
        )
        sys.exit(EXIT_BAD_INPUT)
    return spec, violation


@click.command(name="show")
@TRACE
@click.option(
    "--step",
    type=Integer(min=1),
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
@click.option(
    "--no-check",
    is_flag=True,
    help="Draw the file as it is, without replaying it on this model (a trace of another "
    "hwcheck version); the drawing says it is unchecked.",
)
@VARIANT_FILE
def show_cmd(
    trace: Path,
    step: Any,
    changes_only: Any,
    hide: Any,
    html_out: Any,
    no_check: bool,
    variant_file: Path | None,
) -> None:
    """Draw a counterexample trace (trace.json) state by state, once this model has
    reproduced it as replay does (every action enabled, every fingerprint, the property
    still violated) and drawn every state as the file does."""
    document = _load(trace, variant_file)
    note = ""
    spec, violation = (None, None) if no_check else _checked(trace, document)
    try:  # what is drawn: the states as the model draws them, or (unchecked) of a drawable size
        if violation is None:
            tracefile.check_unchecked_views(trace, document)
        else:
            tracefile.check_pictures(trace, document, spec, violation)
    except tracefile.TraceFileError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    if violation is not None:
        document, differed = retold(document, spec, violation)
        if differed:
            note = (
                f"Note: the file's {' and '.join(differed)} "
                + ("differ" if len(differed) > 1 else "differs")
                + " from this model's; drawn here is what the model tells."
            )
    warning = UNCHECKED if no_check else ""
    if step is not None and step > document["length"]:
        raise click.BadParameter(
            f"the trace has {document['length']} states", param_hint="'--step'"
        )
    try:
        _draw(document, html_out, warning, note, step=step, hide=hide, changes_only=changes_only)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        if not no_check:
            raise  # a checked document is the model's own: a failure to draw it is a bug
        click.echo(
            f"Error: {trace}: --no-check cannot draw this file: its steps are not what this "
            f"hwcheck draws ({type(exc).__name__} at {exc}); drop --no-check to have it checked",
            err=True,
        )
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(EXIT_OK)


def _draw(
    document: dict[Any, Any], html_out: Path | None, warning: str, note: str, **options: Any
) -> None:
    """Draw ``document`` on the terminal, or as the page ``html_out`` (written only once it
    is drawn whole)."""
    if note:
        click.echo(note, err=True)
    if html_out is not None:
        page = html.render(document, unchecked=warning)
        try:
            report.write_text(html_out, page)
        except OSError as exc:
            click.echo(f"Error: cannot write {html_out}: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_ENVIRONMENT)
        click.echo(f"Wrote {html_out}" + (" (unchecked: --no-check)" if warning else ""))
        return
    header = (
        f"[{document['model']} {document['variant']}, "
        + steps.config_text(document["config"])
        + "]"
    )
    console = stdout_console(120)
    with console.capture() as drawing:  # printed once drawn whole: no half a trace, then an error
        if warning:
            console.print(Text(warning, style="bold yellow"))
        steps.print_document(console, document, header, **options)
    click.echo(drawing.get(), nl=False)


@click.command(name="replay")
@TRACE
@VARIANT_FILE
def replay_cmd(trace: Path, variant_file: Path | None) -> None:
    """Re-execute a trace's actions on this hwcheck's model and check every fingerprint."""
    document = _load(trace, variant_file)
    _, violation = _checked(trace, document)
    name, loop = violation.prop.name, violation.loop
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
