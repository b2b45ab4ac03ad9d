"""The story (``invariants/story.py``) is computed from the trace, so it must agree with the
trace it tells, for every shortest counterexample the checker finds, not only the gallery's:
each "State K (ACTION)" sentence names a real step and its real action, in order, and the
story is about the offset the invariant's own explanation names."""

from __future__ import annotations

import re

import pytest

from checker.composition.compose import build_model, make_config
from checker.formats import report
from checker.search.reference.bfs import explore

TOLD = ("NoCommittedLoss", "NoDivergence", "WeakIsr", "StrongIsr")
STEP = re.compile(r"^State (\d+) \((.*?)\): ")

CONFIGS = [
    ("kafka", {"replicas": 2, "truncation": "hw"}),
    (
        "kafka",
        {"replicas": 2, "truncation": "kip101", "max_records": 3, "max_epoch": 2, "max_crashes": 2},
    ),
    ("kafka", {"replicas": 2, "truncation": "kip320", "unclean_election": True, "max_crashes": 2}),
    ("tla", {"replicas": 2, "truncation": "hw"}),
    ("tla", {"replicas": 2, "truncation": "kip101"}),
]


def _documents(model, options):
    spec, props = build_model(model, make_config(model, options))
    result = explore(spec, props)
    return [report.trace_document(spec, v) for v in result.violations if v.prop.name in TOLD]


@pytest.mark.parametrize(
    ("model", "options"), CONFIGS, ids=[f"{m}-{o['truncation']}" for m, o in CONFIGS]
)
def test_story_agrees_with_its_trace(model, options):
    documents = _documents(model, options)
    assert documents, "these configurations violate at least one told property"
    for doc in documents:
        name, story = doc["property"]["name"], doc["story"]
        actions = [step["action"] for step in doc["steps"]]
        assert story, f"{name}: no story"
        offsets = re.findall(r"offset (\d+)", doc["explanation"])
        assert offsets and f"offset {offsets[0]}" in story[0].lower(), (name, story[0])
        told = [STEP.match(line) for line in story[1:]]
        assert all(told), (name, story)
        numbers = [int(m.group(1)) for m in told]
        assert numbers == sorted(numbers), (name, numbers)
        for m in told:
            k = int(m.group(1))
            assert 2 <= k <= doc["length"] and m.group(2) == actions[k - 1], (name, m.group(0))
        if name == "NoCommittedLoss":
            assert any("became committed" in line for line in story), story
            leader = doc["steps"][-1]["view"]["controller"]["leader"]
            assert f"current leader, replica {leader}." in story[0]
        if name in ("WeakIsr", "StrongIsr"):
            assert any("HW moved past" in line for line in story), story


def test_no_story_for_properties_that_explain_themselves():
    """HwLeLeo, TypeOk and the like carry their replicas and offsets in the explanation."""
    from invariants import story

    assert story.tell("RecordEpochsMonotonic", "kip279", [None], [{"replicas": []}]) == []
    assert story.tell("NoCommittedLoss", "hw", [None], [None]) == []
