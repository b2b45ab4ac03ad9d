"""``hwcheck conform`` against real Kafka 4.1.0 brokers (jars from Maven Central through
checker/conform/pom.xml): the cut reader on files Kafka wrote in the test, the metadata reader
against Kafka's own ``DumpLogSegments``, the judge on a cut no state explains and with a model
that lacks a rule, one seeded schedule end to end, and no JVM left after SIGTERM."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest

from checker.conform import jars
from checker.conform.cluster import Cluster
from checker.conform.cut import Naming, take_cut
from checker.conform.judge import Counters, Validator, observe
from checker.conform.metadata import fenced_brokers, partition_states
from checker.conform.records import crc32c, epoch_cache, high_watermark, read_log
from checker.java import find_java
from spec.kafka.config import Config
from spec.kafka.model import KafkaSpec

confluent_kafka = pytest.importorskip("confluent_kafka")

SPEC = KafkaSpec(Config(replicas=3, min_isr=2, max_records=2, max_epoch=3, max_crashes=1))


HWCHECK = [sys.executable, "-m", "checker.cli"]


def hwcheck(*args: str) -> subprocess.CompletedProcess[str]:
    """``hwcheck ARGS`` in a process of its own (at most 240 s), its output captured."""
    return subprocess.run(
        [*HWCHECK, *args], capture_output=True, text=True, timeout=240, check=False
    )


def kafka_pids(marker: str) -> list[int]:
    """Pids of Kafka JVMs whose command line names ``marker`` (a run folder)."""
    out = subprocess.run(
        ["pgrep", "-f", marker], check=False, capture_output=True, text=True
    ).stdout
    return [int(p) for p in out.split() if int(p) != os.getpid()]


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


def test_crc32c_is_castagnoli():
    assert crc32c(b"123456789") == 0xE3069283  # the CRC-32C check value


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


def test_the_docs_list_every_setting_the_harness_changes():
    """docs/explanation/conformance.md's settings table is the harness's, row for row."""
    from checker.conform.settings import CONTROLLER_SETTINGS, HARNESS_SETTINGS

    page = (Path(__file__).resolve().parents[1] / "docs/explanation/conformance.md").read_text()
    rows = [
        [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        for line in page.splitlines()
        if line.startswith(("| brokers |", "| controller |"))
    ]
    expected = [["brokers", k, v, why] for k, (v, why) in HARNESS_SETTINGS.items()] + [
        ["controller", k, v, why] for k, (v, why) in CONTROLLER_SETTINGS.items()
    ]
    assert rows == expected


def test_a_seed_gives_one_schedule_within_its_bounds():
    """The same seed and bounds give the same schedule; no schedule produces, crashes or
    pauses past its bounds, and every one ends with every link healed and every broker up."""
    from checker.conform.schedule import Bounds, describe, random_schedule

    bounds = Bounds(replicas=3, records=2, crashes=1, steps=8)
    for seed in range(200):
        ops = random_schedule(seed, bounds)
        assert ops == random_schedule(seed, bounds)
        names = [name for name, _ in ops]
        assert names.count("produce") <= 2 and names.count("crash") <= 1
        down, paused, cut = set(), None, False
        for name, args in ops:
            if name == "crash":
                down.add(args[0])
            elif name == "restart":
                assert args[0] in down
                down.discard(args[0])
            elif name == "pause":
                assert paused is None
                paused = args[0]
            elif name == "resume":
                paused = None
            elif name in ("partition", "isolate"):
                assert not cut
                cut = True
            elif name == "heal":
                cut = False
        assert (down, paused, cut) == (set(), None, False), [describe(o) for o in ops]
    assert [describe(o) for o in random_schedule(6, Bounds(steps=4))] == [
        "produce",
        "crash(0)",
        "wait",
        "partition(1,2)",
        "heal",
        "restart(0)",
    ]


def test_a_cut_link_is_silent_until_healed():
    """A proxy forwards both ways; cut, it closes its connections and holds new ones without a
    byte through; healed, it forwards again."""
    import socket
    import threading

    from checker.conform.ports import free_port
    from checker.conform.proxy import Proxies

    server = socket.create_server(("127.0.0.1", 0))

    def echo() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(
                target=lambda c=conn: [c.sendall(d) for d in iter(lambda: c.recv(99), b"")],
                daemon=True,
            ).start()

    threading.Thread(target=echo, daemon=True).start()
    proxies = Proxies()
    link = proxies.add("0->1", free_port(), server.getsockname()[1])
    proxies.start()
    try:
        with socket.create_connection(("127.0.0.1", link.port), timeout=2) as conn:
            conn.sendall(b"ping")
            assert conn.recv(99) == b"ping"
            proxies.cut("0->1")
            assert conn.recv(99) == b""  # closed by the cut
        with socket.create_connection(("127.0.0.1", link.port), timeout=0.5) as held:
            held.sendall(b"lost")
            with pytest.raises(TimeoutError):
                held.recv(99)
            proxies.heal("0->1")
            assert held.recv(99) == b""  # the held connection is closed: the caller reconnects
        with socket.create_connection(("127.0.0.1", link.port), timeout=2) as again:
            again.sendall(b"back")
            assert again.recv(99) == b"back"
    finally:
        proxies.close()
        server.close()


def test_the_timeline_page_escapes_what_the_report_holds():
    """The HTML timeline draws each cut and verdict, and escapes every text of the report."""
    from checker.renderers.conform_page import page

    broker = {"records": [[0, 0, "<script>:0"]], "hw": 1, "alive": True, "paused": False}
    cut = {
        "index": 0,
        "after": "produce",
        "produced": "acked at offset 0",
        "check": "unreachable",
        "path": [],
        "differences": ["controller isr: (0,) / (0, 1)"],
        "unsafe": [],
        "brokers": [broker, {**broker, "alive": False}],
        "controller": {"leader": 0, "leader_epoch": 0, "isr": [0], "elr": [1]},
    }
    doc = {
        "kafka": "4.1.0",
        "preset": "kafka-4.1",
        "partial": True,
        "bounds": {"replicas": 2},
        "schedules": [
            {
                "seed": 7,
                "topic": "t<b>",
                "operations": ["produce"],
                "seconds": 1.0,
                "conforms": False,
                "safe": True,
                "cuts": [cut],
            }
        ],
    }
    text = page(doc)
    assert "<script>" not in text and "&lt;b&gt;" in text
    assert "no model state" in text and "controller isr: (0,) / (0, 1)" in text
    assert "ELR [1]" in text and ">down<" in text and "(partial: interrupted)" in text


def _zigzag(n: int) -> bytes:
    raw, out = (n << 1) ^ (n >> 63), b""
    while True:
        byte = raw & 0x7F
        raw >>= 7
        if raw:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def _batch(base: int, epoch: int, values: list[bytes]) -> bytes:
    """A v2 record batch as Kafka lays it out (uncompressed, no key, no headers)."""
    import struct

    records = b""
    for delta, value in enumerate(values):
        body = b"\x00" + _zigzag(0) + _zigzag(delta) + _zigzag(-1) + _zigzag(len(value))
        body += value + _zigzag(0)
        records += _zigzag(len(body)) + body
    tail = struct.pack(">hiqqqhii", 0, len(values) - 1, 0, 0, -1, -1, -1, len(values)) + records
    crc = crc32c(tail)
    head = struct.pack(">qiiBI", base, 4 + 1 + 4 + len(tail), epoch, 2, crc)
    return head + tail


def test_the_segment_reader_checks_crc_and_leaves_a_torn_tail_out():
    """Whole batches are read with their epochs; a batch cut short by a crash is left out;
    a flipped byte is a ``LogFormatError`` naming the byte."""
    from checker.conform.records import LogFormatError, records

    data = _batch(0, 0, [b"a", b"b"]) + _batch(2, 3, [b"c"])
    assert [(r.offset, r.leader_epoch, r.value) for r in records(data)] == [
        (0, 0, b"a"),
        (1, 0, b"b"),
        (2, 3, b"c"),
    ]
    assert [r.value for r in records(data[:-5])] == [b"a", b"b"]
    broken = bytearray(data)
    broken[-2] ^= 0xFF
    with pytest.raises(LogFormatError, match="CRC"):
        records(bytes(broken))


def test_a_gate_check_of_real_kafka_is_read_with_its_own_keys(tmp_path):
    """``mode = "conform"`` takes ``kafka``, ``schedules``, ``steps``, ``seed`` and
    ``depth``; ``walks`` is a simulation's, ``kafka`` is no other mode's, and a conform check
    expects "holds": each mistake is one line naming its key."""
    from checker.gate.config import GateConfigError, load_checks

    def read(body: str):
        path = tmp_path / "gate.toml"
        path.write_text('[[gate]]\ntruncation = "kafka-4.1"\n' + body)
        return load_checks(path)

    (check,) = read(
        'mode = "conform"\nkafka = "3.9.1"\nschedules = 2\nseed = 5\nexpect = "holds"\n'
    )
    assert check.plan == {"kafka": "3.9.1", "schedules": 2, "seed": 5}
    assert check.expectation == "real Kafka conforms, in 2 schedules"
    for body, key in [
        ('mode = "conform"\nwalks = 5\nexpect = "holds"\n', "walks"),
        ('kafka = "4.1.0"\nexpect = "holds"\n', "kafka"),
        ('mode = "conform"\nviolates = ["NoDivergence"]\n', "violates"),
    ]:
        with pytest.raises(GateConfigError, match=f"key '{key}'"):
            read(body)


def test_the_gate_runs_a_conform_check(tmp_path):
    """A gate check of real Kafka passes, with JUnit, and keeps its report in its folder."""
    (tmp_path / "gate.toml").write_text(
        '[[gate]]\nname = "real"\nmode = "conform"\ntruncation = "kafka-4.1"\n'
        'schedules = 1\nseed = 6\nsteps = 2\nexpect = "holds"\n'
    )
    done = hwcheck(
        "gate",
        "--config",
        str(tmp_path / "gate.toml"),
        "--junit-xml",
        str(tmp_path / "j.xml"),
        "--out",
        str(tmp_path / "out"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout and "No pins yet" not in done.stdout
    assert 'failures="0"' in (tmp_path / "j.xml").read_text()
    assert (tmp_path / "out" / "real" / "conform.json").exists()
    assert kafka_pids(str(tmp_path)) == []


def test_background_steps_keep_their_order_and_hand_back_an_error():
    """Steps run one after another in the order given; a step's error reaches ``finish``."""
    from checker.conform.judge import Background

    class Steps:
        def step(self, cut, counters):
            if cut == "boom":
                raise ValueError("the model raised")
            return cut

    done: list[int] = []
    background = Background(Steps())
    for n in range(50):
        background.submit(n, None, done.append)
    background.finish()
    assert done == list(range(50))
    failing = Background(Steps())
    failing.submit("boom", None, done.append)
    with pytest.raises(ValueError, match="the model raised"):
        failing.finish()


def test_a_cluster_id_never_reads_as_a_flag(tmp_path):
    """One id in 64 would start with '-', which the storage tool's ``-t`` takes for a flag
    (a campaign once failed so); ids are drawn again until they do not, as Kafka's own."""
    from checker.conform.settings import cluster_id

    ids = {cluster_id(tmp_path) for _ in range(2000)}
    assert len(ids) == 2000 and not any(i.startswith("-") for i in ids)
    assert all(len(i) == 22 for i in ids)
