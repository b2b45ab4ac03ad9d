"""Liveness on the orbit graph (``checker.liveness.orbit_check``) against the plain graph.

On Kafka configurations small enough for the plain graph, and on the TLA+ port (strong
fairness over whole actions, and per-replica pairs with ``--fair``), the orbit graph's verdicts and
opened-obligation counts equal the plain check's (``checker.liveness.check``), and every
lasso it prints is a concrete lasso the plain graph accepts: each step a real step of the
model from a real initial state, the obligation open and unanswered from some state on (or a
state where ``P`` is false in the loop), the loop closing, and fair on its own under the
plain graph's constraints (or a stutter where no fair constraint is enabled).
"""

from __future__ import annotations

import pytest

from checker import symmetry
from checker.composition.compose import TlaConfig, build_model
from checker.liveness import orbit_check, orbits
from checker.liveness import run as live
from checker.liveness.check import judge_all
from checker.liveness.fair import Constraints
from checker.liveness.graph import StateGraph, build
from checker.properties import LEADS_TO
from spec.kafka import Config


def accepted(graph: StateGraph, rules: Constraints, verdict, witness: StateGraph) -> None:
    """Assert that the orbit check's lasso is one on the plain ``graph``."""
    lasso, prop, key = verdict.lasso, verdict.prop, verdict.key
    number = {state: n for n, state in enumerate(graph.states)}
    states = [number[witness.states[n]] for _, n in lasso.path]
    labels = [None if k is None else witness.labels[k] for k, _ in lasso.path]
    assert graph.depth[states[0]] == 1, "the lasso starts at an initial state"
    for before, after, label in zip(states, states[1:], labels[1:], strict=False):
        assert any(graph.labels[k] == label and t == after for k, t in graph.succ[before])
    ever = [graph.states[n] for n in states]
    if prop.kind == LEADS_TO:
        assert any(
            key in prop.predicate(ever[i]) and not any(prop.goal(s, key) for s in ever[i:])
            for i in range(len(ever))
        ), "an obligation opened and never answered"
    else:
        assert any(not prop.predicate(s) for s in ever[lasso.back_to :])
    if lasso.stutter:
        assert not rules.enabled(graph, states[-1])
        return
    assert states[-1] == states[lasso.back_to], "the loop closes"
    loop = states[lasso.back_to : -1]
    taken = set()
    for node, label in zip(loop, labels[lasso.back_to + 1 :], strict=True):
        taken.update(rules.taken(graph, node, graph.labels.index(label)))
    for c, strong in enumerate(rules.strong):
        enabled = [c in rules.enabled(graph, node) for node in loop]
        if c not in taken:
            assert not (any(enabled) if strong else all(enabled)), rules.names[c]


CASES = {  # (configuration, lassos it prints)
    "2 replicas, 1 record, epoch 1, hw truncation": (
        Config(replicas=2, max_records=1, max_epoch=1, truncation="hw"),
        3,
    ),
    "2 replicas, hw truncation": (Config(replicas=2, truncation="hw"), 4),
    "2 replicas, a power loss (KIP-966's last known leader)": (
        Config(replicas=2, max_records=1, max_unclean_shutdowns=1),
        3,
    ),
    "3 replicas, 1 record, epoch 1, no crash, hw truncation": (
        Config(replicas=3, max_records=1, max_epoch=1, max_crashes=0, truncation="hw"),
        0,
    ),
    # the TLA+ port: its Spec's strong fairness (the refinement), then per-replica pairs
    "tla, its own Spec (TLC: CommitProgress violated)": (TlaConfig(), 1),
    "tla, WF(each FencedFollowerFetch) (CommitProgress holds)": (TlaConfig(), 0),
}
FAIR = {
    "tla, WF(each FencedFollowerFetch) (CommitProgress holds)": ["WF(each FencedFollowerFetch)"]
}


@pytest.mark.parametrize(
    ("name", "config", "lassos"), [(n, *c) for n, c in CASES.items()], ids=list(CASES)
)
def test_the_orbit_graph_gives_the_plain_graphs_verdicts_and_accepted_lassos(name, config, lassos):
    spec, _ = build_model("tla" if isinstance(config, TlaConfig) else "kafka", config)
    props, fairness = live.liveness_of(spec), live.fairness_of(spec, FAIR.get(name, ()))
    cut = getattr(spec, "cut", None)
    graph = build(spec)
    rules = Constraints.over(graph, fairness, getattr(spec, "conditions", dict)())
    plain = judge_all(graph, props, rules, cut)
    orbit_graph = orbits.build(spec, symmetry.for_spec(spec), 1_000_000)
    assert len(graph) == sum(orbit_graph.orbit_size(n) for n in range(len(orbit_graph)))
    setting = orbit_check.Setting(spec, orbit_graph, fairness, spec.replica_args)
    printed = 0
    for want in plain:
        got, witness = orbit_check.judge(setting, want.prop, cut)
        assert (got.verdict, got.opened, bool(got.cut)) == (
            want.verdict,
            want.opened,
            bool(want.cut),
        )
        if got.lasso is not None:
            assert witness is not None
            accepted(graph, rules, got, witness)
            printed += 1
    assert printed == lassos
