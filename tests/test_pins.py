"""``tests/pins.py``: the reference answers certify pins, read while the sources are the
certified ones and computed live otherwise; and the pin file, when current, holds the Python
core's answer (one question computed again here)."""

from __future__ import annotations

import json

import pins
import pytest

from checker.composition.compose import build_model
from checker.native import certificate
from checker.search.reference.bfs import explore
from spec.kafka import Config


@pytest.fixture
def pin_file(tmp_path, monkeypatch):
    path = tmp_path / "answers.json"
    monkeypatch.setattr(pins, "PINS", path)
    monkeypatch.delenv(pins.RECORD, raising=False)
    pins._pinned.cache_clear()
    yield path
    pins._pinned.cache_clear()


def _never():
    raise AssertionError("computed although pinned")


def test_a_pinned_answer_is_read_only_under_the_sources_digest(pin_file, monkeypatch):
    pin_file.write_text(json.dumps({"digest": "d1", "answers": {"q": [1, [2, 3]]}}))
    monkeypatch.setattr(certificate, "digest", lambda: "d1")
    assert pins.reference("q", _never) == [1, [2, 3]]
    assert pins.reference("other question", lambda: (4, (5,))) == [4, [5]]
    pins._pinned.cache_clear()
    monkeypatch.setattr(certificate, "digest", lambda: "d2")  # a code edit since: live again
    assert pins.reference("q", lambda: ("live",)) == ["live"]


def test_certify_records_each_answer_and_collects_them(pin_file, tmp_path, monkeypatch):
    shards = tmp_path / "shards"
    shards.mkdir()
    monkeypatch.setenv(pins.RECORD, str(shards))
    pin_file.write_text(json.dumps({"digest": "d1", "answers": {"q": "old"}}))
    monkeypatch.setattr(certificate, "digest", lambda: "d1")
    assert pins.reference("q", lambda: "new") == "new"  # recording computes, never reads
    assert pins.reference("r", lambda: {"a": (1,)}) == {"a": [1]}
    assert pins.collect(shards, "d3") == 2
    assert json.loads(pin_file.read_text()) == {
        "digest": "d3",
        "answers": {"q": "new", "r": {"a": [1]}},
    }
    assert pins.recorded() == "d3"


def test_the_pinned_answers_are_the_python_cores():
    """When the pin file is current, its answer for the cheapest pinned question of
    ``test_compiled`` (hw at 2 replicas, without symmetry) is the reference engine's now."""
    from test_compiled import _summary

    options = {"replicas": 2, "truncation": "hw"}
    question = f"kafka {sorted(options.items())} symmetry=False"
    pinned = pins._pinned()
    if question not in pinned:
        pytest.skip("the pin file is not current (certify writes it)")
    spec, props = build_model("kafka", Config(**options))
    assert pins.plain(_summary(explore(spec, props, symmetry=False))) == pinned[question]
