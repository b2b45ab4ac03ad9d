"""The local engine's seen set and parent pointers (``checker.search.reference.seen``): exact
membership, parent chains, 20 bytes a state. (That traces rebuilt from fingerprint chains are the
ones the search found: tests/test_gallery.py regenerates every gallery trace byte for byte.)"""

from __future__ import annotations

import pytest
from conftest import kafka

from checker.limits import NO_LIMITS
from checker.search.reference.bfs import Search
from checker.search.reference.seen import SeenLevels


def test_unseen_and_contains_are_exact():
    seen = SeenLevels()
    seen.add_level([5, 2**64 - 1])
    seen.add_level([7, 3], parents=[5, 2**64 - 1])
    assert len(seen) == 4 and seen.depth == 2
    assert all(fp in seen for fp in (3, 5, 7, 2**64 - 1))
    assert 4 not in seen and 0 not in seen
    assert seen.unseen([1, 3, 4, 5, 2**64 - 2]) == {1, 4, 2**64 - 2}
    assert seen.unseen([]) == set()
    assert seen.nbytes == 8 * 4 + 12 * 4


def test_chain_walks_parents_back_to_the_initial_state():
    seen = SeenLevels()
    seen.add_level([10, 20])
    seen.add_level([30, 31], parents=[20, 10])
    seen.add_level([40], parents=[31])
    assert seen.chain(40, 3) == [10, 31, 40]
    assert seen.chain(30, 2) == [20, 30]
    assert seen.chain(10, 1) == [10]
    with pytest.raises(KeyError, match="not a state of level 2"):
        seen.chain(40, 2)


def test_lengths_must_agree_and_parents_be_in_the_previous_level():
    with pytest.raises(ValueError, match="2 fingerprints but 1 parents"):
        SeenLevels().add_level([1, 2], parents=[0])
    seen = SeenLevels()
    seen.add_level([10, 20])
    with pytest.raises(ValueError, match="000000000000000b is not a state of the previous"):
        seen.add_level([30], parents=[11])


def test_the_search_keeps_20_bytes_per_state():
    """Seen array (8 bytes) and level table (12 bytes) per distinct state, nothing else."""
    spec = kafka(replicas=2)
    run = Search(spec, [], NO_LIMITS, None)
    run.search()
    assert len(run.seen) == run.stats.distinct == 3_360
    assert run.seen.nbytes == 20 * run.stats.distinct
    assert run.seen.depth == run.stats.depth


def test_parents_given_as_rows_of_the_previous_level():
    """The compiled core names a parent by its row in the previous level's fingerprints (in
    the order they were given), which is the same chain as naming its fingerprint."""
    import numpy as np

    by_row, by_fp = SeenLevels(keep_all=False), SeenLevels(keep_all=False)
    for seen in (by_row, by_fp):
        seen.add_level([50, 10, 30])
    by_row.add_level([7, 99], parent_rows=np.array([2, 0], dtype=np.uint32))
    by_fp.add_level([7, 99], parents=[30, 50])
    assert by_row.chain(7, 2) == by_fp.chain(7, 2) == [30, 7]
    assert by_row.chain(99, 2) == [50, 99]
    with pytest.raises(ValueError, match="not a state of the previous level"):
        by_row.add_level([5], parent_rows=np.array([2], dtype=np.uint32))
