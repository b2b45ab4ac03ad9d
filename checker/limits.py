"""What bounds a search and what it reports while it runs (shared by every engine)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from checker.result import Stats

REPORT_EVERY = 1.0
"""Seconds between a search's progress reports within a level (``Reporting.due``)."""


def free_memory() -> int:
    """Bytes this machine can give a process now (``MemAvailable`` in ``/proc/meminfo``; else
    the physical memory): the default budget of ``--memory`` (the safety search's disk tier,
    ``checker.search.tier.spill``, and the liveness graph's place, ``checker.liveness.budget``)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def megabytes(size: int) -> str:
    """``size`` bytes in whole MiB, with thousands separators (``1,024 MiB``)."""
    return f"{size / (1 << 20):,.0f} MiB"


@dataclass(frozen=True)
class Progress:
    """``depth`` (levels done, initial = 1), ``distinct`` and ``generated`` (states),
    ``frontier`` (states waiting), ``seconds`` since the start, ``note`` (Spark engine).
    ``expanded``: None at a level boundary; while a level is under way, how many of its
    ``frontier`` states are expanded so far, ``distinct`` and ``generated`` then counting
    what the level has found so far."""

    depth: int
    distinct: int
    generated: int
    frontier: int
    seconds: float
    note: str = ""
    expanded: int | None = None


@dataclass(frozen=True)
class Limits:
    """``max_depth`` (states on a path, initial = 1), ``time_limit`` (seconds),
    ``stop_on_first`` (end at the first violation, as TLC does by default), ``cancel`` (an
    object with ``is_set()``, such as a ``threading.Event``: set, it ends the search within
    about 1,024 states with the reason ``CANCELLED``; the local engine's, for ``hwcheck
    serve``)."""

    max_depth: int | None = None
    time_limit: float | None = None
    stop_on_first: bool = False
    cancel: Any = None

    def cut(self, deadline: float | None) -> str:
        """Why the search must end now ('' to go on): ``cancel`` is set, or the clock
        (``time.perf_counter``, seconds) passed ``deadline``."""
        if self.cancel is not None and self.cancel.is_set():
            return CANCELLED
        if deadline is not None and time.perf_counter() > deadline:
            return f"time limit of {self.time_limit:g} s reached"
        return ""


NO_LIMITS = Limits()
"""No depth bound, no time limit, every property to its verdict."""


class SpecFailed(Exception):
    """The spec raised inside a level task; the message is the ERROR reason."""


class Notice(str):
    """A note for the person that is a whole sentence (an ``on_note`` argument): said as it
    is, not as a reason the compiled core cannot run (``checker.commands.cores.note``)."""


class LimitReached(Exception):
    """A limit cut the search (raised inside a ``Search``); the message says which."""


CANCELLED = "cancelled"
"""The reason of a search that ``Limits.cancel`` ended."""

INTERRUPTED = "interrupted (Ctrl-C)"
"""The reason (or the start of it) of a run that Ctrl-C ended, in every engine; a run that
SIGTERM or SIGHUP ended says which (``interruption``)."""


ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that end a command as one Ctrl-C does (``checker.cli.main`` handles them):
SIGTERM, what CI runners and schedulers send, and SIGHUP, a closed terminal's."""

received: list[str] = []
"""Signals other than SIGINT that ended a command (``checker.cli`` appends "SIGTERM" or
"SIGHUP")."""


def signal_name() -> str:
    """How the person ended the run, for messages: "SIGTERM", "SIGHUP" or "Ctrl-C"."""
    return received[-1] if received else "Ctrl-C"


def interruption() -> str:
    """The reason of a run that a signal ended: "interrupted (Ctrl-C)", "interrupted
    (SIGTERM)" or "interrupted (SIGHUP)" (``signal_name``)."""
    return f"interrupted ({signal_name()})"


def interrupted(reason: str) -> bool:
    """Whether a result's ``reason`` says Ctrl-C, SIGTERM or SIGHUP ended the run (searches
    and simulations)."""
    return any(f"interrupted ({name})" in reason for name in ("Ctrl-C", "SIGTERM", "SIGHUP"))


DEPTH_REACHED = "depth bound {} reached with states left to explore"


@contextmanager
def signals_deferred() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP while a search commits a level (its files, counts and
    checkpoint level file change together): one that arrives meanwhile is handed to the
    usual handler (Ctrl-C's KeyboardInterrupt) when the block ends, so a search is always
    interrupted at a level boundary, where a final checkpoint is exact. A second one ends
    the process at once. Only in the main thread (where Python runs signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: object) -> None:
        if caught:  # a second signal: no more waiting
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        caught.append(signum)

    old: dict[int, Any] = {
        signum: signal.signal(signum, hold) for signum in (signal.SIGINT, *ENDING)
    }
    try:
        yield
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)
        if caught:
            handler = old[caught[0]]
            if callable(handler):
                handler(caught[0], None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), caught[0])


class Reporting:
    """The limits and progress of a search (``checker.search.reference.bfs.Search`` and the engines
    built on it). Its level loop calls ``_tick`` every few thousand states (a limit ends the search
    there), ``_report`` at each level boundary, and, where ``due`` says about a second
    (``REPORT_EVERY``) has passed since the last report, ``_report`` with the running counts of the
    level under way: so the numbers move during a long level, and the clock is read only where
    ``due`` is called, not at every state."""

    limits: Limits
    deadline: float | None
    on_progress: Callable[[Progress], None] | None
    stats: Stats
    start: float
    note: str
    next_report = 0.0  # when a report within a level is due (time.perf_counter)

    def due(self) -> bool:
        """Whether a report of the level under way is due (never without ``on_progress``)."""
        if self.on_progress is None or time.perf_counter() < self.next_report:
            return False
        self.next_report = time.perf_counter() + REPORT_EVERY
        return True

    def _tick(self, discovered: int) -> None:
        reason = self.limits.cut(self.deadline)
        if reason:
            self.stats.frontier = discovered
            raise LimitReached(reason)

    def _report(
        self,
        frontier: int,
        limits: bool = True,
        expanded: int | None = None,
        new: int = 0,
        generated: int = 0,
    ) -> None:
        """Report progress at a level boundary (``frontier`` states to expand; ``limits``
        False: do not look at the limits first, as from another thread), or, with
        ``expanded``, of the level under way: ``new`` states found and ``generated``
        successors computed so far in it."""
        if limits:
            self._tick(frontier)
        if self.on_progress is not None:
            now = time.perf_counter()
            self.next_report = now + REPORT_EVERY
            self.on_progress(
                Progress(
                    self.stats.depth,
                    self.stats.distinct + new,
                    self.stats.generated + generated,
                    frontier,
                    now - self.start,
                    self.note,
                    expanded,
                )
            )
