"""Liveness on the orbit graph: the compiled core (``checker.liveness.orbit_arrays``, the
graph in C and the search on arrays) against the reference core (``checker.liveness.orbits``,
``checker.liveness.orbit_check``), on the models and variants the plain check's own
differential test covers (``tests/test_liveness_compiled.py``).

Both must give the same ``Liveness``: orbits and edges, verdicts, keys, opened counts, cut
texts, never-taken labels and the same concrete lassos; every verdict is also the plain
graph's (``tests/test_liveness_orbits.py`` proves the reference orbit check against it on
its cases; here the plain compiled check is the witness, cheaply).
"""

from __future__ import annotations

import pytest

from checker.composition import compose
from checker.liveness import corbits
from checker.liveness import run as live
from checker.native.layout import compiled_model
from tests.test_liveness_compiled import assert_same as compiled_alike


def judged(model: str, fair=(), unfair=(), **bounds):
    spec, _ = compose.build_model(model, compose.make_config(model, bounds))
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    props = spec.liveness()
    rules = live.fairness_of(spec, fair, unfair)
    reference = live.check(spec, props, rules, symmetric=True)
    fast = live.check(spec, props, rules, core="compiled", model=compiled, symmetric=True)
    plain = live.check(spec, props, rules, core="compiled", model=compiled)
    assert (reference.graph, fast.graph, plain.graph) == ("orbits", "orbits", "plain")
    assert (reference.core, fast.core) == ("reference", "compiled"), fast.note
    return reference, fast, plain


def assert_same(reference: live.Liveness, fast: live.Liveness, plain: live.Liveness) -> None:
    compiled_alike(reference, fast)  # sizes, verdicts, keys, counts, cuts, lassos
    assert fast.states < plain.states
    for b, p in zip(fast.verdicts, plain.verdicts, strict=True):
        assert (b.verdict, b.opened, bool(b.cut)) == (p.verdict, p.opened, bool(p.cut))


KIP966 = {"max_records": 1, "max_unclean_shutdowns": 1, "max_epoch": 1}
CASES = [
    ("tla", (), (), {"replicas": 2}),
    ("tla", ("WF(each FencedFollowerFetch)",), (), {"replicas": 2}),
    ("tla", ("WF(each FencedFollowerFetch)",), (), {"replicas": 3}),  # 6 renamings
    ("tla", (), ("BecomeLeader",), {"replicas": 2, "truncation": "hw"}),
    ("kafka", (), (), {"replicas": 2}),
    ("kafka", (), (), {"replicas": 2, "truncation": "hw"}),
    ("kafka", (), (), {"replicas": 2, "truncation": "kafka-2.8"}),
    ("kafka", (), (), {"replicas": 2, **KIP966, "unclean_election": True}),
]


@pytest.mark.parametrize(
    ("model", "fair", "unfair", "bounds"),
    CASES,
    ids=[f"{m}-" + "-".join([*f, *u, *(f"{k}={v}" for k, v in b.items())]) for m, f, u, b in CASES],
)
def test_both_cores_judge_the_orbit_graph_alike(model, fair, unfair, bounds):
    reference, fast, plain = judged(model, fair, unfair, **bounds)
    assert_same(reference, fast, plain)


@pytest.mark.parametrize("at", [3, 5], ids=["tla-hw", "kafka-hw"])
def test_a_graph_left_whole_judges_as_the_sealed_one(at, monkeypatch):
    """A graph whose atoms take more than 65,535 values is built again whole (a sealed build
    refuses it: ``LG_CODES``): forced here, it gives the sealed graph's sizes, verdicts,
    counts and lassos."""
    model, fair, unfair, bounds = CASES[at]
    spec, _ = compose.build_model(model, compose.make_config(model, bounds))
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    props, rules = spec.liveness(), live.fairness_of(spec, fair, unfair)
    seen: list[bool] = []
    build = corbits.CompiledOrbitGraph.__init__

    def recording(self, *args):
        build(self, *args)
        seen.append(self.sealed)

    monkeypatch.setattr(corbits.CompiledOrbitGraph, "__init__", recording)
    sealed = live.check(spec, props, rules, core="compiled", model=compiled, symmetric=True)
    monkeypatch.setattr(corbits, "MAX_CODES", 1)  # every property has two atoms or more
    whole = live.check(spec, props, rules, core="compiled", model=compiled, symmetric=True)
    assert seen == [True, False]
    compiled_alike(sealed, whole)
    assert any(v.lasso is not None for v in whole.verdicts)  # lassos were replayed and built
