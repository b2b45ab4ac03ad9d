"""The Spark engine going on from a URL checkpoint (``checker.spark.checkpoints``): each
level's records and the frontier's are read by Spark (``SparkContext.pickleFile``),
split by ``fp % P`` for this run's P, shuffled to their owners and sorted there: one job,
after which the level RDDs stand as if the run had never stopped
(``checker.spark.rdds.Levels.adopt``). The driver holds only the manifest.
"""

from __future__ import annotations

import marshal
from typing import Any

import numpy as np

from checker.checkpoint.format import CheckpointError, Frontier
from checker.model import Recipe
from checker.search.partitioned.compiled_level import model_of
from checker.search.partitioned.job import LevelCore
from checker.spark import rdds
from checker.spark.checkpoints import UrlLoaded, verify
from checker.spark.hadoop import said
from checker.spark.records import record_frontier, tallied, totals


def split(P: int, record: tuple[Any, ...]) -> list[tuple[int, Any]]:
    """A record's states as ``(owner, record piece)`` for each of the ``P`` owners it has
    (a piece is a record of the same level or kind)."""
    first, kind, fps, second = record
    owner = fps % np.uint64(P)
    pieces = []
    for q in np.unique(owner).tolist():
        mine = owner == q
        if isinstance(second, list):
            part: Any = [second[i] for i in np.flatnonzero(mine)]
        else:
            part = second[mine]
        pieces.append((q, (first, kind, fps[mine], part)))
    return pieces


def _level(k: int) -> Any:
    """A ``mapPartitionsWithIndex`` function: partition p's pieces of level ``k`` (among
    those of the other levels its checkpoint wrote) as the engine's sorted ``NEW`` run."""

    def build(p: int, items: Any) -> list[tuple[int, Any]]:
        pieces = [piece for _, piece in items if piece[0] == k]
        fps = np.concatenate([piece[2] for piece in pieces] or [np.zeros(0, np.uint64)])
        parents = np.concatenate([piece[3] for piece in pieces] or [np.zeros(0, np.uint64)])
        order = np.argsort(fps)
        chunks = rdds._key_chunks(rdds.NEW, fps[order], parents[order])
        return [(p, element) for element in chunks]

    return build


def _frontier(recipe: Recipe, core: LevelCore, p: int, items: Any) -> list[tuple[int, Any]]:
    """Partition ``p``'s pieces of the frontier as the engine's sorted frontier, in the
    form of ``core`` (compiled rows are decoded, or states encoded, if the checkpoint's
    engine used the other core)."""
    pieces = [record_frontier(piece) for _, piece in items]
    if not pieces:
        return []
    frontier = Frontier.join(pieces).sorted()
    if (frontier.rows is not None) != core.rows:
        frontier = core.frontier(recipe, frontier.fps, states(recipe, frontier))
    return [(p, element) for element in rdds._frontier_chunks(frontier)]


def states(recipe: Recipe, frontier: Frontier) -> list[Any]:
    """A frontier's states as Python states (decoding compiled rows with the model's
    compiled model, built here: this runs in a task)."""
    if frontier.rows is None:
        return [marshal.loads(data) for data in frontier.states or []]
    model = model_of(recipe)
    return [model.decode(row.tobytes()) for row in frontier.rows]


def adopt(levels: rdds.Levels, loaded: UrlLoaded, recipe: Recipe, core: LevelCore) -> int:
    """Make ``levels`` (no level loaded yet) stand at ``loaded``'s frontier: every level's
    new states and the seen set as the engine's RDDs, on ``levels.partitions`` P. One
    Spark job; returns the frontier's size. Raises ``CheckpointError`` when a folder is
    missing or a level's or the frontier's states or sum are not the manifest's."""
    sc, P, place = levels.sc, levels.partitions, loaded.place
    answers = sc.accumulator({}, rdds.Tallies())
    manifest = loaded.manifest
    entries = {k: manifest["levels"][str(k)] for k in range(1, loaded.level + 1)}

    def read(path: str) -> Any:
        records = sc.pickleFile(place.join(path)).mapPartitionsWithIndex(tallied(answers, path))
        return records.flatMap(lambda record: split(P, record)).partitionBy(P, rdds.owner)

    batches = {path: read(path) for path in sorted({e["path"] for e in entries.values()})}
    news = {
        k: (batches[e["path"]].mapPartitionsWithIndex(_level(k), True), int(e["states"]))
        for k, e in entries.items()
    }
    front = manifest["frontier"]
    frontier = read(front["path"]).mapPartitionsWithIndex(
        lambda p, items: _frontier(recipe, core, p, items), True
    )
    try:
        levels.adopt(frontier, news, list(batches.values()))
    except Exception as exc:  # noqa: BLE001 -- Py4J: a folder missing or unreadable
        raise CheckpointError(f"the checkpoint in {place.url} is incomplete: {said(exc)}") from None
    found = {path: totals(answers.value, path) for path in [*batches, front["path"]]}
    for k, entry in entries.items():
        verify(entry, found[entry["path"]].get(k), f"level {k}", place.url)
    verify(front, found[front["path"]].get("F"), "the frontier", place.url)
    return int(front["states"])
