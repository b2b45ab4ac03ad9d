"""A streamed frontier's file (``checker.search.tier.stream``): a ``.npy`` array of ``uint8`` rows,
shape ``(states, width)``, written a slice at a time, its CRC-32 taken as it is written when
a checkpoint will want it, so that the checkpoint links the file (a second name, no copy)
and names its checksum in ``checker.checkpoint.format.checksum``'s form."""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any, Self

import numpy as np


class RowsWriter:
    """Writes ``count`` rows of ``width`` bytes to ``path`` (a context manager): the header
    at once, the rows by ``write``. ``summed``: take their CRC-32 (``crc``; else None).
    Raises ``OSError`` when the disk fails."""

    def __init__(self, path: Path, count: int, width: int, summed: bool) -> None:
        self.path, self.count, self.width = path, count, width
        self.out = open(path, "wb")  # noqa: SIM115 -- closed by ``__exit__``
        header = {"descr": "|u1", "fortran_order": False, "shape": (count, width)}
        np.lib.format.write_array_header_1_0(self.out, header)
        self.offset = self.out.tell()  # bytes before the rows
        self.crc: int | None = 0 if summed else None

    def write(self, rows: np.ndarray[Any, Any]) -> None:
        """Append ``rows`` (``uint8``, contiguous)."""
        rows.tofile(self.out)
        if self.crc is not None:
            self.crc = zlib.crc32(rows.data, self.crc)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.out.close()


def rows_checksum(offset: int, count: int, width: int, crc: int | None) -> str | None:
    """The checksum of a rows file of ``count`` rows of ``width`` bytes after an ``offset``
    of header bytes, whose rows' CRC-32 is ``crc`` (None: not taken, None returned)."""
    if crc is None:
        return None
    return f"{crc:08x}:{offset + count * width}"
