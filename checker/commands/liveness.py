"""The liveness flags of ``explore`` and their run: which liveness properties, which fairness,
and the liveness pass after the safety search (``checker.liveness.run``).

Liveness is opt-in: ``--liveness`` checks every liveness property of the model, ``--invariant
NAME`` names one (safety properties named alongside are checked as usual; with none named,
every safety property is). ``--fair`` and ``--unfair`` change the model's declared fairness.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from checker.commands.options import build
from checker.commands.values import Integer
from checker.limits import interruption
from checker.liveness import budget, orbit_run
from checker.liveness import run as live
from checker.liveness.fairness import FairnessError
from checker.native import certificate
from checker.result import CheckResult, Status
from checker.search import ASKED, CoreName, choose_core

LIVENESS_FLAGS = (
    click.option(
        "--liveness",
        "liveness_all",
        is_flag=True,
        help="Also check every liveness property (leads-to, eventually-always) under the "
        "model's fairness, on the orbit graph under symmetry (else the whole plain state "
        "graph), held in memory (--memory refuses one estimated past it). See 'hwcheck list "
        "properties'.",
    ),
    click.option(
        "--fair",
        multiple=True,
        metavar="FAIRNESS",
        help="Add or replace a fairness constraint: WF(Action), SF(Action), WF(each Action) "
        "(one per action instance), a bare Action (= WF(each Action)); 'when Condition' "
        "after the action limits it to the model's named condition (repeatable).",
    ),
    click.option(
        "--liveness-max-states",
        type=Integer(min=1),
        default=None,
        metavar="N",
        help="The most states the liveness graph may hold (default: "
        f"{budget.COMPILED_MAX_STATES:,} on the compiled core, {budget.MAX_STATES:,} on the "
        "reference); a larger graph leaves the liveness properties unknown (exit 3), said "
        "before it is built.",
    ),
    click.option(
        "--unfair",
        multiple=True,
        metavar="ACTION",
        help="Remove every fairness constraint on this action (repeatable).",
    ),
)
"""``explore``'s liveness options."""


def split(
    model: str,
    given: dict[str, Any],
    names: Sequence[str],
    every: bool,
    fair: Sequence[str] = (),
    unfair: Sequence[str] = (),
    instead: str | None = None,
) -> tuple[tuple[str, ...], list[Any], Any]:
    """``(safety names, liveness properties, fairness)`` for ``--invariant`` ``names``,
    ``--liveness``, ``--fair`` and ``--unfair``, before any search: liveness names are taken
    out of ``names`` (the safety search would not know them); ``instead``: a gate check's
    ``fairness`` text, replacing the model's. Raises ``click.BadParameter`` for bounds the
    model rejects, ``click.UsageError`` for bad fairness."""
    _, spec, _ = build(model, given)
    offered = live.liveness_of(spec)
    by_name = {p.name: p for p in offered}
    chosen = [by_name[n] for n in names if n in by_name]
    if every:
        chosen = offered
    if (every or chosen) and not offered:
        raise click.UsageError(f"the {model} model has no liveness property")
    rules = fairness(spec, fair, unfair, instead) if chosen or fair or unfair else ()
    return tuple(n for n in names if n not in by_name), chosen, rules


def fairness(
    spec: Any, fair: Sequence[str], unfair: Sequence[str], instead: str | None = None
) -> Any:
    """The run's fairness; a bad constraint is a usage error (exit 2) naming what is wrong."""
    try:
        return live.fairness_of(spec, fair, unfair, instead)
    except FairnessError as exc:
        raise click.UsageError(str(exc)) from None


def check(
    spec: Any,
    props: list[Any],
    rules: Any,
    result: CheckResult,
    max_states: int | None = None,
    core: CoreName = "reference",
    show: bool = False,
    memory: int | None = None,
) -> live.Liveness | None:
    """Judge ``props`` under the fairness ``rules`` after a safety search that ran to its
    end, and fold the verdicts into ``result``; ``None`` (nothing judged) after an
    interrupted, cut or failed search, whose liveness properties stay unknown. ``core``
    ``compiled``: on the model's compiled core where it may run (``checker.search.choose_core``:
    it has one, proven on these sources) and it compiles these properties, else on the reference
    (one stderr line says why); ``max_states``: default, that core's budget; ``show``: a
    spinner with the elapsed time on stderr meanwhile; ``memory``: ``--memory`` in bytes, a
    graph estimated past it (or past what the machine has free, without it) has its arrays held
    in files, or is refused where those would not fit either (``budget.place``). Ctrl-C (or SIGTERM) during the pass
    leaves the liveness properties unknown and the run INCOMPLETE (interrupted)."""
    if not props:
        return None
    # the liveness graph is its own search: a safety search that ended early because every
    # safety property was violated is no reason to skip it; a cut or interrupted one is
    cut = not result.exhausted and bool(result.reason)  # a limit or Ctrl-C: reason says
    if result.status in (Status.ERROR, Status.INCOMPLETE) or cut:
        result.checked = tuple(result.checked) + tuple(props)
        for prop in props:
            result.unsettled[prop.name] = "the search did not finish"
        return None
    chosen = choose_core(spec, (), core, build=False)
    model = chosen.model
    runs_on, note = live.core_for(model, props) if model is not None else ("reference", chosen.why)
    if note not in ("", certificate.STALE, ASKED):  # a stale certificate was said before
        click.echo(f"Note: liveness runs on the reference core ({note}).", err=True)
    cap = budget.budget(runs_on) if max_states is None else max_states
    symmetric = bool(result.stats.symmetry)
    orbits = symmetric and not orbit_run.unfit(spec, props)
    why = budget.too_large(result, spec, cap, runs_on, orbits)
    placed = budget.Placement() if why else budget.place(result, spec, memory, runs_on, orbits)
    many = orbit_run.too_many_ids(spec) if placed.folder is not None and orbits else ""
    if many:  # refused here, before the note says the graph goes to files
        placed = budget.Placement(refused=orbit_run.past_memory(many))
    why = why or placed.refused
    folder = placed.folder
    if folder is not None:
        click.echo(
            f"Note: {placed.why}; so the liveness pass holds its graph's arrays in files in "
            f"{folder} (unlinked, read back through the page cache; TMPDIR moves them).",
            err=True,
        )
        if placed.warning:
            click.echo(f"Warning: {placed.warning}.", err=True)
    if why:
        found = live.Liveness([], fairness=tuple(rules), error=why, core=runs_on)
    else:
        try:
            with _spinner(show, f"Liveness: {len(props)} properties on the {runs_on} core"):
                found = live.check(
                    spec,
                    props,
                    rules,
                    cap,
                    core=runs_on,
                    model=model,
                    symmetric=symmetric,
                    folder=folder,
                )
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (checker.cli): the verdicts so far stand
            result.checked = tuple(result.checked) + tuple(props)
            for prop in props:
                result.unsettled[prop.name] = interruption()
            result.reason = f"liveness {interruption()}"
            if result.status != Status.VIOLATED:
                result.status = Status.INCOMPLETE
            return None
    live.merge(result, found, props)
    return found


@contextmanager
def _spinner(show: bool, text: str) -> Iterator[None]:
    """A transient spinner with the elapsed time on stderr while ``show``."""
    if not show:
        yield
        return
    columns = (SpinnerColumn(), TextColumn(text), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        bar.add_task(text, total=None)
        yield
