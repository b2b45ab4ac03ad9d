"""Progress on stderr with rich: a search's depth, distinct states, frontier, states/s; the
one-line texts of a search's and a simulation's progress that other displays reuse."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from checker.limits import Progress as SearchProgress


@contextlib.contextmanager
def for_search(enabled: bool = True) -> Iterator[Callable[[SearchProgress], None] | None]:
    """Yield a progress callback for ``checker.bfs.explore`` (None when disabled or when
    stderr is not a terminal, so logs and pipes stay clean)."""
    console = Console(stderr=True)
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting")

        def update(p: SearchProgress) -> None:
            bar.update(task, description=search_line(p))

        yield update


def search_line(p: SearchProgress) -> str:
    """A search's progress in one line of rich markup: depth, distinct states, frontier,
    states generated, distinct states/s and the engine's note (escaped)."""
    rate = p.distinct / p.seconds if p.seconds > 0 else 0.0
    return (
        f"depth {p.depth}  distinct {p.distinct:,}  frontier {p.frontier:,}  "
        f"generated {p.generated:,}  {rate:,.0f} states/s"
        + (f"  ({escape(p.note)})" if p.note else "")
    )


def walk_line(tick: Any) -> str:
    """A simulation's progress (``checker.simulation.Tick``) in one line: walks (of how many), steps, steps/s and the
    properties violated so far."""
    rate = tick.steps / tick.seconds if tick.seconds > 0 else 0.0
    done = f"{tick.walks:,}" + (f" of {tick.total:,}" if tick.total else "")
    return (
        f"{done} walks  {tick.steps:,} steps  {rate:,.0f} steps/s  "
        f"{tick.violations} properties violated"
    )
