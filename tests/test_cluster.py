"""``--cluster``: a broker's server.properties and a topic's settings read as Kafka reads them,
mapped to the Kafka model's options, refused in one line when the model cannot take a value,
and answered with the bounds; the gate's ``cluster`` / ``kafka_version`` keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.composition.cluster import ClusterError, map_cluster
from checker.formats.cluster import ClusterFileError, read

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "cluster"


def invoke(*args):
    return CliRunner().invoke(cli, list(map(str, args)))


def settings_of(tmp_path, *texts):
    paths = []
    for i, text in enumerate(texts):
        path = tmp_path / f"f{i}.properties"
        path.write_bytes(text.encode("latin-1"))
        paths.append(path)
    return read(paths)


def mapped(tmp_path, version, *texts, **given):
    return map_cluster(version, settings_of(tmp_path, *texts), given)


def test_java_properties_syntax_as_kafka_reads_it(tmp_path):
    text = (
        "# a comment\n"
        "! another = comment\n"
        "min.insync.replicas : 2\n"
        "acks all\n"
        "unclean.leader.election.enable=\\\n"
        "    false\n"
        "default.replication.factor=\\u0033\n"
        "listeners=PLAINTEXT://:9092\n"
        "listeners=PLAINTEXT://:9093\n"
    )
    got = settings_of(tmp_path, text)
    assert {k: s.value for k, s in got.items()} == {
        "min.insync.replicas": "2",
        "acks": "all",
        "unclean.leader.election.enable": "false",
        "default.replication.factor": "3",
        "listeners": "PLAINTEXT://:9093",  # the last line of a key wins
    }
    assert [got[k].line for k in ("min.insync.replicas", "acks")] == [3, 4]
    assert got["unclean.leader.election.enable"].line == 5  # its first line
    assert got["default.replication.factor"].line == 7  # counted past the continuation
    assert got["listeners"].line == 9


def test_a_topic_file_overrides_the_broker_and_says_where(tmp_path):
    broker = "min.insync.replicas=1\nlog.flush.interval.messages=1000\n"
    topic = "min.insync.replicas=2\nflush.messages=1\n"
    mapping = mapped(tmp_path, "3.6.1", broker, topic)
    assert mapping.options["min_isr"] == 2
    assert mapping.options["flush"] == "always"
    rows = {row.setting: row for row in mapping.rows}
    assert rows["min.insync.replicas"].source.endswith(
        "f1.properties:1 (over " + str(tmp_path / "f0.properties") + ":1)"
    )
    assert rows["flush.messages"].option == "--flush always"
    assert "the topic's flush.messages overrides it" in [r.note for r in mapping.ignored]


def test_each_key_maps_to_its_option(tmp_path):
    text = (
        "acks=-1\nmin.insync.replicas=2\nunclean.leader.election.enable=TRUE\n"
        "log.flush.interval.messages=1\ndefault.replication.factor=2\n"
    )
    mapping = mapped(tmp_path, "3.6.1", text)
    assert mapping.options == {
        "truncation": "kafka-3.6",
        "acks": "all",
        "min_isr": 2,
        "unclean_election": True,
        "flush": "always",
        "replicas": 2,
    }
    assert mapping.said == (
        "Kafka 3.6.1 → preset kafka-3.6; acks=all, min.insync.replicas=2, unclean election on"
    )
    assert {row.setting: row.option for row in mapping.rows} == {
        "Kafka version": "--truncation kafka-3.6",
        "acks": "--acks all",
        "min.insync.replicas": "--min-isr 2",
        "unclean.leader.election.enable": "--unclean",
        "log.flush.interval.messages": "--flush always",
        "default.replication.factor": "--replicas 2",
    }
    assert "producer" in next(r.note for r in mapping.rows if r.setting == "acks")


def test_unset_keys_take_kafkas_defaults_and_a_large_rf_is_capped(tmp_path):
    mapping = mapped(tmp_path, "3.9.0", "log.flush.interval.messages=5000\n")
    assert mapping.options == {
        "truncation": "kafka-3.7",
        "acks": "all",
        "min_isr": 1,
        "unclean_election": False,
        "flush": "background",
        "replicas": 3,
    }
    assert {r.source for r in mapping.rows if r.setting != "log.flush.interval.messages"} >= {
        "Kafka's default"
    }
    capped = mapped(tmp_path, "3.9.0", "default.replication.factor=5\nacks=1\n")
    assert capped.options["replicas"] == 3 and capped.options["acks"] == "1"
    note = next(r.note for r in capped.rows if r.setting == "default.replication.factor")
    assert note.startswith("capped: the model explores 3 of your 5 replicas")


def test_the_command_line_wins_and_says_so(tmp_path):
    mapping = mapped(tmp_path, "3.6.1", "min.insync.replicas=2\n", min_isr=1)
    assert mapping.options["min_isr"] == 1
    row = next(r for r in mapping.rows if r.setting == "min.insync.replicas")
    assert row.source == "command line (the file: 2)"


def test_ignored_and_unmodelled_keys_are_listed_with_reasons(tmp_path):
    text = (
        "listeners=PLAINTEXT://:9092\nssl.keystore.location=/k\nlog.retention.hours=168\n"
        "replica.lag.time.max.ms=30000\nauto.leader.rebalance.enable=true\nfoo.bar=1\n"
        "offsets.topic.replication.factor=3\n"
    )
    mapping = mapped(tmp_path, "3.6.1", text)
    assert {r.setting: r.note for r in mapping.ignored} == {
        "listeners": "network settings: not replication semantics",
        "ssl.keystore.location": "security: not replication semantics",
        "log.retention.hours": "retention, segments, compaction: the model's log starts at 0 "
        "and is never cleaned",
        "foo.bar": "not a setting the model reads",
        "offsets.topic.replication.factor": "internal topics' settings: another partition "
        "(check it with its own values)",
    }
    assert [r.setting for r in mapping.not_modelled] == ["replica.lag.time.max.ms"]
    assert "abstracts time" in mapping.not_modelled[0].note
    assert [r.setting for r in mapping.covered] == ["auto.leader.rebalance.enable"]


def test_eligible_leader_replicas_new_and_upgraded_41_clusters(tmp_path):
    """Kafka 4.1's ``EligibleLeaderReplicasVersion``: level 1 is the default from metadata
    version 4.1-IV0 (a new cluster); an upgraded cluster keeps 0 (4.0's rules)."""
    new = mapped(tmp_path, "4.1.0", "min.insync.replicas=2\n")
    assert new.preset == new.options["truncation"] == "kafka-4.1"
    upgraded = mapped(tmp_path, "4.1.0", "eligible.leader.replicas.version=0\n")
    assert upgraded.preset == upgraded.options["truncation"] == "kafka-4.0"
    row = next(r for r in upgraded.rows if r.setting == "eligible.leader.replicas.version")
    assert row.option == "--truncation kafka-4.0" and "upgraded" in row.note
    enabled = mapped(tmp_path, "4.2.0", "eligible.leader.replicas.version=1\n")
    assert enabled.preset == "kafka-4.1"
    with pytest.raises(ClusterError, match="preview"):
        mapped(tmp_path, "4.0.0", "eligible.leader.replicas.version=1\n")
    with pytest.raises(ClusterError, match="no such feature"):
        mapped(tmp_path, "3.6.1", "eligible.leader.replicas.version=0\n")


def test_zookeeper_and_an_old_inter_broker_protocol_move_the_preset(tmp_path):
    zk = mapped(tmp_path, "3.6.1", "zookeeper.connect=zk:2181\n")
    assert zk.options["without_mechanisms"] == ("broker-epoch", "shrink-in-epoch")
    assert zk.said.startswith("Kafka 3.6.1 → preset kafka-3.6 without broker-epoch, shrink-in")
    kraft = mapped(tmp_path, "3.6.1", "process.roles=broker\nzookeeper.connect=zk:2181\n")
    assert "without_mechanisms" not in kraft.options
    old = mapped(tmp_path, "3.0.0", "zookeeper.connect=zk\ninter.broker.protocol.version=2.7-IV0\n")
    assert old.preset == "kafka-2.1"
    current = mapped(tmp_path, "3.0.0", "zookeeper.connect=zk\ninter.broker.protocol.version=2.7\n")
    assert current.preset == "kafka-3.0"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("min.insync.replicas=abc\n", "min.insync.replicas='abc': not an integer"),
        ("min.insync.replicas=0\n", "min.insync.replicas=0: at least 1"),
        ("unclean.leader.election.enable=yes\n", "'yes': true or false"),
        ("acks=0\n", "acks='0': the model's producer waits for 1 or all (-1)"),
        ("default.replication.factor=2\nmin.insync.replicas=3\n", "needs at least that many"),
        ("a=\\u12\n", "a malformed \\u escape"),
        ("a=\\u001b[31m\n", "a control character"),
    ],
)
def test_a_value_the_model_cannot_take_is_one_line_and_exit_4(tmp_path, text, message):
    path = tmp_path / "server.properties"
    path.write_text(text)
    run = invoke("explore", "--cluster", path, "--kafka-version", "3.6.1", "--no-progress")
    assert run.exit_code == 4, run.output
    lines = run.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}:")
    assert message in lines[0]


def test_version_problems_are_usage_errors(tmp_path):
    path = tmp_path / "server.properties"
    path.write_text("min.insync.replicas=1\n")
    for args, said in [
        (("--kafka-version", "5.0.0"), "not a release line this model knows"),
        (("--kafka-version", "kip320"), "'kip320' is not a Kafka version"),
        ((), "--cluster needs --kafka-version"),
        (("--kafka-version", "3.6.1", "--truncation", "kip320"), "drop --truncation"),
        (("--kafka-version", "3.6.1", "--model", "tla"), "to the kafka model, not tla"),
    ]:
        run = invoke("explore", "--cluster", path, *args, "--no-progress")
        assert run.exit_code == 2, run.output
        assert said in run.output
    missing = invoke("explore", "--cluster", tmp_path / "nope", "--kafka-version", "3.6.1")
    assert missing.exit_code == 4
    assert missing.output.startswith(f"Error: {tmp_path / 'nope'}: cannot read")


def _summary(folder):
    summary = json.loads((folder / "summary.json").read_text())
    return summary["config"], summary["status"], summary["stats"]["distinct"], summary["properties"]


def test_a_cluster_run_is_the_run_of_its_flags(tmp_path):
    """The example (Kafka 3.6.1, KRaft, topic RF 2, min.insync.replicas 2, clean elections)
    runs exactly ``--replicas 2 --truncation kafka-3.6 --min-isr 2 --flush always``; that
    holds, as kafka-3.6 holds every property at the default bounds (README's table)."""
    files = ("--cluster", EXAMPLE / "server.properties")
    files += ("--cluster", EXAMPLE / "orders-topic.properties")
    run = invoke("explore", *files, "--kafka-version", "3.6.1", "--no-progress",
                 "--out", tmp_path / "c")  # fmt: skip
    assert run.exit_code == 0, run.output
    flags = invoke("explore", "--replicas", 2, "--truncation", "kafka-3.6", "--min-isr", 2,
                   "--flush", "always", "--no-progress", "--out", tmp_path / "f")  # fmt: skip
    assert flags.exit_code == 0
    assert _summary(tmp_path / "c") == _summary(tmp_path / "f")
    out = " ".join(run.output.split())
    assert "Your cluster → the model: Kafka 3.6.1 → preset kafka-3.6;" in out
    assert (
        "Within 2 replicas, 2 records, 1 crash, leader epochs ≤ 2, no power loss: no committed "
        "or acknowledged record is lost, no replica diverges: every property holds, every "
        "interleaving checked. "
        "Outside these bounds: unknown."
    ) in out


def test_unclean_election_at_two_replicas_loses_a_committed_record(tmp_path):
    """unclean.leader.election.enable=true elects a replica outside the ISR when none of the
    ISR is up: by design it may lack committed records (UncleanElect), exit 12."""
    path = tmp_path / "server.properties"
    path.write_text("process.roles=broker\ndefault.replication.factor=2\n"
                    "unclean.leader.election.enable=true\n")  # fmt: skip
    run = invoke("explore", "--cluster", path, "--kafka-version", "3.6.1", "--no-progress",
                 "--out", tmp_path / "r", "--show", "none")  # fmt: skip
    assert run.exit_code == 12, run.output
    out = " ".join(run.output.split())
    assert "a committed record can be lost (NoCommittedLoss" in out
    assert "Outside these bounds: unknown." in out


GATE = """
[[tool.hwcheck.gate]]
name = "our orders topic"
cluster = ["server.properties", "orders-topic.properties"]
kafka_version = "3.6.1"
expect = "holds"
"""


def test_the_gate_takes_cluster_and_kafka_version(tmp_path):
    for name in ("server.properties", "orders-topic.properties"):
        (tmp_path / name).write_bytes((EXAMPLE / name).read_bytes())
    config = tmp_path / "gate.toml"
    config.write_text(GATE)
    run = invoke("gate", "--config", config, "--workers", 1, "--update", "--no-progress")
    assert run.exit_code == 0, run.output
    pinned = json.loads((tmp_path / "hwcheck-gate.lock").read_text())["checks"]
    check = pinned["our orders topic"]["check"]
    assert check["truncation"] == "kafka-3.6"
    assert (check["replicas"], check["min_isr"], check["flush"]) == (2, 2, "always")
    assert check["cluster"] == ["server.properties", "orders-topic.properties"]
    (tmp_path / "orders-topic.properties").write_text("min.insync.replicas=abc\n")
    bad = invoke("gate", "--config", config, "--no-progress")
    assert bad.exit_code == 4
    assert f"{config}:4: gate check 1, key 'cluster': " in bad.output
    assert "min.insync.replicas='abc': not an integer" in bad.output
    config.write_text(GATE.replace('kafka_version = "3.6.1"\n', 'truncation = "kip320"\n'))
    both = invoke("gate", "--config", config, "--no-progress")
    assert both.exit_code == 4
    assert "needs truncation, or cluster with kafka_version" in both.output


def test_reading_errors_name_the_file(tmp_path):
    big = tmp_path / "big.properties"
    big.write_bytes(b"#" * ((1 << 20) + 1))
    with pytest.raises(ClusterFileError, match="larger than 1 MiB"):
        read([big])
