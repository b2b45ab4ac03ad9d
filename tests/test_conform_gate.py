"""Conform checks in the gate (``mode = "conform"``): a check of real Kafka is read with its
own keys and a mistake is one line naming its key; and (slow: real brokers) a gate check of
real Kafka passes, with JUnit, its report kept in its folder and no JVM left."""

from __future__ import annotations

import pytest
from conformance import hwcheck, kafka_pids

confluent_kafka = pytest.importorskip("confluent_kafka")


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
