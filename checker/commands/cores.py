"""The command line's side of the core choice (``checker.search.choose_core`` decides): the
``--core`` flag, the notes on stderr the engine reports through its callbacks, and the
compiled engine's ``--memory`` budget."""

from __future__ import annotations

from typing import Any

import click

from checker.limits import Notice
from checker.native import certificate
from checker.search import CoreName, stale
from checker.search.tier.spill import parse_size

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
    here, every time; or a ``checker.limits.Notice``, a whole sentence, as it is (a search
    widened to 128-bit keys, an option the reference core does not apply)."""
    if isinstance(why, Notice):  # a whole sentence: a width widened, an option not applied
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
    """A size in bytes written as ``1G``, ``512M``, ``1.5GiB``
    (``checker.search.tier.spill.parse_size``)."""

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

KEY_BITS_OPTION = click.option(
    "--fingerprint-bits",
    "key_bits",
    type=click.Choice(["64", "128"]),
    default=None,
    callback=lambda ctx, param, value: None if value is None else int(value),
    help="Bits of the key the compiled core's seen set dedups on (two distinct states "
    "sharing one are taken for one; the summary gives the chance): 128 holds 16 bytes a "
    "state in the seen set, not 8 [64; a search whose estimate passes 1e-3 starts again "
    "with 128, saying so].",
)


def compiled_only(where: str, memory: int | None, key_bits: int | None) -> None:
    """Refuse ``--memory`` and ``--fingerprint-bits 128`` where they cannot apply: ``where``
    is the core asked for (``reference``) or ``spark`` (the engine). Raises
    ``click.UsageError`` (exit 2)."""
    if where == "spark":
        for given, option in (
            (memory is not None, "--memory"),
            (key_bits == 128, "--fingerprint-bits 128"),
        ):
            if given:
                raise click.UsageError(f"{option} applies only to --engine local")
    elif where == "reference":
        if memory is not None:
            raise click.UsageError(
                "--memory applies to the compiled core (the reference core keeps its seen "
                "set in memory)"
            )
        if key_bits == 128:
            raise click.UsageError(
                "--fingerprint-bits 128 applies to the compiled core (the reference core "
                "dedups on its 64-bit fingerprint)"
            )
