"""Symmetry reduction over replica ids (``--symmetry``): exact, TLC's counts, concrete traces.

The orbit counts are checked against an independent brute force: every state of a run without
symmetry is enumerated here, renamed with this file's own renaming code, and the classes are
counted (by joining renamings, not by the engine's least canonical form).
"""

from __future__ import annotations

import functools
import json
import marshal

import pytest
from reference import reachable

from checker import search
from checker.commands import gallery
from checker.composition.compose import Recipe, build_model, choose, make_config
from checker.fingerprint import fingerprint
from checker.limits import NO_LIMITS
from checker.native.layout import compiled_model
from checker.properties import INVARIANT, TRANSITION, Property
from checker.search.compiled import search as native_engine
from checker.search.partitioned.driver import PartitionedSearch
from checker.search.reference.bfs import Limits, explore, run_search
from checker.symmetry import SymmetryError
from checker.trace import replay
from spec.kafka import Config, progress
from spec.tla import TlaConfig
from spec.tla import liveness as tla_liveness


def _ids(perm, ids):
    return tuple(sorted(perm[i] for i in ids))


def _who(perm, r):
    return None if r is None else perm[r]


def rename_kafka(state, perm):
    """The Kafka state with replica r called perm[r] (written apart from spec/kafka)."""
    replicas, (c_epoch, c_leader, c_isr), requests, ghost = state
    slots = [None] * len(replicas)
    for r, (log, hw, alive, (leader, epoch, isr), remote) in enumerate(replicas):
        moved_remote = [0] * len(remote)
        for i, value in enumerate(remote):
            moved_remote[perm[i]] = value
        slots[perm[r]] = (
            log,
            hw,
            alive,
            (_who(perm, leader), epoch, _ids(perm, isr)),
            tuple(moved_remote),
        )
    return (
        tuple(slots),
        (c_epoch, _who(perm, c_leader), _ids(perm, c_isr)),
        tuple((e, _who(perm, l), _ids(perm, i)) for e, l, i in requests),
        ghost,
    )


def rename_tla(state, perm):
    """The TLA+ port's state with replica r called perm[r]."""
    logs, rstates, next_id, next_epoch, requests, (q_epoch, q_leader, q_isr) = state
    new_logs, new_states = [None] * len(logs), [None] * len(logs)
    for r, (log, (hw, epoch, leader, isr)) in enumerate(zip(logs, rstates)):
        new_logs[perm[r]] = log
        new_states[perm[r]] = (hw, epoch, _who(perm, leader), _ids(perm, isr))
    return (
        tuple(new_logs),
        tuple(new_states),
        next_id,
        next_epoch,
        tuple((e, _who(perm, l), _ids(perm, i)) for e, l, i in requests),
        (q_epoch, _who(perm, q_leader), _ids(perm, q_isr)),
    )


def orbit_count(states, rename, n) -> int:
    """How many classes ``states`` fall into when replicas are renamed by every permutation of
    ``n``: the connected parts of the graph that joins each state to its renamings by a swap
    of replicas 0 and 1 and by a rotation (every permutation is a product of those two).
    States are keyed by their marshal encoding. Raises ``KeyError`` when a renamed state is not
    in ``states`` (the reachable states would not be symmetric)."""
    generators = {(1, 0, *range(2, n)), (*range(1, n), 0)}
    by_key = {marshal.dumps(s, 2): s for s in states}
    seen: set[bytes] = set()
    classes = 0
    for key, state in by_key.items():
        if key in seen:
            continue
        classes += 1
        seen.add(key)
        todo = [state]
        while todo:
            here = todo.pop()
            for perm in generators:
                moved = marshal.dumps(rename(here, perm), 2)
                if moved not in seen:
                    seen.add(moved)
                    todo.append(by_key[moved])
    return classes


@pytest.mark.parametrize(
    "model,config,rename",
    [
        ("kafka", Config(truncation="kip320", replicas=2, max_epoch=2), rename_kafka),
        (
            "kafka",
            Config(truncation="kip320", replicas=3, max_records=1, max_epoch=1, max_crashes=0),
            rename_kafka,
        ),
        ("tla", TlaConfig(replicas=2), rename_tla),
        ("tla", TlaConfig(replicas=3, log_size=1, max_records=1, max_epoch=1), rename_tla),
    ],
)
def test_distinct_count_is_the_number_of_orbits(model, config, rename):
    """Orbits counted by brute force over the naive enumerator's states (whose count the
    engine matches without symmetry: tests/test_verdicts.py, tests/test_golden.py)."""
    spec, _ = build_model(model, config)
    states, depth = reachable(spec)
    reduced = explore(spec, [], symmetry=True)
    assert reduced.stats.distinct == orbit_count(states, rename, config.replicas)
    assert reduced.stats.distinct < len(states)
    assert reduced.stats.depth == depth
    assert reduced.stats.symmetry


def test_three_replicas_with_a_crash_count_the_naive_enumerators_states_and_orbits():
    """The independent cross-check at 3 replicas, one record, epoch 1 and one crash: the naive
    enumerator (tests/reference.py: states in a set, no fingerprints) finds the engine's
    plain count and depth with every property holding and every guard reached, and the
    classes of its states under renaming are the engine's count with symmetry."""
    spec, props = build_model(
        "kafka", Config(truncation="kip320", replicas=3, max_records=1, max_epoch=1, max_crashes=1)
    )
    # the engine's plain run on the compiled core (proven equal to the reference core by
    # tests/test_compiled.py): the naive enumerator below is the independent side
    plain = search.explore(spec, props, NO_LIMITS, None, False, workers=2)
    assert plain.stats.core == "compiled", plain.stats.core
    assert plain.status.value == "OK" and not plain.unreached and not plain.violations
    assert (plain.stats.distinct, plain.stats.depth) == (209_252, 24)
    states, depth = reachable(spec)
    assert (len(states), depth) == (209_252, 24)
    reduced = explore(spec, [], symmetry=True)
    assert reduced.stats.distinct == orbit_count(states, rename_kafka, 3) == 34_966
    assert reduced.stats.depth == 24


@pytest.mark.parametrize("variant,distinct,depth", [("kip320", 2_987, 18), ("hw", 5_066, 20)])
def test_tla_counts_equal_tlc_with_symmetry(variant, distinct, depth):
    """TLC 2.18, 2 replicas, LogSize = MaxRecords = MaxLeaderEpoch = 2, HwLeLeo only,
    SYMMETRY Permutations(Replicas)."""
    spec, props = build_model("tla", TlaConfig(replicas=2, truncation=variant))
    result = explore(spec, choose(props, ("HwLeLeo",)), symmetry=True)
    assert (result.stats.distinct, result.stats.depth) == (distinct, depth)


def test_tla_plain_counts_stay_tlcs_by_default():
    spec, _ = build_model("tla", TlaConfig(replicas=2, truncation="kip320"))
    assert spec.default_symmetry is False
    assert explore(spec, []).stats.distinct == 5_973


LIVENESS = {p.name for p in progress.properties(elr=True) + tla_liveness.properties()}
SAFETY_ENTRIES = tuple(e for e in gallery.ENTRIES if e.prop not in LIVENESS)
"""The gallery's safety entries (its lassos are liveness, never judged under symmetry)."""


REFERENCE_TOO = ("kip279-hole", "kip279-hole-tla")
"""Entries whose symmetric search also runs on the reference engine: a 3-replica kafka one
and the tla one (test_compiled compares symmetric traces on 2-replica kafka runs)."""


@pytest.mark.parametrize("entry", SAFETY_ENTRIES, ids=lambda e: e.folder)
def test_gallery_counterexamples_are_concrete_and_as_short_with_symmetry(entry):
    """A search entry's committed trace is the shortest without symmetry (test_gallery
    regenerates it); a schedule entry is not a search, so its shortest is searched here.
    The searches run on the compiled core (test_compiled proves its symmetric traces the
    reference engine's, step for step); the trace is replayed on the reference model."""
    spec, props = build_model(entry.model, make_config(entry.model, dict(entry.options)))
    chosen = choose(props, (entry.prop,))
    model = compiled_model(spec)[0]
    assert model is not None
    if entry.schedule:
        plain = native_engine.explore(model, spec, chosen).violations
        shortest = {v.prop.name: v.length for v in plain}[entry.prop]
    else:
        committed = json.loads((gallery.ROOT / entry.folder / "trace.json").read_text())
        shortest = committed["length"]
    found = native_engine.explore(model, spec, chosen, symmetry=True).violations
    reduced = {v.prop.name: v for v in found}
    trace = reduced[entry.prop].trace
    if entry.folder in REFERENCE_TOO:  # the reference engine's symmetric trace, step for step
        by_reference = {v.prop.name: v for v in explore(spec, chosen, symmetry=True).violations}
        steps = [(str(s.label), s.fingerprint) for s in by_reference[entry.prop].trace]
        assert steps == [(str(s.label), s.fingerprint) for s in trace]
    assert len(trace) == shortest
    assert trace[0].state == spec.init_states()[0]  # the real initial state
    steps = replay(
        spec, trace[0].fingerprint, [s.label for s in trace[1:]], [s.fingerprint for s in trace[1:]]
    )
    assert [s.state for s in steps] == [s.state for s in trace]
    assert all(s.fingerprint == fingerprint(s.state) for s in trace)
    prop = {p.name: p for p in chosen}[entry.prop]
    assert not prop.predicate(trace[-1].state)


def test_counterexamples_are_the_same_on_every_run():
    spec, props = build_model("kafka", Config(replicas=2, truncation="hw", max_epoch=1))
    runs = [
        [
            (v.prop.name, [(str(s.label), s.fingerprint) for s in v.trace])
            for v in explore(spec, props, symmetry=True).violations
        ]
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and runs[0]


def test_a_property_that_names_a_replica_refuses_symmetry():
    spec, props = build_model("kafka", Config(truncation="kip320", replicas=2))
    named = Property(
        "ReplicaZeroLeads", "Replica 0 is the leader.", INVARIANT, lambda s: True, symmetric=False
    )
    with pytest.raises(SymmetryError, match="ReplicaZeroLeads names a replica"):
        explore(spec, [*props, named], symmetry=True)
    assert explore(spec, [named]).status.value == "OK"  # fine without symmetry


def test_vacuity_guards_still_work_with_symmetry():
    spec, props = build_model(
        "kafka", Config(truncation="kip320", replicas=3, max_records=1, max_epoch=1, max_crashes=0)
    )
    result = explore(spec, props, symmetry=True)
    assert result.status.value == "VACUOUS"
    assert result.unreached == ["CrashHappens", "RestartHappens"]


def _signature(result):
    stats = result.stats
    return (
        result.status,
        stats.distinct,
        stats.generated,
        stats.depth,
        stats.actions,
        result.unreached,
        [
            (v.prop.name, [(str(s.label), s.fingerprint) for s in v.trace])
            for v in result.violations
        ],
    )


@functools.cache
def _local_signature(config: Config) -> tuple:
    """The in-process engine's answer, once per config (the partition counts share it)."""
    spec, props = Recipe("kafka", config).build()
    return _signature(explore(spec, props, symmetry=True))


@pytest.mark.parametrize(
    ("config", "partitions"),
    [
        (Config(replicas=2, truncation="hw", max_epoch=1), 1),
        (Config(replicas=2, truncation="hw", max_epoch=1), 2),
        (Config(replicas=2, truncation="hw", max_epoch=1), 7),
        # 3 replicas (12 s a run on the reference core): one partition and several
        (Config(truncation="kip320", replicas=3, max_records=1, max_epoch=1), 1),
        (Config(truncation="kip320", replicas=3, max_records=1, max_epoch=1), 7),
    ],
)
def test_partitioned_level_functions_give_the_same_answers_with_symmetry(
    tmp_path, config, partitions
):
    recipe = Recipe("kafka", config)
    spec, props = recipe.build()
    run = PartitionedSearch(
        recipe, spec, props, Limits(), None, str(tmp_path), partitions, symmetry=True
    )
    assert _signature(run_search(run)) == _local_signature(config)


class NoRestartRecipe(Recipe):
    """The kafka model with one extra transition property that the first Restart breaks."""

    def build(self):
        spec, props = super().build()
        no_restart = Property(
            "NoRestart",
            "No broker restarts.",
            TRANSITION,
            lambda before, label, after: label.action != "Restart",
        )
        return spec, [*props, no_restart]


@pytest.mark.parametrize("symmetry", [False, True])
@pytest.mark.parametrize("partitions", [1, 3])
def test_transition_violations_agree_across_engines(tmp_path, symmetry, partitions):
    """A violated transition property gets the same shortest counterexample from the local
    engine and the partitioned one, with and without symmetry; it ends in the breaking
    step and replays from the real initial state."""
    recipe = NoRestartRecipe("kafka", Config(truncation="kip320", replicas=2, max_epoch=1))
    spec, props = recipe.build()
    local = explore(spec, props, symmetry=symmetry)
    run = PartitionedSearch(
        recipe, spec, props, Limits(), None, str(tmp_path), partitions, symmetry=symmetry
    )
    assert _signature(run_search(run)) == _signature(local)
    (trace,) = [v.trace for v in local.violations if v.prop.name == "NoRestart"]
    assert trace[-1].label.action == "Restart"
    assert [s.action for s in (step.label for step in trace[1:])].count("Restart") == 1
    replayed = replay(
        spec, trace[0].fingerprint, [s.label for s in trace[1:]], [s.fingerprint for s in trace[1:]]
    )
    assert [s.state for s in replayed] == [s.state for s in trace]
