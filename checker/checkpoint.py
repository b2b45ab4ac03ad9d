"""Checkpoints: a search's state at a BFS level boundary, on disk, so that a killed search goes
on where it stopped (``--checkpoint DIR``, ``--resume DIR``) with the uninterrupted run's
answers.

A checkpoint folder holds:

- ``levels/L0001.npy`` …: per BFS level (initial states = 1), two ``uint64`` arrays one
  after the other (``np.save`` twice): the level's fingerprints, in the engine's order, and
  each one's parent fingerprint (0 on level 1): the parent pointers of every state, 16 bytes
  a state. Written once, when the level is committed (not synced until the next
  checkpoint), and never changed; the manifest holds each one's CRC-32 and size.
- ``frontier-NNNNNN.npy``: the frontier (every state of the last level), as arrays one after
  the other: ``fps`` (sorted) and either ``rows`` (the compiled core's rows) or ``blob`` and
  ``ends`` (the states' marshal encodings, concatenated, and where each ends).
- ``seen-NNNNNN.npy``: the compiled core's seen set (its row hashes, sorted), when the local
  compiled engine wrote it; the fingerprints of the level files are the seen set of every
  other engine.
- ``checkpoint.json``: the manifest: what was checked (model, bounds, properties, symmetry,
  depth bound), the digest of the model's code (``checker.native.certificate.digest``), the
  statistics, the violations found with their shortest traces, the properties still open,
  and the CRC-32 and size of every other file that belongs to it.

A new checkpoint is written beside the old one, its manifest under a temporary name, synced
and renamed over the old manifest (``os.replace``): a kill at any moment leaves the previous
checkpoint whole. Files no manifest names any more are deleted afterwards.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "hwcheck-checkpoint"
VERSION = 1
MANIFEST = "checkpoint.json"
DEFAULT_EVERY = 300.0
"""Seconds between checkpoints unless ``--checkpoint-every`` says otherwise."""


class CheckpointError(Exception):
    """A checkpoint that cannot be resumed: missing, corrupt, from another tool or format
    version, or written for another model, model code or bounds. The message names what
    differs (the CLI exits 4)."""


class CheckpointFailed(Exception):
    """A checkpoint could not be written and ``--checkpoint-required`` was given: the search
    stops (INCOMPLETE) with this message as its reason."""


@dataclass
class Frontier:
    """The frontier at a level boundary: ``fps`` (``uint64``, sorted) and, in the same order,
    ``rows`` (``uint8``, one compiled-core row per state) or ``states`` (marshal bytes)."""

    fps: np.ndarray
    rows: np.ndarray | None = None
    states: list[bytes] | None = None

    def __len__(self) -> int:
        return len(self.fps)


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` under a temporary name, sync it and rename it to ``path``; on failure
    leave nothing behind and raise the ``OSError``."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _sum(arrays: list[np.ndarray], size: int) -> str:
    """``"crc32:size"``: the CRC-32 of the arrays' bytes, in order, and the file's size."""
    crc = 0
    for array in arrays:
        crc = zlib.crc32(np.ascontiguousarray(array), crc)
    return f"{crc:08x}:{size}"


def write_arrays(path: Path, arrays: list[np.ndarray], sync: bool = True) -> str:
    """Write ``arrays`` one after the other (``np.save`` each, straight from their memory)
    under a temporary name, sync it unless ``sync`` is False, rename it to ``path``; return
    its ``_sum``. Raises ``OSError``, leaving nothing behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    arrays = [np.ascontiguousarray(array) for array in arrays]
    try:
        with open(tmp, "wb") as handle:
            for array in arrays:
                np.save(handle, array, allow_pickle=False)
            size = handle.tell()
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return _sum(arrays, size)


def read_arrays(folder: Path, name: str, count: int, want: str) -> list[np.ndarray]:
    """The ``count`` arrays of ``folder / name`` (``write_arrays``), checked against the
    manifest's ``want`` sum. Raises ``CheckpointError`` when the file is missing, short or
    not the one written."""
    try:
        with open(folder / name, "rb") as handle:
            arrays = [np.load(handle, allow_pickle=False) for _ in range(count)]
            size = handle.tell()
    except (OSError, ValueError, EOFError) as exc:
        raise CheckpointError(f"the checkpoint in {folder} is incomplete: {name} cannot be "
                              f"read ({exc})") from None
    if _sum(arrays, size) != want:
        raise CheckpointError(f"the checkpoint in {folder} is damaged: {name} is not the file "
                              "its manifest names (CRC-32 differs)")
    return arrays


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def frontier_arrays(frontier: Frontier) -> list[np.ndarray]:
    """``frontier`` as the arrays of its file: ``[fps, rows]`` or ``[fps, blob, ends]``."""
    if frontier.rows is not None:
        return [frontier.fps, frontier.rows]
    states = frontier.states or []
    ends = np.cumsum([len(s) for s in states], dtype=np.int64)
    return [frontier.fps, np.frombuffer(b"".join(states), dtype=np.uint8), ends]


class Checkpointer:
    """Writes the checkpoints of one search into ``folder``: the level files as levels are
    committed (``level``), the frontier and manifest when ``due`` (every ``every`` seconds;
    0 or less: never, but for the final one). ``identity`` is what a resume must match
    (``checker.view.checkpoints.identity``). A failure to write is one ``warn(message)`` and
    the search goes on with the last good checkpoint kept, or, with ``required``, raises
    ``CheckpointFailed``. ``resumed``: the checkpoint this search goes on from (same folder:
    its level files are kept)."""

    def __init__(self, folder: Path, identity: dict[str, Any], every: float = DEFAULT_EVERY,
                 required: bool = False, warn: Callable[[str], None] | None = None,
                 resumed: Loaded | None = None) -> None:
        self.folder, self.identity, self.every = Path(folder), identity, every
        self.required, self.warn = required, warn or (lambda message: None)
        self.level_sums: dict[int, str] = {}  # level -> "crc32:size" of its file
        self.unsynced: list[Path] = []
        self.seq, self.saved_level, self.failed = 0, 0, ""
        self.keep_final = True  # False: no checkpoint when a search ends complete
        self.last = time.monotonic()
        if resumed is not None:
            self.level_sums = {int(k): v for k, v in resumed.manifest["levels"].items()}
            self.seq, self.saved_level = resumed.manifest["seq"], resumed.level

    @property
    def enabled(self) -> bool:
        """Whether checkpoints are still being written (not after a failure)."""
        return not self.failed

    def level(self, k: int, fps: np.ndarray, parents: np.ndarray) -> None:
        """Record committed level ``k``: ``fps`` and their ``parents`` (``uint64``, same
        order, any order)."""
        if self.failed:
            return
        path = self.folder / "levels" / f"L{k:04d}.npy"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.level_sums[k] = write_arrays(path, [np.asarray(fps, dtype=np.uint64),
                                                    np.asarray(parents, dtype=np.uint64)],
                                             sync=False)
        except OSError as exc:
            self._failed(exc)
            return
        self.unsynced.append(path)

    def due(self) -> bool:
        """Whether the interval since the last checkpoint has passed."""
        return (not self.failed and self.every > 0
                and time.monotonic() - self.last >= self.every)

    def save(self, level: int, frontier: Frontier, seen: np.ndarray | None,
             search: dict[str, Any]) -> bool:
        """Write the checkpoint of the boundary after ``level`` (the frontier's level): the
        ``frontier``, the compiled core's ``seen`` hashes (or None) and the ``search`` state
        (``checker.saving``). Returns whether it was written."""
        if self.failed:
            return False
        missing = [k for k in range(1, level + 1) if k not in self.level_sums]
        if missing:
            self._failed(OSError(f"level {missing[0]}'s file was never written"))
            return False
        seq = self.seq + 1
        files: dict[str, str] = {}
        written: list[Path] = []
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for path in self.unsynced:
                _sync(path)
            name = f"frontier-{seq:06d}.npy"
            written.append(self.folder / name)
            files["frontier_sum"] = write_arrays(self.folder / name, frontier_arrays(frontier))
            files["frontier"] = name
            if seen is not None:
                seen.sort()  # in place: the engine's copy, which nothing else holds
                name = f"seen-{seq:06d}.npy"
                written.append(self.folder / name)
                files["seen_sum"] = write_arrays(self.folder / name, [seen])
                files["seen"] = name
            manifest = {"format": FORMAT, "version": VERSION, "seq": seq, "level": level,
                        "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **self.identity,
                        "files": files, "frontier_kind": "rows" if frontier.rows is not None
                        else "states", "frontier_size": len(frontier),
                        "levels": {str(k): self.level_sums[k] for k in range(1, level + 1)},
                        "search": search}
            _write(self.folder / MANIFEST, json.dumps(manifest, indent=1).encode())
        except OSError as exc:
            for path in written:
                path.unlink(missing_ok=True)
            self._failed(exc)
            return False
        self.seq, self.saved_level, self.last = seq, level, time.monotonic()
        self.unsynced = []
        self._tidy(set(files.values()))
        return True

    def _tidy(self, keep: set[str]) -> None:
        """Delete frontier and seen files the manifest no longer names."""
        for path in self.folder.iterdir():
            if path.name.startswith(("frontier-", "seen-", ".")) and path.name not in keep \
                    and path.is_file():
                path.unlink(missing_ok=True)

    def _failed(self, exc: OSError) -> None:
        reason = exc.strerror or str(exc)
        kept = (f"the checkpoint of level {self.saved_level} is kept" if self.saved_level
                else "no checkpoint was written before")
        self.failed = f"cannot write the checkpoint in {self.folder}: {reason}"
        if self.required:
            raise CheckpointFailed(self.failed + f"; {kept} (--checkpoint-required)")
        self.warn(f"Warning: {self.failed}; the search goes on without checkpoints, and "
                  f"{kept}.")


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
        """The search state (statistics, violations, open properties; ``checker.saving``)."""
        return self.manifest["search"]

    def levels(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """``(k, fps sorted, parent fps)`` for levels 1 .. ``level``. Raises
        ``CheckpointError`` for a level file that is missing or not the one written."""
        for k in range(1, self.level + 1):
            fps, parents = read_arrays(self.folder, f"levels/L{k:04d}.npy", 2,
                                       self.manifest["levels"][str(k)])
            order = np.argsort(fps)
            yield k, fps[order], parents[order]

    def frontier(self) -> Frontier:
        """The frontier as it was written (rows or states)."""
        files = self.manifest["files"]
        rows = self.manifest["frontier_kind"] == "rows"
        arrays = read_arrays(self.folder, files["frontier"], 2 if rows else 3,
                             files["frontier_sum"])
        if rows:
            return Frontier(arrays[0], rows=arrays[1])
        fps, blob, ends = arrays[0], arrays[1].tobytes(), arrays[2].tolist()
        starts = [0, *ends[:-1]]
        return Frontier(fps, states=[blob[a:b] for a, b in zip(starts, ends)])

    def seen(self) -> np.ndarray | None:
        """The compiled core's seen hashes, or None when the checkpoint has none."""
        files = self.manifest["files"]
        if "seen" not in files:
            return None
        return read_arrays(self.folder, files["seen"], 1, files["seen_sum"])[0]


def load(folder: Path, identity: dict[str, Any]) -> Loaded:
    """Read and verify the checkpoint in ``folder`` against this command's ``identity``.

    Raises ``CheckpointError`` naming what is wrong: no checkpoint there, a manifest that is
    not JSON or not hwcheck's, another format version, the model's code changed, or a field of
    the identity (model, bounds, properties, symmetry, depth bound) differs. The other files
    are checked against their CRC-32 and size when read (``Loaded``)."""
    path = Path(folder) / MANIFEST
    if not Path(folder).is_dir():
        raise CheckpointError(f"{folder} is not a folder")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(f"{folder} holds no checkpoint (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"{path} is not a checkpoint manifest: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not an hwcheck checkpoint")
    if manifest.get("version") != VERSION:
        raise CheckpointError(f"{path} is format version {manifest.get('version')}; this "
                              f"hwcheck reads version {VERSION}")
    for key, want in identity.items():
        have = manifest.get(key)
        if have != want:
            raise CheckpointError(differs(key, have, want))
    return Loaded(Path(folder), manifest)


def differs(key: str, have: Any, want: Any) -> str:
    """One sentence saying that the checkpoint's ``key`` is ``have`` and this command's
    ``want`` (for a dict, the first field that differs)."""
    if key == "code":
        return ("the model's code changed since the checkpoint was written (its digest was "
                f"{str(have)[:12]}…, now {str(want)[:12]}…); a changed model is never resumed")
    if isinstance(have, dict) and isinstance(want, dict):
        for field in sorted(set(have) | set(want)):
            if have.get(field) != want.get(field):
                return (f"the checkpoint was written with {field} = {have.get(field)!r}, this "
                        f"command has {want.get(field)!r}")
    return f"the checkpoint's {key} is {have!r}, this command's {want!r}"
