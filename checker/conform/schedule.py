"""Seeded random schedules of nemesis operations.

An operation is ``(name, args)``:

- ``produce ()``: the client sends one record to whichever broker leads;
- ``crash (r)`` (SIGKILL), ``restart (r)``, ``pause (r)`` (SIGSTOP), ``resume (r)``;
- ``power_loss (r)``: SIGKILL, then what was never flushed is cut off
  (``checker.conform.powerloss``);
- ``partition (a, b)``: the links between brokers ``a`` and ``b`` cut, both ways;
- ``isolate (r)``: broker ``r``'s link to the controller cut;
- ``heal ()``: every cut link carries connections again;
- ``wait ()``: time passes (lag-based ISR changes, fencing).

A schedule depends only on its seed and bounds, never on what Kafka did, so the same seed
gives the same schedule (``random.Random(seed)``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

Operation = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class Bounds:
    """What a schedule may do: ``records`` produce calls, ``crashes`` SIGKILLs, ``steps``
    operations before the closing ones (a heal of every cut link, a resume of every paused
    broker and a restart of every crashed one); ``network`` allows partitions and
    isolations; ``power_losses`` power losses (0: a schedule draws exactly what it drew
    before power losses existed)."""

    replicas: int = 3
    records: int = 2
    crashes: int = 1
    steps: int = 6
    network: bool = True
    power_losses: int = 0


@dataclass
class _Plan:
    produced: int = 0
    crashes: int = 0
    power_losses: int = 0
    paused: int | None = None
    cut: bool = False
    isolated: int | None = None

    def __post_init__(self) -> None:
        self.down: set[int] = set()


def _choices(plan: _Plan, bounds: Bounds) -> list[Operation]:
    choices: list[Operation] = [("wait", ())]
    if plan.produced < bounds.records:
        choices += [("produce", ())] * 3
    for r in range(bounds.replicas):
        if r in plan.down:
            if r != plan.isolated:  # a broker starts only once it reaches the controller
                choices.append(("restart", (r,)))
        elif r == plan.paused:
            choices.append(("resume", (r,)))
        else:
            if plan.crashes < bounds.crashes:
                choices.append(("crash", (r,)))
            if plan.power_losses < bounds.power_losses:
                choices.append(("power_loss", (r,)))
            if plan.paused is None:
                choices.append(("pause", (r,)))
    if bounds.network and plan.cut:
        choices.append(("heal", ()))
    return choices


def random_schedule(seed: int, bounds: Bounds) -> list[Operation]:
    """A schedule of ``bounds.steps`` operations, each drawn among those enabled by the
    operations before it, then the closing ones. One broker paused and one network fault at a
    time."""
    rng = random.Random(seed)
    plan = _Plan()
    ops: list[Operation] = []
    for _ in range(bounds.steps):
        choices = _choices(plan, bounds)
        if bounds.network and not plan.cut:  # a network fault on a broker drawn from the seed
            up = [b for b in range(bounds.replicas) if b not in plan.down]
            r = rng.choice(up) if up else 0
            choices += [
                ("partition", tuple(sorted((r, (r + 1) % bounds.replicas)))),
                ("isolate", (r,)),
            ]
        op = rng.choice(choices)
        ops.append(op)
        name, args = op
        if name == "produce":
            plan.produced += 1
        elif name == "crash":
            plan.crashes += 1
            plan.down.add(args[0])
        elif name == "power_loss":
            plan.power_losses += 1
            plan.down.add(args[0])
        elif name == "restart":
            plan.down.discard(args[0])
        elif name == "pause":
            plan.paused = args[0]
        elif name == "resume":
            plan.paused = None
        elif name in ("partition", "isolate"):
            plan.cut = True
            plan.isolated = args[0] if name == "isolate" else None
        elif name == "heal":
            plan.cut, plan.isolated = False, None
    if plan.cut:
        ops.append(("heal", ()))
    if plan.paused is not None:
        ops.append(("resume", (plan.paused,)))
    ops += [("restart", (r,)) for r in sorted(plan.down)]
    return ops


def describe(op: Operation) -> str:
    """``produce``, ``crash(1)``, ``partition(0,2)``..."""
    name, args = op
    return f"{name}({','.join(map(str, args))})" if args else name


ARITY = {
    "produce": 0,
    "wait": 0,
    "heal": 0,
    "crash": 1,
    "power_loss": 1,
    "restart": 1,
    "pause": 1,
    "resume": 1,
    "isolate": 1,
    "partition": 2,
}
"""Each operation's number of broker arguments."""


class ScheduleError(ValueError):
    """A schedule file that cannot be played (the message names the file and line)."""


def parse(text: str, replicas: int, name: str = "schedule") -> list[Operation]:
    """The operations of a schedule file: one a line, as ``describe`` writes them
    (``produce``, ``crash(1)``, ``partition(0,2)``), ``#`` starting a comment; or a model
    scenario (``hwcheck explore --scenario``'s file: action labels one a line, its first
    line an action of the model's), played through ``from_labels``. Raises
    ``ScheduleError`` for an unknown operation, a wrong number of brokers, a broker outside
    ``0..replicas-1``, or no operation at all."""
    lines = [raw.split("#", 1)[0].strip() for raw in text.splitlines()]
    labels = [line for line in lines if line]
    if labels and labels[0][:1].isupper():  # a model scenario: Elect(leader=0), ...
        return from_labels(labels)
    ops: list[Operation] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip().replace(" ", "")
        if not line:
            continue
        op, _, rest = line.partition("(")
        where = f"{name}:{number}: {raw.strip()!r}"
        if op not in ARITY:
            known = ", ".join(sorted(ARITY))
            raise ScheduleError(f"{where}: no operation {op!r} (one of {known})")
        if rest and not rest.endswith(")"):
            raise ScheduleError(f"{where}: no closing parenthesis")
        try:
            args = tuple(int(a) for a in rest[:-1].split(",") if a) if rest else ()
        except ValueError:
            raise ScheduleError(f"{where}: brokers are numbers") from None
        if len(args) != ARITY[op]:
            raise ScheduleError(f"{where}: {op} takes {ARITY[op]} broker(s), not {len(args)}")
        if any(not 0 <= a < replicas for a in args):
            raise ScheduleError(f"{where}: brokers are 0 to {replicas - 1}")
        ops.append((op, args))
    if not ops:
        raise ScheduleError(f"{name}: no operation")
    return ops


FROM_LABELS = {"Crash": "crash", "Restart": "restart", "UncleanShutdown": "power_loss"}
"""The model's actions a schedule can drive, by name (``Produce`` is ``produce``); every
other action (fetches, ISR changes, elections, LeaderAndIsr) is Kafka's own doing."""


def from_labels(labels: list[str]) -> list[Operation]:
    """The operations that drive a model trace's environment, in its order: ``Produce(...)``
    is ``produce``, ``Crash(replica=r)``, ``Restart(replica=r)`` and
    ``UncleanShutdown(replica=r)`` are ``crash``, ``restart`` and ``power_loss``; every
    other label is skipped (Kafka takes those steps when it will, so a replay reaches the
    trace's states only if Kafka's timing does). Replicas are renamed so that the trace's
    first elected leader is broker 0, which Kafka elects first (the model is symmetric in
    its replicas)."""
    first = next((_replica(x) for x in labels if x.startswith(("Elect(", "Unclean"))), 0)
    rename = {first: 0, 0: first}
    ops: list[Operation] = []
    for label in labels:
        action = label.partition("(")[0]
        if action == "Produce":
            ops.append(("produce", ()))
        elif action in FROM_LABELS:
            replica = _replica(label)
            ops.append((FROM_LABELS[action], (rename.get(replica, replica),)))
    return ops


def _replica(label: str) -> int:
    """The one replica argument of ``Crash(replica=1)``, ``Elect(leader=0)``..."""
    return int(label.partition("=")[2].rstrip(")"))


def check(ops: list[Operation], config: Any, name: str) -> list[Operation]:
    """``ops`` (a schedule file's, named ``name``) when the model's bounds ``config`` (a kafka
    ``Config``) admit them: no more produce calls, crashes and power losses than it allows,
    no broker past its replicas. Raises ``ScheduleError`` saying which option to raise."""
    names = [op for op, _ in ops]
    for op, bound, option in (
        ("produce", config.max_records, "--max-records"),
        ("crash", config.max_crashes, "--max-crashes"),
        ("power_loss", config.max_unclean_shutdowns, "--max-unclean-shutdowns"),
    ):
        if names.count(op) > bound:
            raise ScheduleError(
                f"{name} has {names.count(op)} {op} operation(s); the model allows {bound}: "
                f"give {option} {names.count(op)}"
            )
    if any(a >= config.replicas for _, args in ops for a in args):
        raise ScheduleError(f"{name} names a broker past --replicas {config.replicas}")
    return ops
