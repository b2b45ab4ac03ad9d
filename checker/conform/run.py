"""Run schedules against a live cluster: create a fresh partition, apply each operation,
settle, take a cut, and judge it three ways (safety on the real system, reachability and
step in the model).

Safety on the real system (``safety``) needs no model: on every cut, each broker's HW is at
most its LEO; two brokers hold the same records below the lower of their HWs; and every
record the cluster acknowledged (acks=all) is at its offset in the log of the controller's
leader, whenever that leader's process runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from checker.conform import powerloss
from checker.conform.cluster import Cluster, ClusterError
from checker.conform.cut import Cut, Naming, take_cut
from checker.conform.judge import Background, Counters, Validator, Verdict
from checker.conform.records import LogFormatError
from checker.conform.schedule import Operation, describe

PENDING = Verdict("pending")
"""A cut's verdict until the background search gives it (before ``Driver.run`` returns)."""
SETTLE_QUIET = 0.25
"""Seconds two cuts must agree over before a cut counts as settled."""
SETTLE_LIMIT = 12.0
"""Seconds after which a cut is taken settled or not (a pause keeps some things moving)."""
AFTER_FAULT = 2.0
"""Seconds a partition or a ``wait`` is left to act before the cut: past the leader's replica
lag time (1.5 s), so the ISR shrink a cut link causes is in the cut."""
FENCE_LIMIT = 4.0
"""Seconds a crash, power loss, pause or isolation of broker ``r`` may take to act: the cut
is taken once the controller's metadata log holds ``r`` fenced (its session timeout is 1 s;
the fencing and the ISR and leader changes it causes are one batch), or after this long."""
FENCE_POLL = 0.05
"""Seconds between two readings of the controller's metadata log while a fault acts."""
PRODUCE_TIMEOUT = 6.0
"""Seconds a produce call waits for its acknowledgement (``request.timeout.ms`` is 5 s)."""


@dataclass
class CutReport:
    """One cut: the operation before it, the reading, the model's verdict, the safety
    violations seen on it, and what the operation reported (``produced``: a produce's
    acknowledgement, offset or error, or the records a power loss cut off)."""

    index: int
    after: str
    cut: Cut
    observation: Any
    verdict: Verdict
    unsafe: list[str]
    produced: str | None = None
    settled: bool = True


@dataclass
class ScheduleReport:
    """One schedule's run: its seed, topic, operations and cuts."""

    seed: int
    topic: str
    operations: list[str]
    cuts: list[CutReport] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def conforms(self) -> bool:
        return all(c.verdict.ok for c in self.cuts)

    @property
    def safe(self) -> bool:
        return not any(c.unsafe for c in self.cuts)

    @property
    def beyond(self) -> bool:
        return any(c.verdict.check == "beyond" for c in self.cuts)


def safety(cut: Cut, acked: dict[bytes, int]) -> list[str]:
    """The real-system safety violations of ``cut`` (module docstring)."""
    out = []
    logs = [b.records for b in cut.brokers]
    for r, b in enumerate(cut.brokers):
        if b.hw is not None and b.hw > len(b.records):
            out.append(f"broker {r}: HW {b.hw} > LEO {len(b.records)}")
    for a in range(len(logs)):
        for z in range(a + 1, len(logs)):
            below = min(cut.brokers[a].hw or 0, cut.brokers[z].hw or 0)
            for o in range(min(below, len(logs[a]), len(logs[z]))):
                if logs[a][o].value != logs[z][o].value:
                    out.append(f"brokers {a} and {z} differ at offset {o}, below both HWs")
                    break
    leader = cut.controller.leader if cut.controller else None
    if leader is not None and cut.brokers[leader].alive and not cut.brokers[leader].paused:
        log = logs[leader]
        for value, offset in sorted(acked.items(), key=lambda kv: kv[1]):
            if offset >= len(log) or log[offset].value != value:
                out.append(
                    f"acknowledged record {value.decode(errors='replace')} (offset {offset}) "
                    f"is not in leader {leader}'s log"
                )
    return out


class Driver:
    """One schedule against ``cluster``: a fresh topic and a producer set as the
    validator's model says (``min.insync.replicas``, unclean elections, acks), and the cuts."""

    def __init__(
        self,
        cluster: Cluster,
        validator: Validator,
        topic: str,
        seed: int,
    ) -> None:
        from confluent_kafka import KafkaException, Producer
        from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

        model = validator.spec  # the topic's settings and the producer's acks are the model's
        self.cluster, self.validator = cluster, validator
        self.elr = "elr" in model.variant.switches
        self.naming = Naming()
        self.acked: dict[bytes, int] = {}
        self.crashes, self.power_losses, self.sent = 0, 0, 0
        self.report = ScheduleReport(seed, topic, [])
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap, "log_level": 0})
        config = {
            "min.insync.replicas": str(model.config.min_isr),
            "unclean.leader.election.enable": str(model.config.unclean_election).lower(),
        }
        futures = admin.create_topics(
            [
                NewTopic(
                    topic,
                    num_partitions=1,
                    replica_assignment=[list(range(cluster.replicas))],
                    config=config,
                )
            ],
            request_timeout=15,
        )
        try:
            futures[topic].result(timeout=20)
        except (KafkaException, TimeoutError) as exc:  # the cluster is not serving
            raise ClusterError(f"creating topic {topic} failed: {exc}") from None
        self.producer = Producer(
            {
                "bootstrap.servers": cluster.bootstrap,
                "acks": str(model.config.acks),
                "enable.idempotence": False,
                "retries": 0,
                "linger.ms": 0,
                "compression.type": "none",
                "request.timeout.ms": 5000,
                "message.timeout.ms": 5500,
                "log_level": 0,
            }
        )

    def apply(self, op: Operation) -> str | None:
        """Do one operation; for a produce, say how it ended (``acked at N`` or the error)."""
        name, args = op
        if name == "produce":
            return self._produce()
        if name == "crash":
            self.crashes += 1
            self.cluster.crash(args[0])
        elif name == "power_loss":
            self.power_losses += 1
            self.cluster.crash(args[0])
            cut = powerloss.cut(self.cluster.brokers[args[0]].data)
            self._await_fenced(args[0])
            return "cut off: " + (
                ", ".join(f"{n} record{'s' if n != 1 else ''} of {p}" for p, n in cut.items())
                or "nothing"
            )
        elif name == "restart":
            self.cluster.restart(args[0])
        elif name == "pause":
            self.cluster.pause(args[0])
        elif name == "resume":
            self.cluster.resume(args[0])
        elif name == "partition":
            self.cluster.partition(*args)
        elif name == "isolate":
            self.cluster.isolate(args[0])
        elif name == "heal":
            self.cluster.heal()
        if name in ("crash", "pause", "isolate"):
            self._await_fenced(args[0])
        elif name in ("partition", "wait"):
            time.sleep(AFTER_FAULT)
        return None

    def _await_fenced(self, r: int) -> None:
        """Wait until the controller holds broker ``r`` fenced, at most ``FENCE_LIMIT``."""
        deadline = time.monotonic() + FENCE_LIMIT
        while time.monotonic() < deadline:
            try:
                if r in self.cluster.metadata().fenced_brokers():
                    return
            except LogFormatError:  # read while the controller wrote: read again
                pass
            time.sleep(FENCE_POLL)

    def _produce(self) -> str:
        value = f"{self.report.topic}:{self.sent}".encode()
        self.sent += 1
        outcome: list[str] = []

        def delivered(err: Any, msg: Any) -> None:
            if err is None:
                self.acked[value] = msg.offset()
                outcome.append(f"acked at offset {msg.offset()}")
            else:
                outcome.append(f"refused: {err.name()}")

        self.producer.produce(self.report.topic, value=value, on_delivery=delivered)
        self.producer.flush(PRODUCE_TIMEOUT)
        return outcome[0] if outcome else "no answer yet"

    def settle(self) -> tuple[Cut, bool]:
        """Cuts until two ``SETTLE_QUIET`` seconds apart agree (or ``SETTLE_LIMIT``)."""
        start = time.monotonic()
        last = take_cut(self.cluster, self.report.topic)
        while time.monotonic() - start < SETTLE_LIMIT:
            time.sleep(SETTLE_QUIET)
            cut = take_cut(self.cluster, self.report.topic)
            if cut == last:
                return cut, True
            last = cut
        return last, False

    def judge(self, after: str, produced: str | None = None) -> CutReport:
        """Settle, cut, and judge the cut."""
        cut, settled = self.settle()
        observation = self.naming.observation(cut, self.elr)
        counters = Counters(
            len(self.naming.ids),
            self.crashes,
            cut.controller.leader_epoch if cut.controller else -1,
            self.power_losses,
        )
        report = CutReport(
            len(self.report.cuts),
            after,
            cut,
            observation,
            PENDING,
            safety(cut, self.acked),
            produced,
            settled,
        )
        self.report.cuts.append(report)
        self.background.submit(observation, counters, lambda v: setattr(report, "verdict", v))
        return report

    def run(self, ops: list[Operation], tick: Callable[[CutReport], None]) -> ScheduleReport:
        """The whole schedule: a cut after topic creation, then one after each operation."""
        started = time.monotonic()
        self.report.operations = [describe(op) for op in ops]
        self.background = Background(self.validator)
        tick(self.judge("create topic"))
        for op in ops:
            produced = self.apply(op)
            tick(self.judge(describe(op), produced))
        self.producer.flush(1)
        self.background.finish()
        self.report.seconds = time.monotonic() - started
        return self.report
