"""The compiled seen set (``checker/native/tables.h``: ``Seen``, sub-tables that double
alone) through the library's own calls: ``eng_seen_load`` inserts row hashes (skipping those
it holds), ``eng_seen_count`` counts them and ``eng_seen_copy`` copies them out, as a
checkpoint saves and a resumed search loads them. Membership is read off the count: loading a
hash the set holds adds nothing, loading one it lacks adds one."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from checker.composition.compose import build_model
from checker.native.core import Core
from checker.native.layout import compiled_model
from spec.kafka import Config

SUBTABLES = 256
FIRST_CAP = 64
"""Sub-tables per partition, and the slots each starts with (``tables.h``, ``eng_new``)."""


@pytest.fixture(scope="module")
def model():
    spec, _ = build_model("kafka", Config(replicas=2))
    compiled, why = compiled_model(spec)
    assert compiled is not None, why
    return compiled


def _core(model, threads: int) -> Core:
    return Core(model, threads=threads)


def _load(core: Core, hashes: np.ndarray) -> None:
    hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
    assert core.lib.eng_seen_load(core.handle, hashes.ctypes.data, len(hashes)) == 0


def _count(core: Core) -> int:
    return int(core.lib.eng_seen_count(core.handle))


def _copy(core: Core) -> np.ndarray:
    out = np.zeros(_count(core), dtype=np.uint64)
    core.lib.eng_seen_copy(core.handle, out.ctypes.data)
    return out


def _hashes(seed: int, count: int) -> np.ndarray:
    """``count`` distinct random row hashes (never 0: ``row_hash`` never gives it, and a slot
    holding 0 is empty)."""
    rng = np.random.default_rng(seed)
    drawn = np.frombuffer(rng.bytes(8 * (count + count // 10)), dtype=np.uint64)
    found = np.unique(drawn[drawn != 0])
    return rng.permutation(found)[:count]


def _one_sub_table(seed: int, count: int) -> np.ndarray:
    """``count`` distinct hashes that all fall in one sub-table of one partition: bits 32..55
    fixed (the partition and the sub-table), the rest random."""
    low = _hashes(seed, count) & np.uint64(0xFF00_0000_FFFF_FFFF)
    return np.unique(low | np.uint64(0x0037_5A5A_0000_0000))


def _batches(hashes: np.ndarray, size: int) -> Iterator[np.ndarray]:
    for start in range(0, len(hashes), size):
        yield hashes[start : start + size]


@pytest.mark.parametrize("threads", [1, 3])
def test_the_set_grows_past_every_first_table_and_keeps_each_hash_once(model, threads):
    """300,000 hashes, about 1,200 per sub-table on one thread (five doublings from 64
    slots) and 400 on three (three), loaded in batches with every batch repeated: each is
    held once, and copied out once."""
    core = _core(model, threads)
    hashes = _hashes(1, 300_000)
    assert len(hashes) > SUBTABLES * threads * FIRST_CAP * 4
    for batch in _batches(hashes, 70_000):
        _load(core, batch)
        _load(core, batch[::-1])  # all held already: nothing added
    assert _count(core) == len(hashes)
    assert np.array_equal(np.sort(_copy(core)), np.sort(hashes))


def test_one_sub_table_doubles_alone_and_finds_every_hash(model):
    """40,000 hashes in one sub-table: ten doublings from 64 slots. Every hash loaded is
    found again (loading it adds nothing); every other hash is not (loading it adds one)."""
    core = _core(model, 2)
    inside = _one_sub_table(2, 40_000)
    assert len(inside) > FIRST_CAP * 2**9
    for batch in _batches(inside, 5_000):
        _load(core, batch)
    assert _count(core) == len(inside)
    _load(core, inside)
    assert _count(core) == len(inside)
    outside = np.setdiff1d(_one_sub_table(3, 2_000), inside)
    for k, h in enumerate(outside[:200]):
        _load(core, np.array([h]))
        assert _count(core) == len(inside) + k + 1
    assert np.array_equal(np.sort(_copy(core)), np.sort(np.concatenate([inside, outside[:200]])))


@pytest.mark.parametrize("into", [1, 2, 4])
def test_a_copy_loads_back_into_any_thread_count_as_the_same_set(model, into):
    """A set copied out of a 2-thread engine (mixed: spread hashes and one crowded
    sub-table) loads into a fresh engine of 1, 2 or 4 threads as the same set, and copying
    that one out and loading it back changes nothing."""
    first = _core(model, 2)
    _load(first, np.concatenate([_hashes(4, 60_000), _one_sub_table(5, 6_000)]))
    saved = _copy(first)
    second = _core(model, into)
    _load(second, saved)
    assert _count(second) == _count(first) == len(np.unique(saved))
    again = _copy(second)
    assert np.array_equal(np.sort(again), np.sort(saved))
    _load(second, again)
    assert _count(second) == len(saved)
    _load(first, again)
    assert _count(first) == len(saved)
