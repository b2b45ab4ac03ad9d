"""Which core runs a search: the model's compiled core (``checker.native``) where it has one and
can run here, else the reference model, and the ``--core`` flag that chooses."""

from __future__ import annotations

from typing import Any

import click

from checker.limits import Limits
from checker.model import Spec
from checker.models import compose
from checker.native import certificate
from checker.native.build import NativeUnavailable
from checker.native.core import Core
from checker.search import compiled as native_engine

CORE_OPTION = click.option(
    "--core",
    type=click.Choice(["compiled", "reference"]),
    default="compiled",
    show_default=True,
    help="compiled: the model's compiled core (C, built once and cached; same answers), where "
    "it has one and was proven on these sources (else the reference runs, saying why); "
    "reference: the Python model.",
)


def compiled(
    spec: Spec,
    chosen: Any,
    limits: Limits,
    on_progress: Any,
    symmetry: bool,
    core: str,
    threads: int,
    saving: Any = None,
) -> Any:
    """``(result, "")`` from the compiled core with ``threads`` threads (``saving``: its
    checkpoints, ``checker.checkpoint.saving.SaveOptions``), or ``(None, why it did not run)``: ``core`` is ``reference``, the model has no compiled core, or it cannot be
    built or loaded here (then one line on stderr says so)."""
    if core != "compiled":
        return None, "--core reference"
    model, why = compose.compiled_model(spec)
    if model is None:
        stale_note(why)
        return None, why
    try:
        result = native_engine.explore(
            model,
            spec,
            chosen,
            limits,
            on_progress,
            symmetry,
            threads,
            on_compile=compile_note,
            saving=saving,
        )
    except NativeUnavailable as exc:
        click.echo(
            f"Note: the compiled core cannot run here ({exc}); using the reference core.", err=True
        )
        return None, str(exc)
    return result, ""


def for_partitions(spec: Spec, chosen: Any, core: str) -> tuple[str, str]:
    """The core a partitioned engine (Spark) runs its levels on: ``("compiled", "")``, or
    ``("reference", why)`` as ``compiled`` decides (one stderr line when the core cannot be
    built or loaded here). Builds the library first if needed, saying so."""
    if core != "compiled":
        return "reference", "--core reference"
    model, why = compose.compiled_model(spec)
    if model is None:
        stale_note(why)
        return "reference", why
    missing = [p.name for p in chosen if p.name not in model.property_bits]
    if missing:
        return "reference", f"property {missing[0]} has no compiled form"
    try:
        Core(model, on_compile=compile_note).close()
    except NativeUnavailable as exc:
        click.echo(
            f"Note: the compiled core cannot run here ({exc}); using the reference core.", err=True
        )
        return "reference", str(exc)
    return "compiled", ""


def stale_note(why: str) -> None:
    """Once a process, when ``why`` is a stale certificate: say on stderr that the reference
    core runs instead, and how to certify the compiled core again."""
    if why == certificate.STALE and not _said:
        _said.append(why)
        click.echo(
            f"Note: {why} (python -m checker.commands.certify); running the reference "
            "core, the model as its Python source says (slower).",
            err=True,
        )


_said: list[str] = []


def warn_if_stale() -> None:
    """``stale_note`` now, before a progress display starts, when the compiled core's
    certificate is stale (so the note does not land inside the display)."""
    if certificate.enforced() and not certificate.current():
        stale_note(certificate.STALE)


def compile_note(seconds: float) -> None:
    """Say on stderr that the compiled core was built first (``seconds``)."""
    click.echo(f"compiling the model (once): {seconds:.1f} s", err=True)
