"""The seam between the engine and a model's compiled core: what a spec offers
(``checker.model.CompiledModel``, found through the spec's own ``compiled_model()``)."""

from __future__ import annotations

import pytest

from checker.model import CompiledModel, compiled_model
from checker.models.compose import build_model, make_config
from checker.properties import INVARIANT, SOMETIMES, TRANSITION

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


def test_a_model_says_why_it_has_no_compiled_core():
    spec, _ = build_model("kafka", make_config("kafka", {"replicas": 2, "max_records": 8}))
    assert compiled_model(spec) == (None, "--max-records above 7")

    class Toy:
        name = "toy"

    assert compiled_model(Toy()) == (None, "the toy model has no compiled core")
