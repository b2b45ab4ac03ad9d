"""``hwcheck simulate``'s walks on the compiled core: ``checker.simulate.walks.run_batch`` with each
walk run in C (``walk.c``), the same walks step for step.

A walk's random draws are Python's: the C side continues the state of the walk's own
``random.Random`` (``checker.simulate.walks.walk_rng``) with CPython's algorithms, so walk ``i`` of
seed ``S`` takes the same steps, sees the same states and finds the same violations on both
cores. Before the first walk in a process the port is checked against Python's own draws;
a Python whose generator differs makes the core unavailable (the reference runs instead).
"""

from __future__ import annotations

import ctypes
import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from checker.model import CompiledModel, Spec
from checker.native.build import NativeUnavailable
from checker.native.core import MAX_ACTIONS, Core, check
from checker.properties import INVARIANT, SOMETIMES, TRANSITION, Property
from checker.simulate.walks import (
    DEADLOCK,
    DEPTH,
    VIOLATION,
    Batch,
    Walk,
    WalkPlan,
    sorted_unique,
    walk_rng,
)

ENDS = (VIOLATION, DEADLOCK, DEPTH)
"""walk.c's end codes 0, 1, 2, in words."""

_CHECKED: dict[int, bool] = {}


def _same_generator(core: Core) -> bool:
    """Whether walk.c's draws equal this Python's ``randrange`` and ``random`` (cached)."""
    key = id(core.lib)
    if key not in _CHECKED:
        rng = random.Random("hwcheck-generator-check")
        ns = np.array(
            [n for n in (*range(1, 40), 97, 1000, 65537, 2**30 + 3) for _ in (0, 1)] + [0] * 16,
            dtype=np.int32,
        )
        state = np.array(rng.getstate()[1], dtype=np.uint32)
        draws = np.zeros(len(ns), dtype=np.float64)
        core.lib.hwcheck_mt_draws(state.ctypes.data, ns.ctypes.data, len(ns), draws.ctypes.data)
        expected = [float(rng.randrange(n)) if n else rng.random() for n in ns.tolist()]
        _CHECKED[key] = draws.tolist() == expected
    return _CHECKED[key]


class CompiledWalks:
    """Walks of ``plan`` over ``spec`` on its compiled core ``model``, checking ``props``.

    Raises ``NativeUnavailable`` when a property has no compiled form, a weight is not
    finite, the core cannot be built or loaded, or its generator is not this Python's."""

    def __init__(
        self, model: CompiledModel, spec: Spec, props: Sequence[Property], plan: WalkPlan
    ) -> None:
        missing = [p.name for p in props if p.name not in model.property_bits]
        if missing:
            raise NativeUnavailable(f"property {missing[0]} has no compiled form")
        weights = dict(plan.weights)
        if not all(math.isfinite(w) for w in weights.values()):
            raise NativeUnavailable("a weight is not finite")
        self.core = Core(model)
        if not _same_generator(self.core):
            raise NativeUnavailable("this Python's random generator is not the one walk.c follows")
        self.model, self.plan, self.spec = model, plan, spec
        self.bits = {p.name: model.property_bits[p.name] for p in props}
        self.masks = {
            kind: sum(1 << self.bits[p.name] for p in props if p.kind == kind)
            for kind in (INVARIANT, TRANSITION, SOMETIMES)
        }
        self.guard_names = {self.bits[p.name]: p.name for p in props if p.kind == SOMETIMES}
        self.checked = [(self.bits[p.name], p.name) for p in props if p.kind != SOMETIMES]
        names = model.action_names
        self.weights = (
            None
            if not weights
            else np.array(
                [weights.get(name, 1.0) for name in names] + [0.0] * (MAX_ACTIONS - len(names)),
                dtype=np.float64,
            )
        )
        self.row0 = model.encode(spec.init_states()[0])
        self.texts: dict[int, str] = {}

    def batch(self, start: int, count: int) -> Batch:
        """Walks ``start .. start + count - 1``: their ``Batch``, equal to
        ``checker.simulate.walks.run_batch``'s. Raises ``core.CoreLimit`` when C runs out of
        memory, ``OverflowError`` when a model call went past its bounds (``core.check``)."""
        lib, handle, depth = self.core.lib, self.core.handle, self.plan.depth
        batch = Batch()
        for name in self.spec.action_names():
            batch.actions[name] = [0, 0]
        labels = np.zeros(max(depth, 1), dtype=np.uint16)
        fps = np.zeros(max(depth, 1), dtype=np.uint64)
        at = np.zeros(32, dtype=np.int32)
        enabled = np.zeros(MAX_ACTIONS, dtype=np.int64)
        taken = np.zeros(MAX_ACTIONS, dtype=np.int64)
        reached, end = ctypes.c_uint32(0), ctypes.c_int32(0)
        weights = None if self.weights is None else self.weights.ctypes.data
        seen = []
        for index in range(start, start + count):
            state = np.array(walk_rng(self.plan.seed, index).getstate()[1], dtype=np.uint32)
            at[:] = 0
            n = lib.eng_walk(
                handle,
                state.ctypes.data,
                depth,
                weights,
                self.row0,
                self.masks[INVARIANT],
                self.masks[TRANSITION],
                self.masks[SOMETIMES] & ~reached.value,
                labels.ctypes.data,
                fps.ctypes.data,
                at.ctypes.data,
                enabled.ctypes.data,
                taken.ctypes.data,
                ctypes.byref(reached),
                ctypes.byref(end),
            )
            check(n)
            violated = {name: int(at[bit]) for bit, name in self.checked if at[bit]}
            batch.add(Walk(index, self._texts(labels[: n - 1]), ENDS[end.value], violated, fps[:n]))
            seen.append(fps[:n].copy())
        names = self.model.action_names
        for index, name in enumerate(names):
            if enabled[index] or taken[index]:
                counts = batch.actions.setdefault(name, [0, 0])
                counts[0] += int(enabled[index])
                counts[1] += int(taken[index])
        batch.guards |= {name for bit, name in self.guard_names.items() if reached.value >> bit & 1}
        batch.fps = sorted_unique(np.concatenate(seen)) if seen else batch.fps
        return batch

    def _texts(self, codes: np.ndarray[Any, Any]) -> list[str]:
        texts, labels = self.texts, self.model.labels
        out = []
        for code in codes.tolist():
            text = texts.get(code)
            if text is None:
                text = texts[code] = str(labels[code])
            out.append(text)
        return out
