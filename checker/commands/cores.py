"""The command line's side of the core choice (``checker.search.choose_core`` decides): the
``--core`` flag, the notes on stderr the engine reports through its callbacks, and the
compiled engine's ``--memory`` budget."""

from __future__ import annotations

from typing import Any

import click

from checker.native import certificate
from checker.search import CoreName, stale
from checker.search.tier import parse_size

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
    here, every time; or (``checker.search.door.explore``'s) that ``--memory`` is not
    applied on the reference core."""
    if why.startswith("--memory"):  # door.explore: the budget not applied on this core
        click.echo(f"Note: {why}.", err=True)
    elif why != certificate.STALE:
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


class Size(click.ParamType):  # type: ignore[type-arg]
    """A size in bytes written as ``1G``, ``512M``, ``1.5GiB`` (``checker.search.tier.parse_size``)."""

    name = "size"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int):
            return value
        try:
            return parse_size(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


MEMORY_OPTION = click.option(
    "--memory",
    type=Size(),
    default=None,
    metavar="SIZE",
    help="Memory the local engine may use (compiled core), e.g. 1G: past it the seen set "
    "and parent tables go to disk, and a level too big for it is streamed through disk "
    "(same answers) [what the machine has free].",
)
