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


class Watched:
    """A progress callback that keeps the furthest ``Progress`` it passed on to ``show`` (the
    most distinct states: the last line of a level in flight, not the boundary report an
    engine may send as it stops; None: nothing is shown, and ``hook`` is None too), so an
    interrupted run can say how its summary's counts differ from the line the user saw."""

    def __init__(self, show: Callable[[SearchProgress], None] | None) -> None:
        self.show = show
        self.last: SearchProgress | None = None
        self.hook = None if show is None else self._pass

    def _pass(self, progress: SearchProgress) -> None:
        if self.last is None or progress.distinct >= self.last.distinct:
            self.last = progress
        assert self.show is not None
        self.show(progress)


def interrupted_line(
    signal: str, stats: Any, last: SearchProgress | None, searched: bool = False
) -> str:
    """What an interrupted search's counts are: every engine commits a level whole, so the
    summary's distinct states and states generated (``stats``, ``checker.result.Stats``) are
    those of the levels completed before the signal, as its checkpoint holds them; the last
    progress line (``last``, if one was shown) also counted the level in flight. With
    ``searched``, the search had finished and only the liveness pass after it was cut."""
    if searched:
        return (
            f"Interrupted ({signal}) in the liveness pass: the results below are partial. The "
            f"search had finished ({stats.distinct:,} distinct states, {stats.generated:,} "
            "generated, every level); the liveness properties are unknown."
        )
    levels = "level" if stats.depth == 1 else f"{stats.depth} levels"
    line = (
        f"Interrupted ({signal}): the results below are partial. Their counts "
        f"({stats.distinct:,} distinct states, {stats.generated:,} generated) are those of "
        f"the {levels} completed before the interrupt"
    )
    if last is not None and last.distinct > stats.distinct:
        line += (
            f"; the progress line's {last.distinct:,} distinct also counted level "
            f"{last.depth + 1}, in flight, which is not kept"
        )
    return line + "."


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
