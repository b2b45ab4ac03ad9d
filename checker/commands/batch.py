"""What ``compare`` and ``gate`` share: runs in a row under one progress display and one Ctrl-C.

- ``progress``: on stderr (a terminal only), a bar of runs done out of all with elapsed time
  and an ETA, and below it the current run: its name, depth, states and states/s (or walks
  for a simulation), and what Spark is doing.
- ``Interrupt``: the first Ctrl-C ends the whole batch; the run it cut is kept as INCOMPLETE
  and the runs never started are listed, so the caller prints partial results marked as
  such and exits 3 (``EXIT_INCOMPLETE``).
"""

from __future__ import annotations

import contextlib
import datetime
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from checker.formats import report
from checker.limits import interrupted, signal_name
from checker.model import Spec
from checker.renderers import progress as progress_view
from checker.result import EXIT_ENVIRONMENT


def write_reports(folder: Path, spec: Spec, result: Any) -> dict[Any, Any]:
    """``report.write_run``, or exit 5 with one message when the folder cannot be written."""
    try:
        return report.write_run(folder, spec, result)
    except OSError as exc:
        click.echo(f"Error: cannot write the reports to {folder}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)


class Board:
    """The progress of a batch: ``begin(title)`` a run, feed it ``search`` (a
    ``checker.limits.Progress``) or ``walks`` (a ``checker.simulate.simulation.Tick``) callbacks,
    ``done()`` when it ends. Without a terminal every method does nothing."""

    def __init__(self, bar: Progress | None, total: int, noun: str) -> None:
        self.bar, self.total, self.noun, self.index = bar, total, noun, 0
        if bar is not None:
            self.overall = bar.add_task(f"{noun}s", total=total)
            self.current = bar.add_task("", total=None, visible=False)

    def begin(self, title: str) -> None:
        self.index += 1
        if self.bar is not None:
            self.bar.update(
                self.overall,
                description=escape(f"{self.noun} {self.index} of {self.total}: {title}"),
            )
            self.bar.update(self.current, description="  starting", visible=True)
            self.bar.refresh()  # draw it now: a short run may end before the next refresh

    def search(self, p: Any) -> None:
        """A search's progress (``checker.limits.Progress``)."""
        if self.bar is not None:
            self.bar.update(self.current, description="  " + progress_view.search_line(p))

    def walks(self, tick: Any) -> None:
        """A simulation's progress (``checker.simulate.simulation.Tick``)."""
        if self.bar is not None:
            self.bar.update(
                self.current, description=escape(tick.note) or "  " + progress_view.walk_line(tick)
            )

    def note(self, text: str) -> None:
        """A line of the current run's own (a conformance check's schedule and cut)."""
        if self.bar is not None:
            self.bar.update(self.current, description="  " + escape(text))

    def done(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.overall)
            self.bar.update(self.current, visible=False)


@contextlib.contextmanager
def progress(total: int, noun: str, enabled: bool = True) -> Iterator[Board]:
    """A ``Board`` for ``total`` runs called ``noun`` (``variant``, ``check``), drawn on
    stderr when it is a terminal and ``enabled``, with an ETA (``Eta``)."""
    if not enabled or not sys.stderr.isatty():
        yield Board(None, total, noun)
        return
    columns = (
        TextColumn("{task.description}"),
        *(
            Overall(c)
            for c in (BarColumn(bar_width=20), MofNCompleteColumn(), TimeElapsedColumn(), Eta())
        ),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        yield Board(bar, total, noun)


class Eta(ProgressColumn):
    """``ETA h:mm:ss``: the mean time of the runs done so far times the runs left (``ETA
    -`` before the first run ends)."""

    def render(self, task: Any) -> Any:
        if not task.completed or task.elapsed is None or task.total is None:
            return Text("ETA -", style="progress.remaining")
        left = task.elapsed / task.completed * (task.total - task.completed)
        return Text(f"ETA {datetime.timedelta(seconds=round(left))}", style="progress.remaining")


class Overall(ProgressColumn):
    """A column drawn on the batch's own line only (the task with a total), blank on the
    line of the running search."""

    def __init__(self, column: ProgressColumn) -> None:
        super().__init__()
        self.column = column

    def render(self, task: Any) -> Any:
        return self.column(task) if task.total is not None else ""


class Interrupt:
    """Ctrl-C bookkeeping of a batch: ``cut(result)`` after each run (True when Ctrl-C ended
    that run, or came between runs), ``caught()`` in an ``except KeyboardInterrupt``."""

    def __init__(self) -> None:
        self.hit = False

    def cut(self, result: Any) -> bool:
        self.hit = self.hit or (result is not None and interrupted(result.reason))
        return self.hit

    def caught(self) -> None:
        self.hit = True

    def line(self, index: int, total: int, noun: str) -> str:
        """The one line saying the results are partial (``index``: the run Ctrl-C cut,
        1-based)."""
        return (
            f"Interrupted ({signal_name()}) during {noun} {index} of {total}: the "
            f"results above are partial ({total - index} {noun}s not run)."
        )
