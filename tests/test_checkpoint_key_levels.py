"""Checkpoints of a compiled search spilled to disk keep its levels as the disk tier's parent
tables (``levels/K*.npy``: hard links to the tier's own files, 8 bytes a state) instead of
level files of fingerprints (16 bytes a state), and a streamed frontier's rows as a link to
the tier's file: a search that spills writes only level 1's level file,
an in-memory checkpoint resumed and spilled has its level files replaced, and every mix
resumes to the uninterrupted answers, traces included (``tests/test_checkpoint.py``'s
search). Other engines, which need the fingerprints, refuse such a checkpoint by name."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest
from test_checkpoint import CODEC, IDENTITY, PROPS, SPEC, resumed, signature
from test_checkpoint import search as checkpoint_search

from checker.checkpoint import write as checkpoint_write
from checker.checkpoint.format import CheckpointError
from checker.checkpoint.read import load
from checker.checkpoint.saving import SaveOptions
from checker.checkpoint.write import Checkpointer, link
from checker.search.compiled import search as native_engine
from checker.search.reference import seen as seen_module
from checker.search.reference.bfs import Limits
from checker.search.tier import spill as tier
from checker.search.tier import stream

SPILL = 1 << 20
"""A budget the search passes at its first level: it spills at every level boundary."""


class AfterCalls:
    """A ``Limits.cancel`` set from its ``calls``-th look on: the compiled engine looks about
    twice a level (53 times in this search's 26 levels), so the search stops at the same
    level boundary on every run."""

    def __init__(self, calls: int) -> None:
        self.left = calls

    def is_set(self) -> bool:
        self.left -= 1
        return self.left < 0


def no_copy(*_):
    raise AssertionError("a file was copied, not linked")


def cut(folder, memory, calls, resume=None):
    """The compiled search with a checkpoint at every level boundary in ``folder`` (going on
    from ``resume``), stopped after ``calls`` looks at ``Limits.cancel``."""
    writer = Checkpointer(folder, IDENTITY, 1e-9, resumed=resume)
    saving = SaveOptions(writer, resume, CODEC)
    limits = Limits(cancel=AfterCalls(calls))
    result = native_engine.explore(
        CODEC, SPEC, PROPS, limits, None, True, 2, saving=saving, memory=memory
    )
    assert result.reason == "cancelled"  # (VIOLATED once it has found a violation)
    return load(folder, IDENTITY)


@pytest.fixture(scope="module")
def uninterrupted():
    return signature(checkpoint_search("compiled"))


def test_a_spilled_search_links_its_parent_tables(tmp_path, monkeypatch, uninterrupted):
    """Spilled from the first level: the checkpoint names level 1's file and every later
    level's parent table and the frontier's rows, second names of the tier's files (a copy
    fails the search here), no other level file; it resumes on the compiled core, in memory
    or spilled (linking them again), and nowhere else; a damaged file is named."""
    folder = tmp_path / "ck"
    monkeypatch.setattr(checkpoint_write.shutil, "copyfile", no_copy)
    loaded = cut(folder, SPILL, 15)
    monkeypatch.undo()
    assert 5 < loaded.level < 20
    assert list(loaded.manifest["levels"]) == ["1"]
    assert list(loaded.manifest["key_levels"]) == [str(k) for k in range(2, loaded.level + 1)]
    rows = loaded.manifest["files"]["frontier_rows"]  # the streamed frontier's own file
    assert rows == loaded.manifest["files"]["frontier"].replace(".npy", "-rows.npy")
    names = sorted(os.listdir(folder / "levels"))
    assert names == sorted(["L0001.npy"] + [f"K{k:06d}.npy" for k in range(2, loaded.level + 1)])
    for target in ("compiled", "spilled"):
        copy = shutil.copytree(folder, tmp_path / target)
        linked = []
        with monkeypatch.context() as patched:  # the resume links the files too
            patched.setattr(checkpoint_write.shutil, "copyfile", no_copy)
            patched.setattr(stream, "link", lambda a, b, got=linked: got.append(a) or link(a, b))
            assert signature(resumed(copy, target)) == uninterrupted
        # streamed from the start when spilled: the frontier's rows are not written again
        assert linked[:1] == ([copy / rows] if target == "spilled" else [])
    with pytest.raises(CheckpointError, match="only the local engine on the compiled core"):
        checkpoint_search("local", SaveOptions(None, load(folder, IDENTITY), CODEC))
    for name in ("levels/K000003.npy", rows):
        copy = shutil.copytree(folder, tmp_path / "damaged")
        data = bytearray((copy / name).read_bytes())
        data[-1] ^= 1
        (copy / name).write_bytes(bytes(data))
        with pytest.raises(CheckpointError, match=f"{name} is not the file its manifest names"):
            resumed(copy, "compiled")
        shutil.rmtree(copy)


def test_level_files_and_parent_tables_mix_and_resume(tmp_path, monkeypatch, uninterrupted):
    """An in-memory checkpoint (level files only) resumed with a budget that spills: the next
    checkpoint replaces levels 2 on by parent tables, made from the level files restored
    (in their files' order); resumed once more, in memory and spilled, it gives the
    uninterrupted answers."""
    folder = tmp_path / "ck"
    first = cut(folder, None, 15)
    assert "key_levels" not in first.manifest or not first.manifest["key_levels"]
    assert len(first.manifest["levels"]) == first.level
    monkeypatch.setattr(tier, "SEEN_SHARE", 0.0)  # the levels' keys go to runs: it spills
    second = cut(folder, SPILL, 8, resume=first)
    monkeypatch.undo()
    assert first.level + 2 < second.level
    assert list(second.manifest["levels"]) == ["1"]
    assert not (folder / "levels" / "L0002.npy").exists()
    for target in ("compiled", "spilled"):
        copy = shutil.copytree(folder, tmp_path / target)
        assert signature(resumed(copy, target)) == uninterrupted


def test_the_final_checkpoint_of_a_spilled_search_resumes(tmp_path, uninterrupted):
    """A spilled search that ran to its end keeps a final checkpoint with an empty frontier
    (its last level's parent table is there all the same); resumed, it gives the answers
    without searching."""
    folder = tmp_path / "ck"
    saving = SaveOptions(Checkpointer(folder, IDENTITY, 1e-9), None, CODEC)
    done = native_engine.explore(
        CODEC, SPEC, PROPS, Limits(), None, True, 2, saving=saving, memory=SPILL
    )
    assert signature(done) == uninterrupted
    loaded = load(folder, IDENTITY)
    assert (
        loaded.manifest["frontier_size"] == 0 and str(loaded.level) in loaded.manifest["key_levels"]
    )
    for target in ("compiled", "spilled"):
        copy = shutil.copytree(folder, tmp_path / target)
        assert signature(resumed(copy, target)) == uninterrupted


def test_parent_tables_on_disk_without_a_spill_keep_level_files(
    tmp_path, monkeypatch, uninterrupted
):
    """Parent tables parked in files (past ``PARENTS_IN_MEMORY``, here at once) while the seen
    set is in memory, or a checkpoint that may not link (a URL's): the level files are
    written as before, so any engine resumes the checkpoint."""
    monkeypatch.setattr(tier, "PARENTS_IN_MEMORY", 0)
    parked = cut(tmp_path / "parked", None, 15)
    monkeypatch.undo()
    monkeypatch.setattr(Checkpointer, "links", False)
    unlinked = cut(tmp_path / "unlinked", SPILL, 15)
    monkeypatch.undo()
    for loaded in (parked, unlinked):
        assert not loaded.manifest["key_levels"]
        assert len(loaded.manifest["levels"]) == loaded.level > 5
        assert (
            signature(checkpoint_search("local", SaveOptions(None, loaded, CODEC))) == uninterrupted
        )


def test_a_link_that_fails_leaves_the_name_it_replaces(tmp_path, monkeypatch):
    """Where hard links fall back to copies, a copy that fails half-way leaves the file the
    name held before, whole, and no temporary file."""
    source, target = tmp_path / "new.npy", tmp_path / "K000002.npy"
    source.write_bytes(b"new" * 1000)
    target.write_bytes(b"old")

    def no_link(*_):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    def half(src, dst):
        Path(dst).write_bytes(b"ne")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(checkpoint_write.os, "link", no_link)
    monkeypatch.setattr(checkpoint_write.shutil, "copyfile", half)
    with pytest.raises(OSError, match="No space"):
        link(source, target)
    assert target.read_bytes() == b"old" and sorted(os.listdir(tmp_path)) == [
        "K000002.npy",
        "new.npy",
    ]
    monkeypatch.undo()
    monkeypatch.setattr(checkpoint_write.os, "link", no_link)
    link(source, target)
    assert target.read_bytes() == source.read_bytes() and not source.samefile(target)


def test_checkpoints_without_hard_links_resume(tmp_path, monkeypatch, uninterrupted):
    """Every link a copy (a file system without hard links): cut, resumed and cut again into
    the same folder, spilled, the checkpoint still resumes to the uninterrupted answers."""

    def no_link(*_):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(checkpoint_write.os, "link", no_link)
    first = cut(tmp_path / "ck", SPILL, 10)
    second = cut(tmp_path / "ck", SPILL, 8, resume=first)
    assert first.level < second.level and len(second.manifest["key_levels"]) == second.level - 1
    monkeypatch.undo()
    assert signature(resumed(tmp_path / "ck", "compiled")) == uninterrupted


def test_a_full_disk_at_the_last_checkpoint_ends_the_search_as_partial(tmp_path, monkeypatch):
    """The parent tables cannot go to disk (no space): the search ends INCOMPLETE with the
    disk tier's reason, and the final checkpoint's failure is a warning (it was ERROR, "the
    spec raised OSError", when moving them for the checkpoint raised again)."""
    calls = [0]
    spill = seen_module.KeyLevels.spill

    def full_at_the_fifth(self, folder):
        calls[0] += 1
        if calls[0] >= 5:
            raise OSError(errno.ENOSPC, "No space left on device")
        spill(self, folder)

    monkeypatch.setattr(seen_module.KeyLevels, "spill", full_at_the_fifth)
    warned: list[str] = []
    writer = Checkpointer(tmp_path / "ck", IDENTITY, 1e-9, warn=warned.append)
    result = native_engine.explore(
        CODEC,
        SPEC,
        PROPS,
        Limits(),
        None,
        True,
        2,
        saving=SaveOptions(writer, None, CODEC),
        memory=SPILL,
    )
    assert result.status.value == "INCOMPLETE", result.reason
    assert (
        result.reason.startswith("the disk tier cannot go on in ") and "No space" in result.reason
    )
    assert warned and "No space left on device" in warned[-1]
