"""Checkpoints: a search's state at a BFS level boundary, on disk, so that a killed search goes
on where it stopped (``--checkpoint DIR``, ``--resume DIR``) with the uninterrupted run's
answers.

A checkpoint folder holds:

- ``levels/L0001.npy`` …: per BFS level (initial states = 1), two ``uint64`` arrays one
  after the other (``np.save`` twice): the level's fingerprints, in the engine's order, and
  each one's parent fingerprint (0 on level 1): the parent pointers of every state, 16 bytes
  a state. Written once, when the level is committed (not synced until the next
  checkpoint), and never changed; the manifest holds each one's CRC-32 and size.
- ``frontier-NNNNNN.npz``: the frontier (every state of the last level): ``fps`` (sorted) and
  either ``rows`` (the compiled core's rows) or ``blob`` and ``ends`` (the states' marshal
  encodings, concatenated).
- ``seen-NNNNNN.npy``: the compiled core's seen set (its row hashes, sorted), when the local
  compiled engine wrote it; the fingerprints of the level files are the seen set of every
  other engine.
- ``checkpoint.json``: the manifest: what was checked (model, bounds, properties, symmetry,
  depth bound), the digest of the model's code (``checker.native.certificate.digest``), the
  statistics, the violations found with their shortest traces, the properties still open,
  and the SHA-256 of the frontier and seen files.

A new checkpoint is written beside the old one, its manifest under a temporary name, synced
and renamed over the old manifest (``os.replace``): a kill at any moment leaves the previous
checkpoint whole. Files no manifest names any more are deleted afterwards.
"""

from __future__ import annotations

import hashlib
import io
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


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


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


def _write_level(path: Path, fps: np.ndarray, parents: np.ndarray) -> str:
    """Write a level file (``fps`` then ``parents``) under a temporary name and rename it;
    return its ``"crc32:size"``. Not synced (``Checkpointer.save`` syncs before a manifest
    names it). Raises ``OSError``, leaving nothing behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    parents = np.ascontiguousarray(parents, dtype=np.uint64)
    try:
        with open(tmp, "wb") as handle:
            np.save(handle, fps, allow_pickle=False)
            np.save(handle, parents, allow_pickle=False)
            size = handle.tell()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return f"{zlib.crc32(parents, zlib.crc32(fps)):08x}:{size}"


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def frontier_bytes(frontier: Frontier) -> bytes:
    """The ``.npz`` bytes of ``frontier``."""
    buffer = io.BytesIO()
    if frontier.rows is not None:
        np.savez(buffer, fps=frontier.fps, rows=frontier.rows)
    else:
        states = frontier.states or []
        ends = np.cumsum([len(s) for s in states], dtype=np.int64)
        blob = np.frombuffer(b"".join(states), dtype=np.uint8)
        np.savez(buffer, fps=frontier.fps, blob=blob, ends=ends)
    return buffer.getvalue()


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
        self.level_sha: dict[int, str] = {}  # level -> "crc32:size" of its file
        self.unsynced: list[Path] = []
        self.seq, self.saved_level, self.failed = 0, 0, ""
        self.keep_final = True  # False: no checkpoint when a search ends complete
        self.last = time.monotonic()
        if resumed is not None:
            self.level_sha = {int(k): v for k, v in resumed.manifest["levels"].items()}
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
            self.level_sha[k] = _write_level(path, fps, parents)
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
        missing = [k for k in range(1, level + 1) if k not in self.level_sha]
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
            data = frontier_bytes(frontier)
            name = f"frontier-{seq:06d}.npz"
            _write(self.folder / name, data)
            written.append(self.folder / name)
            files["frontier"] = name
            files["frontier_sha256"] = _sha(data)
            if seen is not None:
                data = _npy(np.sort(seen))
                name = f"seen-{seq:06d}.npy"
                _write(self.folder / name, data)
                written.append(self.folder / name)
                files["seen"], files["seen_sha256"] = name, _sha(data)
            manifest = {"format": FORMAT, "version": VERSION, "seq": seq, "level": level,
                        "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **self.identity,
                        "files": files, "frontier_kind": "rows" if frontier.rows is not None
                        else "states", "frontier_size": len(frontier),
                        "levels": {str(k): self.level_sha[k] for k in range(1, level + 1)},
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
            name = f"levels/L{k:04d}.npy"
            try:
                with open(self.folder / name, "rb") as handle:
                    fps = np.load(handle, allow_pickle=False)
                    parents = np.load(handle, allow_pickle=False)
                    size = handle.tell()
            except (OSError, ValueError, EOFError) as exc:
                raise CheckpointError(f"the checkpoint in {self.folder} is incomplete: "
                                      f"{name} cannot be read ({exc})") from None
            crc = f"{zlib.crc32(parents, zlib.crc32(fps)):08x}:{size}"
            if crc != self.manifest["levels"][str(k)] or len(fps) != len(parents):
                raise CheckpointError(f"the checkpoint in {self.folder} is damaged: {name} is "
                                      "not the file its manifest names (CRC-32 differs)")
            order = np.argsort(fps)
            yield k, fps[order], parents[order]

    def frontier(self) -> Frontier:
        """The frontier as it was written (rows or states)."""
        files = self.manifest["files"]
        data = self._bytes(files["frontier"], files["frontier_sha256"])
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                if "rows" in npz:
                    return Frontier(npz["fps"], rows=npz["rows"])
                blob, ends = npz["blob"].tobytes(), npz["ends"].tolist()
                starts = [0, *ends[:-1]]
                return Frontier(npz["fps"], states=[blob[a:b] for a, b in zip(starts, ends)])
        except (ValueError, KeyError, OSError) as exc:
            raise CheckpointError(f"{self.folder / files['frontier']} is not a frontier: "
                                  f"{exc}") from None

    def seen(self) -> np.ndarray | None:
        """The compiled core's seen hashes, or None when the checkpoint has none."""
        files = self.manifest["files"]
        if "seen" not in files:
            return None
        return np.load(io.BytesIO(self._bytes(files["seen"], files["seen_sha256"])),
                       allow_pickle=False)

    def _bytes(self, name: str, sha: str) -> bytes:
        path = self.folder / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CheckpointError(f"the checkpoint in {self.folder} is incomplete: {name} "
                                  f"cannot be read ({exc.strerror or exc})") from None
        if _sha(data) != sha:
            raise CheckpointError(f"the checkpoint in {self.folder} is damaged: {name} is not "
                                  "the file its manifest names (SHA-256 differs)")
        return data


def load(folder: Path, identity: dict[str, Any]) -> Loaded:
    """Read and verify the checkpoint in ``folder`` against this command's ``identity``.

    Raises ``CheckpointError`` naming what is wrong: no checkpoint there, a manifest that is
    not JSON or not hwcheck's, another format version, the model's code changed, or a field of
    the identity (model, bounds, properties, symmetry, depth bound) differs. The other files
    are checked against their SHA-256 when read (``Loaded``)."""
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
