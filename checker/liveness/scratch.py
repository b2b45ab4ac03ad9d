"""The liveness judge's own arrays in files, beside the graph's, past the memory budget.

``held_in(lib, folder, nodes)`` makes every array the judge allocates that grows with the
graph, its numpy arrays and the C walks' work arrays alike, a file of its own in ``folder``
(``checker/native/lscratch.c``: unlinked at once, mapped shared), so that what the process
holds stops growing with the graph. An array is a file from ``threshold(nodes)`` bytes: a
quarter of a byte a node, and never under 4 MiB (glibc's threshold for a mapping of its own,
``checker.native.core.MAP_FROM``), so the judge's chunk-sized temporaries, which do not grow
with the graph and would pay a file's 2 ms each, stay on the heap. numpy's arrays go there
through numpy's memory handler (NEP 49, ``PyDataMem_SetHandler``, reached through numpy's C
API table since the handler is a C struct); the handler is a context variable, so a worker
thread takes it only when it runs in a copy of the caller's context
(``contextvars.copy_context``). A block the folder cannot take (a full disk) is a heap block:
the files lower the process's memory, they never fail the pass.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import gc
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from checker.native.core import MAP_FROM

SET_HANDLER = 304
"""``PyDataMem_SetHandler``'s place in numpy's C API table (``__multiarray_api.h``, numpy
1.22 on; the table's order is numpy's ABI and does not change)."""

_handlers: dict[int, Any] = {}  # one capsule a library, kept: arrays made under it refer to it
_GET_POINTER = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)
_NEW_CAPSULE = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))


def _set_handler() -> Any:
    """numpy's ``PyDataMem_SetHandler`` (capsule -> the previous capsule)."""
    api = np._core.multiarray._ARRAY_API  # type: ignore[attr-defined]
    table = ctypes.cast(_GET_POINTER(api, None), ctypes.POINTER(ctypes.c_void_p))
    return ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)(table[SET_HANDLER])


def _capsule(lib: Any) -> Any:
    """The ``mem_handler`` capsule of ``lib``'s handler (``lf_numpy_handler``; its name a
    static string of the library's, ``lf_capsule_name``), made once."""
    key = int(lib.lf_numpy_handler())
    if key not in _handlers:
        _handlers[key] = _NEW_CAPSULE(key, lib.lf_capsule_name(), None)
    return _handlers[key]


def threshold(nodes: int) -> int:
    """The bytes from which a block is a file, for a graph of ``nodes`` orbits or states."""
    return max(MAP_FROM, nodes // 4)


@contextlib.contextmanager
def held_in(lib: Any, folder: str | None, nodes: int) -> Iterator[None]:
    """Within the block, the judge's blocks of ``threshold(nodes)`` bytes or more are files in
    ``folder`` (nothing changes when it is None): the C walks' (``lf_use_dir`` in ``lib``,
    process-wide, so blocks do not nest) and the numpy arrays made in this context. Arrays
    made inside may outlive the block: each is freed the way it was made. Raises ``OSError``
    for a folder name too long to hold (4,064 bytes)."""
    if folder is None:
        yield
        return
    setter = _set_handler()
    previous = setter(_capsule(lib))
    try:
        if lib.lf_use_dir(os.fsencode(folder), threshold(nodes)) != 0:
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), folder)
        yield
    finally:
        lib.lf_use_dir(None, 0)
        setter(previous)
        gc.collect()  # arrays held only by reference cycles go now, their files with them


def counts(lib: Any) -> tuple[int, int]:
    """``(blocks made as files, blocks the folder did not take)`` in ``lib`` so far."""
    out = (ctypes.c_int64 * 2)()
    lib.lf_counts(out)
    return int(out[0]), int(out[1])


__all__ = ["SET_HANDLER", "counts", "held_in", "threshold"]
