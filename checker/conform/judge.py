"""Hold cuts of a real cluster against the Kafka model: the reachability and step checks.

A cut observes, per broker, its log as ``(record id, leader epoch)`` pairs, its HW and whether
its process runs, and the controller's leader epoch, leader, ISR and (with KIP-966) ELR
(``Observation``). The model's state holds more (each broker's view and remote LEOs, the
LeaderAndIsr requests, ghost counters): those are what a cut does not see, so a cut is
*explained* by every model state that agrees with it on what it sees (``observe``).

``Validator.step`` is trace validation (as etcd's raft and CCF check their traces against
TLA+): from the set of model states that explain the previous cut, a breadth-first search of
at most ``depth`` model actions must reach states that explain the next one; those become the
set the next cut starts from. When none does, the cut is searched for from the initial states
(reachability); a cut no reachable state explains gets the nearest state seen and the
variables that differ. Searches never pass the cut's own counters (records appended, crashes,
leader epoch), which only grow, so they stay within the part of the state space that could
explain it.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from checker.model import Label
from spec.kafka.model import KafkaSpec
from spec.kafka.state import (
    ALIVE,
    C_EPOCH,
    CONTROLLER,
    D_UNCLEAN,
    DURABLE,
    G_CRASHES,
    G_NEXT_ID,
    GHOST,
    HW,
    LOG,
    REPLICAS,
)

Observation = tuple[tuple[tuple[Any, ...], ...], tuple[Any, ...]]
"""``(replicas, controller)``: ``replicas[r] = (log, hw, alive)``, ``log`` a tuple of
``(record id, leader epoch)``; ``controller = (leader epoch, leader, isr[, elr, last known
leader])`` as the model's ``controller`` component (leader None when there is none)."""

SEARCH_LIMIT = 400_000
"""Model states one search may visit before it gives up (about 10 s of the Python core)."""


def observe(state: tuple[Any, ...]) -> Observation:
    """What a cut can see of a model state (module docstring)."""
    replicas = tuple((rep[LOG], rep[HW], rep[ALIVE]) for rep in state[REPLICAS])
    return replicas, state[CONTROLLER]


def _differing(cut: Observation, seen: Observation) -> Iterator[tuple[str, Any, Any]]:
    """``(variable, cut value, model value)`` for each observed variable that differs."""
    for r, (real, model) in enumerate(zip(cut[0], seen[0], strict=True)):
        for name, a, b in zip(("log", "hw", "alive"), real, model, strict=True):
            if a != b:
                yield f"broker {r} {name}", a, b
    names = ("leader epoch", "leader", "isr", "elr", "last known leader")
    for name, a, b in zip(names, cut[1], seen[1], strict=False):
        if a != b:
            yield f"controller {name}", a, b


def differences(cut: Observation, seen: Observation) -> list[str]:
    """The observed variables where ``seen`` (a model state's) differs from ``cut``, each as
    ``name: cut value / model value``."""
    return [f"{name}: {a} / {b}" for name, a, b in _differing(cut, seen)]


def misses(cut: Observation, seen: Observation) -> int:
    """How many observed variables differ (``differences`` without its text: the searches
    count them for every state they visit)."""
    return sum(1 for _ in _differing(cut, seen))


@dataclass(frozen=True)
class Counters:
    """What only grows along a run, read off a cut: records appended, crashes, leader epoch,
    power losses (the model's unclean shutdowns)."""

    records: int
    crashes: int
    epoch: int
    power_losses: int = 0

    def admits(self, state: Any, durable: bool = False) -> bool:
        """Whether ``state`` can still lead to a state with these counters (``durable``: the
        model's states have the ``durable`` component, which counts unclean shutdowns)."""
        ghost = state[GHOST]
        return bool(
            ghost[G_NEXT_ID] <= self.records
            and ghost[G_CRASHES] <= self.crashes
            and state[CONTROLLER][C_EPOCH] <= self.epoch
            and (not durable or state[DURABLE][D_UNCLEAN] <= self.power_losses)
        )


@dataclass
class Verdict:
    """One cut's judgement: ``check`` is ``explained`` (a step reached it), ``reachable``
    (reached only from the initial states: the step check failed), ``unreachable`` or
    ``beyond`` (outside the model's bounds); ``path`` the model actions of the shortest step,
    ``nearest`` the differences from the nearest state seen when nothing explains it,
    ``visited`` the states the searches visited."""

    check: str
    path: list[str] = field(default_factory=list)
    nearest: list[str] = field(default_factory=list)
    visited: int = 0

    @property
    def ok(self) -> bool:
        return self.check == "explained"


class Validator:
    """Trace validation of one schedule's cuts against ``spec`` (module docstring)."""

    def __init__(self, spec: KafkaSpec, depth: int = 16) -> None:
        self.spec, self.depth = spec, depth
        self.current: list[tuple[Any, ...]] = list(spec.init_states())
        self.from_init: dict[tuple[Any, ...], Any] = {}
        """Reachability searches by (cut, counters): a cut nothing explains is often seen
        again unchanged at the next cut, and the search from the initial states is the
        costly one."""

    def beyond(self, counters: Counters) -> str | None:
        """Why a cut with ``counters`` lies outside the model's bounds, or None."""
        c = self.spec.config
        if counters.records > c.max_records:
            return f"{counters.records} records appended, the model allows {c.max_records}"
        if counters.crashes > c.max_crashes:
            return f"{counters.crashes} crashes, the model allows {c.max_crashes}"
        if counters.power_losses > c.max_unclean_shutdowns:
            allowed = c.max_unclean_shutdowns
            return f"{counters.power_losses} power losses, the model allows {allowed}"
        if counters.epoch > c.max_epoch:
            return f"leader epoch {counters.epoch}, the model stops at {c.max_epoch}"
        return None

    def step(self, cut: Observation, counters: Counters) -> Verdict:
        """Judge the next cut; afterwards the states that explain it are the start of the
        next step (or, when nothing explains it, the states that explained the last cut that
        was explained: later cuts are judged from there)."""
        reason = self.beyond(counters)
        if reason:
            return Verdict("beyond", nearest=[reason])
        found, path, nearest, visited = self._search(self.current, cut, counters, self.depth)
        if found:
            self.current = found
            return Verdict("explained", path=path, visited=visited)
        key = (cut, counters)
        if key not in self.from_init:
            self.from_init[key] = self._search(list(self.spec.init_states()), cut, counters, None)
        again, _, nearest2, visited2 = self.from_init[key]
        if again:
            self.current = again
            return Verdict(
                "reachable", nearest=differences(cut, nearest), visited=visited + visited2
            )
        best = min((nearest, nearest2), key=lambda o: misses(cut, o))
        return Verdict("unreachable", nearest=differences(cut, best), visited=visited + visited2)

    def _search(
        self,
        starts: list[tuple[Any, ...]],
        cut: Observation,
        counters: Counters,
        depth: int | None,
    ) -> tuple[list[tuple[Any, ...]], list[str], Observation, int]:
        """Breadth-first from ``starts`` (at most ``depth`` actions; None: no limit) through
        states ``counters`` admits: every state found that explains ``cut`` (the search
        goes on past them: a step the cut cannot see keeps explaining it), the labels of the
        shortest path to one, the nearest observation seen, and the states visited."""
        parent: dict[Any, tuple[Any, Label | None]] = {s: (None, None) for s in starts}
        queue: deque[tuple[Any, int]] = deque((s, 0) for s in starts)
        found: list[tuple[Any, ...]] = []
        nearest, score = observe(starts[0]), misses(cut, observe(starts[0]))
        while queue and len(parent) < SEARCH_LIMIT:
            state, level = queue.popleft()
            seen = observe(state)
            if seen == cut:
                found.append(state)
            else:
                miss = misses(cut, seen)
                if miss < score:
                    nearest, score = seen, miss
            if depth is not None and level >= depth:
                continue
            for label, nxt in self.spec.successors(state):
                if nxt not in parent and counters.admits(nxt, self.spec.durable):
                    parent[nxt] = (state, label)
                    queue.append((nxt, level + 1))
        path: list[str] = []
        if found:
            node: tuple[Any, ...] | None = found[0]
            while node is not None and parent[node][1] is not None:
                prev, step = parent[node]
                path.append(str(step))
                node = prev
            path.reverse()
        return found, path, nearest, len(parent)


class Background:
    """A validator's steps in a daemon thread, in the order given, so that the model's
    searches run while the cluster sleeps through the next operation (the searches are
    sequential: each starts from the states the last one found). ``finish`` waits for every
    step and raises the first error a step raised. A daemon thread: an interrupted run does
    not wait for the search in progress."""

    def __init__(self, validator: Validator) -> None:
        self.validator = validator
        self.jobs: queue.Queue[tuple[Observation, Counters, Callable[[Verdict], None]] | None]
        self.jobs = queue.Queue()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._work, daemon=True, name="hwcheck-judge")
        self.thread.start()

    def _work(self) -> None:
        while (job := self.jobs.get()) is not None:
            cut, counters, done = job
            if self.error is None:
                try:
                    done(self.validator.step(cut, counters))
                except Exception as exc:  # noqa: BLE001 - handed to the caller by finish()
                    self.error = exc

    def submit(self, cut: Observation, counters: Counters, done: Callable[[Verdict], None]) -> None:
        """Judge ``cut`` after every step submitted before it; ``done(verdict)`` then."""
        self.jobs.put((cut, counters, done))

    def finish(self) -> None:
        """Wait for every step; raise the first error one raised."""
        self.jobs.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error
