"""``reports/gallery/``: the canonical counterexamples, each as ``trace.json`` + ``trace.html``.

Regenerate with ``python -m checker.commands.gallery`` (a test fails when the committed files are
out of date), then ``hwcheck gate --update``: the gate replays every gallery trace against its
pins in ``hwcheck-gate.lock``. Each entry is a search, not a hand-written trace: the shortest
counterexample the local engine finds for a property under a configuration (on the compiled
core, as ``hwcheck explore`` runs by default; it finds the reference core's very trace,
``tests/test_compiled.py``; ``--core reference`` runs the Python model); except the
flagship, ``hw-truncation-loss``, which is the seed articles' own schedule
(``spec.kafka.seeds.LOSS``: a follower restarts with a lagging HW, truncates to it, and is
elected), cut where NoCommittedLoss first fails, so the first trace a learner opens tells
the story they read about.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from checker import search
from checker.commands import cores
from checker.commands.gallery_entries import HISTORY, LIVENESS, Entry
from checker.commands.gallery_settings import SETTINGS
from checker.composition import compose
from checker.composition.compose import build_model, choose, make_config
from checker.fingerprint import fingerprint
from checker.formats import report
from checker.limits import interrupted
from checker.liveness import run as live
from checker.model import Label
from checker.renderers import html
from checker.result import EXIT_INCOMPLETE, CheckResult, Stats, Status, Violation
from checker.search import CoreName
from checker.trace import replay

ROOT = Path(__file__).resolve().parents[2] / "reports" / "gallery"

ENTRIES = HISTORY + SETTINGS + LIVENESS
"""The gallery and the bug zoo (the entries with a ``ticket``), oldest problem first."""


def _search(entry: Entry, options: dict[str, Any], core: CoreName) -> Any:
    """``(spec, result)`` of exploring ``entry``'s property under ``options`` on ``core``
    (``compiled``: where the model has one and it runs here, one thread; else the reference
    core). Raises ``KeyboardInterrupt`` again when Ctrl-C cut the search (the engine turns it
    into a partial result; here one Ctrl-C ends the whole script)."""
    spec, props = build_model(entry.model, make_config(entry.model, options))
    alive = [p for p in live.liveness_of(spec) if p.name == entry.prop]
    if alive:  # a lasso: the liveness pass over the plain graph, under the model's fairness
        result = CheckResult(Status.OK, Stats(), (), exhausted=True)
        live.merge(result, live.check(spec, alive, live.fairness_of(spec)), alive)
        return spec, result
    chosen = choose(props, (entry.prop,))
    result = search.explore(
        spec, chosen, core=core, on_note=cores.note, on_compile=cores.compile_note
    )
    if interrupted(result.reason):
        raise KeyboardInterrupt
    return spec, result


def _scenario(entry: Entry) -> Any:
    """``(spec, violation)``: ``entry.schedule`` played from the initial state, cut at the
    first state that violates ``entry.prop``. Raises ``RuntimeError`` when the schedule ends
    with the property holding, ``NondeterministicSpec`` when a label is not enabled."""
    spec, props = build_model(entry.model, make_config(entry.model, dict(entry.options)))
    prop = choose(props, (entry.prop,))[0]
    init = spec.init_states()[0]
    steps = replay(spec, fingerprint(init), [Label.parse(text) for text in entry.schedule])
    for index, step in enumerate(steps):
        if not prop.predicate(step.state):
            return spec, Violation(prop, tuple(steps[: index + 1]))
    raise RuntimeError(f"{entry.folder}: {entry.prop} holds along its schedule")


def holds_when_fixed(entry: Entry, core: CoreName = "compiled") -> tuple[bool, int, float, str]:
    """Explore ``entry``'s fixed variant for its property on ``core`` (as ``_search``):
    ``(holds, distinct states, seconds, the fixed variant's name)``. Raises ``ValueError`` for
    an entry without a fix."""
    if not entry.fixed:
        raise ValueError(f"{entry.folder} has no fixed variant")
    spec, result = _search(entry, entry.fixed_options(), core)
    holds = not any(v.prop.name == entry.prop for v in result.violations)
    return (
        holds and result.status.value != "INCOMPLETE",
        result.stats.distinct,
        result.stats.seconds,
        compose.variant_of(spec),
    )


def build(
    folder: Path = ROOT, entries: tuple[Entry, ...] = ENTRIES, core: CoreName = "compiled"
) -> list[Path]:
    """Search every entry of ``entries`` on ``core`` (as ``_search``) and write its
    ``trace.json`` and ``trace.html`` under ``folder``; return the files written. Raises
    ``RuntimeError`` if an entry's property holds."""
    written = []
    for entry in entries:
        if entry.schedule:
            spec, violation = _scenario(entry)
        else:
            spec, result = _search(entry, dict(entry.options), core)
            found = [v for v in result.violations if v.prop.name == entry.prop]
            if not found:
                raise RuntimeError(f"{entry.folder}: {entry.prop} holds; the gallery is wrong")
            violation = found[0]
        document = report.trace_document(spec, violation)
        if entry.fix:
            document["story"].append(f"The fix ({entry.ticket}): {entry.fix}")
        path = folder / entry.folder / "trace.json"
        report.write_json(path, document)
        report.write_text(path.with_name("trace.html"), html.render(document))
        written += [path, path.with_name("trace.html")]
    return written


def zoo_table(core: CoreName = "compiled") -> Iterator[str]:
    """Markdown rows ``| ticket | entry | property | fixed | holds | states | seconds |`` for
    every zoo entry, each fixed variant explored now on ``core`` (the seconds are this
    machine's), one row as each search ends. Raises ``KeyboardInterrupt`` on Ctrl-C."""
    yield "| ticket | gallery entry | property | fixed by | fixed holds | states | seconds |"
    yield "|---|---|---|---|---|---|---|"
    for entry in ENTRIES:
        if entry.fixed:
            holds, states, seconds, name = holds_when_fixed(entry, core)
            change = ", ".join(
                [name]
                + [
                    f"{k}={v}"
                    for k, v in entry.fixed
                    if k not in ("truncation", "without_mechanisms")
                ]
            )
            yield (
                f"| {entry.ticket} | {entry.folder} | {entry.prop} | {change} | "
                f"{'yes' if holds else 'NO'} | {states:,} | {seconds:.1f} |"
            )


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default=ROOT)
@click.option(
    "--zoo", is_flag=True, help="Explore every bug-zoo fix again and print the table instead."
)
@cores.CORE_OPTION
def main(folder: Path, zoo: bool, core: CoreName) -> None:
    """Regenerate the gallery's traces and pages under FOLDER [reports/gallery]. One Ctrl-C
    stops it (exit 3); what was printed is complete, the rest was not run."""
    try:
        if zoo:
            for row in zoo_table(core):
                click.echo(row)
            return
        for path in build(folder, core=core):
            click.echo(path)
    except KeyboardInterrupt:
        click.echo(
            "Interrupted (Ctrl-C): the output above is partial; the rest was not run.", err=True
        )
        sys.exit(EXIT_INCOMPLETE)


if __name__ == "__main__":
    main()
