"""Seeded random schedules of nemesis operations.

An operation is ``(name, args)``:

- ``produce ()``: the client sends one record to whichever broker leads;
- ``crash (r)`` (SIGKILL), ``restart (r)``, ``pause (r)`` (SIGSTOP), ``resume (r)``;
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

Operation = tuple[str, tuple[int, ...]]


@dataclass(frozen=True)
class Bounds:
    """What a schedule may do: ``records`` produce calls, ``crashes`` SIGKILLs, ``steps``
    operations before the closing ones (a heal of every cut link, a resume of every paused
    broker and a restart of every crashed one); ``network`` allows partitions and
    isolations."""

    replicas: int = 3
    records: int = 2
    crashes: int = 1
    steps: int = 6
    network: bool = True


@dataclass
class _Plan:
    produced: int = 0
    crashes: int = 0
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
