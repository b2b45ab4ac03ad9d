"""The compiled engine's side of checkpoints (``checker.checkpoint.saving``): what it saves of
a level boundary (the frontier's rows, wherever they are; the seen set in memory and the
runs on disk) and how it goes on from a checkpoint. A base of
``checker.search.compiled.CompiledSearch``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.format import CheckpointError, Frontier
from checker.checkpoint.read import Loaded
from checker.checkpoint.saving import Saving
from checker.native.core import Core, check, view
from checker.search.disk import open_run
from checker.search.seen import KeyLevels
from checker.search.stream import Stream
from checker.search.tier import Tier


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
            return Frontier(self.front_fps, rows=self.stream.rows())
        rows = view(lib.eng_front_rows(handle), np.uint8, len(self.front_fps), self.core.width)
        return Frontier(self.front_fps, rows=rows)  # views: written as they are

    def seen_runs(self) -> list[tuple[Path, str]]:
        return self.tier.run_files()

    def seen_snapshot(self) -> np.ndarray[Any, Any]:
        """The seen set in memory, sorted (``checker.search.keys``: the same file whatever
        the thread count)."""
        lib, handle = self.core.lib, self.core.handle
        hashes = self.tier.kind.empty(lib.eng_seen_count(handle))
        lib.eng_seen_copy(handle, hashes.ctypes.data)
        return self.tier.kind.sort(hashes)

    def search_state(self) -> dict[str, Any]:
        """``Saving.search_state`` and the width of the seen set's keys (``key_bits``)."""
        return {**super().search_state(), "key_bits": self.core.key_bits}

    def _restore(self, loaded: Loaded) -> int:
        """Go on from ``loaded``: the parent tables in its (sorted) level order, the seen set
        from its row hashes, the frontier as rows. Returns the frontier's size. Raises
        ``CheckpointError`` when it has no compiled seen set (another engine wrote it)."""
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
        previous: np.ndarray[Any, Any] = np.empty(0, dtype=np.uint64)
        for k, fps, parents in loaded.levels():
            rows = None if k == 1 else np.searchsorted(previous, parents).astype(np.uint32)
            self.seen.add_level(fps, parent_rows=rows)
            previous = fps
        check(lib.eng_seen_load(handle, hashes.ctypes.data, len(hashes)))
        self.tier.adopt([open_run(path, checksum) for path, checksum in loaded.seen_runs()])
        frontier = loaded.frontier().sorted()  # the order of the last level's key table
        front = self.frontier_rows(frontier, self.core.width)
        fps = np.ascontiguousarray(frontier.fps)
        check(lib.eng_seed(handle, front.ctypes.data, fps.ctypes.data, len(fps)))
        self.front_fps = view(lib.eng_front_fps(handle), np.uint64, len(fps))
        return len(fps)
