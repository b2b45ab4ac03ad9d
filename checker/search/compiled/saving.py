"""The compiled engine's side of checkpoints (``checker.checkpoint.saving``): what it saves of
a level boundary (the frontier's rows, wherever they are; the seen set in memory and the
runs on disk) and how it goes on from a checkpoint. A base of
``checker.search.compiled.search.CompiledSearch``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.format import CheckpointError, Frontier
from checker.checkpoint.read import Loaded
from checker.checkpoint.saving import Saving
from checker.native.core import Core, check, view
from checker.search.reference.seen import KeyLevels
from checker.search.tier.runs import open_run
from checker.search.tier.spill import Tier
from checker.search.tier.stream import Stream


class CompiledCheckpoints(Saving):
    """Checkpoints of a compiled search (its ``core``, ``front_fps``, ``seen`` parent tables,
    ``tier`` and ``stream``)."""

    core: Core
    front_fps: np.ndarray[Any, Any]
    seen: KeyLevels
    tier: Tier
    stream: Stream

    def level_table(self, k: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        return self.front_fps, np.zeros(len(self.front_fps), dtype=np.uint64)  # level 1 only

    def frontier_snapshot(self) -> Frontier:
        lib, handle = self.core.lib, self.core.handle
        if self.stream.active:
            return Frontier(self.front_fps, rows=self.stream.rows(), linked=self.stream.linked())
        rows = view(lib.eng_front_rows(handle), np.uint8, len(self.front_fps), self.core.width)
        return Frontier(self.front_fps, rows=rows)  # views: written as they are

    def seen_runs(self) -> list[tuple[Path, str]]:
        return self.tier.run_files()

    def keyed(self) -> bool:
        """Whether checkpoints keep the levels as parent tables: once the seen set has
        spilled to disk (so only this engine could resume it anyway), into a folder (a
        checkpoint that links files; not a URL)."""
        links: bool = getattr(self.checkpoints, "links", False)
        return links and self.tier.spilled

    def key_level_files(self) -> list[tuple[int, Path, str]]:
        """When ``keyed``, every level's parent table but the first (those still in memory
        are moved to files now), for the checkpoint to link. Raises ``OSError``."""
        if not self.keyed():
            return []
        self.tier.parents_to_files()
        return self.seen.files()

    def seen_snapshot(self) -> np.ndarray[Any, Any]:
        """The seen set in memory, sorted (``checker.search.compiled.keys``: the same file whatever
        the thread count)."""
        lib, handle = self.core.lib, self.core.handle
        hashes = self.tier.kind.empty(lib.eng_seen_count(handle))
        lib.eng_seen_copy(handle, hashes.ctypes.data)
        return self.tier.kind.sort(hashes)

    def search_state(self) -> dict[str, Any]:
        """``Saving.search_state`` and the width of the seen set's keys (``key_bits``)."""
        return {**super().search_state(), "key_bits": self.core.key_bits}

    def _restore(self, loaded: Loaded) -> int:
        """Go on from ``loaded``: the parent tables (``_restore_levels``), the seen set from
        its row hashes and runs, the frontier as rows:
        in the engine, or, when it and the level it makes would pass the budget, streamed
        from a copy on disk (``Stream.start_from``; it is never read whole). Returns the
        frontier's size. Raises ``CheckpointError`` when it has no compiled seen set
        (another engine wrote it)."""
        lib, handle = self.core.lib, self.core.handle
        hashes = loaded.seen()
        if hashes is None:
            if loaded.manifest["frontier_size"]:
                raise CheckpointError("the checkpoint holds no compiled seen set")
            hashes = self.tier.kind.empty(0)  # a finished search: nothing to expand
        if hashes.shape[1:] != self.tier.kind.empty(0).shape[1:]:
            raise CheckpointError(
                f"the checkpoint's seen set is not of {self.core.key_bits}-bit keys"
            )
        self.restore_state(loaded)
        rows_file = loaded.frontier_file()  # None: a frontier of states (another core's)
        if rows_file is None:
            frontier = loaded.frontier().sorted()  # the order of the last level's table
            fps = np.ascontiguousarray(frontier.fps)
        else:
            fps = np.ascontiguousarray(rows_file.fps)
        self._restore_levels(loaded, fps)
        check(lib.eng_seen_load(handle, hashes.ctypes.data, len(hashes)))
        self.tier.adopt([open_run(path, checksum) for path, checksum in loaded.seen_runs()])
        n, width = len(fps), self.core.width
        if rows_file is None:
            front = self.frontier_rows(frontier, width)
        elif self.tier.over(n * width + self.stream.table_bytes(n)):
            self.stream.start_from(rows_file)  # too big for the budget: streamed from here
            return n
        else:
            front = np.fromfile(rows_file.path, np.uint8, n * width, offset=rows_file.offset)
        check(lib.eng_seed(handle, front.ctypes.data, fps.ctypes.data, n))
        self.front_fps = view(lib.eng_front_fps(handle), np.uint64, n)
        return n

    def _restore_levels(self, loaded: Loaded, front: np.ndarray[Any, Any]) -> None:
        """The parent tables from ``loaded``'s levels, each in its file's order (the order a
        later parent table's positions refer to), the last one in the order of the
        frontier's fingerprints ``front``: a level file's parent fingerprints become
        positions; a parent table (a spilled search's) is linked into the tier and read only
        for a trace. Raises ``CheckpointError`` when a file is damaged or does not follow
        the level before it."""
        previous: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None
        for k, keys, parents in loaded.level_tables():
            keyed = None if keys is not None or k == 1 else loaded.key_level(k)
            if keys is None:
                if keyed is None:
                    raise CheckpointError(f"level {k} of {loaded.folder} has no file")
                path, count, checksum = keyed
                if (
                    k == loaded.level
                    and len(front)  # (none when the search had ended)
                    and not np.array_equal(np.load(path, mmap_mode="r")[0], front.view("<u4")[::2])
                ):
                    raise CheckpointError(f"{path} does not hold the frontier's states")
                self.tier.adopt_level(path, count, checksum)
                previous = None
                continue
            rows = None
            if k > 1:
                if previous is None:
                    raise CheckpointError(f"level {k} of {loaded.folder} follows a parent table")
                before, order = previous
                at = np.minimum(np.searchsorted(before[order], parents), len(before) - 1)
                rows = order[at].astype(np.uint32)
                if np.any(before[rows] != parents):
                    raise CheckpointError(f"level {k} of {loaded.folder} names unknown parents")
            if k == loaded.level and not np.array_equal(keys, front):  # another engine's order
                order = np.argsort(keys)
                at = order[np.searchsorted(keys[order], front)]
                keys, rows = front, None if rows is None else rows[at]
            self.seen.add_level(keys, parent_rows=rows)
            previous = keys, np.argsort(keys)
