"""The checkpoint format: the names, version and errors that writing (``checker.checkpoint.write``)
and reading (``checker.checkpoint.read``) a checkpoint share, and the frontier they carry.

The folder's layout is described in ``checker.checkpoint.write``.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from checker.jsontext import schema_error

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
    """The frontier at a level boundary: ``fps`` (``uint64``, in the engine's order: saving
    it copies nothing) and, in the same order, ``rows`` (``uint8``, one compiled-core row per
    state) or ``states`` (marshal bytes). ``sorted()`` gives it by fingerprint. ``linked``:
    the rows' own ``.npy`` file and its checksum (a streamed frontier's:
    ``checker.search.tier.rows_file``), which a checkpoint links instead of copying the rows."""

    fps: np.ndarray[Any, Any]
    rows: np.ndarray[Any, Any] | None = None
    states: list[bytes] | None = None
    linked: tuple[Path, str] | None = None

    def __len__(self) -> int:
        return len(self.fps)

    def arrays(self) -> list[np.ndarray[Any, Any]]:
        """The arrays of its checkpoint file: ``[fps, rows]`` or ``[fps, blob, ends]``
        (``checker.checkpoint.write``)."""
        if self.rows is not None:
            return [self.fps, self.rows]
        states = self.states or []
        ends = np.cumsum([len(s) for s in states], dtype=np.int64)
        return [self.fps, np.frombuffer(b"".join(states), dtype=np.uint8), ends]

    def sorted(self) -> Frontier:
        """The same frontier ordered by fingerprint."""
        return self.take(np.argsort(self.fps))

    def take(self, which: np.ndarray[Any, Any]) -> Frontier:
        """The states ``which`` selects (a boolean mask or positions), in its order."""
        if self.rows is not None:
            return Frontier(self.fps[which], rows=self.rows[which])
        states = self.states or []
        chosen = np.arange(len(self.fps))[which].tolist()
        return Frontier(self.fps[which], states=[states[i] for i in chosen])

    @staticmethod
    def join(parts: list[Frontier]) -> Frontier:
        """The frontiers ``parts`` (one form, at least one) one after the other."""
        fps = np.concatenate([part.fps for part in parts])
        rows = [part.rows for part in parts if part.rows is not None]
        if rows:
            return Frontier(fps, rows=np.concatenate(rows))
        return Frontier(fps, states=[data for part in parts for data in part.states or []])


def key_level_name(k: int) -> str:
    """The name in a checkpoint folder of level ``k``'s parent table, when a spilled compiled
    search keeps it in a file (``checker.search.reference.seen.KeyLevels``)."""
    return f"levels/K{k:06d}.npy"


SEAL = "manifest_sha256"
"""The manifest's own checksum field: the SHA-256 of every other field, canonical JSON."""


def _digest(manifest: dict[str, Any]) -> str:
    rest = {key: value for key, value in manifest.items() if key != SEAL}
    canonical = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def sealed(manifest: dict[str, Any]) -> bytes:
    """``manifest`` as the bytes of its file, with ``SEAL`` over its fields (issue 63: an
    edited count or field was resumed as if the search had found it)."""
    return json.dumps({**manifest, SEAL: _digest(manifest)}, indent=1).encode()


SCHEMA_PATH = Path(__file__).with_name("manifest.schema.json")


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of a manifest (``manifest.schema.json``)."""
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def check_seal(manifest: dict[str, Any], where: str) -> None:
    """Raise ``CheckpointError`` unless ``manifest`` (read from ``where``) carries the
    ``SEAL`` of its own fields, as ``sealed`` wrote it, and every field is of the type
    ``manifest.schema.json`` gives it (a manifest sealed again after an edit is still held
    to the format: the message names the field)."""
    if SEAL not in manifest:
        raise CheckpointError(
            f"{where} has no checksum of its own: an hwcheck before sealed manifests wrote "
            "it, or it was edited; start the search again"
        )
    if manifest.get(SEAL) != _digest(manifest):
        raise CheckpointError(
            f"{where}: its checksum does not match its fields (edited or damaged); a "
            "checkpoint is resumed only as hwcheck wrote it"
        )
    error = schema_error(schema(), manifest)
    if error is not None:
        raise CheckpointError(f"{where}: {error}; not a manifest hwcheck writes")


def checksum(arrays: list[np.ndarray[Any, Any]], size: int) -> str:
    """``"crc32:size"``: the CRC-32 of the arrays' bytes, in order, and the file's size."""
    crc = 0
    for array in arrays:
        crc = zlib.crc32(np.ascontiguousarray(array).data, crc)
    return f"{crc:08x}:{size}"


def read_header(handle: Any) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """``(shape, fortran order, dtype)`` of the ``.npy`` array whose header starts at
    ``handle``'s position (format 1.0 or 2.0), leaving it at the array's data. Raises
    ``ValueError`` when it is not one."""
    version = np.lib.format.read_magic(handle)
    read = (
        np.lib.format.read_array_header_1_0
        if version == (1, 0)
        else np.lib.format.read_array_header_2_0
    )
    shape, fortran, dtype = read(handle)
    return shape, fortran, dtype


def crc_rest(handle: Any, crc: int = 0) -> str:
    """``checksum``'s ``"crc32:size"`` form of the bytes from ``handle``'s position to its end,
    read 16 MiB at a time, going on from ``crc``."""
    while block := handle.read(1 << 24):
        crc = zlib.crc32(block, crc)
    return f"{crc:08x}:{handle.tell()}"
