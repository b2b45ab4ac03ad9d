"""What bounds a search and what it reports while it runs (shared by every engine)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Progress:
    """``depth`` (levels done, initial = 1), ``distinct`` and ``generated`` (states),
    ``frontier`` (states waiting), ``seconds`` since the start, ``note`` (Spark engine)."""

    depth: int
    distinct: int
    generated: int
    frontier: int
    seconds: float
    note: str = ""


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


class LimitReached(Exception):
    """A limit cut the search (raised inside a ``Search``); the message says which."""


CANCELLED = "cancelled"
"""The reason of a search that ``Limits.cancel`` ended."""

INTERRUPTED = "interrupted (Ctrl-C)"
"""The reason (or the start of it) of a run that Ctrl-C ended, in every engine."""


def interrupted(reason: str) -> bool:
    """Whether a result's ``reason`` says Ctrl-C ended the run (searches and simulations)."""
    return INTERRUPTED in reason


DEPTH_REACHED = "depth bound {} reached with states left to explore"
