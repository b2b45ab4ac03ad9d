"""Progress within a level (``checker.limits.Reporting``): every local engine reports a
level under way about once a second, so a long level's numbers move; here the second is
made zero (and the compiled core's chunk small), so that every look at the clock reports.
The counts of a level under way only grow and never pass what the level ends with, and the
answers are those of a run that reports nothing."""

from __future__ import annotations

from itertools import pairwise

import pytest
from test_checkpoint import CODEC, PROPS, RECIPE, SPEC, signature

from checker import limits
from checker.limits import Progress
from checker.renderers.progress import search_line
from checker.search.compiled import search as native_engine
from checker.search.partitioned import pool
from checker.search.reference.bfs import Limits, explore


def run(engine: str, on_progress=None):
    if engine == "local":
        return explore(SPEC, PROPS, Limits(), on_progress, True)
    if engine == "compiled":
        return native_engine.explore(CODEC, SPEC, PROPS, Limits(), on_progress, True, 2)
    return pool.explore(RECIPE, 2, Limits(), on_progress, True, min_frontier=200)


@pytest.fixture(scope="module")
def quiet():
    """The answers of a run that reports nothing."""
    return signature(run("local"))


def levels(reports: list[Progress]) -> list[tuple[Progress, list[Progress], Progress]]:
    """Each level expanded: its boundary report, the reports while it ran, and the next
    boundary report (what it ended with)."""
    bounds = [i for i, p in enumerate(reports) if p.expanded is None]
    return [(reports[a], reports[a + 1 : b], reports[b]) for a, b in pairwise(bounds)]


def check_levels(reports: list[Progress], exact: bool) -> int:
    """Assert the running counts of each level; return how many reports came from within a
    level. ``exact``: the engine counts the level's new states as it goes."""
    within = 0
    for start, running, end in levels(reports):
        previous = start
        for p in running:
            assert (p.depth, p.frontier) == (start.depth, start.frontier)
            assert 0 <= p.expanded <= p.frontier
            assert p.expanded >= (previous.expanded or 0)
            assert previous.distinct <= p.distinct <= end.distinct
            assert previous.generated <= p.generated <= end.generated
            if not exact:
                assert p.distinct == start.distinct
            previous = p
        within += len(running)
    return within


@pytest.mark.parametrize("engine", ["local", "compiled"])
def test_a_level_under_way_shows_moving_numbers(engine, quiet, monkeypatch):
    monkeypatch.setattr(limits, "REPORT_EVERY", 0.0)
    monkeypatch.setattr(native_engine, "CHUNK", 256)  # 512 states a call (2 threads)
    reports: list[Progress] = []
    assert signature(run(engine, reports.append)) == quiet
    assert check_levels(reports, exact=True) > 0
    # the largest level (3,366 states) is reported on its way: its numbers move
    start, running, end = max(levels(reports), key=lambda level: level[0].frontier)
    assert start.frontier == 3366 and len(running) >= 3
    assert running[0].distinct < running[-1].distinct <= end.distinct
    assert running[0].generated < running[-1].generated <= end.generated
    assert running[0].expanded < running[-1].expanded <= start.frontier


def test_the_workers_report_what_they_have_expanded(quiet, monkeypatch):
    """The pool's driver reads its workers' counters (``checker.search.partitioned.level.COUNTERS``)
    while they expand a level: states expanded and generated move, the new states are counted when
    the level ends. (Each expand task takes far longer than the 1 ms between looks.)"""
    monkeypatch.setattr(limits, "REPORT_EVERY", 0.001)
    reports: list[Progress] = []
    assert signature(run("workers", reports.append)) == quiet
    assert check_levels(reports, exact=False) > 0


def test_the_line_says_how_much_of_the_frontier_is_expanded():
    at_boundary = Progress(14, 12_000, 30_000, 4174, 2.0)
    assert search_line(at_boundary) == (
        "depth 14  distinct 12,000  frontier 4,174  generated 30,000  6,000 states/s"
    )
    running = Progress(14, 13_000, 35_000, 4174, 2.0, expanded=2048)
    assert search_line(running) == (
        "depth 14  distinct 13,000  frontier 4,174 (2,048 expanded)  generated 35,000  "
        "6,500 states/s"
    )
