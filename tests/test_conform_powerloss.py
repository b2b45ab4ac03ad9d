"""``hwcheck conform``'s power loss and schedule files: the unflushed tail cut at the
recovery point, the schedule file's grammar and bounds, a trace played as a schedule, and
(slow: real brokers) KAFKA-15584 on Kafka 4.1, where the model foresees the loss of an
acknowledged record and the real cluster loses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conformance import _batch, hwcheck, kafka_pids

from checker.cli import cli
from checker.conform import powerloss, schedule
from checker.conform.records import read_log, recovery_points
from spec.kafka.config import Config

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "conform" / "kafka-15584.txt"
GALLERY = ROOT / "reports" / "gallery" / "last-known-leader" / "trace.json"


def _broker_dir(tmp_path: Path, points: dict[str, int]) -> Path:
    """A broker's log dir with two partitions of three records, the recovery points
    ``points`` in its checkpoint (a partition it does not list was never checkpointed)."""
    data = tmp_path / "data"
    for name in ("t-0", "u-0", "__cluster_metadata-0"):
        folder = data / name
        folder.mkdir(parents=True)
        log = _batch(0, 0, [b"a", b"b"]) + _batch(2, 1, [b"c"])
        (folder / "00000000000000000000.log").write_bytes(log)
        (folder / "00000000000000000000.index").write_bytes(b"\0" * 8)
    lines = [f"{name.rsplit('-', 1)[0]} 0 {point}" for name, point in points.items()]
    (data / "recovery-point-offset-checkpoint").write_text(
        "\n".join(["0", str(len(lines)), *lines]) + "\n"
    )
    return data


def test_a_power_loss_cuts_each_log_at_its_recovery_point(tmp_path):
    """Batches at or past the recovery point go (a batch is flushed whole or not at all
    here, as the harness's records are one a batch), with the cut segments' indexes; a
    partition the checkpoint does not list loses everything; internal topics stay."""
    data = _broker_dir(tmp_path, {"t-0": 2})
    assert recovery_points(data) == {("t", 0): 2}
    assert powerloss.cut(data) == {"t-0": 1, "u-0": 3}
    assert [r.value for r in read_log(data / "t-0")] == [b"a", b"b"]
    assert read_log(data / "u-0") == []
    assert not (data / "t-0" / "00000000000000000000.index").exists()
    assert len(read_log(data / "__cluster_metadata-0")) == 3
    assert powerloss.cut(data) == {"t-0": 0, "u-0": 0}  # nothing more to lose


def test_a_schedule_file_is_read_line_by_line_and_refused_with_its_line():
    ops = schedule.parse(EXAMPLE.read_text(), 2, str(EXAMPLE))
    assert [schedule.describe(op) for op in ops] == [
        "produce",
        "crash(1)",
        "partition(0,1)",
        "restart(1)",
        "power_loss(0)",
        "heal",
        "restart(0)",
        "wait",
    ]
    for text, message in (
        ("produce\nexplode(1)", "f:2: 'explode(1)': no operation 'explode'"),
        ("crash(2)", "f:1: 'crash(2)': brokers are 0 to 1"),
        ("partition(0)", "f:1: 'partition(0)': partition takes 2 broker(s), not 1"),
        ("crash(x)", "f:1: 'crash(x)': brokers are numbers"),
        ("# nothing", "f: no operation"),
    ):
        with pytest.raises(schedule.ScheduleError) as caught:
            schedule.parse(text, 2, "f")
        assert str(caught.value).startswith(message), caught.value
    bounds = Config(replicas=2, max_crashes=1, max_unclean_shutdowns=0)
    with pytest.raises(schedule.ScheduleError, match="give --max-unclean-shutdowns 1"):
        schedule.check(ops, bounds, "f")


def test_a_trace_plays_its_environment_with_its_first_leader_as_broker_0():
    """The gallery's KAFKA-15584 trace elects replica 0 first: its produce, power loss, crash
    and restarts are played in order, the other steps left to Kafka."""
    steps = json.loads(GALLERY.read_text())["steps"][1:]
    ops = schedule.from_labels([step["action"] for step in steps])
    assert [schedule.describe(op) for op in ops] == [
        "produce",
        "power_loss(1)",
        "crash(0)",
        "restart(0)",
        "restart(1)",
    ]
    swapped = schedule.from_labels(["Elect(leader=1)", "Produce(leader=1)", "Crash(replica=1)"])
    assert swapped == [("produce", ()), ("crash", (0,))]
    scenario = (ROOT / "examples" / "scenarios" / "textbook-loss.txt").read_text()
    played = [schedule.describe(op) for op in schedule.parse(scenario, 2, "textbook-loss.txt")]
    assert played and set(played) <= {"produce", "crash(0)", "crash(1)", "restart(0)", "restart(1)"}


def test_a_schedule_the_model_cannot_hold_ends_in_one_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("crash(3)\n")
    for path, said in (
        (bad, f"{bad}:1: 'crash(3)': brokers are 0 to 1"),
        (EXAMPLE, "has 1 power_loss operation(s); the model allows 0"),
    ):
        result = CliRunner().invoke(cli, ["conform", "--replicas", "2", "--schedule", str(path)])
        assert result.exit_code == 2, result.output
        assert said in result.output and "Traceback" not in result.output


def test_kafka_41_loses_an_acknowledged_record_as_the_model_foresees(tmp_path):
    """``examples/conform/kafka-15584.txt`` on Kafka 4.1.0 (2 brokers, acks=all, min ISR 2):
    every cut is explained by a model step, and once the power-lost leader is elected again
    as the last known leader the acknowledged record is gone from the cluster (exit 12)."""
    done = hwcheck(
        "conform",
        "--replicas",
        "2",
        "--max-crashes",
        "1",
        "--max-unclean-shutdowns",
        "1",
        "--schedules",
        "1",
        "--schedule",
        str(EXAMPLE),
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 12, done.stdout + done.stderr
    (run,) = json.loads((tmp_path / "conform.json").read_text())["schedules"]
    assert [c["check"] for c in run["cuts"]] == ["explained"] * 9
    lost = [c["index"] for c in run["cuts"] if c["unsafe"]]
    assert lost and lost[0] == 7  # after restart(0): leader 0, elected with an empty log
    assert run["cuts"][5]["produced"] == "cut off: 1 record of " + run["topic"] + "-0"
    assert run["cuts"][7]["controller"]["leader"] == 0
    assert run["cuts"][7]["brokers"][0]["records"] == []
    assert "is not in leader 0's log" in run["cuts"][7]["unsafe"][0]
    assert kafka_pids(str(tmp_path)) == []
