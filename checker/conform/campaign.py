"""A campaign: seeded schedules one after another on one warm cluster, each on a fresh
partition, with the cluster restored between them. Shared by ``hwcheck conform`` and the
gate's ``mode = "conform"`` checks, with the defaults both use (``DEFAULTS``,
``MODEL_DEFAULTS``), the preparation (Java, the jars) and the report's header."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checker.conform.cluster import Cluster
from checker.conform.jars import (
    DEFAULT_KAFKA,
    KafkaUnavailable,
    kafka_jars,
    local_jars,
    release,
)
from checker.conform.judge import Validator
from checker.conform.run import CutReport, Driver, ScheduleReport
from checker.conform.schedule import Bounds, Operation, random_schedule
from checker.conform.settings import CONTROLLER_SETTINGS, HARNESS_SETTINGS
from checker.java import JavaRuntime, find_java
from spec.kafka.model import KafkaSpec

DEFAULTS: dict[str, Any] = {
    "kafka": DEFAULT_KAFKA,
    "schedules": 3,
    "seed": 1,
    "steps": 6,
    "depth": 16,
}
"""What a campaign runs where nothing else is said: Kafka 4.1.0, 3 schedules from seed 1, 6
operations each, steps of at most 16 model actions."""

MODEL_DEFAULTS: dict[str, Any] = {"max_epoch": 3, "min_isr": 2}
"""Where a campaign's model departs from the model's defaults: leader epochs up to 3 (a
fenced leader spends one) and ``min.insync.replicas`` 2 (with 3 brokers, the setting Kafka's
docs recommend)."""


@dataclass(frozen=True)
class Plan:
    """Seeds ``seed`` to ``seed + schedules - 1``, each of ``steps`` operations, judged with
    steps of at most ``depth`` model actions; or, when ``ops`` is given (a schedule file),
    that schedule ``schedules`` times. The rest (brokers, records, crashes, power losses,
    acks, ``min.insync.replicas``) is the model's config."""

    seed: int
    schedules: int
    steps: int
    depth: int
    ops: tuple[Operation, ...] = ()
    source: str = ""
    """The schedule file ``ops`` came from (for the report)."""


def prepare(kafka: str, libs: Path | None) -> tuple[JavaRuntime, list[Path]]:
    """The Java runtime and the jars to run Kafka ``kafka`` (or the jars of ``libs``, a
    distribution's ``libs/`` folder). Raises ``KafkaUnavailable`` (no Kafka client, a version
    conform does not run, no Maven, Maven's failure) or ``JavaNotFound``."""
    try:
        import confluent_kafka  # noqa: F401
    except ImportError:
        raise KafkaUnavailable(
            "conform needs a Kafka client: pip install 'hwcheck[conform]'"
        ) from None
    release(kafka)
    java = find_java("conform")
    return java, local_jars(libs) if libs else kafka_jars(kafka)


def header(kafka: str, spec: KafkaSpec, plan: Plan) -> dict[str, Any]:
    """The report's header: the Kafka version, the preset, the bounds and the settings."""
    c = spec.config
    return {
        "kafka": kafka,
        "preset": spec.variant.name,
        "bounds": {
            "replicas": c.replicas,
            "max_records": c.max_records,
            "max_crashes": c.max_crashes,
            "max_unclean_shutdowns": c.max_unclean_shutdowns,
            "max_epoch": c.max_epoch,
            "min_isr": c.min_isr,
            "acks": c.acks,
            "steps": plan.steps,
            "depth": plan.depth,
            "seed": plan.seed,
            "schedule": plan.source or None,
        },
        "settings": {k: v for k, (v, _) in {**HARNESS_SETTINGS, **CONTROLLER_SETTINGS}.items()},
    }


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
    c = spec.config
    bounds = Bounds(
        c.replicas, c.max_records, c.max_crashes, plan.steps, power_losses=c.max_unclean_shutdowns
    )
    for i in range(plan.schedules):
        seed = plan.seed + i
        driver = Driver(cluster, Validator(spec, plan.depth), f"hwcheck-{seed}-{i}", seed)

        def tick(cut: CutReport, seed: int = seed) -> None:
            on_cut(seed, cut)

        ops = list(plan.ops) if plan.ops else random_schedule(seed, bounds)
        done.append(driver.run(ops, tick))
        on_schedule(done[-1])
        cluster.heal()
        for r in range(cluster.replicas):  # the next schedule starts with every broker up
            cluster.resume(r)
            if not cluster.brokers[r].alive:
                cluster.restart(r)
    return done
