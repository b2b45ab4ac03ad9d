"""Random walks as Spark jobs (``hwcheck simulate --engine spark``).

Walks are the one job that spreads perfectly: each wave of chunks (``checker.simulate.simulation``) is
one Spark job of P tasks, every task running whole chunks of walks from the recipe it rebuilds
the model from. What reaches the driver is statistics (counts per action, end and length, the
guards reached, the sorted fingerprints of the states visited, to count distinct states) and,
per violated property, the label texts of the first violating walk: never a state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from checker.search import CoreName
from checker.spark import session
from checker.spark.engine import local_cores

WAVE_PER_PARTITION = 32
"""Chunks per partition in one Spark job (one wave)."""


def runner(recipe: Any, plan: Any, options: Any, core: CoreName = "reference") -> Any:
    """``(run_wave, chunks per wave, engine text)`` for ``checker.simulate.simulation.simulate``.

    ``core``: the core each task walks on (``checker.simulate.simulation.walk_chunk``).
    ``run_wave(chunks)`` runs a list of ``(start, count)`` chunks as one Spark job and returns
    their results in chunk order. Raises ``SparkUnavailable`` when Spark cannot start, the
    workers disagree with the driver or a job fails.
    """
    sc = session.context(options)
    try:
        partitions = (
            options.partitions or local_cores(session.master_url(options)) or sc.defaultParallelism
        )
    except Exception as exc:  # noqa: BLE001 -- py4j: the JVM went away
        raise session.job_failed("Spark's start", exc) from None
    session.check_workers(sc, recipe, partitions)

    def run_wave(chunks: list[tuple[int, int]]) -> Any:
        from checker.simulate.simulation import walk_chunk

        slices = min(partitions, len(chunks))
        try:
            return (
                sc.parallelize(chunks, slices)
                .map(lambda chunk: walk_chunk(recipe, plan, chunk[0], chunk[1], core))
                .collect()
            )
        except Exception as exc:  # noqa: BLE001 -- Py4J/Python errors from the cluster
            raise session.job_failed("a Spark job of walks", exc) from None

    return run_wave, partitions * WAVE_PER_PARTITION, f"spark ({partitions} partitions)"


def on(options: Any) -> Callable[[Any, Any, CoreName], tuple[Any, int, str]]:
    """The ``spark`` argument of ``checker.simulate.simulation.simulate`` for the Spark session
    ``options`` (``checker.spark.session.SparkOptions``): ``runner`` with them bound."""

    def runners(recipe: Any, plan: Any, core: CoreName) -> tuple[Any, int, str]:
        outcome: tuple[Any, int, str] = runner(recipe, plan, options, core)
        return outcome

    return runners
