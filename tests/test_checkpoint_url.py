"""Checkpoints on a URL (``checker.spark.checkpoints``): a Spark run's checkpoint written by
its tasks to a ``file://`` URL, with no level or frontier collected into the driver, resumes
on the local engine and on Spark with another partition count and the other core, with the
uninterrupted run's answers; a folder missing or a manifest that disagrees is refused."""

from __future__ import annotations

import json
import shutil
import threading

import numpy as np
import pytest
from click.testing import CliRunner
from test_checkpoint import CODEC, IDENTITY, RECIPE, search, signature
from test_checkpoint_spark import on_spark

from checker.checkpoint.format import CheckpointError, Frontier, sealed
from checker.checkpoint.saving import SaveOptions
from checker.cli import cli
from checker.commands import checkpoints as commands_checkpoints
from checker.commands.checkpoint_flags import is_url
from checker.search.partitioned.compiled_level import COMPILED
from checker.search.reference.bfs import Limits
from checker.spark import checkpoints, engine, rdds, session
from checker.spark.hadoop import Place
from checker.spark.session import SparkOptions


@pytest.fixture(scope="module")
def uninterrupted():
    return signature(search("local"))


def cut_on_spark(tmp_path):
    """A compiled-core Spark run on 3 partitions, cut at level 16 (Spark from level 13),
    its one checkpoint written at the cut to a file:// URL; the driver is never asked for a
    level or the frontier."""
    sc = session.context(SparkOptions(master="local[2]"))
    folder = tmp_path / "ck"
    url = folder.as_uri()
    stop = threading.Event()
    writer = checkpoints.UrlCheckpointer(Place(sc, url), IDENTITY, 0)

    def collected(*args):
        raise AssertionError("a level or the frontier was collected into the driver")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rdds.Levels, "level_table", collected)
        patch.setattr(rdds.Levels, "frontier_snapshot", collected)
        result = engine.explore(  # levels of 3,000+ states on Spark: from level 13
            RECIPE,
            Limits(cancel=stop),
            lambda p: p.depth >= 16 and stop.set(),
            SparkOptions(partitions=3, min_frontier=3000),
            True,
            COMPILED,
            SaveOptions(writer),
        )
    assert result.reason == "cancelled"
    assert any(level["where"] == "spark" for level in result.stats.levels)
    return sc, folder, url


def loaded_from(sc, url):
    return checkpoints.load(Place(sc, url), IDENTITY)


def test_a_spark_checkpoint_on_a_file_url_resumes_locally_and_on_spark(tmp_path, uninterrupted):
    """One test, so the cut run is made once (pytest-xdist may split a module's tests)."""
    cut = cut_on_spark(tmp_path)
    the_tasks_write_the_levels_and_frontier_the_manifest_names(cut)
    resumes_on_the_local_engine(cut, uninterrupted)
    with_a_folder_missing_or_a_count_wrong_is_refused(cut, tmp_path / "damaged")
    resumes_on_spark_with_other_partitions_and_core(cut, uninterrupted, tmp_path / "spark")


def the_tasks_write_the_levels_and_frontier_the_manifest_names(cut):
    _, folder, url = cut
    assert is_url(url) and not is_url(str(folder))
    manifest = json.loads((folder / "checkpoint-000001.json").read_text())
    assert manifest["layout"] == "spark" and manifest["level"] == 16
    assert sorted(int(k) for k in manifest["levels"]) == list(range(1, 17))
    assert manifest["frontier_kind"] == "rows"
    assert {entry["path"] for entry in manifest["levels"].values()} == {"levels/B000001"}
    assert (folder / "levels" / "B000001" / "_SUCCESS").exists()  # one job wrote them all
    assert (folder / manifest["frontier"]["path"] / "part-00002").exists()  # one per partition
    distinct = sum(entry["states"] for entry in manifest["levels"].values())
    assert distinct == manifest["search"]["distinct"]


def resumes_on_the_local_engine(cut, uninterrupted):
    sc, _, url = cut
    loaded = loaded_from(sc, url)
    assert loaded.level == 16 and loaded.seen() is None
    assert signature(search("local", SaveOptions(None, loaded, CODEC))) == uninterrupted


def resumes_on_spark_with_other_partitions_and_core(cut, uninterrupted, tmp_path):
    sc, folder, _ = cut
    copy = shutil.copytree(folder, tmp_path / "ck")
    place = Place(sc, copy.as_uri())
    loaded = checkpoints.load(place, IDENTITY)
    writer = checkpoints.UrlCheckpointer(place, IDENTITY, 0, resumed=loaded)
    # rows decoded into states in the tasks, re-partitioned from 3 to 2
    assert signature(on_spark(SaveOptions(writer, loaded, CODEC), 2, "reference")) == uninterrupted
    assert writer.saved_level > 16  # the last checkpoint, written at the end
    left = sorted(path.name for path in copy.iterdir() if not path.name.startswith("."))
    assert left == ["checkpoint-000002.json", "frontier-000002", "levels"]
    assert sorted(path.name for path in (copy / "levels").iterdir()) == ["B000001", "B000002"]
    # that last checkpoint (the search done, no frontier) resumes on the compiled core too,
    # as the command line would (no seen set is needed to expand nothing)
    finished = checkpoints.load(place, IDENTITY)
    assert finished.manifest["frontier_size"] == 0
    assert signature(search("compiled", SaveOptions(None, finished, CODEC))) == uninterrupted


def with_a_folder_missing_or_a_count_wrong_is_refused(cut, tmp_path):
    sc, folder, _ = cut
    copy = shutil.copytree(folder, tmp_path / "ck")
    manifest_path = copy / "checkpoint-000001.json"
    original = manifest_path.read_text()
    manifest = json.loads(original)
    manifest["levels"]["3"]["states"] += 1
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="Checksum error"):  # Hadoop's own .crc file
        loaded_from(sc, copy.as_uri())
    (copy / ".checkpoint-000001.json.crc").unlink()
    with pytest.raises(CheckpointError, match="its checksum does not match its fields"):
        loaded_from(sc, copy.as_uri())
    manifest_path.write_bytes(sealed(manifest))  # sealed again: the level's own count fails
    with pytest.raises(CheckpointError, match="is damaged: level 3 holds"):
        list(loaded_from(sc, copy.as_uri()).levels())
    manifest_path.write_text(original)
    shutil.rmtree(copy / "frontier-000001")
    with pytest.raises(CheckpointError, match="is incomplete: the frontier cannot be read"):
        loaded_from(sc, copy.as_uri()).frontier()
    with pytest.raises(CheckpointError, match="is incomplete"):
        on_spark(SaveOptions(None, loaded_from(sc, copy.as_uri()), CODEC), 2, "compiled")
    with pytest.raises(CheckpointError, match="holds no checkpoint"):
        loaded_from(sc, (tmp_path / "none").as_uri())


def test_explore_writes_a_checkpoint_at_a_url_and_resumes_from_it_locally(tmp_path, monkeypatch):
    """The commands a person runs (in this process, on the test session's JVM): explore on
    Spark cut by its time limit, its checkpoint at a file:// URL, then explore --resume URL
    on the local engine: the uninterrupted run's counts and traces."""
    session.context(SparkOptions(master="local[2]"))
    monkeypatch.setattr(commands_checkpoints, "_noted", [])  # the note is said once a process
    url = (tmp_path / "ck").as_uri()
    model = ["explore", "--replicas", "2", "--truncation", "hw", "--no-progress"]
    whole = CliRunner().invoke(cli, [*model, "--out", str(tmp_path / "whole")])
    assert whole.exit_code == 12
    spark = ["--engine", "spark", "--master", "local[2]", "--spark-min-frontier", "0"]
    cut = CliRunner().invoke(
        cli,
        [*model, *spark, "--checkpoint", url, "--time-limit", "3", "--out", str(tmp_path / "a")],
    )
    assert cut.exit_code == 3, cut.output
    assert cut.output.strip().splitlines()[-1] == f"Resume with: hwcheck explore --resume {url}"
    again = CliRunner().invoke(
        cli, ["explore", "--resume", url, "--no-progress", "--out", str(tmp_path / "b")]
    )
    assert again.exit_code == 12, again.output
    assert "goes on from it on the reference core" in again.output
    summaries = [json.loads((tmp_path / d / "summary.json").read_text()) for d in ("whole", "b")]
    counts = [
        (s["stats"]["distinct"], s["stats"]["generated"], s["stats"]["depth"]) for s in summaries
    ]
    assert counts[0] == counts[1]
    traces = [sorted((tmp_path / d).glob("*/trace.json")) for d in ("whole", "b")]
    assert [p.parent.name for p in traces[0]] == [p.parent.name for p in traces[1]]
    assert len(traces[0]) >= 5  # NoCommittedLoss, NoDivergence, ...
    for mine, theirs in zip(*traces, strict=True):
        assert mine.read_bytes() == theirs.read_bytes()


def test_only_explore_takes_a_checkpoint_url():
    result = CliRunner().invoke(cli, ["compare", "--checkpoint", "file:///tmp/x"])
    assert result.exit_code == 2
    assert "only explore keeps checkpoints at a URL" in result.output


def test_a_checkpoint_that_fails_leaves_none_of_its_files(tmp_path):
    """The manifest's write fails after the tasks wrote the level's folder and the frontier:
    one warning, and neither folder is left beside the checkpoint before it (none here)."""
    sc = session.context(SparkOptions(master="local[2]"))
    folder = tmp_path / "ck"
    warned: list[str] = []
    writer = checkpoints.UrlCheckpointer(
        Place(sc, folder.as_uri()), IDENTITY, 0, warn=warned.append
    )
    fps = np.array([7, 9], dtype=np.uint64)
    writer.level(1, fps, np.zeros(2, dtype=np.uint64))

    def full(name, data):
        raise OSError(28, "No space left on device")

    writer.place.write = full
    assert not writer.save(1, Frontier(fps, states=[b"a", b"b"]), None, {})
    assert len(warned) == 1 and "No space left on device" in warned[0]
    assert folder.is_dir() and not any(folder.rglob("*000001*"))
