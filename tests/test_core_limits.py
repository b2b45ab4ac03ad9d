"""The engines' named limits: a BFS level holds at most ``checker.native.core.LEVEL_LIMIT`` states
in the compiled core (parents are 32-bit positions) and ``checker.search.reference.seen.POSITIONS``
in the reference core. A level past it ends the search INCOMPLETE (exit 3) with a line naming the
limit, after the last level that fitted, and never wraps an index. The limits are lowered here so a
small model reaches them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.composition.compose import build_model
from checker.limits import Limits
from checker.native import core
from checker.native.layout import compiled_model
from checker.result import Status
from checker.search.compiled import search as native_engine
from checker.search.reference import bfs, seen
from checker.search.tier.spill import MIN_BUDGET
from spec.kafka import Config

LIMIT = 1000
"""The default model on 2 replicas (23,667 states, depth 21, every property holds) has
levels of 1, 6, 22, 58, 134, 266, 436, 714, then 1,182 states (a naive breadth-first
enumeration of ``spec.successors``, as ``tests/reference.py`` counts): the 9th level is the
first past 1,000."""
FITTED = 8


@pytest.fixture(scope="module")
def model():
    spec, props = build_model("kafka", Config(replicas=2))
    return compiled_model(spec)[0], spec, props


@pytest.fixture(scope="module")
def fitted(model):
    """The states of the levels that fit: a run bounded to them (1 + 6 + ... + 714)."""
    compiled, spec, props = model
    result = native_engine.explore(compiled, spec, props, Limits(max_depth=FITTED))
    assert result.stats.distinct == 1637
    return result.stats.distinct


@pytest.mark.parametrize("threads,memory", [(1, None), (2, None), (1, MIN_BUDGET), (2, MIN_BUDGET)])
def test_the_compiled_core_refuses_a_level_past_its_limit(
    model, fitted, monkeypatch, threads, memory
):
    """In memory (the level table fills) and streamed (the merged level is counted), on one
    and two threads (each partition within the limit, the level not): INCOMPLETE after the
    9th level, the limit named."""
    compiled, spec, props = model
    monkeypatch.setattr(core, "LEVEL_LIMIT", LIMIT)
    result = native_engine.explore(
        compiled, spec, props, threads=threads, memory=memory, symmetry=False
    )
    assert result.status is Status.INCOMPLETE
    assert "compiled core's limit of 1,000 states" in result.reason
    assert (result.stats.distinct, result.stats.depth) == (fitted, FITTED)


def test_the_reference_core_names_its_limit(model, fitted, monkeypatch):
    _, spec, props = model
    monkeypatch.setattr(seen, "POSITIONS", LIMIT)
    result = bfs.explore(spec, props)
    assert result.status is Status.INCOMPLETE
    assert "reference core's limit of 1,000 states" in result.reason
    assert (result.stats.distinct, result.stats.depth) == (fitted, FITTED)


def test_the_command_line_says_it_in_one_line_and_resumes(tmp_path, monkeypatch):
    """Exit 3 and the limit in the output; the checkpoint it leaves resumes, the limit back
    at its own value, to the run that never met it."""
    args = ["explore", "--replicas", "2", "--no-progress"]
    args += ["--show", "none", "--core", "compiled"]
    with monkeypatch.context() as patch:
        patch.setattr(core, "LEVEL_LIMIT", LIMIT)
        cut = CliRunner().invoke(
            cli, [*args, "--checkpoint", str(tmp_path / "ck"), "--out", str(tmp_path / "cut")]
        )
    assert cut.exit_code == 3, cut.output
    assert "compiled core's limit of 1,000" in cut.output and "Traceback" not in cut.output
    whole = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "whole")])
    resumed = CliRunner().invoke(
        cli, [*args, "--resume", str(tmp_path / "ck"), "--out", str(tmp_path / "resumed")]
    )
    assert whole.exit_code == resumed.exit_code == 0
    counts = [
        json.loads(next((tmp_path / name).rglob("summary.json")).read_text())["stats"]
        for name in ("whole", "resumed")
    ]
    assert [(c["distinct"], c["generated"], c["depth"]) for c in counts] == [
        (11834, counts[0]["generated"], 21)  # 23,667 states, 11,834 orbits
    ] * 2
