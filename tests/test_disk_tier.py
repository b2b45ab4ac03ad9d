"""The compiled local engine's disk tier (``checker.search.tier.runs``,
``checker.search.tier.spill``): sorted runs on disk answer membership as a set would, and a search
that spills at every level (the smallest budget) gives the in-memory search's answers field for
field, traces included, on every compiled model and thread count; its checkpoints link the runs and
resume, killed or not, to the same answers."""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_checkpoint import IDENTITY, killed, resumed, signature
from test_checkpoint import search as checkpoint_search

from checker.checkpoint import write as checkpoint_write
from checker.checkpoint.format import CheckpointError
from checker.checkpoint.read import load
from checker.checkpoint.saving import run_search
from checker.cli import cli
from checker.composition.compose import build_model
from checker.limits import Limits
from checker.native.layout import compiled_model
from checker.result import Status
from checker.search.compiled import search as native_engine
from checker.search.tier import flush, stream
from checker.search.tier import runs as disk
from checker.search.tier import spill as tier
from checker.search.tier.spill import MIN_BUDGET, SEEN_SHARE, parse_size
from spec.kafka import Config
from spec.tla import TlaConfig


def cli_run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


SPILL = MIN_BUDGET
"""A budget every search passes at its first level: it spills at every level boundary."""


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(st.sets(st.integers(1, 2**64 - 1), max_size=60), min_size=1, max_size=7),
    probes=st.sets(st.integers(1, 2**64 - 1), max_size=40),
)
def test_runs_answer_membership_as_a_set_does(batches, probes):
    """Batches written as runs (merged as they come, read 7 hashes at a time) hold exactly
    their union, and merging leaves O(log n) runs."""
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr(disk, "CHUNK", 7)
        _check_runs(disk.Runs(Path(folder)), batches, probes)


def _check_runs(runs: disk.Runs, batches: list[set[int]], probes: set[int]) -> None:
    everything: set[int] = set()
    for batch in batches:
        fresh = batch - everything
        runs.add(np.array(sorted(fresh), dtype=np.uint64)[::-1].copy())  # any order
        everything |= fresh
    assert runs.count == len(everything)
    assert len(runs.runs) <= max(1, len(everything)).bit_length()
    keys = np.array(sorted(probes | set(list(everything)[:20])), dtype=np.uint64)
    want = np.array([int(k) in everything for k in keys], dtype=bool)
    assert (runs.contains(keys) == want).all()
    merged = [int(h) for run in runs.runs for chunk in run.chunks() for h in chunk]
    assert sorted(merged) == sorted(everything)
    for run in runs.runs:  # each run strictly increasing, as its checksum says
        data = np.concatenate([np.empty(0, np.uint64), *run.chunks()])
        assert (data[1:] > data[:-1]).all()
        assert disk.open_run(run.path).count == run.count


def test_sizes_parse_in_binary_units():
    assert parse_size("1G") == 2**30
    assert parse_size("512M") == 512 * 2**20
    assert parse_size("1.5GiB") == 3 * 2**29
    assert parse_size("2048k") == 2**21
    for bad in ("", "1X", "G", "-1G", "100K"):
        with pytest.raises(ValueError):
            parse_size(bad)


KAFKA = [
    ("hw", {"replicas": 2, "truncation": "hw"}),
    ("kafka-2.8", {"replicas": 2, "truncation": "kafka-2.8"}),
]
TLA = [
    ("tla kip320-first-try", {"replicas": 2, "truncation": "kip320-first-try"}),
    ("tla async-isr", {"replicas": 3, "truncation": "async-isr"}),
]


def _answers(result):
    """What a spilled search must reproduce: ``test_checkpoint.signature`` and the stats that
    are not timings."""
    return signature(result), result.stats.collision_probability


@pytest.mark.parametrize(
    "model,options",
    [("kafka", o) for _, o in KAFKA] + [("tla", o) for _, o in TLA],
    ids=[name for name, _ in KAFKA + TLA],
)
def test_spilling_at_every_level_gives_the_in_memory_answers(model, options, monkeypatch):
    """Counts, depth, coverage, verdicts and every counterexample (labels, fingerprints,
    states) equal the in-memory search's, on one and on two threads, with symmetry on
    and off. On two threads the seen set has no share of the budget at all: every
    streamed level's keys go straight to a run, none stays in memory."""
    spec, props = build_model(model, (Config if model == "kafka" else TlaConfig)(**options))
    compiled, _ = compiled_model(spec)
    # small windows and merge batches: many flushes a level, merged over many batches
    monkeypatch.setattr(stream, "CHUNK", 128)
    monkeypatch.setattr(flush, "MERGE_CHUNK", 100)
    monkeypatch.setattr(flush, "MERGE_FLOOR", 16)
    for symmetry in (False, True) if model == "kafka" else (False,):
        want = _answers(native_engine.explore(compiled, spec, props, symmetry=symmetry))
        for threads in (1, 2):
            monkeypatch.setattr(tier, "SEEN_SHARE", SEEN_SHARE if threads == 1 else 0.0)
            run = native_engine.CompiledSearch(
                compiled, spec, props, Limits(), None, symmetry, threads, memory=SPILL
            )
            try:
                got = run_search(run)
            finally:
                run.stream.close()
                run.tier.close()
            # every level after the first is streamed, a wide one in many flushes
            assert run.stream.active and run.stream.most >= 4, run.stream.most
            on_disk = run.tier.runs.count if run.tier.runs is not None else 0
            assert (on_disk == got.stats.distinct) == (threads == 2), on_disk
            assert _answers(got) == want


@pytest.mark.parametrize("depth", [5, 26, 27])
def test_the_depth_bound_looks_at_the_runs_too(depth):
    """At a depth bound the search asks whether anything is left unseen; spilled, the runs
    on disk answer too: INCOMPLETE short of the last level (26 for this model), complete at
    it and past it, as in memory."""
    spec, props = build_model("kafka", Config(replicas=2, truncation="hw", max_crashes=2))
    compiled, _ = compiled_model(spec)
    limits = Limits(max_depth=depth)
    want = _answers(native_engine.explore(compiled, spec, props, limits, symmetry=True))
    got = native_engine.explore(compiled, spec, props, limits, symmetry=True, memory=SPILL)
    assert _answers(got) == want


def test_the_command_line_writes_the_same_files(tmp_path):
    """``--memory 1M`` against no budget: summary.json and every trace.json equal but for
    timings, memory and the run folder."""
    args = ["explore", "--replicas", "2", "--truncation", "hw", "--no-progress", "--show", "none"]
    out = {}
    for name, extra in (("memory", []), ("spilled", ["--memory", "1M"])):
        folder = tmp_path / name
        assert cli_run(*args, *extra, "--out", str(folder)).exit_code == 12
        out[name] = {p.relative_to(folder): p.read_text() for p in folder.rglob("*.json")}
    assert sorted(out["memory"]) == sorted(out["spilled"])
    for path, text in out["memory"].items():
        assert _timeless(text, "memory") == _timeless(out["spilled"][path], "spilled"), path


def _timeless(text: str, folder: str) -> object:
    data = json.loads(text.replace(f"/{folder}/", "/FOLDER/"))
    stats = data.get("stats", {})
    memory = ("peak_rss_mb", "disk_mb", "seen_bytes", "parent_bytes", "seen_held")
    for key in ("seconds", "distinct_per_second", "parent_file_bytes", *memory):
        stats.pop(key, None)
    return data


def test_memory_is_refused_where_it_does_not_apply():
    for args, words in (
        (["--memory", "1X"], "is not a size"),
        (["--memory", "1G", "--core", "reference"], "applies to the compiled core"),
        (["--memory", "1G", "--engine", "spark"], "applies only to --engine local"),
    ):
        done = cli_run("explore", "--replicas", "2", *args)
        assert done.exit_code == 2 and words in done.output, done.output


def test_memory_on_a_fallback_to_the_reference_core_is_said_not_applied(tmp_path, monkeypatch):
    """The compiled core asked for but not taking these bounds (widened past ``LIMITS``, which
    ``Config.validate`` holds them to): the budget cannot apply, and a note says so rather
    than ignoring it."""
    from spec.kafka import config as kafka_config

    monkeypatch.setitem(kafka_config.LIMITS, "max_records", (0, 8))
    done = cli_run(
        "explore", "--replicas", "2", "--max-records", "8", "--max-depth", "3",
        "--memory", "1G", "--no-progress", "--show", "none", "--out", str(tmp_path),
    )  # fmt: skip
    assert done.exit_code == 3, done.output
    assert (
        "Note: --memory 1,024 MiB is not applied: the search runs on the reference core "
        "(--max-records above 7)" in done.output
    )


@pytest.fixture(scope="module")
def uninterrupted():
    """The checkpoint tests' search in memory on the compiled core (whose answers
    ``test_checkpoint`` and ``test_compiled`` hold to the reference's)."""
    return signature(checkpoint_search("compiled"))


def test_a_spilled_checkpoint_links_its_runs_and_resumes(tmp_path, monkeypatch, uninterrupted):
    """A spilled search checkpointed at every level and killed: the manifest names the runs,
    second names of the tier's own files (a copy would end the search with exit 7), and the
    checkpoint resumes to the uninterrupted answers, in memory and spilled."""
    folder = tmp_path / "ck"
    monkeypatch.setattr(checkpoint_write.shutil, "copyfile", lambda *_: os._exit(7))
    assert killed(folder, "spilled", ("write", 40)) == 9
    monkeypatch.undo()
    runs = load(folder, IDENTITY).seen_runs()
    assert runs
    for target in ("compiled", "spilled"):
        copy = shutil.copytree(folder, tmp_path / target)
        assert signature(resumed(copy, target)) == uninterrupted
    # a damaged run is named, not taken
    first = runs[0][0]
    data = bytearray(first.read_bytes())
    data[-1] ^= 1
    first.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="is damaged"):
        load(folder, IDENTITY).seen_runs()


@pytest.mark.parametrize("moment", [("write", 5), ("level", 0.3)])
def test_a_killed_spilled_search_resumes_to_the_same_answers(tmp_path, moment, uninterrupted):
    folder = tmp_path / "ck"
    status = killed(folder, "spilled", moment)
    assert status == 9 or (status == 0 and moment[0] == "level")
    try:
        load(folder, IDENTITY)
    except CheckpointError as exc:
        assert "holds no checkpoint" in str(exc)
        return
    for target in ("spilled", "compiled"):
        copy = shutil.copytree(folder, tmp_path / target, symlinks=True)
        assert signature(resumed(copy, target)) == uninterrupted
    assert not [p for p in os.listdir(tmp_path / "spilled") if p.startswith(".spill-")]


def test_a_full_disk_stops_the_search_as_partial(monkeypatch):
    """The tier's disk fills up: the search ends INCOMPLETE (exit 3) with one line naming
    the folder and the reason, and leaves no tier folder behind."""
    spec, props = build_model("kafka", Config(replicas=2, truncation="hw"))
    compiled, _ = compiled_model(spec)

    def full(self, hashes):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(disk.Runs, "add", full)
    run = native_engine.CompiledSearch(compiled, spec, props, Limits(), None, True, 1, memory=SPILL)
    try:
        result = run_search(run)
    finally:
        folder = run.tier.folder
        run.stream.close()
        run.tier.close()
    assert result.status.value == "INCOMPLETE" and result.exit_code == 3
    assert result.reason == f"the disk tier cannot go on in {folder}: No space left on device"
    assert folder is not None and not folder.exists()


def test_the_disk_peak_counts_a_streamed_levels_flushes_and_frontiers(monkeypatch):
    """``disk_mb`` is the most the tier's folder held: measured here by listing the folder
    after each flush is written (the flushes and the frontier's file are there) and after
    each level's rows are made again (the frontier's file and the next one's), it equals the
    summary's peak but for the parent files' ``.npy`` headers; the runs and parent files
    alone (what it counted before) are less than half of it."""
    spec, props = build_model("kafka", Config(replicas=2, truncation="hw"))
    compiled, _ = compiled_model(spec)
    monkeypatch.setattr(stream, "CHUNK", 128)
    seen: list[tuple[int, int]] = []  # (bytes in the folder, .npy files among them)
    run = native_engine.CompiledSearch(
        compiled, spec, props, Limits(), None, False, 1, memory=SPILL
    )

    def measure() -> None:
        files = [p for p in run.tier.home().rglob("*") if p.is_file()]
        npy = sum(p.suffix == ".npy" for p in files)
        seen.append((sum(p.stat().st_size for p in files), npy))

    write, regenerate = flush.Flush.write, stream.Stream._regenerate

    def measured_write(self, *arrays):
        write(self, *arrays)
        measure()

    def measured_regenerate(self, size, columns, out):
        columns = regenerate(self, size, columns, out)
        out.out.flush()
        measure()
        return columns

    monkeypatch.setattr(flush.Flush, "write", measured_write)
    monkeypatch.setattr(stream.Stream, "_regenerate", measured_regenerate)
    try:
        got = run_search(run)
        assert got.status in (Status.OK, Status.VIOLATED), got.reason
        parts = run.tier.runs.nbytes + run.tier.keys.disk_bytes
    finally:
        run.stream.close()
        run.tier.close()
    most, headers = max(seen)
    reported = round(got.stats.disk_mb * (1 << 20))
    assert most - 128 * headers <= reported <= most, (reported, most, headers)
    assert 2 * parts < most, (parts, most)


@pytest.mark.parametrize("bits", [64, 128])
def test_a_row_made_again_that_is_not_the_flushed_state_stops_the_search(bits, monkeypatch):
    """A streamed level's rows are made again from their parents and checked against the key
    the flush holds: a key that no successor of its parent has (one bit flipped here) ends
    the search with the model named as the culprit, and leaves no next frontier file."""
    spec, props = build_model("kafka", Config(replicas=2, truncation="hw"))
    compiled, _ = compiled_model(spec)
    regenerate = stream.Stream._regenerate

    def flipped(self, size, columns, out):
        columns[0][0] ^= np.array(1, dtype=np.uint64)  # a 64-bit key, or a 128-bit one's word
        return regenerate(self, size, columns, out)

    monkeypatch.setattr(stream.Stream, "_regenerate", flipped)
    run = native_engine.CompiledSearch(
        compiled, spec, props, Limits(), None, False, 2, memory=SPILL, key_bits=bits
    )
    try:
        with pytest.raises(RuntimeError, match="not a function of the state"):
            run.search()
        frontiers = sorted(p.name for p in run.tier.home().glob("frontier-*"))
        assert frontiers == [run.stream.path.name], frontiers
    finally:
        run.stream.close()
        run.tier.close()
