""" "Jump to a violation": a bounded breadth-first search from the explorer's current state, in
a background thread, with progress the page polls.

The search is the local engine's (``checker.search.reference.bfs``) run from the current state
instead of the initial one, with the model's bounds, ``stop_on_first`` and a time limit. Breadth
first, it finds a shortest path from that state to a state (or a step) that violates a property; the
same path every run, as the engine's tie-breaks are deterministic.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

from checker.composition import compose
from checker.limits import CANCELLED, Limits, Progress
from checker.result import Stats, Status
from checker.search.reference.bfs import explore
from checker.web.explorer import Explorer


class StartAt:
    """``spec`` with ``state`` as its only initial state; everything else is ``spec``'s."""

    def __init__(self, spec: Any, state: Any) -> None:
        self._spec, self._state = spec, state

    def init_states(self) -> list[Any]:
        return [self._state]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._spec, name)


class Jump:
    """One search from the end of ``path`` (label texts) for a violation of ``names`` (every
    property the explorer judges when empty), cut after ``time_limit`` seconds.

    ``status`` is ``running``, then ``found`` (``path`` is the whole path to the violation,
    ``property`` its name), ``none`` (every state reachable within the bounds was checked;
    nothing is violated), ``incomplete`` (the time limit cut it: ``reason``), ``cancelled``
    or ``error`` (``reason``). ``progress``: the last ``checker.limits.Progress``.
    """

    _ids = itertools.count(1)

    def __init__(
        self, explorer: Explorer, path: list[str], names: list[str], time_limit: float
    ) -> None:
        self.id = next(self._ids)
        self.explorer, self.start_path, self.names = explorer, list(path), list(names)
        self.time_limit = time_limit
        self.status, self.reason = "running", ""
        self.path: list[str] | None = None
        self.property: str | None = None
        self.progress: Progress | None = None
        self.final: Stats | None = None  # the search's Stats once it ended
        self.started = time.monotonic()
        self.seconds = 0.0
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"jump-{self.id}", daemon=True)

    def start(self) -> Jump:
        self._thread.start()
        return self

    def cancel(self) -> None:
        """Ask the search to stop; it does within about 1,024 states."""
        self._cancel.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _on_progress(self, progress: Progress) -> None:
        self.progress = progress

    def _run(self) -> None:
        try:
            self._search()
        except Exception as exc:  # noqa: BLE001 -- reported on the page, never a traceback
            self.status, self.reason = "error", f"{type(exc).__name__}: {exc}"
        finally:
            self.seconds = time.monotonic() - self.started

    def _search(self) -> None:
        source = self.explorer
        walk = source.walk(self.start_path)
        if walk.error is not None:
            self.status, self.reason = "error", str(walk.error)
            return
        # a model of its own: the explorer's serves the page's requests meanwhile
        spec, every = compose.build_model(source.model, source.config)
        chosen = [p for p in every if p.name in (self.names or [q.name for q in source.props])]
        if not chosen:
            self.status, self.reason = "error", f"no such property: {', '.join(self.names)}"
            return
        limits = Limits(time_limit=self.time_limit, stop_on_first=True, cancel=self._cancel)
        result = explore(
            StartAt(spec, walk.states[-1]),
            chosen,
            limits,
            self._on_progress,
            getattr(spec, "default_symmetry", False),
        )
        if result.violations:
            found = result.violations[0]
            self.property = found.prop.name
            self.path = walk.texts + [str(step.label) for step in found.trace[1:]]
            self.status = "found"
        elif result.status == Status.ERROR:
            self.status, self.reason = "error", result.reason
        elif result.reason == CANCELLED:
            self.status, self.reason = "cancelled", "cancelled"
        elif result.status == Status.INCOMPLETE:
            self.status, self.reason = "incomplete", result.reason
        else:
            self.status = "none"
        self.final = result.stats

    def document(self) -> dict[str, Any]:
        """What ``GET /api/jump/<id>`` returns: ``id``, ``status``, ``reason``, ``depth``,
        ``states`` (distinct), ``seconds``; when found, ``property`` and ``path``."""
        progress = self.progress
        seconds = self.seconds if self.status != "running" else time.monotonic() - self.started
        stats = self.final
        return {
            "id": self.id,
            "status": self.status,
            "reason": self.reason,
            "from": self.start_path,
            "depth": stats.depth if stats else (progress.depth if progress else 0),
            "states": stats.distinct if stats else (progress.distinct if progress else 0),
            "seconds": round(seconds, 2),
            "property": self.property,
            "path": self.path,
        }


class Jumps:
    """The server's searches by id; starting one cancels the one before (one core each)."""

    def __init__(self, time_limit: float) -> None:
        self.time_limit = time_limit
        self._jobs: dict[int, Jump] = {}
        self._lock = threading.Lock()

    def start(self, explorer: Explorer, path: list[str], names: list[str]) -> Jump:
        with self._lock:
            for job in self._jobs.values():
                job.cancel()
            job = Jump(explorer, path, names, self.time_limit).start()
            self._jobs[job.id] = job
            return job

    def get(self, job_id: int) -> Jump | None:
        with self._lock:
            return self._jobs.get(job_id)

    def stop_all(self, timeout: float = 5.0) -> None:
        """Cancel every search and wait up to ``timeout`` seconds for each."""
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel()
        for job in jobs:
            job.join(timeout)
