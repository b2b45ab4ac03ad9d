"""A campaign: seeded schedules one after another on one warm cluster, each on a fresh
partition, with the cluster restored between them. Shared by ``hwcheck conform`` and the
gate's ``mode = "conform"`` checks, with the defaults both use (``DEFAULTS``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from checker.conform.cluster import Cluster
from checker.conform.jars import DEFAULT_KAFKA
from checker.conform.judge import Validator
from checker.conform.run import CutReport, Driver, ScheduleReport
from checker.conform.schedule import Bounds, random_schedule
from spec.kafka.model import KafkaSpec

DEFAULTS = {
    "kafka": DEFAULT_KAFKA,
    "schedules": 3,
    "seed": 1,
    "steps": 6,
    "max_records": 2,
    "max_crashes": 1,
    "max_epoch": 3,
    "min_isr": 2,
    "acks": "all",
    "depth": 16,
}
"""What a campaign runs with where nothing else is said: the model's record and crash bounds,
leader epochs up to 3 (a fenced leader spends one), and ``min.insync.replicas`` 2 (with 3
brokers, the setting Kafka's docs recommend)."""


@dataclass(frozen=True)
class Plan:
    """Seeds ``seed`` to ``seed + schedules - 1``, each schedule of ``bounds``, judged with
    steps of at most ``depth`` model actions; the producer's ``acks``."""

    seed: int
    schedules: int
    bounds: Bounds
    depth: int
    acks: str


def run(
    cluster: Cluster,
    spec: KafkaSpec,
    plan: Plan,
    on_cut: Callable[[int, CutReport], None],
    on_schedule: Callable[[ScheduleReport], None],
) -> list[ScheduleReport]:
    """Every schedule of ``plan`` against the started ``cluster``; ``on_cut(seed, cut)`` after
    each cut, ``on_schedule(report)`` after each schedule. Raises what the cluster raises
    (``ClusterError``, ``LogFormatError``, ``KeyboardInterrupt``): the schedules done so far
    are in ``on_schedule``'s reports."""
    done = []
    elr = "elr" in spec.variant.switches
    for i in range(plan.schedules):
        seed = plan.seed + i
        driver = Driver(
            cluster,
            Validator(spec, plan.depth),
            f"hwcheck-{seed}-{i}",
            seed,
            plan.acks,
            spec.config.min_isr,
            spec.config.unclean_election,
            elr,
        )

        def tick(cut: CutReport, seed: int = seed) -> None:
            on_cut(seed, cut)

        done.append(driver.run(random_schedule(seed, plan.bounds), tick))
        on_schedule(done[-1])
        cluster.heal()
        for r in range(cluster.replicas):  # the next schedule starts with every broker up
            cluster.resume(r)
            if not cluster.brokers[r].alive:
                cluster.restart(r)
    return done
