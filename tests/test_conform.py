"""``hwcheck conform`` against real Kafka 4.1.0 brokers (jars from Maven Central through
checker/conform/pom.xml): the cut reader on files Kafka wrote in the test, the metadata reader
against Kafka's own ``DumpLogSegments``, the judge on a cut no state explains and with a model
that lacks a rule, one seeded schedule end to end, and no JVM left after SIGTERM. Beside it:
the segment reader on hand-made batches (``test_conform_records``), conform checks in the gate
(``test_conform_gate``, one on real brokers) and the harness's parts that need no broker
(``test_conform_harness``)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conformance import HWCHECK, hwcheck, kafka_pids

from checker.conform import jars
from checker.conform.cluster import Cluster
from checker.conform.cut import Naming, take_cut
from checker.conform.judge import Counters, Validator, observe
from checker.conform.metadata import fenced_brokers, partition_states
from checker.conform.records import epoch_cache, high_watermark, read_log
from checker.java import find_java
from spec.kafka.config import Config
from spec.kafka.model import KafkaSpec

confluent_kafka = pytest.importorskip("confluent_kafka")

SPEC = KafkaSpec(Config(replicas=3, min_isr=2, max_records=2, max_epoch=3, max_crashes=1))


def test_files_kafka_wrote_on_one_cluster(tmp_path):
    """One real cluster (a controller and 3 brokers, about 6 s to start) for the four checks
    below, so that each test worker does not start its own."""
    c = Cluster(tmp_path, jars.kafka_jars(jars.DEFAULT_KAFKA), find_java("tests"))
    try:
        c.start()
        assert c.archive is not None and c.archive.is_file()  # written once, then used
        check_the_reader_reads_what_kafka_wrote(c)
        check_the_metadata_reader_agrees_with_kafkas_dump_tool(c)
        check_a_model_without_fetch_does_not_explain_real_replication(c)
        check_the_fenced_follower_finding(c)
    finally:
        c.close()
    assert kafka_pids(str(tmp_path)) == []


def check_the_fenced_follower_finding(cluster):
    """docs/explanation/conformance.md's first finding, repeated: a caught-up follower is
    killed, and KRaft's controller fences it and drops it from the ISR in the same leader
    epoch (``handleBrokerFenced``; no epoch bump on ISR shrink since MV 3.6-IV0). The model
    of kafka-4.1 (``shrink-in-epoch``) takes that step; without the mechanism the cut is
    reachable, but no step leads there from the cut before (its controller took a new epoch
    to drop a crashed follower, and its leader drops only a follower that lags)."""
    from checker.conform.run import Driver

    driver = Driver(cluster, Validator(SPEC), "fenced", 0)
    report = driver.run([("produce", ()), ("crash", (2,))], lambda cut: None)
    assert [c.verdict.check for c in report.cuts] == ["explained"] * 3
    assert report.cuts[2].cut.controller.isr == (0, 1)
    assert report.cuts[2].cut.controller.leader_epoch == 0
    assert "ControllerShrinkIsr(replica=2)" in report.cuts[2].verdict.path
    old = Validator(KafkaSpec(replace(SPEC.config, without_mechanisms=("shrink-in-epoch",))))
    checks = [
        old.step(c.observation, Counters(1 if c.index else 0, c.index // 2, 0)).check
        for c in report.cuts
    ]
    assert checks == ["explained", "explained", "reachable"]
    cluster.restart(2)


def produce(c: Cluster, topic: str, values: list[bytes]) -> list[int]:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics(
        [
            NewTopic(
                topic,
                num_partitions=1,
                replica_assignment=[[0, 1, 2]],
                config={"min.insync.replicas": "2"},
            )
        ]
    )[topic].result(20)
    producer = Producer(
        {
            "bootstrap.servers": c.bootstrap,
            "acks": "all",
            "enable.idempotence": False,
            "retries": 0,
            "linger.ms": 0,
        }
    )
    offsets: list[int] = []
    for value in values:
        producer.produce(topic, value=value, on_delivery=lambda e, m: offsets.append(m.offset()))
        producer.flush(10)
    return offsets


def settled(c: Cluster, topic: str, check, limit: float = 15.0):
    deadline = time.monotonic() + limit
    while True:
        cut = take_cut(c, topic)
        if check(cut) or time.monotonic() > deadline:
            return cut
        time.sleep(0.2)


def check_the_reader_reads_what_kafka_wrote(cluster):
    """Two acknowledged records, then the leader killed: every broker's segment holds them at
    their offsets in epoch 0, the HW checkpoints reach 2, and the controller's metadata log
    shows the new leader in epoch 1 with the dead broker out of the ISR."""
    assert produce(cluster, "reader", [b"a", b"b"]) == [0, 1]
    cut = settled(cluster, "reader", lambda k: all(b.hw == 2 for b in k.brokers))
    for broker in cut.brokers:
        assert [(r.offset, r.leader_epoch, r.value) for r in broker.records] == [
            (0, 0, b"a"),
            (1, 0, b"b"),
        ]
        assert broker.hw == 2 and broker.epochs == ((0, 0),)
    assert (cut.controller.leader, cut.controller.leader_epoch, cut.controller.isr) == (
        0,
        0,
        (0, 1, 2),
    )
    cluster.crash(0)
    cut = settled(  # the new leader writes its epoch cache file soon after the election
        cluster,
        "reader",
        lambda k: (
            k.controller.leader_epoch == 1 and len(k.brokers[k.controller.leader].epochs) == 2
        ),
    )
    new = cut.controller.leader
    assert new in (1, 2) and cut.controller.isr == (1, 2) and not cut.brokers[0].alive
    assert cut.brokers[new].epochs == ((0, 0), (1, 2))  # the new leader's epoch starts at LEO
    data = cluster.brokers[new].data
    assert high_watermark(data, "reader") == 2 and epoch_cache(data / "reader-0")[-1] == (1, 2)
    assert [r.value for r in read_log(data / "reader-0")] == [b"a", b"b"]
    cluster.restart(0)


def check_the_metadata_reader_agrees_with_kafkas_dump_tool(cluster):
    """Every PartitionRecord and PartitionChangeRecord of the topic, as Kafka's own
    ``DumpLogSegments --cluster-metadata-decoder`` prints them, replays to the states
    ``partition_states`` reads; and the brokers' registrations replay to the fenced set
    ``fenced_brokers`` reads (broker 0 was fenced at its crash)."""
    live = cluster.controller.data / "__cluster_metadata-0"
    with tempfile.TemporaryDirectory() as scratch:
        # Copied at a cut, and read after the thaw: a cluster frozen while the dump tool's JVM
        # starts (seconds) outlives the brokers' 1 s sessions, and the controller fences all
        # three at the thaw.
        folder = Path(scratch)
        cluster.freeze()
        try:
            for segment in live.iterdir():
                if segment.is_file():
                    shutil.copyfile(segment, folder / segment.name)
        finally:
            cluster.thaw()
        ours = partition_states(folder, "reader")
        fenced = fenced_brokers(folder)
        dump = subprocess.run(
            [
                str(cluster.java.java),
                "-cp",
                ":".join(map(str, cluster.jars)),
                "kafka.tools.DumpLogSegments",
                "--cluster-metadata-decoder",
                "--files",
                ",".join(str(p) for p in sorted(folder.glob("*.log"))),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
    topic_id, theirs, state = None, [], {}
    registered: dict[int, bool] = {}
    fencings: list[int] = []
    for line in dump.splitlines():
        if "payload: " not in line:
            continue
        record = json.loads(line.split("payload: ", 1)[1])
        data = record["data"]
        if record["type"] == "REGISTER_BROKER_RECORD":
            registered[data["brokerId"]] = data["fenced"]
        elif record["type"] == "BROKER_REGISTRATION_CHANGE_RECORD" and data.get("fenced", 0):
            registered[data["brokerId"]] = data["fenced"] == 1
            fencings += [data["brokerId"]] if data["fenced"] == 1 else []
        elif record["type"] == "TOPIC_RECORD" and data["name"] == "reader":
            topic_id = data["topicId"]
        elif record["type"] in ("PARTITION_RECORD", "PARTITION_CHANGE_RECORD") and (
            data["topicId"] == topic_id
        ):
            if record["type"] == "PARTITION_RECORD":
                state = {
                    "leader": data["leader"],
                    "epoch": data["leaderEpoch"],
                    "isr": sorted(data["isr"]),
                }
            else:
                if "isr" in data:
                    state["isr"] = sorted(data["isr"])
                if data.get("leader", -2) != -2:
                    state["leader"], state["epoch"] = data["leader"], state["epoch"] + 1
            theirs.append(dict(state))
    assert [
        {
            "leader": -1 if s.leader is None else s.leader,
            "epoch": s.leader_epoch,
            "isr": list(s.isr),
        }
        for s in ours
    ] == theirs
    assert len(theirs) >= 2  # created, and the leader's crash
    assert fenced == {b for b, f in registered.items() if f} and 0 in fencings


def test_a_cut_no_model_state_reaches_is_reported_with_its_differences():
    """A follower holding a record of epoch 5 while the controller is in epoch 0: no state
    explains it, and the nearest state's differences name the log."""
    validator = Validator(SPEC, depth=4)
    bad = ((((), 0, True), (((0, 5),), 0, True), ((), 0, True)), (0, 0, (0, 1, 2), ()))
    verdict = validator.step(bad, Counters(records=1, crashes=0, epoch=0))
    assert verdict.check == "unreachable"
    assert any(line.startswith("broker 1 log") for line in verdict.nearest)


class WithoutFetch(KafkaSpec):
    """The model with a rule removed: followers never fetch."""

    def successors(self, state):
        return [(label, nxt) for label, nxt in super().successors(state) if label.action != "Fetch"]


def check_a_model_without_fetch_does_not_explain_real_replication(cluster):
    """The harness can fail: real followers copy an acknowledged record, which a model
    whose Fetch action was removed cannot explain (the correct model does)."""
    produce(cluster, "nofetch", [b"x"])
    cut = settled(cluster, "nofetch", lambda k: all(b.hw == 1 for b in k.brokers))
    naming = Naming()
    seen = naming.observation(cut, elr=True)
    counters = Counters(records=1, crashes=0, epoch=0)
    wrong = Validator(WithoutFetch(SPEC.config))
    right = Validator(SPEC)
    assert wrong.step(seen, counters).check == "unreachable"
    verdict = right.step(seen, counters)
    assert verdict.check == "explained", verdict
    assert verdict.path[0] == "Elect(leader=0)" and "Produce(leader=0)" in verdict.path
    assert observe(SPEC.init_states()[0])[1] == (-1, None, (0, 1, 2), (), None)


def test_one_seeded_schedule_conforms(tmp_path):
    """CI's smoke run: seed 6 (produce, crash the leader, wait, partition the two others, heal,
    restart the old leader) against real brokers, every cut explained by a step; the report is
    valid against its schema."""
    import jsonschema

    from checker.conform.report import SCHEMA

    done = hwcheck(
        "conform", "--schedules", "1", "--seed", "6", "--steps", "4", "--out", str(tmp_path)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads((tmp_path / "conform.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    (schedule,) = doc["schedules"]
    assert schedule["operations"] == [
        "produce",
        "crash(0)",
        "wait",
        "partition(1,2)",
        "heal",
        "restart(0)",
    ]
    assert [c["check"] for c in schedule["cuts"]] == ["explained"] * 7
    assert kafka_pids(str(tmp_path)) == []


def test_sigterm_leaves_no_jvm(tmp_path):
    """SIGTERM once the cluster is up: exit 3, the report marked partial, no JVM left."""
    proc = subprocess.Popen(
        [
            *HWCHECK,
            "conform",
            "--schedules",
            "5",
            "--out",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        if "Cluster up" in line or not line:
            break
    assert kafka_pids(str(tmp_path)), "".join(lines)
    time.sleep(3)
    proc.send_signal(signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 3, "".join(lines) + out
    assert kafka_pids(str(tmp_path)) == []
    assert json.loads((tmp_path / "conform.json").read_text())["partial"] is True
