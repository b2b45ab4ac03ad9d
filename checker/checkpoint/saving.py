"""What every engine's search does for checkpoints (``checker.checkpoint``): record each
committed level, save the frontier and the search's state at level boundaries when due and
once more at the end (Ctrl-C, SIGTERM, a time limit, or done), and go on from a checkpoint.

``Saving`` is a base of ``checker.search.reference.bfs.Search``; each engine gives its own
``level_table``, ``frontier_snapshot``, ``seen_snapshot`` and ``restore_levels`` (the reference
engine's are here). The statistics, violations and open properties are saved and restored here, the
same for every engine, so a checkpoint written by one engine resumes on any other (but one that
keeps a spilled compiled search's parent tables: ``checker.checkpoint.write``).
"""

from __future__ import annotations

import base64
import gc
import marshal
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.format import CheckpointError, CheckpointFailed, Frontier
from checker.checkpoint.read import Loaded
from checker.checkpoint.write import Checkpointer
from checker.fingerprint import encode, fingerprint
from checker.limits import LimitReached, Reporting, SpecFailed, interruption
from checker.model import CompiledModel, Label
from checker.properties import Property
from checker.result import CheckResult, Stats, Status, Step, Violation


def run_search(run: Any, passthrough: tuple[type[BaseException], ...] = ()) -> CheckResult:
    """Run ``run.search()`` and turn how it ended into a ``CheckResult``: a limit or Ctrl-C
    gives INCOMPLETE, any other exception ERROR ("the spec raised ..."), except the
    ``passthrough`` exception types, which propagate (the Spark engine's environment errors).
    With ``run.checkpoints``, a last checkpoint is saved when the search ends (done, a limit,
    Ctrl-C or SIGTERM; a second signal during it stops at once, the previous one kept).
    """
    gc_was_enabled = gc.isenabled()
    gc.disable()  # states are acyclic tuples: the cyclic collector only costs time here
    try:
        try:
            run.search()
        except (LimitReached, KeyboardInterrupt) as stop:
            run.status = Status.INCOMPLETE
            run.reason = interruption() if isinstance(stop, KeyboardInterrupt) else str(stop)
        if run.status is not None or run.checkpoints is None or run.checkpoints.keep_final:
            run.save_checkpoint()  # (not for a search that ended complete, unless wanted)
    except CheckpointFailed as stop:
        run.status, run.reason = Status.INCOMPLETE, str(stop)
    except CheckpointError:  # a checkpoint found damaged while resuming
        raise
    except passthrough:
        raise
    except SpecFailed as exc:
        run.status, run.reason = Status.ERROR, str(exc)
    except Exception as exc:  # noqa: BLE001 -- any exception is a bug in the spec: report it
        run.status = Status.ERROR
        run.reason = f"the spec raised {type(exc).__name__}: {exc}"
    finally:
        if gc_was_enabled:
            gc.enable()
    result: CheckResult = run.result()
    return result


@dataclass
class SaveOptions:
    """How a search saves and resumes: ``checkpoints`` (where to write; None: nowhere),
    ``resume`` (the checkpoint to go on from), and ``compiled_model``, the model's
    (``checker.model.CompiledModel``; None: it has none), whose ``encode`` and ``decode`` turn
    a frontier written by one core into the other's."""

    checkpoints: Checkpointer | None = None
    resume: Loaded | None = None
    compiled_model: CompiledModel | None = None

    def apply(self, search: Saving) -> Saving:
        """Give ``search`` these options; returns it."""
        search.checkpoints, search.resume = self.checkpoints, self.resume
        search.compiled_model = self.compiled_model
        return search


class Saving(Reporting):
    """Checkpoint support shared by the engines' searches (and, from ``Reporting``, their
    limits and progress). ``checkpoints``: where to write
    (None: no checkpoints); ``resume``: the checkpoint to go on from (None: a new search).
    ``compiled_model``: the model's, which turns a compiled-core row into a state and back,
    for a frontier written by one core and read by the other (set by whoever knows the
    model)."""

    checkpoints: Checkpointer | None = None
    resume: Loaded | None = None
    consistent = False  # True once the search stands at a level boundary (saving is exact)
    compiled_model: CompiledModel | None = None
    # set by the engine's search (``checker.search.reference.bfs.Search`` and its subclasses)
    stats: Stats
    start: float
    note: str
    properties: tuple[Property, ...]
    violations: list[Violation]
    invariants: list[Property]
    transitions: list[Property]
    pending: list[Property]
    seen: Any
    previous_level: Any
    frontier: Any

    # -- the engine's part (the reference engine's; others override) -----------------------
    def level_table(self, k: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """``(fps, parent fps)`` of committed level ``k`` (``uint64``)."""
        table: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] = self.seen.table(k)
        return table

    def frontier_snapshot(self) -> Frontier:
        """The frontier as it is at this level boundary."""
        items = self.frontier
        fps = np.fromiter((fp for fp, _ in items), dtype=np.uint64, count=len(items))
        return Frontier(fps, states=[encode(state) for _, state in items])

    def seen_snapshot(self) -> np.ndarray[Any, Any] | None:
        """The engine's own seen set when the level files do not give it (compiled core)."""
        return None

    def seen_runs(self) -> list[tuple[Path, str]]:
        """The rest of that seen set, on disk: sorted runs of it (``checker.search.tier.runs``)
        as ``(path, checksum)``, which the checkpoint links rather than copies."""
        return []

    def key_level_files(self) -> list[tuple[int, Path, str]]:
        """The levels whose parent tables the engine keeps in files, ``(level, path,
        checksum)``, which the checkpoint links in place of their level files (a compiled
        search spilled to disk: ``checker.search.reference.seen.KeyLevels.files``). Raises
        ``OSError`` when moving them to files fails (the checkpoint fails, not the search)."""
        return []

    def restore_levels(self, loaded: Loaded) -> list[Any]:
        """Rebuild the seen set, parents and frontier from ``loaded``; return the frontier."""
        last_two: deque[np.ndarray[Any, Any]] = deque(maxlen=2)
        for k, fps, parents in loaded.levels():
            self.seen.add_level(fps, None if k == 1 else parents)
            last_two.append(fps)
        self.previous_level = set(last_two[0].tolist()) if len(last_two) == 2 else set()
        frontier = loaded.frontier()
        return list(zip(frontier.fps.tolist(), self.frontier_states(frontier)))

    # -- shared ------------------------------------------------------------------------------
    def frontier_states(self, frontier: Frontier) -> list[Any]:
        """A checkpoint's ``frontier`` as Python states (decoding compiled rows if need be)."""
        if frontier.states is not None:
            return [marshal.loads(data) for data in frontier.states]
        assert frontier.rows is not None  # a frontier holds states or rows
        compiled = self.compiled_model
        assert compiled is not None, "a frontier of rows needs the model's compiled model"
        return [compiled.decode(row.tobytes()) for row in frontier.rows]

    def frontier_rows(self, frontier: Frontier, width: int) -> np.ndarray[Any, Any]:
        """A checkpoint's ``frontier`` as compiled-core rows (encoding states if need be)."""
        if frontier.rows is not None:
            return np.ascontiguousarray(frontier.rows)
        compiled = self.compiled_model
        assert compiled is not None, "a frontier of states needs the model's compiled model"
        data = b"".join(compiled.encode(marshal.loads(s)) for s in frontier.states or [])
        return np.frombuffer(data, dtype=np.uint8).reshape(len(frontier), width)

    def level_committed(self) -> None:
        """Record the level just committed (call inside the commit's ``signals_deferred``)."""
        if self.checkpoints is not None:
            k = self.stats.depth
            fps, parents = self.level_table(k)
            self.checkpoints.level(k, fps, parents)

    def boundary(self) -> None:
        """At a level boundary: save a checkpoint if one is due."""
        if self.checkpoints is not None and self.checkpoints.due():
            self.save_checkpoint()

    def save_checkpoint(self) -> bool:
        """Save a checkpoint of this boundary now; returns whether one was written."""
        if self.checkpoints is None or not self.checkpoints.enabled or not self.consistent:
            return False
        frontier = self.frontier_snapshot()
        note, self.note = self.note, f"writing a checkpoint, {len(frontier):,} frontier states"
        self._report(len(frontier), limits=False)
        try:
            seen = self.seen_snapshot() if len(frontier) else None  # nothing left to expand
            return self.checkpoints.save(
                self.stats.depth,
                frontier,
                seen,
                self.search_state(),
                self.seen_runs() if len(frontier) else [],
                key_levels=self.key_level_files,
            )
        finally:
            self.note = note

    def search_state(self) -> dict[str, Any]:
        """The statistics, violations and open properties, as JSON."""
        stats = self.stats
        return {
            "distinct": stats.distinct,
            "generated": stats.generated,
            "depth": stats.depth,
            "actions": stats.actions,
            "levels": stats.levels,
            "seconds": time.perf_counter() - self.start,
            "violations": [
                {"property": v.prop.name, "steps": [_step(s) for s in v.trace]}
                for v in self.violations
            ],
            "invariants": [p.name for p in self.invariants],
            "transitions": [p.name for p in self.transitions],
            "pending": [p.name for p in self.pending],
        }

    def restore_state(self, loaded: Loaded) -> None:
        """Take the statistics, violations and open properties from ``loaded``; the clock
        goes on from the seconds already spent."""
        data, stats = loaded.search, self.stats
        by_name = {p.name: p for p in self.properties}
        named = [v["property"] for v in data["violations"]]
        named += [*data["invariants"], *data["transitions"], *data["pending"]]
        unknown = sorted(set(named) - set(by_name))
        if unknown:
            raise CheckpointError(
                f"the checkpoint in {loaded.folder} names {', '.join(unknown)}, which this "
                "run does not check"
            )
        stats.distinct, stats.generated = data["distinct"], data["generated"]
        stats.depth, stats.levels = data["depth"], data["levels"]
        stats.actions = {name: list(pair) for name, pair in data["actions"].items()}
        self.violations = [
            Violation(by_name[v["property"]], tuple(_unstep(s, loaded.folder) for s in v["steps"]))
            for v in data["violations"]
        ]
        self.invariants = [by_name[name] for name in data["invariants"]]
        self.transitions = [by_name[name] for name in data["transitions"]]
        self.pending = [by_name[name] for name in data["pending"]]
        self.start = time.perf_counter() - data["seconds"]


def _step(step: Step) -> list[Any]:
    label = None if step.label is None else step.label.text
    return [label, f"{step.fingerprint:016x}", base64.b64encode(encode(step.state)).decode()]


def _unstep(entry: list[Any], folder: Path) -> Step:
    """A violation's step read back (``_step``'s list). Raises ``CheckpointError`` when its
    label does not parse, its state does not decode to a model state (tuples of ints, bools,
    strings and None: no other object is ever built from a file) or is not the state its
    fingerprint names."""
    label, fp, state = entry
    try:
        value = marshal.loads(base64.b64decode(state, validate=True))
        parsed = None if label is None else Label.parse(label)
    except (ValueError, EOFError, TypeError) as exc:
        raise CheckpointError(
            f"a violation in the checkpoint in {folder} is unreadable: {exc}"
        ) from None
    if not _plain(value) or fingerprint(value) != int(fp, 16):
        raise CheckpointError(
            f"a violation in the checkpoint in {folder} holds a state that is not the one its "
            f"fingerprint {fp} names"
        )
    return Step(parsed, value, int(fp, 16))


def _plain(value: Any) -> bool:
    """Whether ``value`` is built only of tuples, ints, bools, strings and None (a model
    state), looked at without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, tuple):
            pending.extend(item)
        elif item is not None and not isinstance(item, (int, str)):
            return False
    return True
