"""Seeded random schedules of nemesis operations, in the model's action names.

An operation is ``(name, broker)``: ``produce`` (broker None: the client sends one record to
whichever broker leads), ``crash``, ``restart``, ``pause``, ``resume`` (a broker id), or
``wait`` (broker None: time passes, so lag-based ISR changes happen). A schedule depends
only on its seed and bounds, never on what Kafka did, so the same seed gives the same
schedule (``random.Random(seed)``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

Operation = tuple[str, int | None]


@dataclass(frozen=True)
class Bounds:
    """What a schedule may do: ``records`` produce calls, ``crashes`` SIGKILLs, ``steps``
    operations before the closing ones (a resume of every paused broker and a restart of
    every crashed one)."""

    replicas: int = 3
    records: int = 2
    crashes: int = 1
    steps: int = 6


def random_schedule(seed: int, bounds: Bounds) -> list[Operation]:
    """A schedule of ``bounds.steps`` operations, each drawn among those enabled by the
    operations before it, then the closing ones. Pauses one broker at a time."""
    rng = random.Random(seed)
    produced = crashes = 0
    down: set[int] = set()
    paused: int | None = None
    ops: list[Operation] = []
    for _ in range(bounds.steps):
        choices: list[Operation] = [("wait", None)]
        if produced < bounds.records:
            choices += [("produce", None)] * 3
        for r in range(bounds.replicas):
            if r in down:
                choices.append(("restart", r))
            elif r == paused:
                choices.append(("resume", r))
            else:
                if crashes < bounds.crashes:
                    choices.append(("crash", r))
                if paused is None:
                    choices.append(("pause", r))
        op = rng.choice(choices)
        ops.append(op)
        name, target = op
        if name == "produce":
            produced += 1
        elif name == "crash" and target is not None:
            crashes += 1
            down.add(target)
        elif name == "restart" and target is not None:
            down.discard(target)
        elif name == "pause":
            paused = target
        elif name == "resume":
            paused = None
    if paused is not None:
        ops.append(("resume", paused))
    ops += [("restart", r) for r in sorted(down)]
    return ops


def describe(op: Operation) -> str:
    """``produce``, ``crash(1)``..."""
    name, r = op
    return name if r is None else f"{name}({r})"
