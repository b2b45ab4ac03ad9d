"""The compiled core's level functions (``checker.search.partitioned.compiled_level``) on their own:
the tie-break of the reduce side (the level functions as a whole are the Spark engine's, whose
answers ``tests/test_spark.py`` compares with the local engine's)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.search.partitioned.compiled_level import _winners

candidates = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 4), st.integers(0, 3)),
    unique_by=lambda c: c,  # no candidate twice (one may share a parent with another)
    max_size=80,
)


@settings(max_examples=300, deadline=None)
@given(candidates)
def test_each_fingerprint_is_won_as_a_three_key_sort_says(found):
    fps, pfps, ranks = (
        np.array(column, dtype=t)
        for column, t in zip(
            zip(*found, strict=True) if found else ((), (), ()),
            (np.uint64, np.uint64, np.uint16),
            strict=True,
        )
    )
    order = np.lexsort((ranks, pfps, fps))
    first = np.ones(len(order), dtype=bool)
    first[1:] = fps[order][1:] != fps[order][:-1]
    assert _winners(fps, pfps, ranks).tolist() == order[first].tolist()
