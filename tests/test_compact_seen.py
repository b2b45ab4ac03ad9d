"""The compiled core's seen set (``checker/native/seen.h``): sorted, bit-packed sub-tables
rebuilt a batch at a time. It must hold exactly the keys added, whatever the batches, the
repeats, the partition count and the key width, and take the bytes its layout says."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_checkpoint import signature

from checker.checkpoint.saving import run_search
from checker.composition.compose import build_model
from checker.limits import Limits
from checker.native.core import Core
from checker.native.layout import compiled_model
from checker.search.compiled import search as native_engine
from checker.search.tier import spill as tier
from spec.kafka import Config

MASK = 2**64 - 1


@pytest.fixture(scope="module")
def cores():
    spec, _ = build_model("kafka", Config(replicas=2))
    compiled = compiled_model(spec)[0]
    made = {(t, b): Core(compiled, threads=t, key_bits=b) for t in (1, 3) for b in (64, 128)}
    yield made
    for core in made.values():
        core.close()


def as_keys(keys: list[int], bits: int) -> np.ndarray:
    if bits == 64:
        return np.array(keys, dtype=np.uint64)
    return np.array([[k & MASK, k >> 64] for k in keys], dtype=np.uint64).reshape(-1, 2)


def as_ints(array: np.ndarray, bits: int) -> list[int]:
    if bits == 64:
        return [int(k) for k in array]
    return [int(lo) | int(hi) << 64 for lo, hi in array]


def low_words():
    """Full-range words, and words alike but in the bits that pick a sub-table (48..55), a
    partition (32..47) or a bucket (56..63, 0..31): neighbours in the packed order."""
    base = st.integers(0, MASK)
    near = st.tuples(base, st.sampled_from([0, 1 << 31, 1 << 40, 1 << 50, 1 << 60, 3])).map(
        lambda t: t[0] ^ t[1]
    )
    return st.one_of(base, near, st.integers(0, 40))


def keys_of(bits: int):
    if bits == 64:
        return low_words()
    high = st.integers(0, MASK)
    return st.one_of(  # 128 bits: low words shared by keys with other high words too
        st.tuples(low_words(), high).map(lambda t: t[0] | t[1] << 64),
        st.tuples(st.integers(0, 3), st.integers(0, 3)).map(lambda t: t[0] | t[1] << 64),
    )


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("bits", [64, 128])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_seen_set_holds_exactly_the_keys_added(cores, threads, bits, data):
    """Batch after batch (repeats within and across batches): the count, the copy and
    membership of every key added and of others agree with a Python set."""
    core = cores[(threads, bits)]
    lib, handle = core.lib, core.handle
    lib.eng_seen_clear(handle)
    held: set[int] = set()
    for batch in data.draw(st.lists(st.lists(keys_of(bits), max_size=300), max_size=5)):
        keys = as_keys(batch + batch[:3], bits)
        assert lib.eng_seen_load(handle, keys.ctypes.data, len(batch) + min(3, len(batch))) == 0
        held |= set(batch)
        assert lib.eng_seen_count(handle) == len(held)
        out = as_keys([0] * len(held), bits)
        lib.eng_seen_copy(handle, out.ctypes.data)
        assert sorted(as_ints(out, bits)) == sorted(held)
    others = [k for k in data.draw(st.lists(keys_of(bits), max_size=50)) if k not in held]
    probe = sorted(held) + others
    answer = np.zeros(len(probe), dtype=np.uint8)
    asked = as_keys(probe, bits)  # held: a temporary's buffer would be freed before the call
    lib.eng_seen_has(handle, asked.ctypes.data, len(probe), answer.ctypes.data)
    assert answer.tolist() == [1] * len(held) + [0] * len(others)


def test_a_million_keys_take_the_bytes_of_their_layout(cores):
    """2^20 keys on one partition, 4,096 in each of the 256 sub-tables: 2^9 buckets each (4,096
    keys is 16 << 8, the first count with 9 bucket bits), so an entry is 56 - 9 = 47 bits.
    A sub-table: ceil(4,096 x 47 / 8) = 24,064 bytes of entries, 8 of padding and 513 32-bit
    bucket starts (2,052): 26,124. All: 6,687,744 bytes, 6.38 a key, against 8 a slot (13.3
    at the 60 % an open-addressing table averages) before."""
    lib, handle = cores[(1, 64)].lib, cores[(1, 64)].handle
    lib.eng_seen_clear(handle)
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 2**63, size=2**20, dtype=np.uint64) * np.uint64(2)
    sub = np.arange(2**20, dtype=np.uint64) % np.uint64(256)
    keys = (keys & ~np.uint64(0xFF << 48)) | (sub << np.uint64(48))
    for half in np.array_split(keys, 2):  # two batches: the second merges into the first
        assert lib.eng_seen_load(handle, half.ctypes.data, len(half)) == 0
    assert lib.eng_seen_count(handle) == 2**20
    assert lib.eng_seen_bytes(handle) == 6_687_744
    lib.eng_seen_clear(handle)
    assert lib.eng_seen_count(handle) == 0 and lib.eng_seen_bytes(handle) == 0


def test_parent_tables_past_their_share_go_to_files_and_give_the_same_traces(monkeypatch):
    """With ``PARENTS_IN_MEMORY`` at 0 every level's parent table but the first (the initial
    states: their fingerprints, and a table of 8 bytes a state) goes to a file as it is
    committed: the answers and every counterexample are the in-memory search's, each other
    state's 8 bytes are in files, and the files go with the search."""
    spec, props = build_model("kafka", Config(replicas=2, truncation="hw"))
    compiled, _ = compiled_model(spec)
    want = signature(native_engine.explore(compiled, spec, props, symmetry=True))
    monkeypatch.setattr(tier, "PARENTS_IN_MEMORY", 0)
    run = native_engine.CompiledSearch(compiled, spec, props, Limits(), None, True, 2)
    try:
        got = run_search(run)
        initial, folder = run.seen.sizes[0], run.tier.folder
        assert folder is not None and list((folder / "levels").glob("K*.npy"))
    finally:
        run.stream.close()
        run.tier.close()
    assert signature(got) == want
    stats = got.stats
    assert stats.parent_file_bytes > 0 and stats.seen_held == stats.distinct
    assert stats.parent_bytes == 16 * initial
    assert stats.parent_file_bytes == 8 * (stats.distinct - initial)
    assert not folder.exists()
