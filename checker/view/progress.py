"""Search progress on stderr with rich: depth, distinct states, frontier, states/s."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from checker.bfs import Progress as SearchProgress


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
            rate = p.distinct / p.seconds if p.seconds > 0 else 0.0
            bar.update(task, description=(
                f"depth {p.depth}  distinct {p.distinct:,}  frontier {p.frontier:,}  "
                f"generated {p.generated:,}  {rate:,.0f} states/s"
                + (f"  ({escape(p.note)})" if p.note else "")))

        yield update
