"""The seam between the engine and a model's compiled core: what a spec offers
(``checker.model.CompiledModel``, found through the spec's own ``compiled_model(layout)``)."""

from __future__ import annotations

import pickle

import pytest

from checker import search
from checker.composition.compose import Recipe, build_model, make_config
from checker.model import CompiledModel
from checker.native import certificate
from checker.native.layout import compiled_model
from checker.properties import INVARIANT, SOMETIMES, TRANSITION, Property
from checker.search.partitioned.compiled_level import COMPILED
from checker.search.partitioned.level import REFERENCE
from spec.kafka import config as kafka_config

MODELS = [
    ("kafka", {"replicas": 2}),
    ("kafka", {"replicas": 2, "truncation": "kip966"}),
    ("kafka", {"replicas": 2, "with_mechanisms": ("split-fetch",)}),
    ("tla", {}),
    ("tla", {"truncation": "async-isr"}),
]


@pytest.mark.parametrize(("model", "given"), MODELS, ids=lambda v: str(v))
def test_every_built_in_model_offers_what_the_engine_uses(model, given):
    """Each built-in spec finds its compiled model itself, and it has every member of the
    protocol the engine types it by (its row fits ``width``; every property checked has a
    bit)."""
    spec, props = build_model(model, make_config(model, given))
    found, why = compiled_model(spec)
    assert why == "" and isinstance(found, CompiledModel)
    state = spec.init_states()[0]
    assert len(found.encode(state)) == found.width and found.decode(found.encode(state)) == state
    assert {p.name for p in props if p.kind in (INVARIANT, TRANSITION, SOMETIMES)} <= set(
        found.property_bits
    )


def test_a_model_says_why_it_has_no_compiled_core(monkeypatch):
    # past the compiled core's tables: Config.validate refuses it first (LIMITS), so widen it
    monkeypatch.setitem(kafka_config.LIMITS, "max_records", (0, 8))
    spec, _ = build_model("kafka", make_config("kafka", {"replicas": 2, "max_records": 8}))
    assert compiled_model(spec) == (None, "--max-records above 7")

    class Toy:
        name = "toy"

    assert compiled_model(Toy()) == (None, "the toy model has no compiled core")


# -- the door: which core runs (checker.search.choose_core) and the local engine on it -------
def _kafka(**given):
    return build_model("kafka", make_config("kafka", {"replicas": 2, **given}))


def test_the_compiled_core_runs_where_it_can_and_says_why_not_elsewhere(monkeypatch):
    monkeypatch.setitem(kafka_config.LIMITS, "max_records", (0, 8))  # as above
    spec, props = _kafka()
    assert search.choose_core(spec, props).text == "compiled"
    assert search.choose_core(spec, props, "reference").text == "reference (--core reference)"
    bounded, _ = _kafka(max_records=8)
    assert search.choose_core(bounded, []).why == "--max-records above 7"
    extra = Property("Mine", "a property of my own", INVARIANT, lambda state: True)
    assert search.choose_core(spec, [*props, extra]).why == "property Mine has no compiled form"
    assert search.choose_core(spec, props).levels is COMPILED
    assert search.choose_core(spec, props, "reference").levels is REFERENCE


def test_a_stale_certificate_or_no_compiler_is_told_to_the_caller(monkeypatch, tmp_path):
    spec, props = _kafka()
    notes: list[str] = []
    monkeypatch.delenv(certificate.UNCERTIFIED)
    monkeypatch.setattr(certificate, "current", lambda: False)
    assert search.stale() and not search.stale("reference")
    assert search.choose_core(spec, props, on_note=notes.append).why == certificate.STALE
    monkeypatch.setenv(certificate.UNCERTIFIED, "1")
    monkeypatch.setenv("HWCHECK_CACHE", str(tmp_path))
    monkeypatch.setenv("CC", "hwcheck-no-such-compiler")
    chosen = search.choose_core(spec, props, on_note=notes.append)
    assert chosen.why == "no C compiler (hwcheck-no-such-compiler not found)"
    assert notes == [certificate.STALE, chosen.why]
    assert not search.choose_core(spec, props, build=False).why  # the build not tried


def test_the_door_gives_every_core_the_same_answers():
    spec, props = _kafka(truncation="hw")
    recipe = Recipe("kafka", make_config("kafka", {"replicas": 2, "truncation": "hw"}))
    runs = [
        search.explore(spec, props, symmetry=True),
        search.explore(spec, props, symmetry=True, workers=2),
        search.explore(spec, props, symmetry=True, core="reference"),
        search.explore(spec, props, symmetry=True, core="reference", workers=2, recipe=recipe),
    ]
    assert [(r.stats.core, r.stats.engine) for r in runs] == [
        ("compiled", "local"),
        ("compiled", "local (2 threads)"),
        ("reference (--core reference)", "local"),
        ("reference (--core reference)", "local (2 workers)"),
    ]
    answers = {
        (r.stats.distinct, r.stats.depth, tuple((v.prop.name, len(v.trace)) for v in r.violations))
        for r in runs
    }
    assert len(answers) == 1 and runs[0].stats.distinct == 9_574


def test_a_level_core_travels_as_a_name():
    """A job carries its core to Spark executors and pool workers: the object pickles as a
    reference to its class, a few dozen bytes."""
    for core in (REFERENCE, COMPILED):
        data = pickle.dumps(core)
        assert len(data) < 100 and type(pickle.loads(data)) is type(core)
