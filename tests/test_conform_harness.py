"""The parts of ``hwcheck conform``'s harness that need no broker: the settings table of
docs/explanation/conformance.md is the harness's, a seed gives one schedule within its
bounds, a proxy's cut link is silent until healed, the timeline page escapes the report, the
background judge keeps its steps' order and hands back an error, and a cluster id never reads
as a flag."""

from __future__ import annotations

from pathlib import Path

import pytest

confluent_kafka = pytest.importorskip("confluent_kafka")


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
