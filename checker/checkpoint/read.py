"""Reading a checkpoint back (``checker.checkpoint`` writes them): the manifest checked
against what this command would check (``load``, by ``checker.checkpoint.identity``), then
each file checked against its CRC-32 and size as the engine restoring the search reads it
(``Loaded``).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from checker.checkpoint.format import (
    MANIFEST,
    CheckpointError,
    Frontier,
    checksum,
    crc_rest,
    key_level_name,
    read_header,
)
from checker.checkpoint.identity import check_manifest
from checker.jsontext import Unusable, parse, unreadable


def read_arrays(folder: Path, name: str, count: int, want: str) -> list[np.ndarray[Any, Any]]:
    """The ``count`` arrays of ``folder / name`` (``write_arrays``), checked against the
    manifest's ``want`` sum. Raises ``CheckpointError`` when the file is missing, short or
    not the one written."""
    try:
        with open(folder / name, "rb") as handle:
            arrays = [np.load(handle, allow_pickle=False) for _ in range(count)]
            size = handle.tell()
    except (OSError, ValueError, EOFError) as exc:
        raise CheckpointError(
            f"the checkpoint in {folder} is incomplete: {name} cannot be read ({exc})"
        ) from None
    if checksum(arrays, size) != want:
        raise CheckpointError(
            f"the checkpoint in {folder} is damaged: {name} is not the file "
            "its manifest names (CRC-32 differs)"
        )
    return arrays


def run_checksum(folder: Path, name: str) -> str:
    """``checksum`` of a one-array ``.npy`` file, ``folder / name``, computed a slice at a
    time (a run can be larger than memory). Raises ``CheckpointError`` when it cannot be
    read."""
    try:
        with open(folder / name, "rb") as handle:
            read_header(handle)
            return crc_rest(handle)
    except (OSError, ValueError) as exc:
        raise CheckpointError(
            f"the checkpoint in {folder} is incomplete: {name} cannot be read ({exc})"
        ) from None


@dataclass
class RowsFile:
    """A checkpoint's frontier of compiled-core rows, left in its file (``Loaded.frontier_file``):
    ``fps`` in memory, ``count`` rows of ``width`` bytes from byte ``offset`` of ``path``;
    ``checksum``: the file's (``checksum``'s form) when it holds the rows alone."""

    fps: np.ndarray[Any, Any]
    path: Path
    offset: int
    count: int
    width: int
    checksum: str | None = None

    def chunks(self, rows: int) -> Iterator[np.ndarray[Any, Any]]:
        """The rows, ``rows`` at a time, in order (``uint8`` arrays of shape (k, width)).
        Raises ``OSError`` when the file is shorter than its header said."""
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            for start in range(0, self.count, rows):
                k = min(rows, self.count - start)
                chunk = np.fromfile(handle, dtype=np.uint8, count=k * self.width)
                if len(chunk) != k * self.width:
                    raise OSError(f"{self.path} is shorter than its header says")
                yield chunk.reshape(k, self.width)


@dataclass
class Loaded:
    """A checkpoint read back and verified (``load``): its ``folder``, its ``manifest`` and
    ``level`` (the frontier's level)."""

    folder: Path
    manifest: dict[str, Any]

    @property
    def level(self) -> int:
        """The frontier's BFS level (initial states = 1)."""
        return int(self.manifest["level"])

    @property
    def search(self) -> dict[str, Any]:
        """The search state (statistics, violations, open properties; ``checker.checkpoint.saving``)."""
        search: dict[str, Any] = self.manifest["search"]
        return search

    def levels(self) -> Iterator[tuple[int, np.ndarray[Any, Any], np.ndarray[Any, Any]]]:
        """``(k, fps sorted, parent fps)`` for levels 1 .. ``level``. Raises
        ``CheckpointError`` for a level file that is missing or not the one written, and for
        a checkpoint whose levels are parent tables (``key_level``): their states'
        fingerprints are not in it."""
        if self.manifest.get("key_levels"):
            raise CheckpointError(
                f"the checkpoint in {self.folder} was written by a search spilled to disk, "
                "which keeps its levels as the compiled core's parent tables: only the local "
                "engine on the compiled core resumes it"
            )
        for k, fps, parents in self.level_tables():
            assert fps is not None and parents is not None
            order = np.argsort(fps)
            yield k, fps[order], parents[order]

    def level_tables(self) -> Iterator[tuple[int, Any, Any]]:
        """``(k, fps, parent fps)`` (``uint64``, in the order of its file) for levels 1 ..
        ``level``, or ``(k, None, None)`` for a level kept as a parent table (``key_level``).
        Raises ``CheckpointError`` for a level file that is missing or not the one written."""
        keyed = self.manifest.get("key_levels", {})
        for k in range(1, self.level + 1):
            if str(k) in keyed:
                yield k, None, None
                continue
            name, want = f"levels/L{k:04d}.npy", self.manifest["levels"][str(k)]
            fps, parents = read_arrays(self.folder, name, 2, want)
            yield k, fps, parents

    def key_level(self, k: int) -> tuple[Path, int, str] | None:
        """Level ``k``'s parent table when the checkpoint keeps one for it (a spilled
        compiled search's: ``checker.search.reference.seen.KeyLevels``), as ``(path, states,
        checksum)``, checked against the manifest a slice at a time; None for a level kept
        as fingerprints (``level_table``). Raises ``CheckpointError`` when the file is
        missing, damaged or not two rows of ``uint32``."""
        want = self.manifest.get("key_levels", {}).get(str(k))
        if want is None:
            return None
        name = key_level_name(k)
        try:
            with open(self.folder / name, "rb") as handle:
                shape, _, dtype = read_header(handle)
                got = crc_rest(handle)
        except (OSError, ValueError) as exc:
            raise CheckpointError(
                f"the checkpoint in {self.folder} is incomplete: {name} cannot be read ({exc})"
            ) from None
        if got != want or len(shape) != 2 or shape[0] != 2 or dtype != np.uint32:
            raise CheckpointError(
                f"the checkpoint in {self.folder} is damaged: {name} is not the file "
                "its manifest names (CRC-32 differs)"
            )
        return self.folder / name, int(shape[1]), want

    def frontier(self) -> Frontier:
        """The frontier as it was written (rows or states)."""
        files = self.manifest["files"]
        rows = self.manifest["frontier_kind"] == "rows"
        if "frontier_rows" in files:  # the rows in a file of their own (a streamed frontier)
            at = self.frontier_file()
            assert at is not None
            rows = np.fromfile(at.path, np.uint8, at.count * at.width, offset=at.offset)
            return Frontier(at.fps, rows=rows.reshape(at.count, at.width))
        arrays = read_arrays(
            self.folder, files["frontier"], 2 if rows else 3, files["frontier_sum"]
        )
        if rows:
            return Frontier(arrays[0], rows=arrays[1])
        fps, blob, ends = arrays[0], arrays[1].tobytes(), arrays[2].tolist()
        starts = [0, *ends[:-1]]
        return Frontier(fps, states=[blob[a:b] for a, b in zip(starts, ends)])

    def frontier_file(self) -> RowsFile | None:
        """The frontier of compiled-core rows as it lies in its file, its CRC checked 16 MiB
        at a time (a frontier larger than memory is never read whole); None for a
        frontier of states. Raises ``CheckpointError`` when it is missing, short or not the
        file written."""
        files = self.manifest["files"]
        if self.manifest["frontier_kind"] != "rows":
            return None
        name = files["frontier"]
        try:
            if "frontier_rows" in files:  # the rows in a file of their own: a second check
                fps = read_arrays(self.folder, name, 1, files["frontier_sum"])[0]
                name = files["frontier_rows"]
            with open(self.folder / name, "rb") as handle:
                if "frontier_rows" not in files:
                    fps = np.load(handle, allow_pickle=False)
                (count, width), _, _ = read_header(handle)
                frontier = RowsFile(fps, self.folder / name, handle.tell(), count, width)
                if "frontier_rows" in files:
                    frontier.checksum = files["frontier_rows_sum"]
                    got = crc_rest(handle) == frontier.checksum
                else:
                    got = (
                        crc_rest(handle, zlib.crc32(np.ascontiguousarray(fps).data))
                        == files["frontier_sum"]
                    )
        except (OSError, ValueError, EOFError) as exc:
            raise CheckpointError(
                f"the checkpoint in {self.folder} is incomplete: {name} cannot be read ({exc})"
            ) from None
        if not got or count != len(fps):
            raise CheckpointError(
                f"the checkpoint in {self.folder} is damaged: {name} is not the file "
                "its manifest names (CRC-32 differs)"
            )
        return frontier

    def seen(self) -> np.ndarray[Any, Any] | None:
        """The compiled core's seen hashes, or None when the checkpoint has none."""
        files = self.manifest["files"]
        if "seen" not in files:
            return None
        return read_arrays(self.folder, files["seen"], 1, files["seen_sum"])[0]

    def seen_runs(self) -> list[tuple[Path, str]]:
        """The compiled core's seen hashes on disk (a spilled search's sorted runs), each as
        ``(path, checksum)``, checked against the manifest (read a slice at a time). Raises
        ``CheckpointError`` for a run that is missing or not the one written."""
        runs = []
        for name, want in self.manifest.get("seen_runs", []):
            if run_checksum(self.folder, name) != want:
                raise CheckpointError(
                    f"the checkpoint in {self.folder} is damaged: {name} is not the file "
                    "its manifest names (CRC-32 differs)"
                )
            runs.append((self.folder / name, want))
        return runs


def load(folder: Path, identity: dict[str, Any]) -> Loaded:
    """Read and verify the checkpoint in ``folder`` against this command's ``identity``.

    Raises ``CheckpointError`` naming what is wrong: no checkpoint there, a manifest that is
    not JSON (said as ``checker.jsontext`` says it: where, and whether it is cut short) or not
    hwcheck's, another format version, the model's code changed, or a field of
    the identity (model, bounds, properties, symmetry, depth bound) differs
    (``checker.checkpoint.identity.check_manifest``). The other files
    are checked against their CRC-32 and size when read (``Loaded``)."""
    path = Path(folder) / MANIFEST
    if not Path(folder).is_dir():
        raise CheckpointError(f"{folder} is not a folder")
    try:
        manifest = parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"{folder} holds no checkpoint (no {MANIFEST})") from None
    except (json.JSONDecodeError, UnicodeDecodeError, Unusable) as exc:
        raise CheckpointError(f"{path}: {unreadable(exc)}") from None
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{path} is not a checkpoint manifest: {exc}") from None
    check_manifest(manifest, identity, str(path))
    return Loaded(Path(folder), manifest)
