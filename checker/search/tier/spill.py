"""When the compiled local engine spills to disk (``--memory``), and the calls it makes then.

``Tier`` watches the engine's arrays against a memory budget at every level boundary and,
past it, moves the seen set into sorted runs on disk and the parent tables into files
(``checker.search.tier.runs``); during a level it drops the states the runs already hold. With a
budget the search never reaches, it costs one C call per level and nothing else.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.write import link
from checker.limits import free_memory, megabytes
from checker.native.core import check
from checker.result import Stats
from checker.search.compiled.keys import KeyKind
from checker.search.partitioned.level_files import release, work_folder
from checker.search.reference.seen import KeyLevels
from checker.search.tier.runs import Run, Runs

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
SEEN_SHARE = 0.25
"""The share of the budget the seen set may hold in memory while levels are streamed."""
SEEN_BATCH = 1 << 24
"""Keys ``eng_seen_load`` adds at a time (``checker/native/access.c``)."""
MIN_BUDGET = 1 << 20
"""The smallest budget taken (1 MiB): below it every level spills, which the tests use."""
PARENTS_IN_MEMORY = 64 << 20
"""Bytes of parent tables (8 a state) kept in memory whatever the budget: past it they go to
files, read back only to rebuild a counterexample, as TLC keeps its trace on disk."""


def parse_size(text: str) -> int:
    """``text`` as bytes: a number and an optional binary unit, ``K``, ``M``, ``G``, ``T``
    (``KiB``, ``KB`` and lower case alike: 1G is 2^30 bytes), e.g. ``1G``, ``512M``,
    ``1.5GiB`` (ASCII digits, at most 15 before the point). Raises ``ValueError`` for anything
    else or a size under ``MIN_BUDGET``."""
    found = re.fullmatch(
        r"\s*([0-9]{1,15}(?:\.[0-9]{1,6})?)\s*([kmgt]?)(?:i?b)?\s*", text, re.IGNORECASE
    )
    if not found:
        raise ValueError(f"{text!r} is not a size (e.g. 1G, 512M, 1.5GiB)")
    size = int(float(found.group(1)) * UNITS[found.group(2).upper()])
    if size < MIN_BUDGET:
        raise ValueError(f"{text!r} is under the smallest budget, 1M")
    return size


def resident() -> int:
    """This process's resident memory now, in bytes (0 where ``/proc`` has none)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


SPILL_PREFIX = ".spill-"
"""The tier folder's name in a checkpoint folder: ``.spill-<pid>-<random>``, locked while
its search lives (``level_files.work_folder``)."""


class Tier:
    """The disk tier of one compiled search: ``lib``/``handle`` its engine, ``keys`` its
    parent tables. ``budget``: bytes the process may hold (None: what the machine has free
    when the search starts). At a level boundary where the process's resident memory and the
    copy a spill makes of the seen set pass it, the seen set and parent tables go to disk;
    a level too big for what is left is streamed (``checker.search.tier.stream``). ``folder``:
    where the runs go (None: a temporary folder); either way ``close`` deletes it. ``kind``:
    the engine's seen-set keys (64 or 128 bits: ``checker.search.compiled.keys``)."""

    def __init__(
        self,
        lib: Any,
        handle: Any,
        keys: KeyLevels,
        budget: int | None,
        folder: Path | None,
        kind: KeyKind | None = None,
    ) -> None:
        self.lib, self.handle, self.keys = lib, handle, keys
        self.kind = kind or KeyKind(64)
        self.budget = free_memory() if budget is None else budget
        self.folder = None if folder is None else Path(folder)
        self.beside: Path | None = None
        self.runs: Runs | None = None
        self.disk_peak = 0  # bytes
        self.level_disk = 0  # bytes a streamed level's files hold now (``hold``)

    def place(self, beside: Path) -> None:
        """Keep the runs in a folder in ``beside`` (a checkpoint folder, so its checkpoints
        link them rather than copy), made when first needed (``SPILL_PREFIX``), after
        deleting the tier folders there whose searches are gone."""
        self.beside = Path(beside)

    @property
    def spilled(self) -> bool:
        """Whether any of the seen set is on disk."""
        return self.runs is not None and bool(self.runs.runs)

    def home(self) -> Path:
        """The tier's folder (made now if need be)."""
        if self.folder is None:
            prefix = "hwcheck-spill-" if self.beside is None else SPILL_PREFIX
            self.folder = Path(work_folder(prefix, self.beside))
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder

    def _runs(self) -> Runs:
        if self.runs is None:
            self.runs = Runs(self.home() / "runs", self.kind)
        return self.runs

    def parents_to_files(self) -> None:
        """Move the parent tables held in memory, but the first level's, to files in the
        tier's ``levels`` folder (``KeyLevels.spill``). Raises ``OSError``."""
        self.keys.spill(self.home() / "levels")

    def park_parents(self) -> None:
        """``parents_to_files`` once the parent tables hold more than ``PARENTS_IN_MEMORY``
        bytes. Raises ``OSError``."""
        if self.keys.nbytes > PARENTS_IN_MEMORY:
            self.parents_to_files()

    def over(self, more: float = 0) -> bool:
        """Whether the process holds more than the budget, or would with ``more`` bytes."""
        return resident() + more > self.budget

    def note(self) -> str:
        """What the progress line says ("" before the first spill)."""
        if self.runs is None:
            return ""
        return f"spilled {self.runs.count:,} seen states, {megabytes(self.disk_bytes)} on disk"

    @property
    def disk_bytes(self) -> int:
        """Bytes on disk: the runs, the parent tables' files and a streamed level's files."""
        runs = self.runs.nbytes if self.runs is not None else 0
        return runs + self.keys.disk_bytes + self.level_disk

    def hold(self, level_bytes: int) -> None:
        """Count ``level_bytes``, what a streamed level's files hold on disk now (its
        flushes and frontier files: ``checker.search.tier.stream``), in ``disk_bytes`` and the
        peak the summary gives (``disk_mb``)."""
        self.level_disk = level_bytes
        self.disk_peak = max(self.disk_peak, self.disk_bytes)

    def after_level(self, newest: Any = None) -> bool:
        """At the boundary after an in-memory level: spill when the process and the copy a
        spill makes pass the budget. ``newest()`` gives the row hashes of the level just
        committed, which stay in memory (a spill moves the rest): successors fall mostly in
        the latest levels, so the seen set in memory catches most duplicates before they
        reach the level's tables. (A streamed level's keys are placed by ``take_level``.)
        Returns whether it spilled."""
        count = int(self.lib.eng_seen_count(self.handle))
        due = resident() + self.kind.itemsize * count > self.budget
        if due:
            self.spill(None if newest is None else newest())
        return due

    def fits(self, held: int, adding: int) -> bool:
        """Whether a seen set of ``held`` keys takes ``adding`` more within its share of the
        budget while levels are streamed (``SEEN_SHARE``): a key's width a key, a bound on
        the compact set (5.5 bytes a 64-bit key, 13.6 a 128-bit one, at 10^8 keys and more),
        and two copies of a batch while it is added (``eng_seen_load``'s sort, 2^24 keys a
        batch)."""
        width = self.kind.itemsize
        batch = 2 * width * min(adding, SEEN_BATCH)
        return width * (held + adding) + batch <= self.budget * SEEN_SHARE

    def take_level(self, keys: np.ndarray[Any, Any]) -> None:
        """Add a streamed level's keys (none seen before) to the seen set: into memory beside
        the keys there when both fit ``fits``; else those go to a run first (before the
        table grows, so it never holds both), and the level's keys go into memory if they
        fit alone, to a run of their own if not. Raises ``OSError`` when the disk fails."""
        lib, handle = self.lib, self.handle
        held = int(lib.eng_seen_count(handle))
        if held and not self.fits(held, len(keys)):
            self.spill()
        if self.fits(0, len(keys)):
            check(lib.eng_seen_load(handle, keys.ctypes.data, len(keys)))
        else:
            self._runs().add(keys)
            self.disk_peak = max(self.disk_peak, self.disk_bytes)

    def spill(self, keep: np.ndarray[Any, Any] | None = None) -> None:
        """Move the seen set into a run on disk, but for the keys ``keep`` (in it), and the
        parent tables into files. Raises ``OSError`` when the disk fails."""
        lib, handle = self.lib, self.handle
        runs = self._runs()
        self.parents_to_files()
        hashes = self.kind.empty(lib.eng_seen_count(handle))
        lib.eng_seen_copy(handle, hashes.ctypes.data)
        if keep is not None and len(keep):
            keep = self.kind.sort(keep.copy())
            hashes = hashes[~self.kind.member(keep, hashes)]
        runs.add(hashes)
        del hashes
        check(lib.eng_seen_clear(handle))
        if keep is not None and len(keep):
            check(lib.eng_seen_load(handle, keep.ctypes.data, len(keep)))
        self.disk_peak = max(self.disk_peak, self.disk_bytes)

    def lookup(self) -> Any:
        """Membership in the runs for batches of increasing row hashes (``disk.Lookup``;
        nothing is on disk before the first spill)."""
        if self.runs is None or not self.runs.runs:
            return lambda keys: np.zeros(len(keys), dtype=bool)
        return self.runs.lookup()

    def filter_level(self) -> int:
        """Drop from the level being built (its whole frontier expanded) the states a run on
        disk holds; returns how many. Nothing to do before the first spill."""
        if not self.spilled or self.runs is None:
            return 0
        lib, handle = self.lib, self.handle
        hashes = self.kind.empty(int(lib.eng_next_size(handle)))
        lib.eng_next_hashes(handle, hashes.ctypes.data)
        seen = self.runs.contains(hashes)
        dropped = int(seen.sum())
        if dropped:
            check(lib.eng_next_drop(handle, seen.view(np.uint8).ctypes.data))
        return dropped

    def run_files(self) -> list[tuple[Path, str]]:
        """The runs on disk for a checkpoint to link: ``(path, checksum)`` each."""
        return [] if self.runs is None else [(run.path, run.checksum) for run in self.runs.runs]

    def adopt(self, runs: list[Run]) -> None:
        """Take a resumed checkpoint's runs: each linked (else copied) into this tier's
        folder, so the checkpoint may delete its own names later."""
        if not runs:
            return
        own = self._runs()
        own.folder.mkdir(parents=True, exist_ok=True)
        for run in runs:
            path = own.folder / f"resumed-{run.path.name}"
            link(run.path, path)
            own.adopt(Run(path, run.count, run.offset, run.checksum, run.words))

    def adopt_level(self, path: Path, count: int, checksum: str) -> None:
        """Take a resumed checkpoint's parent table of the next level (``count`` states, a
        file ``KeyLevels.spill`` wrote): linked (else copied) into this tier's ``levels``
        folder and held there, as ``parents_to_files`` would have put it. Raises
        ``OSError``."""
        folder = self.home() / "levels"
        folder.mkdir(parents=True, exist_ok=True)
        own = folder / f"resumed-{path.name}"
        link(path, own)
        self.keys.add_file(own, count, checksum)

    def report(self, stats: Stats) -> None:
        """Fill ``stats`` with what the tier held at most on disk
        and what the seen set and parent tables hold in memory and in files now."""
        stats.disk_mb = self.disk_peak / (1 << 20)
        stats.seen_bytes = int(self.lib.eng_seen_bytes(self.handle))
        stats.seen_held = int(self.lib.eng_seen_count(self.handle))
        stats.parent_bytes, stats.parent_file_bytes = self.keys.nbytes, self.keys.disk_bytes

    def cannot(self, exc: OSError) -> str:
        """Why the search stops when the tier's disk fails (``exc``): one line naming where."""
        where = self.folder if self.folder is not None else "its folder"
        return f"the disk tier cannot go on in {where}: {exc.strerror or exc}"

    def close(self) -> None:
        """Delete the tier's folder and everything in it."""
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            release(self.folder)
