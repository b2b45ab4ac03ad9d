"""The TLA+ port's compiled core is the port: state by state over random walks (as
tests/test_compiled.py does for the kafka model, with its helpers), whole runs of every variant
with and without symmetry on 1 and 2 threads, and TLC's counts at 3 replicas. Run by
``python -m checker.commands.certify`` with tests/test_compiled.py."""

from __future__ import annotations

import marshal
import random

import pytest
from test_compiled import STATES, _summary, walk_and_compare

from checker.composition.compose import build_model, choose
from checker.native.core import Core
from checker.native.layout import compiled_model
from checker.search.compiled import search as native_engine
from checker.search.reference.bfs import explore
from checker.symmetry import for_spec
from spec.tla import TlaConfig

TLA_VARIANTS = ("hw", "kip101", "kip279", "kip320-first-try", "kip320", "kip320-kip279")


@pytest.mark.parametrize("variant", TLA_VARIANTS)
def test_every_state_of_the_tla_walks_agrees(variant):
    """The TLA+ port's compiled core, state by state, at 2 and 3 replicas and bounds above
    TLC's (LogSize = MaxRecords = MaxLeaderEpoch = 3)."""
    rng = random.Random(variant)
    checked = 0
    for replicas in (2, 3):
        spec, props = build_model(
            "tla",
            TlaConfig(
                replicas=replicas, truncation=variant, log_size=3, max_records=3, max_epoch=3
            ),
        )
        compiled, why = compiled_model(spec)
        assert compiled is not None, why
        core, sym = Core(compiled), for_spec(spec, props)
        checked = walk_and_compare(
            spec, core, sym, props, rng, checked, STATES // 4 * replicas // 2, steps=40
        )
    assert checked >= STATES // 4


@pytest.mark.parametrize("symmetry", [False, True])
@pytest.mark.parametrize("variant", TLA_VARIANTS)
def test_tla_runs_give_the_reference_answers(variant, symmetry):
    """TLC's counts (tests/test_tla.py) and every answer of the reference engine, on one and
    two threads."""
    spec, props = build_model("tla", TlaConfig(replicas=2, truncation=variant))
    want = _summary(explore(spec, props, symmetry=symmetry))
    for threads in (1, 2):
        got = native_engine.explore(
            compiled_model(spec)[0], spec, props, symmetry=symmetry, threads=threads
        )
        assert _summary(got) == want


def test_tla_three_replicas_are_tlcs_count():
    """kip320 at 3 replicas, LogSize = MaxRecords = MaxLeaderEpoch = 2: the 737,794 states
    TLC 2.18 reported on this machine (123,311 with SYMMETRY Permutations(Replicas)); depth 26
    as the reference engine finds it."""
    spec, props = build_model("tla", TlaConfig(replicas=3))
    chosen = choose(props, ("HwLeLeo",))
    for symmetry, count in ((False, 737_794), (True, 123_311)):
        got = native_engine.explore(compiled_model(spec)[0], spec, chosen, symmetry=symmetry)
        assert (got.status.value, got.stats.distinct, got.stats.depth) == ("OK", count, 26)


def _async_spec(replicas: int, **bounds):
    return build_model("tla", TlaConfig(replicas=replicas, truncation="async-isr", **bounds))


@pytest.mark.parametrize("replicas", [2, 3, 4])
def test_every_state_of_the_async_isr_walks_agrees(replicas):
    """AsyncIsr's compiled core, state by state (no symmetry: the leader is fixed): the same
    successors in the same order, ValidHighWatermark and marshal encodings, over a BFS prefix
    and random walks at bounds above TLC's (MaxOffset 3, versions up to 4)."""
    spec, props = _async_spec(replicas, max_offset=3, max_version=4)
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    core, rng = Core(compiled), random.Random(replicas)
    bit = compiled.property_bits["ValidHighWatermark"]

    def compare(state):
        reference = spec.successors(state)
        assert [(label, succ) for label, succ, _ in core.successors(state)] == reference
        assert core.marshal(state) == marshal.dumps(state, 2)
        assert core.canonical(state) == state
        assert bool(core.invariants(state) >> bit & 1) == (not props[0].predicate(state))
        return reference

    frontier, seen, checked = list(spec.init_states()), set(), 0
    while frontier and checked < STATES // 6:
        state = frontier.pop(0)
        checked += 1
        for _, succ in compare(state):
            if succ not in seen:
                seen.add(succ)
                frontier.append(succ)
    while checked < STATES // 3:
        state = spec.init_states()[0]
        for _ in range(40):
            checked += 1
            successors = compare(state)
            if not successors:
                break
            state = rng.choice(successors)[1]


@pytest.mark.parametrize("replicas", [2, 3])
def test_async_isr_runs_give_the_reference_answers(replicas):
    """TLC's count at 2 replicas (168 states, depth 15), and every answer of the reference
    engine at 2 and 3 replicas, on one and two threads."""
    spec, props = _async_spec(replicas)
    want = _summary(explore(spec, props, symmetry=False))
    for threads in (1, 2):
        got = native_engine.explore(
            compiled_model(spec)[0], spec, props, symmetry=False, threads=threads
        )
        assert got.stats.core == "compiled"
        assert _summary(got) == want
