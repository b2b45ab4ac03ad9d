"""The records a checkpoint on a URL is made of (``checker.spark.checkpoints``): level
records ``(k, "N", fps, parent fps)`` and frontier records ``(p, "F", fps, rows or
states)``, cut to pieces of about ``PIECE_BYTES``, saved by Spark's tasks with each
partition's tally (states and CRC-32 sum per record key) sent back through an accumulator.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from checker.checkpoint.format import Frontier
from checker.spark.rdds import CHUNK_BYTES, Tallies, _frontier_chunks, _slices


def crc(record: tuple[Any, ...]) -> int:
    """The CRC-32 of a record's arrays (and states), in order."""
    value = 0
    for part in record[2:]:
        if isinstance(part, list):
            for data in part:
                value = zlib.crc32(data, value)
        else:
            value = zlib.crc32(np.ascontiguousarray(part).data, value)
    return value


def frontier_record(p: int, frontier: Frontier) -> tuple[Any, ...]:
    """A frontier's states as one record of partition ``p``."""
    return (p, "F", frontier.fps, frontier.rows if frontier.rows is not None else frontier.states)


def record_frontier(record: tuple[Any, ...]) -> Frontier:
    """The ``Frontier`` a ``"F"`` record holds."""
    _, _, fps, second = record
    return Frontier(fps, states=second) if isinstance(second, list) else Frontier(fps, rows=second)


def tallied(answers: Any, name: str = "") -> Any:
    """A ``mapPartitionsWithIndex`` function passing records through and reporting to the
    accumulator ``answers`` (``Tallies``), keyed ``(name, partition)``, each record key's
    ``[states, CRC-32 sum]`` (the key: the level, for level records; "F" for the frontier)."""

    def tally(p: int, items: Any) -> Any:
        sums: dict[Any, list[int]] = {}
        for record in items:
            mine = sums.setdefault(record[0] if record[1] == "N" else "F", [0, 0])
            mine[0] += len(record[2])
            mine[1] += crc(record)
            yield record
        answers.add({(name, p): sums})

    return tally


def totals(answers: dict[Any, Any], name: str = "") -> dict[Any, dict[str, Any]]:
    """``tallied``'s answers for ``name`` added up: record key -> ``{"states", "sum"}``."""
    added: dict[Any, list[int]] = {}
    for (which, _), sums in answers.items():
        if which == name:
            for key, (states, total) in sums.items():
                mine = added.setdefault(key, [0, 0])
                mine[0] += states
                mine[1] += total
    return {
        key: {"states": states, "sum": f"{total % (1 << 64):016x}"}
        for key, (states, total) in added.items()
    }


PIECE_BYTES = 1 << 20
"""About the most bytes of one saved record. ``saveAsPickleFile`` writes through the JVM's
``saveAsObjectFile``, which Java-serializes ten records at a time in the executor's heap,
beside the cached level RDDs: records of 16 MiB (``CHUNK_BYTES``) ran a 6 GiB heap out of
memory at 4 replicas, 1.24 x 10^8 orbits."""


def pieces(record: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """A level or frontier record ``(key, kind, fps, second)`` as records of about
    ``PIECE_BYTES`` at most, in order (``second``: parents, rows or marshal'd states, one per
    fingerprint); the reader joins them again, in order."""
    key, kind, fps, second = record
    if isinstance(second, list):
        width = sum(map(len, second)) // max(1, len(second))
    else:
        width = second.itemsize * (second.shape[1] if second.ndim == 2 else 1)
    per = max(1, PIECE_BYTES // (8 + width))
    if len(fps) <= per:
        return [record]
    return [(key, kind, fps[part], second[part]) for part in _slices(len(fps), per)]


def save_records(sc: Any, records: Any, url: str) -> dict[Any, dict[str, Any]]:
    """Save the RDD ``records`` at ``url`` (``saveAsPickleFile``, one record of at most
    about ``PIECE_BYTES`` a batch: one job) and return what its tasks answered
    (``totals``). Raises what the job raises."""
    answers = sc.accumulator({}, Tallies())
    split = records.flatMap(pieces)
    split.mapPartitionsWithIndex(tallied(answers)).saveAsPickleFile(url, batchSize=1)
    return totals(answers.value)


def driver_records(sc: Any, records: list[tuple[Any, ...]]) -> Any:
    """Records the driver holds (levels that ran in it) as an RDD, one slice each."""
    return sc.parallelize(records, max(1, len(records)))


def chunked_level(k: int, fps: np.ndarray[Any, Any], parents: np.ndarray[Any, Any]) -> list[Any]:
    """Level ``k``, held by the driver, as records of ``CHUNK_BYTES`` at most."""
    return [(k, "N", fps[part], parents[part]) for part in _slices(len(fps), CHUNK_BYTES // 16)]


def chunked_frontier(frontier: Frontier) -> list[Any]:
    """A frontier the driver holds as records of about ``CHUNK_BYTES``, in its order."""
    return [frontier_record(i, chunk) for i, (_, chunk) in enumerate(_frontier_chunks(frontier))]
