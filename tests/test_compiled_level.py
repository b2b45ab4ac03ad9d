"""The compiled core's level functions (``checker.search.compiled_level``) on their own: the
tie-break order of the reduce side, and the engine a process keeps from task to task."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.checkpoint.format import Frontier
from checker.fingerprint import fingerprint
from checker.models.compose import Recipe
from checker.properties import TRANSITION
from checker.search import compiled_level
from checker.search.compiled_level import COMPILED, _winners, encode_level
from checker.search.job import BUCKET, TALLY, LevelJob
from spec.kafka import Config

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


def _job(recipe: Recipe, k: int, symmetry: bool = True) -> LevelJob:
    _, props = recipe.build()
    names = tuple(p.name for p in props if p.kind == TRANSITION)
    return LevelJob(recipe, "", 2, k, COMPILED, transitions=names, symmetry=symmetry)


def _flat(records):
    """Records as plain values (arrays as lists), the tally's counts beside them."""
    out = []
    for owner, (kind, payload) in records:
        if kind == BUCKET:
            out.append((owner, [column.tolist() for column in payload]))
        else:
            assert kind == TALLY
            out.append((owner, payload.generated, sorted(payload.reached), payload.broken))
    return out


def test_a_kept_engine_answers_each_task_as_a_new_one_would():
    """A worker's engine is kept between tasks: its seen set, level table and counts must
    carry nothing from the task before (another level, or another search) into the next."""
    recipe = Recipe("kafka", Config(replicas=2, max_records=1))
    spec, _ = recipe.build()
    init = sorted(spec.init_states(), key=fingerprint)
    first = Frontier(
        np.array([fingerprint(s) for s in init], dtype=np.uint64), rows=encode_level(recipe, init)
    )

    compiled_level._TASK_CORE.clear()
    alone = _flat(COMPILED.expand_frontier(_job(recipe, 1), 0, first))
    # a wider frontier through the same engine: level 2's, from level 1's successors
    buckets = [
        r[1][1] for r in COMPILED.expand_frontier(_job(recipe, 1), 0, first) if r[1][0] == BUCKET
    ]
    fps = np.concatenate([b[0] for b in buckets])
    rows = np.concatenate([b[3] for b in buckets])
    wider = Frontier(fps, rows=rows)
    COMPILED.expand_frontier(_job(recipe, 2), 1, wider)
    kept = compiled_level._TASK_CORE.copy()
    again = _flat(COMPILED.expand_frontier(_job(recipe, 1), 0, first))
    assert compiled_level._TASK_CORE == kept  # the same engine ran both
    assert again == alone
    assert sum(len(r[1][0]) for r in alone if len(r) == 2) == len(fps)
    # another search's job: a new engine, the old one freed
    COMPILED.expand_frontier(_job(recipe, 1, symmetry=False), 0, first)
    assert compiled_level._TASK_CORE.keys() != kept.keys()
    assert all(core.handle is None for core in kept.values())
