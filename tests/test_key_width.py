"""The width of the key the compiled seen set dedups on (``--fingerprint-bits``,
``checker.search.compiled.width``, ``checker.search.compiled.keys``): 128-bit keys give the 64-bit
answers on every compiled model, in memory and spilled at every level, with runs whose keys share
low words; a search left to choose widens from the start once its 64-bit estimate passes the
threshold, and says so; checkpoints keep their width."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_checkpoint import signature

from checker.cli import cli
from checker.composition.compose import build_model
from checker.fingerprint import collision_probability
from checker.limits import Limits
from checker.native import core
from checker.native.layout import compiled_model
from checker.search.compiled import search as native_engine
from checker.search.compiled import width
from checker.search.compiled.keys import KeyKind
from checker.search.tier import flush, stream
from checker.search.tier import runs as disk
from checker.search.tier.spill import MIN_BUDGET
from spec.kafka import Config
from spec.tla import TlaConfig

K128 = KeyKind(128)


def _keys(pairs: list[tuple[int, int]]) -> np.ndarray:
    return np.array(pairs, dtype=np.uint64).reshape(-1, 2)


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(
        st.sets(st.tuples(st.integers(1, 12), st.integers(0, 2**64 - 1)), max_size=40),
        min_size=1,
        max_size=6,
    ),
    probes=st.sets(st.tuples(st.integers(1, 12), st.integers(0, 2**64 - 1)), max_size=30),
)
def test_runs_of_128_bit_keys_answer_membership_as_a_set_does(batches, probes):
    """Low words from 1..12 only, so most keys share theirs with others (in a run, across a
    slice's edge, between runs): runs merged as they come and read 5 keys at a time hold
    exactly the union, each strictly increasing in (low, high) order."""
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr(disk, "CHUNK", 5)
        runs = disk.Runs(Path(folder), K128)
        everything: set[tuple[int, int]] = set()
        for batch in batches:
            fresh = sorted(batch - everything, key=lambda k: -k[1])  # any order
            runs.add(_keys(fresh))
            everything |= set(fresh)
        assert runs.count == len(everything)
        asked = sorted(probes | set(list(everything)[:20]))
        keys = _keys(asked)
        want = np.array([k in everything for k in asked], dtype=bool)
        assert (runs.contains(keys[::-1].copy())[::-1] == want).all()
        held = [tuple(map(int, k)) for run in runs.runs for chunk in run.chunks() for k in chunk]
        assert sorted(held) == sorted(everything)
        for run in runs.runs:
            data = [tuple(map(int, k)) for chunk in run.chunks() for k in chunk]
            assert data == sorted(data) and len(set(data)) == len(data)
            assert disk.open_run(run.path).words == 2


def test_keys_sort_by_low_word_then_high():
    keys = _keys([(5, 9), (3, 2), (5, 1), (3, 7), (1, 4)])
    assert K128.sort(keys).tolist() == [[1, 4], [3, 2], [3, 7], [5, 1], [5, 9]]
    table = K128.sort(keys)
    assert K128.member(table, _keys([(5, 9), (5, 2), (3, 7), (2, 4)])).tolist() == [
        True,
        False,
        True,
        False,
    ]
    assert K128.upto(table, np.array([5, 1], dtype=np.uint64)) == 4


MODELS = [
    ("kafka", Config(replicas=2, truncation="hw"), True),
    ("kafka", Config(replicas=2, truncation="kafka-2.8"), True),
    ("tla", TlaConfig(replicas=2, truncation="kip320-first-try"), False),
]


@pytest.mark.parametrize("model,config,symmetry", MODELS, ids=["hw", "kafka-2.8", "tla"])
def test_128_bit_keys_give_the_64_bit_answers(model, config, symmetry, monkeypatch):
    """Counts, coverage, verdicts and every counterexample, in memory and spilled at every
    level (many flushes a level) on 1 and 2 threads; the estimate is 2^64 times smaller."""
    spec, props = build_model(model, config)
    compiled, _ = compiled_model(spec)
    monkeypatch.setattr(stream, "CHUNK", 128)
    monkeypatch.setattr(flush, "MERGE_CHUNK", 100)
    monkeypatch.setattr(flush, "MERGE_FLOOR", 16)
    narrow = native_engine.explore(compiled, spec, props, symmetry=symmetry, key_bits=64)
    assert (narrow.stats.key_bits, narrow.stats.key) == (64, "row hash")
    for threads, memory in ((1, None), (2, MIN_BUDGET)):
        wide = native_engine.explore(
            compiled, spec, props, symmetry=symmetry, threads=threads, memory=memory, key_bits=128
        )
        assert signature(wide) == signature(narrow)
        assert wide.stats.key_bits == 128
        assert wide.stats.collision_probability == collision_probability(
            narrow.stats.distinct, narrow.stats.generated, 128
        )


def test_a_search_left_to_choose_widens_once_and_says_so(monkeypatch):
    """With the threshold lowered so the 64-bit estimate passes it mid-run: one note, naming
    the states reached, and the answers of a search given 128 bits from the start; a search
    given 64 keeps 64."""
    spec, props = build_model("kafka", Config(replicas=2))
    compiled, _ = compiled_model(spec)
    whole = native_engine.explore(compiled, spec, props, key_bits=128)
    monkeypatch.setattr(width, "WIDEN_AT", 1e-12)
    notes: list[str] = []
    widened = native_engine.explore(compiled, spec, props, on_note=notes.append)
    assert signature(widened) == signature(whole) and widened.stats.key_bits == 128
    assert len(notes) == 1 and "exploring again from the initial states with 128-bit" in notes[0]
    kept = native_engine.explore(compiled, spec, props, key_bits=64, on_note=notes.append)
    assert len(notes) == 1 and kept.stats.key_bits == 64
    assert kept.stats.collision_probability > 1e-12


def test_a_widened_search_keeps_the_first_ones_clock(monkeypatch):
    """Its seconds and its --time-limit count from the first search's start."""
    spec, props = build_model("kafka", Config(replicas=2))
    compiled, _ = compiled_model(spec)
    made: list[native_engine.CompiledSearch] = []

    class Recorded(native_engine.CompiledSearch):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(native_engine, "CompiledSearch", Recorded)
    monkeypatch.setattr(width, "WIDEN_AT", 1e-12)
    native_engine.explore(compiled, spec, props, Limits(time_limit=600))
    assert [run.stats.key_bits for run in made] == [64, 128]
    assert made[1].start == made[0].start and made[1].deadline == made[0].start + 600


def _summary(folder: Path) -> dict:
    return json.loads(next(folder.rglob("summary.json")).read_text())["stats"]


def test_a_checkpoint_keeps_its_width(tmp_path, monkeypatch):
    """A 128-bit search spilled and cut (by the level limit lowered: its 10th level is too
    big) resumes with 128-bit keys to the plain run's counts; asked to resume with 64, it
    refuses in one line."""
    base = ["explore", "--replicas", "2", "--no-progress", "--show", "none"]
    with monkeypatch.context() as patch:
        patch.setattr(core, "LEVEL_LIMIT", 1000)
        cut = CliRunner().invoke(
            cli,
            [*base, "--fingerprint-bits", "128", "--memory", "1M",
             "--checkpoint", str(tmp_path / "ck"), "--out", str(tmp_path / "cut")],
        )  # fmt: skip
    assert cut.exit_code == 3, cut.output
    resume = [*base, "--resume", str(tmp_path / "ck")]
    wrong = CliRunner().invoke(cli, [*resume, "--fingerprint-bits", "64"])
    assert wrong.exit_code != 0 and "has 128-bit keys, not 64" in wrong.output
    assert "Traceback" not in wrong.output
    done = CliRunner().invoke(cli, [*resume, "--out", str(tmp_path / "done")])
    plain = CliRunner().invoke(cli, [*base, "--out", str(tmp_path / "plain")])
    assert done.exit_code == plain.exit_code == 0, done.output
    got, want = _summary(tmp_path / "done"), _summary(tmp_path / "plain")
    assert (got["key_bits"], want["key_bits"]) == (128, 64)
    assert (got["distinct"], got["generated"], got["depth"]) == (11834, want["generated"], 21)
    assert "n·(g−n)/2^128" in done.output  # the summary speaks of the width in use


def test_128_bits_is_refused_where_it_cannot_apply():
    for args, words in (
        (["--core", "reference"], "applies to the compiled core"),
        (["--engine", "spark"], "applies only to --engine local"),
        (["--fingerprint-bits", "96"], "'96' is not one of"),
    ):
        done = CliRunner().invoke(
            cli, ["explore", "--replicas", "2", "--fingerprint-bits", "128", *args]
        )
        assert done.exit_code == 2 and words in done.output, done.output
