"""The command line's side of the core choice (``checker.search.choose_core`` decides): the
``--core`` flag, and the notes on stderr the engine reports through its callbacks."""

from __future__ import annotations

import click

from checker.native import certificate
from checker.search import CoreName, stale

CORE_OPTION = click.option(
    "--core",
    type=click.Choice(["compiled", "reference"]),
    default="compiled",
    show_default=True,
    help="compiled: the model's compiled core (C, built once and cached; same answers), where "
    "it has one and was proven on these sources (else the reference runs, saying why); "
    "reference: the Python model.",
)


def note(why: str) -> None:
    """Say on stderr why the compiled core does not run (``choose_core``'s ``on_note``): a
    stale certificate once a process, with how to certify it again; else that it cannot run
    here, every time."""
    if why != certificate.STALE:
        click.echo(
            f"Note: the compiled core cannot run here ({why}); using the reference core.", err=True
        )
    elif not _said:
        _said.append(why)
        click.echo(
            f"Note: {why} (python -m checker.commands.certify); running the reference "
            "core, the model as its Python source says (slower).",
            err=True,
        )


_said: list[str] = []


def warn_if_stale(core: CoreName) -> None:
    """``note`` now, before a progress display starts, when ``core`` is the compiled one and
    its certificate is stale (so the note does not land inside the display)."""
    if stale(core):
        note(certificate.STALE)


def compile_note(seconds: float) -> None:
    """Say on stderr that the compiled core was built first (``seconds``)."""
    click.echo(f"compiling the model (once): {seconds:.1f} s", err=True)
