"""Progress on stderr with rich: a search's depth, distinct states, frontier, states/s; the
one-line texts of a search's and a simulation's progress that other displays reuse."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from checker.limits import Progress as SearchProgress


@dataclass(frozen=True)
class Resuming:
    """The checkpoint a search goes on from, as its manifest says: the ``depth`` it
    reached, its ``distinct`` states and its ``frontier``."""

    depth: int
    distinct: int
    frontier: int


@contextlib.contextmanager
def for_search(
    enabled: bool = True, resuming: Resuming | None = None
) -> Iterator[Callable[[SearchProgress], None] | None]:
    """Yield a progress callback for ``checker.search.reference.bfs.explore`` (None when disabled or
    when stderr is not a terminal, so logs and pipes stay clean). ``resuming``: the line says so
    while the checkpoint loads (no engine reports before it is loaded), and then, while the numbers
    are still the checkpoint's, that its frontier is being expanded."""
    console = Console(stderr=True)
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting" if resuming is None else loading_line(resuming))
        bar.refresh()

        def update(p: SearchProgress) -> None:
            line = search_line(p)
            at_checkpoint = resuming is not None and (p.depth, p.distinct) == (
                resuming.depth,
                resuming.distinct,
            )
            if at_checkpoint and not p.note and p.frontier:
                line += "  (resumed: expanding the checkpoint's frontier)"
            bar.update(task, description=line)
            if at_checkpoint:
                bar.refresh()

        yield update


def loading_line(resuming: Resuming) -> str:
    """What a resumed search's line says while its checkpoint loads."""
    return (
        f"resuming: loading the checkpoint (depth {resuming.depth}, {resuming.distinct:,} "
        f"distinct, {resuming.frontier:,} frontier)"
    )


def search_line(p: SearchProgress) -> str:
    """A search's progress in one line of rich markup: depth, distinct states, frontier (and,
    while a level is under way, how much of it is expanded), states generated, distinct
    states/s and the engine's note (escaped)."""
    rate = p.distinct / p.seconds if p.seconds > 0 else 0.0
    expanded = "" if p.expanded is None else f" ({p.expanded:,} expanded)"
    return (
        f"depth {p.depth}  distinct {p.distinct:,}  frontier {p.frontier:,}{expanded}  "
        f"generated {p.generated:,}  {rate:,.0f} states/s"
        + (f"  ({escape(p.note)})" if p.note else "")
    )


def walk_line(tick: Any) -> str:
    """A simulation's progress (``checker.simulate.simulation.Tick``) in one line: walks (of how many), steps, steps/s and the
    properties violated so far."""
    rate = tick.steps / tick.seconds if tick.seconds > 0 else 0.0
    done = f"{tick.walks:,}" + (f" of {tick.total:,}" if tick.total else "")
    return (
        f"{done} walks  {tick.steps:,} steps  {rate:,.0f} steps/s  "
        f"{tick.violations} properties violated"
    )
