"""``hwcheck simulate`` on the compiled core: the same walks as on the reference core, step
for step (statistics, first violating walks, shrunk counterexamples), on 1 and 2 workers,
with weights, for every kafka preset and the tla port; and the fallbacks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_simulate import comparable

from checker.composition.compose import Recipe, make_config
from checker.native.core import Core
from checker.native.layout import compiled_model
from checker.simulate import compiled as native_walks
from checker.simulate.simulation import compiled_walks, simulate
from checker.simulate.walks import WalkPlan

RUNS = [
    ("kafka", {"replicas": 2, "truncation": "hw"}, WalkPlan(seed=0, depth=40)),
    (
        "kafka",
        {"replicas": 3, "truncation": "kip101", "max_records": 4, "max_epoch": 6, "max_crashes": 3},
        WalkPlan(seed=5, depth=60),
    ),
    (
        "kafka",
        {"replicas": 3, "truncation": "kip279"},
        WalkPlan(seed=2, depth=50, weights=(("Produce", 2.5), ("Crash", 0.0), ("Fetch", 3.0))),
    ),
    (
        "kafka",
        {"replicas": 5, "truncation": "kip320", "max_records": 4, "max_epoch": 6, "max_crashes": 3},
        WalkPlan(seed=1, depth=80),
    ),
    (
        "kafka",
        {
            "replicas": 3,
            "truncation": "kip966",
            "max_unclean_shutdowns": 1,
            "unclean_election": True,
            "min_isr": 2,
        },
        WalkPlan(seed=3, depth=50),
    ),
    (
        "kafka",
        {"replicas": 3, "truncation": "kip320", "acks": "1", "min_isr": 2},
        WalkPlan(seed=4, depth=50, weights=(("Elect", 0.5),)),
    ),
    (
        "kafka",
        {
            "replicas": 3,
            "truncation": "kip320",
            "with_mechanisms": ("split-fetch", "async-isr"),
            "without_mechanisms": ("fenced-expand",),
            "max_lost_responses": 1,
        },
        WalkPlan(seed=8, depth=60, weights=(("FetchResponse", 0.5),)),
    ),
    (
        "kafka",
        {
            "replicas": 3,
            "truncation": "kafka-2.8",
            "with_mechanisms": ("split-fetch", "empty-clears-epoch"),
            "max_lost_responses": 1,
        },
        WalkPlan(seed=10, depth=60, weights=(("TruncateOnFetchResponse", 3.0), ("Crash", 0.5))),
    ),
    ("kafka", {"replicas": 3, "truncation": "kafka-3.6"}, WalkPlan(seed=11, depth=50)),
    ("tla", {"replicas": 3, "truncation": "kip101"}, WalkPlan(seed=6, depth=40)),
    ("tla", {"replicas": 3, "truncation": "kip320"}, WalkPlan(seed=7, depth=40)),
]


def _recipe(model: str, given: dict) -> Recipe:
    return Recipe(model, make_config(model, given))


@pytest.mark.parametrize(
    "model, given, plan", RUNS, ids=[f"{m}-{g['truncation']}-{g['replicas']}" for m, g, _ in RUNS]
)
def test_compiled_walks_are_the_reference_walks(model, given, plan):
    """Every count, every end, every first violating walk and every shrunk trace match."""
    recipe = _recipe(model, given)
    reference = simulate(recipe, plan, walks=200, core="reference")
    compiled = simulate(recipe, plan, walks=200, core="compiled")
    assert compiled.core == "compiled"
    assert reference.core == "reference (--core reference)"
    assert comparable(compiled) == comparable(reference)
    assert compiled.batch.steps > 200  # the walks went somewhere


def test_compiled_walks_on_two_workers_match_one():
    recipe = _recipe("kafka", {"replicas": 3, "truncation": "kip101"})
    plan = WalkPlan(seed=9, depth=50)
    one = simulate(recipe, plan, walks=130, workers=1, core="compiled")
    two = simulate(recipe, plan, walks=130, workers=2, core="compiled")
    assert comparable(one) == comparable(two)
    assert two.engine == "local (2 workers)" and two.core == "compiled"


def test_the_generator_port_draws_what_python_draws():
    """walk.c's MT19937, randrange and random() against random.Random, from several seeds
    and across the 624-word refills."""
    recipe = _recipe("kafka", {"replicas": 2, "truncation": "hw"})
    core = Core(compiled_model(recipe.build()[0])[0])
    for seed in ("hwcheck-walk:0:0", "other", 12345):
        rng = random.Random(seed)
        pick = random.Random(f"sizes {seed}")  # 0: a random() draw
        ns = np.array(
            [
                pick.choice([0, pick.randrange(1, 3000), pick.randrange(1, 2**31)])
                for _ in range(2000)
            ],
            dtype=np.int32,
        )
        state = np.array(rng.getstate()[1], dtype=np.uint32)
        draws = np.zeros(len(ns), dtype=np.float64)
        core.lib.hwcheck_mt_draws(state.ctypes.data, ns.ctypes.data, len(ns), draws.ctypes.data)
        assert draws.tolist() == [
            float(rng.randrange(n)) if n else rng.random() for n in ns.tolist()
        ]


def test_a_different_generator_falls_back_to_the_reference(monkeypatch):
    """If this Python's random.Random ever stops being the generator walk.c follows, the
    walks run on the reference core and the summary says why."""
    monkeypatch.setattr(native_walks, "_same_generator", lambda core: False)
    compiled_walks.cache_clear()
    try:
        recipe = _recipe("kafka", {"replicas": 2, "truncation": "hw"})
        result = simulate(recipe, WalkPlan(seed=0, depth=30), walks=40, core="compiled")
    finally:
        compiled_walks.cache_clear()
    assert result.core.startswith("reference (this Python's random generator")
    expected = simulate(recipe, WalkPlan(seed=0, depth=30), walks=40, core="reference")
    assert comparable(result) == comparable(expected)


def test_infinite_weights_run_on_the_reference_core():
    recipe = _recipe("kafka", {"replicas": 2, "truncation": "hw"})
    walker, why = compiled_walks(recipe, WalkPlan(weights=(("Produce", float("inf")),)))
    assert walker is None and why == "a weight is not finite"


def test_the_summary_says_which_core_walked(tmp_path):
    """``core`` in the table and in summary.json: compiled by default, the reference with
    --core reference; the counts are the same."""
    import json

    from click.testing import CliRunner

    from checker.cli import cli

    found = {}
    for core in ("compiled", "reference"):
        run = CliRunner().invoke(
            cli,
            [
                "simulate",
                "--replicas",
                "3",
                "--walks",
                "40",
                "--workers",
                "1",
                "--json",
                "--core",
                core,
                "--out",
                str(tmp_path / core),
            ],
            catch_exceptions=False,
        )
        assert run.exit_code == 0, run.output
        found[core] = json.loads(run.output)["stats"]
    assert found["compiled"]["core"] == "compiled"
    assert found["reference"]["core"] == "reference (--core reference)"
    assert found["compiled"]["steps"] == found["reference"]["steps"]
    assert found["compiled"]["actions"] == found["reference"]["actions"]
    table = CliRunner().invoke(
        cli,
        [
            "simulate",
            "--replicas",
            "2",
            "--walks",
            "10",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "t"),
        ],
    )
    rows = [line.split("│") for line in table.output.splitlines() if "│" in line]
    assert any(r[1].strip() == "core" and r[2].strip() == "compiled" for r in rows if len(r) > 2)
