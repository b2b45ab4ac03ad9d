"""What a run returns: status, statistics, violations, and the exit codes CI depends on."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from checker.model import Label, State
from checker.properties import Property


class Status(str, Enum):
    """Outcome of a run.

    OK: every checked property holds on the whole reachable state space and every "sometimes"
    guard was reached. VIOLATED: an invariant or transition property has a counterexample.
    VACUOUS: the search completed, invariants hold, but a "sometimes" guard was never reached.
    INCOMPLETE: a depth bound, time limit or Ctrl-C cut the search; nothing is proved.
    ERROR: the spec raised an exception.
    """

    OK = "OK"
    VIOLATED = "VIOLATED"
    VACUOUS = "VACUOUS"
    INCOMPLETE = "INCOMPLETE"
    ERROR = "ERROR"


EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3
EXIT_BAD_INPUT = 4
EXIT_ENVIRONMENT = 5
EXIT_VIOLATED = 12
EXIT_VACUOUS = 13
EXIT_NONCONFORMING = 14
"""``conform``: a cut of real Kafka that the model does not explain."""
EXIT_SPEC_ERROR = 75

EXIT_CODES = {
    Status.OK: EXIT_OK,
    Status.VIOLATED: EXIT_VIOLATED,
    Status.VACUOUS: EXIT_VACUOUS,
    Status.INCOMPLETE: EXIT_INCOMPLETE,
    Status.ERROR: EXIT_SPEC_ERROR,
}


@dataclass
class Stats:
    """Search statistics.

    ``distinct``: distinct states found (states). ``generated``: successor states computed,
    duplicates included, plus the initial states (TLC's "states generated"). ``depth``: length
    of the longest shortest path, the initial state counting as depth 1 (as TLC counts).
    ``seconds``: wall time of the search. ``actions``: per action name,
    ``[generated, distinct]`` (TLC's coverage: how often the action fired, how many of those
    reached a new state). ``peak_rss_mb``: the process's peak resident memory (MiB).
    ``frontier``: states left unexplored when a limit cut the search. ``engine``: which engine
    ran (``local``, or ``spark`` with its master and partitions). ``levels``: per BFS level
    (Spark engine) a dict of ``depth``, ``frontier``, ``new`` (states), ``seconds`` and
    ``where`` (``driver``, ``workers`` or ``spark``); not written to reports. ``symmetry``:
    states were reduced to one per orbit of replica renamings (``distinct`` counts orbits).
    ``workers_peak_rss_mb``: the largest peak resident memory of a worker process (MiB; 0
    when the search ran in one process). ``core``: which implementation of the model ran,
    ``reference`` (the Python model) or ``compiled`` (``checker.native``). ``disk_mb``: the
    most the compiled engine's disk tier held (MiB) once the search passed its memory budget
    (``--memory``; ``checker.search.tier.spill``): its runs and parent files, and a streamed
    level's flushes and frontier files; 0 when it never spilled. ``seen_bytes`` and
    ``parent_bytes``: what the compiled engine's seen set (``checker/native/seen.h``) and
    parent tables (``checker.search.reference.seen.KeyLevels``) held in memory when the search ended
    (bytes; 0 on the reference core), with ``seen_held`` the keys in that seen set (states;
    the rest are on disk), and ``parent_file_bytes`` the parent tables in files (bytes).
    """

    distinct: int = 0
    generated: int = 0
    depth: int = 0
    seconds: float = 0.0
    actions: dict[str, list[int]] = field(default_factory=dict)
    peak_rss_mb: float = 0.0
    frontier: int = 0
    engine: str = "local"
    levels: list[dict[str, Any]] = field(default_factory=list)
    symmetry: bool = False
    workers_peak_rss_mb: float = 0.0
    core: str = "reference"
    disk_mb: float = 0.0
    seen_bytes: int = 0
    parent_bytes: int = 0
    seen_held: int = 0
    parent_file_bytes: int = 0
    key_bits: int = 64
    key: str = "fingerprint"  # what the seen set dedups on: or the compiled core's "row hash"

    @property
    def states_per_second(self) -> float:
        """Distinct states per second of search (0 when no time elapsed)."""
        return self.distinct / self.seconds if self.seconds > 0 else 0.0

    @property
    def collision_probability(self) -> float:
        """TLC's estimate ``n·(g−n)/2^bits`` of a collision of the keys the seen set dedups
        on in this run (``key_bits`` of them)."""
        from checker.fingerprint import collision_probability

        return collision_probability(self.distinct, self.generated, self.key_bits)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "distinct": self.distinct,
            "generated": self.generated,
            "depth": self.depth,
            "seconds": round(self.seconds, 3),
            "distinct_per_second": round(self.states_per_second, 1),
            "collision_probability": self.collision_probability,
            "key_bits": self.key_bits,
            "key": self.key,
            "peak_rss_mb": round(self.peak_rss_mb, 1),
            "left_in_frontier": self.frontier,
            "engine": self.engine,
            "core": self.core,
            "symmetry": self.symmetry,
            "workers_peak_rss_mb": round(self.workers_peak_rss_mb, 1),
            "disk_mb": round(self.disk_mb, 1),
            "seen_bytes": self.seen_bytes,
            "parent_bytes": self.parent_bytes,
            "seen_held": self.seen_held,
            "parent_file_bytes": self.parent_file_bytes,
            "actions": {
                name: {"generated": g, "distinct": d} for name, (g, d) in self.actions.items()
            },
        }


@dataclass(frozen=True)
class Step:
    """One step of a trace: the action that led here (None for the initial state), the state
    reached and its fingerprint."""

    label: Label | None
    state: State
    fingerprint: int


@dataclass(frozen=True)
class Loop:
    """How a liveness counterexample (a lasso) goes on for ever after its last step.

    ``back_to``: the index of the step the behaviour returns to; for a cycle the last step's
    state equals that step's state, so the steps from ``back_to`` on repeat for ever. With
    ``stutter`` the behaviour stays in the last state for ever (``back_to`` is the last
    index). ``never_taken``: action instances enabled in every state of the loop that never
    happen in it (no fairness forces them). ``fairness``: the constraints the run assumed, as
    text. ``obligation``: for ``P ~> Q``, which instance of ``P`` is never answered, in words.
    ``cut``: non-empty when a bound, not the protocol, stops progress at the end (the verdict
    is then unknown, not violated).
    """

    back_to: int
    stutter: bool
    never_taken: tuple[str, ...] = ()
    fairness: str = ""
    obligation: str = ""
    cut: str = ""


@dataclass(frozen=True)
class Violation:
    """A property with its shortest counterexample ``trace`` (initial state first).

    For an invariant the last step's state violates it; for a transition property the last
    step is the violating transition; for a liveness property the trace is a lasso, and
    ``loop`` says how it continues for ever.
    """

    prop: Property
    trace: tuple[Step, ...]
    loop: Loop | None = None

    @property
    def length(self) -> int:
        """Number of states in the trace (TLC's convention: the initial state counts)."""
        return len(self.trace)


@dataclass
class CheckResult:
    """Everything a run found.

    ``violations``: one per violated property, in the order found (shortest first).
    ``unreached``: names of "sometimes" guards never reached. ``reason``: why a run is
    INCOMPLETE or ERROR, in words. ``exhausted``: the whole reachable state space was
    explored, so a property with no counterexample holds. ``sampled``: for a simulation
    (``hwcheck simulate``, a gate check in mode ``simulate``), the walks run; 0 for a search.
    """

    status: Status
    stats: Stats
    checked: tuple[Property, ...]
    violations: list[Violation] = field(default_factory=list)
    unreached: list[str] = field(default_factory=list)
    reason: str = ""
    exhausted: bool = False
    sampled: int = 0
    unsettled: dict[str, str] = field(default_factory=dict)
    """Liveness properties a bound left unsettled, with the reason (``Loop.cut``)."""

    def verdict(self, prop: Property) -> str:
        """``violated``, ``holds``, ``reached``, ``not reached``, ``not found`` (a simulation
        whose walks did not violate it) or ``unknown`` (the search ended before the property
        was settled)."""
        if prop.name in self.unsettled:
            return "unknown"
        if any(v.prop.name == prop.name for v in self.violations):
            return "violated"
        if prop.kind == "sometimes":
            if prop.name not in self.unreached:
                return "reached"
            return "not reached" if self.exhausted or self.sampled else "unknown"
        if self.sampled:
            return "not found"
        return "holds" if self.exhausted else "unknown"

    @property
    def exit_code(self) -> int:
        """The documented exit code for this outcome."""
        return EXIT_CODES[self.status]


def peak_rss_mb() -> float:
    """Peak resident set size of this process, in MiB (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
