"""The Spark engine's level files: what each partition owns between BFS levels.

Partition ``p`` of ``P`` owns every fingerprint ``fp`` with ``fp % P == p``. For BFS level
``k`` (initial states = 1) the work folder holds, per partition:

- ``L{k}/frontier-{p}.bin``: the level's new states as a marshal'd list of
  ``(fingerprint, state bytes)``, sorted by fingerprint; state bytes are the state's marshal
  format-2 encoding, the same bytes its fingerprint is the xxh3 of.
  With the compiled core, ``L{k}/frontier-{p}.npz`` instead: the fingerprints and the
  compiled core's rows (``write_frontier_rows``).
- ``L{k}/seen-{p}.npy``: every fingerprint seen up to level k, a sorted ``uint64`` array
  (8 bytes per state).
- ``L{k}/parents-{p}.npy``: a ``2 x n`` ``uint64`` array, the level's new fingerprints (sorted)
  and each one's parent fingerprint; kept for the whole run to rebuild traces.

Every file is written under a temporary name and renamed into place, so a task that Spark
retries writes the same bytes again and a reader never sees half a file. On a cluster the work
folder must be a path every executor sees (a shared mount).
"""

from __future__ import annotations

import fcntl
import marshal
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

EMPTY = np.zeros(0, dtype=np.uint64)


def level_dir(work: str, k: int) -> Path:
    """The folder of BFS level ``k``."""
    return Path(work) / f"L{k:04d}"


def _atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def _npy(array: np.ndarray[Any, Any]) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def write_frontier(work: str, k: int, p: int, items: list[tuple[int, bytes]]) -> None:
    """Write partition ``p``'s new states of level ``k``: ``[(fingerprint, state bytes)]``."""
    _atomic(level_dir(work, k) / f"frontier-{p}.bin", marshal.dumps(items, 2))


def read_frontier(work: str, k: int, p: int) -> list[tuple[int, bytes]]:
    """Partition ``p``'s states of level ``k``; raises ``OSError`` when the file is missing."""
    with open(level_dir(work, k) / f"frontier-{p}.bin", "rb") as handle:
        loaded: list[tuple[int, bytes]] = marshal.loads(handle.read())
        return loaded


def write_frontier_rows(
    work: str, k: int, p: int, fps: np.ndarray[Any, Any], rows: np.ndarray[Any, Any]
) -> None:
    """Write partition ``p``'s new states of level ``k`` as the compiled core keeps them:
    ``fps`` (``uint64``, sorted) and ``rows`` (``uint8``, one row of the model's width per
    state, same order), in ``frontier-{p}.npz``."""
    import io

    buffer = io.BytesIO()
    np.savez(buffer, fps=fps, rows=rows)
    _atomic(level_dir(work, k) / f"frontier-{p}.npz", buffer.getvalue())


def read_frontier_rows(
    work: str, k: int, p: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``(fps, rows)`` of partition ``p``'s states of level ``k`` (``write_frontier_rows``);
    raises ``OSError`` when the file is missing."""
    with np.load(level_dir(work, k) / f"frontier-{p}.npz", allow_pickle=False) as data:
        return data["fps"], data["rows"]


def write_bucket(work: str, k: int, p: int, owner: int, bucket: dict[Any, Any]) -> None:
    """Write the successors partition ``p`` expanded at level ``k`` for partition ``owner``
    (``{fp: [parent fp, label text, state bytes]}``; the process-pool executor's shuffle)."""
    _atomic(level_dir(work, k) / f"bucket-{p}-{owner}.bin", marshal.dumps(bucket, 2))


def read_buckets(work: str, k: int, partitions: int, owner: int) -> list[dict[Any, Any]]:
    """Every bucket written for ``owner`` at level ``k``, by partition order."""
    found = []
    for p in range(partitions):
        path = level_dir(work, k) / f"bucket-{p}-{owner}.bin"
        if path.exists():
            with open(path, "rb") as handle:
                found.append(marshal.loads(handle.read()))
    return found


def write_seen(work: str, k: int, p: int, fps: np.ndarray[Any, Any]) -> None:
    """Write partition ``p``'s sorted ``uint64`` seen set after level ``k``."""
    _atomic(level_dir(work, k) / f"seen-{p}.npy", _npy(fps))


def read_seen(work: str, k: int, p: int) -> np.ndarray[Any, Any]:
    """Partition ``p``'s sorted seen set after level ``k`` (``uint64``)."""
    loaded: np.ndarray[Any, Any] = np.load(level_dir(work, k) / f"seen-{p}.npy", allow_pickle=False)
    return loaded


def write_parents(
    work: str, k: int, p: int, fps: np.ndarray[Any, Any], parents: np.ndarray[Any, Any]
) -> None:
    """Write the new fingerprints of level ``k`` owned by ``p`` (sorted) and their parents."""
    _atomic(level_dir(work, k) / f"parents-{p}.npy", _npy(np.stack([fps, parents])))


def read_parents(work: str, k: int, p: int) -> np.ndarray[Any, Any]:
    """Partition ``p``'s ``2 x n`` table of level ``k`` (``write_parents``)."""
    loaded: np.ndarray[Any, Any] = np.load(
        level_dir(work, k) / f"parents-{p}.npy", allow_pickle=False
    )
    return loaded


def clear_levels(work: str) -> None:
    """Delete every level folder in ``work`` (before a resumed search writes its own)."""
    for folder in Path(work).glob("L[0-9][0-9][0-9][0-9]"):
        shutil.rmtree(folder, ignore_errors=True)


def parent_of(work: str, k: int, partitions: int, fp: int) -> int:
    """The parent fingerprint of ``fp``, a new state of level ``k`` (k >= 2).

    Raises ``KeyError`` when ``fp`` is not a state of that level.
    """
    table = np.load(level_dir(work, k) / f"parents-{fp % partitions}.npy", allow_pickle=False)
    fps = table[0]
    at = int(np.searchsorted(fps, np.uint64(fp)))
    if at >= len(fps) or int(fps[at]) != fp:
        raise KeyError(f"{fp:016x} is not a state of level {k}")
    return int(table[1][at])


def prune(work: str, k: int) -> None:
    """Delete the frontier and seen set of level ``k`` (kept: its parents)."""
    folder = level_dir(work, k)
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if not path.name.startswith("parents-"):
            path.unlink(missing_ok=True)


LOCK = ".lock"
"""The file a live ``work_folder`` holds locked."""
_LOCKS: dict[str, int] = {}  # work folder -> its lock file's descriptor


def remove(work: str) -> None:
    """Delete the whole work folder (and let go of its lock: ``release``)."""
    shutil.rmtree(work, ignore_errors=True)
    release(work)


def work_folder(prefix: str, parent: Path | None = None) -> str:
    """A new folder for this process's work files, ``<parent>/<prefix><pid>-<random>``
    (``parent`` made if need be; None: ``tempfile.gettempdir``), locked while this process
    lives (``flock`` on its ``.lock``, released by the kernel however the process ends;
    ``release`` lets go), made after deleting the ``prefix`` folders there that nothing
    locks: a search killed with SIGKILL (or by the kernel's out-of-memory killer) cannot
    delete its own, and a disk tier's can hold tens of GB. A pid in the name is only a
    hint: a new process that reuses a dead one's pid gets a folder of its own. Raises
    ``OSError``."""
    where = Path(tempfile.gettempdir() if parent is None else parent)
    where.mkdir(parents=True, exist_ok=True)
    sweep_dead(where, prefix)
    folder = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=where)
    handle = os.open(Path(folder) / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    _LOCKS[folder] = handle
    return folder


def release(folder: str | Path) -> None:
    """Let go of ``work_folder``'s lock on ``folder`` (before or after deleting it)."""
    handle = _LOCKS.pop(str(folder), None)
    if handle is not None:
        os.close(handle)


def sweep_dead(folder: Path, prefix: str) -> None:
    """Delete the folders ``<prefix>*`` in ``folder`` that this user owns and whose ``.lock``
    no process holds (``work_folder``): its process is gone, on this machine or any other
    sharing the folder. Folders without a ``.lock`` and other users' are left alone."""
    for path in folder.glob(f"{prefix}*"):
        try:
            if not path.is_dir() or path.is_symlink() or path.stat().st_uid != os.getuid():
                continue
            handle = os.open(path / LOCK, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # held: its search is running
        finally:
            os.close(handle)
        shutil.rmtree(path, ignore_errors=True)
