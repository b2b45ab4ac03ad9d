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
  the other: ``fps`` (in the engine's order) and either ``rows`` (the compiled core's rows) or ``blob`` and
  ``ends`` (the states' marshal encodings, concatenated, and where each ends); a streamed
  frontier's rows: a link to the tier's file, ``frontier-NNNNNN-rows.npy``.
- ``seen-NNNNNN.npy``: the compiled core's seen set (its row hashes, sorted), when the local
  compiled engine wrote it; the fingerprints of the level files are the seen set of every
  other engine.
- ``seen-NNNNNN-runI.npy``: the rest of that seen set when the search spilled it to disk
  (``--memory``): its sorted runs (``checker.search.tier.runs``), hard links to the disk tier's
  own files, so a checkpoint costs no copy of them.
- ``levels/K000023.npy`` …: once a compiled search spilled (``--memory``), in place of the
  ``L`` files, links to its parent tables (``checker.search.reference.seen.KeyLevels``, 8 bytes a
  state); only the compiled local engine resumes these (``Loaded.levels`` says so).
- ``checkpoint.json``: the manifest: what was checked (model, bounds, properties, symmetry,
  depth bound), the digests of the model's code and the compiled core's (the identity), the
  statistics, the violations and their shortest traces, the properties still open, and the
  CRC-32 and size of every other file that belongs to it.

A new checkpoint is written beside the old one, its manifest under a temporary name, synced
and renamed over the old manifest (``os.replace``): a kill at any moment leaves the previous
checkpoint whole. Files no manifest names any more are deleted afterwards.
"""

from __future__ import annotations

import mmap
import os
import shutil
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np

from checker.checkpoint.format import (
    DEFAULT_EVERY,
    FORMAT,
    MANIFEST,
    VERSION,
    CheckpointFailed,
    Frontier,
    key_level_name,
    sealed,
)

if TYPE_CHECKING:
    from checker.checkpoint.read import Loaded


def _replace(path: Path, write: Callable[[Any], None], sync: bool = True) -> int:
    """Have ``write(handle)`` fill a temporary file beside ``path``, sync it unless ``sync``
    is False, and rename it to ``path``; returns its size (bytes). On any failure (or Ctrl-C)
    leave nothing behind and raise it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            write(handle)
            size = handle.tell()
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return size


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically and synced (``_replace``). Raises ``OSError``."""
    _replace(path, lambda handle: handle.write(data))


def write_arrays(path: Path, arrays: list[np.ndarray[Any, Any]], sync: bool = True) -> str:
    """Write ``arrays`` one after the other (``np.save`` each, straight from their memory;
    a map of a whole file, a streamed frontier's rows, copied from its file a slice at a
    time instead, so its pages never count as this process's memory) under a temporary
    name, sync it unless ``sync`` is False, rename it to ``path``; return its ``checksum``.
    Raises ``OSError``, leaving nothing behind."""
    arrays = [a if _mapped(a) else np.ascontiguousarray(a) for a in arrays]
    crc = [0]

    def write(handle: Any) -> None:
        crc[0] = 0
        for array in arrays:
            if not _mapped(array):
                np.save(handle, array, allow_pickle=False)
                crc[0] = zlib.crc32(array.data, crc[0])
                continue
            header = np.lib.format.header_data_from_array_1_0(array)
            np.lib.format.write_array_header_1_0(handle, header)
            with open(str(array.filename), "rb") as source:
                source.seek(array.offset)
                for left in range(array.nbytes, 0, -COPY):
                    block = source.read(min(left, COPY))
                    if len(block) != min(left, COPY):
                        raise OSError(f"{array.filename} is shorter than its map")
                    crc[0] = zlib.crc32(block, crc[0])
                    handle.write(block)

    size = _replace(path, write, sync)
    return f"{crc[0]:08x}:{size}"


COPY = 1 << 24
"""Bytes copied at a time from a mapped file (``write_arrays``)."""


def _mapped(array: np.ndarray[Any, Any]) -> TypeGuard[np.memmap[Any, Any]]:
    """Whether ``array`` is a whole map of a file from ``offset`` on (an ``np.memmap`` of
    its own, not a slice of one)."""
    return (
        isinstance(array, np.memmap)
        and isinstance(array.base, mmap.mmap)
        and array.filename is not None
        and array.flags.c_contiguous
    )


def link(source: Path, path: Path) -> None:
    """``path`` as a second name of the file ``source`` (a hard link: no copy), or a copy
    where the two cannot share a file (another file system), put in place whole: a name a
    manifest holds is never missing or half written. Raises ``OSError``."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        try:
            os.link(source, tmp)
        except OSError:
            shutil.copyfile(source, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)  # (left by a failure, or ``path`` was ``source``)


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Checkpointer:
    """Writes the checkpoints of one search into ``folder``: the level files as levels are
    committed (``level``), the frontier and manifest when ``due`` (every ``every`` seconds;
    0 or less: never, but for the final one). ``identity`` is what a resume must match
    (``checker.commands.checkpoints.identity``). A failure to write is one ``warn(message)`` and
    the search goes on with the last good checkpoint kept, or, with ``required``, raises
    ``CheckpointFailed``. ``resumed``: the checkpoint this search goes on from (same folder:
    its level files are kept). ``links``: its checkpoints may name hard links to an
    engine's own files (a folder; a URL's may not)."""

    links = True

    def __init__(
        self,
        folder: Path,
        identity: dict[str, Any],
        every: float = DEFAULT_EVERY,
        required: bool = False,
        warn: Callable[[str], None] | None = None,
        resumed: Loaded | None = None,
    ) -> None:
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

    @property
    def where(self) -> str:
        """Where the checkpoints go, as messages name it."""
        return str(self.folder)

    def level(self, k: int, fps: np.ndarray[Any, Any], parents: np.ndarray[Any, Any]) -> None:
        """Record committed level ``k``: ``fps`` and their ``parents`` (``uint64``, same
        order, any order)."""
        if self.failed:
            return
        path = self.folder / "levels" / f"L{k:04d}.npy"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.level_sums[k] = write_arrays(
                path,
                [np.asarray(fps, dtype=np.uint64), np.asarray(parents, dtype=np.uint64)],
                sync=False,
            )
        except OSError as exc:
            self._failed(exc)
            return
        self.unsynced.append(path)

    def due(self) -> bool:
        """Whether the interval since the last checkpoint has passed."""
        return not self.failed and self.every > 0 and time.monotonic() - self.last >= self.every

    def save(
        self,
        level: int,
        frontier: Frontier,
        seen: np.ndarray[Any, Any] | None,
        search: dict[str, Any],
        runs: Sequence[tuple[Path, str]] = (),
        key_levels: Callable[[], Sequence[tuple[int, Path, str]]] = tuple,
    ) -> bool:
        """Write the checkpoint of the boundary after ``level`` (the frontier's level): the
        ``frontier``, the compiled core's ``seen`` hashes (or None) and the ``search`` state
        (``checker.checkpoint.saving``); ``runs`` (the seen set's runs on disk) and
        what ``key_levels()`` gives (``(level, path, checksum)``:
        ``checker.search.reference.seen.KeyLevels.files``; it may raise ``OSError``) are linked, not
        copied, the latter in place of level files. Returns whether it was written."""
        if self.failed:
            return False
        seq = self.seq + 1
        files: dict[str, str] = {}
        written: list[Path] = []
        try:
            keyed = {k: (path, checksum) for k, path, checksum in key_levels()}
            have = self.level_sums.keys() | keyed.keys()
            missing = [k for k in range(1, level + 1) if k not in have]
            if missing:
                raise OSError(f"level {missing[0]}'s file was never written")
            self.folder.mkdir(parents=True, exist_ok=True)
            for path in self.unsynced:
                _sync(path)
            name = f"frontier-{seq:06d}.npy"
            written.append(self.folder / name)
            arrays = frontier.arrays()
            if frontier.linked is not None:  # the rows' own file: a second name of it
                rows_name = f"frontier-{seq:06d}-rows.npy"
                written.append(self.folder / rows_name)
                link(frontier.linked[0], self.folder / rows_name)
                _sync(self.folder / rows_name)
                files["frontier_rows"], files["frontier_rows_sum"] = rows_name, frontier.linked[1]
                arrays = arrays[:1]
            files["frontier_sum"] = write_arrays(self.folder / name, arrays)
            files["frontier"] = name
            if seen is not None:  # sorted by the engine (its keys' own order)
                name = f"seen-{seq:06d}.npy"
                written.append(self.folder / name)
                files["seen_sum"] = write_arrays(self.folder / name, [seen])
                files["seen"] = name
            linked: list[list[str]] = []
            for i, (path, checksum) in enumerate(runs):
                name = f"seen-{seq:06d}-run{i}.npy"
                written.append(self.folder / name)
                link(path, self.folder / name)
                linked.append([name, checksum])
            self._link_levels(keyed)
            manifest = {
                "format": FORMAT,
                "version": VERSION,
                "seq": seq,
                "level": level,
                "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                **self.identity,
                "files": files,
                "frontier_kind": "rows" if frontier.rows is not None else "states",
                "frontier_size": len(frontier),
                "seen_runs": linked,
                "levels": {
                    str(k): self.level_sums[k] for k in range(1, level + 1) if k not in keyed
                },
                "key_levels": {str(k): keyed[k][1] for k in sorted(keyed)},
                "search": search,
            }
            write_file(self.folder / MANIFEST, sealed(manifest))
        except OSError as exc:
            for path in written:
                path.unlink(missing_ok=True)
            self._failed(exc)
            return False
        self.seq, self.saved_level, self.last = seq, level, time.monotonic()
        self.unsynced = []
        self._tidy(set(files.values()) | {name for name, _ in linked})
        for k in keyed:  # the level's own file (if any), replaced by its parent table's
            self.level_sums.pop(k, None)
            (self.folder / "levels" / f"L{k:04d}.npy").unlink(missing_ok=True)
        return True

    def _link_levels(self, keyed: dict[int, tuple[Path, str]]) -> None:
        """Name each parent table of ``keyed`` as its level's file, once (a name there that
        is the same file stays; a copy, where links fall back to copies, is replaced whole).
        Raises ``OSError``."""
        for k, (path, _) in keyed.items():
            target = self.folder / key_level_name(k)
            if not (target.exists() and os.path.samefile(path, target)):
                target.parent.mkdir(parents=True, exist_ok=True)
                link(path, target)
                _sync(target)

    def _tidy(self, keep: set[str]) -> None:
        """Delete frontier and seen files the manifest no longer names."""
        for path in self.folder.iterdir():
            if (
                path.name.startswith(("frontier-", "seen-", "."))
                and path.name not in keep
                and path.is_file()
            ):
                path.unlink(missing_ok=True)

    def _failed(self, exc: Exception) -> None:
        reason = getattr(exc, "strerror", None) or str(exc).strip().splitlines()[0]
        kept = (
            f"the checkpoint of level {self.saved_level} is kept"
            if self.saved_level
            else "no checkpoint was written before"
        )
        self.failed = f"cannot write the checkpoint in {self.where}: {reason}"
        if self.required:
            raise CheckpointFailed(self.failed + f"; {kept} (--checkpoint-required)")
        self.warn(f"Warning: {self.failed}; the search goes on without checkpoints, and {kept}.")
