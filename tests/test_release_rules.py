"""Kafka's rules where a fresh read of its code corrected the model (issue 62), each shown
by a schedule file in ``tests/data/scenarios/`` played with ``hwcheck scenario``: the
behaviour the release has is enabled, the one it lacks is refused with the guard that says
why; and every Kafka version maps to the release preset that models it.

The scenario files say, line by line, what each step does; the expectations below are read
off those stories (A step's refusal is the scenario command's exit 4, with the false guard).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import invariants
from checker.cli import cli
from checker.formats import schedule
from checker.simulate.scenario import play
from spec.kafka import Config, KafkaSpec, releases, versions
from spec.kafka.state import C_ISR, CONTROLLER, LOG, REPLICAS

SCENARIOS = Path(__file__).resolve().parent / "data" / "scenarios"


def scenario(tmp_path, name, *flags):
    """``(exit code, output)`` of ``hwcheck scenario`` on the file ``name``."""
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["scenario", str(SCENARIOS / name), *flags, "--out", str(out)])
    return result.exit_code, result.output


def played(name, **changed):
    """The schedule ``name`` played on the model its header names (``changed``: Config
    fields over the header's), every invariant judged (``checker.simulate.scenario.play``)."""
    read = schedule.load(SCENARIOS / name)
    given, flags = {}, list(read.header)
    while flags:
        flag, value = flags.pop(0)[2:].replace("-", "_"), flags.pop(0)
        if flag in ("with", "without"):
            given[f"{flag}_mechanisms"] = (*given.get(f"{flag}_mechanisms", ()), value)
        else:
            given[flag] = value if flag == "truncation" else int(value)
    spec = KafkaSpec(Config(**{**given, **changed}))
    done = play(spec, invariants.catalog(spec), [step.label for step in read.steps])
    assert done.disabled is None, done.disabled
    return done


def refused(code, output, line, why):
    assert code == 4, output
    assert f"line {line}:" in output and "is not enabled" in output and why in output, output


def test_a_crashed_leader_returns_only_in_a_newer_epoch(tmp_path):
    """Kafka fences a dead leader's broker before it registers again (KRaft) or handles its
    return as a failure first (ZooKeeper, KIP-380): the controller takes the leadership away
    in a new epoch, and the broker leads again only in a newer one."""
    code, output = scenario(tmp_path, "restarted-leader.txt")
    assert code == 0, output
    rushed = tmp_path / "rushed.txt"
    lines = (SCENARIOS / "restarted-leader.txt").read_text().splitlines()
    kept = [line for line in lines if not line.startswith("ControllerShrinkIsr")]
    rushed.write_text("\n".join(kept) + "\n")
    result = CliRunner().invoke(cli, ["scenario", str(rushed), "--out", str(tmp_path / "r")])
    refused(
        result.exit_code,
        result.output,
        lines.index("Restart(replica=0)"),
        "replica 0 is the controller's leader of epoch 0",
    )


@pytest.mark.parametrize("preset", ["kafka-0.10", "kafka-3.0", "kafka-4.1", "kip320"])
def test_no_preset_lets_a_returning_leader_take_its_old_epoch(tmp_path, preset):
    """The rule is Kafka's in every release (issue 62: it was missing in all of them)."""
    path = tmp_path / "old-epoch.txt"
    path.write_text(
        "# hwcheck: --replicas 2 --max-records 1 --max-epoch 2 --max-crashes 1\n"
        "Elect(leader=0)\nBecomeLeader(replica=0, epoch=0)\nCrash(replica=0)\n"
        "Restart(replica=0)\nBecomeLeader(replica=0, epoch=0)\n"
    )
    result = CliRunner().invoke(
        cli, ["scenario", str(path), "--truncation", preset, "--out", str(tmp_path / "o")]
    )
    refused(result.exit_code, result.output, 5, "comes back only once the controller")


def test_kip_903_closes_the_race_of_a_stale_leo(tmp_path):
    """3.4.1 (and older) keeps a follower's LEO across its unclean shutdown and adds it to the
    ISR without the committed m0: WeakIsr and StrongIsr fail at the last step. From 3.5 the
    leader forgot that LEO, and ExpandIsr is refused."""
    code, output = scenario(tmp_path, "kip-903.txt")
    assert code == 12, output
    done = played("kip-903.txt")
    assert done.first == {"WeakIsr": 10, "StrongIsr": 10}  # after the ExpandIsr, step 10
    for later in ("kafka-3.5", "kafka-4.1"):
        code, output = scenario(tmp_path, "kip-903.txt", "--truncation", later)
        refused(code, output, 17, "came back from an unclean shutdown (KIP-903)")
    code, output = scenario(tmp_path, "kip-903.txt", "--truncation", "kafka-3.5",
                            "--without", "broker-epoch")  # fmt: skip
    assert code == 12, output  # 3.5 with ZooKeeper


def test_kip_841_keeps_a_crashed_replica_out_of_the_isr(tmp_path):
    code, output = scenario(tmp_path, "kip-841.txt")
    assert code == 0, output
    for later in ("kafka-3.3", "kafka-3.4.1", "kafka-4.1"):
        code, output = scenario(tmp_path, "kip-841.txt", "--truncation", later)
        refused(code, output, 15, "live ISR (KIP-841): replica 1 is down")
    code, output = scenario(tmp_path, "kip-841.txt", "--truncation", "kafka-3.3",
                            "--without", "live-isr")  # fmt: skip
    assert code == 0, output


def test_isr_expansion_asks_the_followers_leo_not_the_leaders_hw(tmp_path):
    """The follower's LEO reaches the start of the leader's epoch (offset 1) while the
    leader's HW is 0: Kafka adds it (``Partition.isFollowerInSync``)."""
    code, output = scenario(tmp_path, "isr-expansion.txt")
    assert code == 0, output
    assert played("isr-expansion.txt").steps[-1].state[CONTROLLER][C_ISR] == (0, 1, 2)
    path = tmp_path / "short.txt"  # one fetch less: 0's LEO is still 1, but not yet recorded
    lines = (SCENARIOS / "isr-expansion.txt").read_text().splitlines()
    path.write_text("\n".join(line for line in lines if not line.startswith("Fetch(follower=0")))
    result = CliRunner().invoke(cli, ["scenario", str(path), "--out", str(tmp_path / "s")])
    assert result.exit_code == 4 and "has seen no fetch from replica 0" in result.output


def test_a_response_across_epochs_of_one_leader(tmp_path):
    """2.8.0 to 3.9.0 and 4.0.0 apply it (follower 1 appends m0); KAFKA-18991 drops it."""
    applied = played("fenced-response.txt").steps[-1].state
    assert applied[REPLICAS][1][LOG] == ((0, 0),)
    dropped = played("fenced-response.txt", truncation="kafka-4.1").steps[-1].state
    assert dropped[REPLICAS][1][LOG] == ()


BOUNDARY = {
    "2.0.1": "kafka-2.0",
    "2.7.2": "kafka-2.1",
    "2.8.0": "kafka-2.8",
    "2.8.1": "kafka-3.0",
    "3.0.0": "kafka-3.0",
    "3.2.3": "kafka-3.0",
    "3.3.0": "kafka-3.3",
    "3.4.0": "kafka-3.3",
    "3.4.1": "kafka-3.4.1",
    "3.5.0": "kafka-3.5",
    "3.5.1": "kafka-3.5.1",
    "3.5.2": "kafka-3.5.1",
    "3.6.0": "kafka-3.6",
    "3.6.2": "kafka-3.6",
    "3.7.0": "kafka-3.7",
    "3.9.1": "kafka-3.7",
    "4.0.0": "kafka-4.0",
    "4.1.0": "kafka-4.1",
    "4.2.0": "kafka-4.1",
    "4.3.0": "kafka-4.1",
    "4.4.0": "kafka-4.1",
}
"""Each release boundary, from the fix versions of the tickets and KIPs (``releases.py``'s
sources), written here once by hand so that a moved alias fails."""


def test_every_boundary_version_maps_to_its_preset():
    assert set(BOUNDARY) == set(versions.BOUNDARIES)
    for version, preset in BOUNDARY.items():
        for spelling in (version, f"kafka-{version}"):
            assert Config(truncation=spelling).validate().truncation == preset, spelling
    for release in releases.RELEASES:  # a preset's own name names itself
        assert versions.preset_for(release.name) == release.name


def test_an_unknown_release_line_names_the_nearest(tmp_path):
    result = CliRunner().invoke(cli, ["explore", "--truncation", "kafka-5.0", "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "Kafka 5.0 is not a release line this model knows (0.8 to 4.4)" in result.output
    assert "the nearest is 4.4, modelled by kafka-4.1" in result.output


def test_a_mapped_version_says_which_preset_it_runs(tmp_path, monkeypatch):
    from checker.commands import versions

    monkeypatch.setattr(versions, "_SAID", set())
    args = ["explore", "--replicas", "2", "--no-progress", "--out", str(tmp_path / "o")]
    ran = CliRunner().invoke(cli, [*args, "--truncation", "kafka-3.6.1"])
    assert ran.exit_code == 0, ran.output
    assert "Note: kafka-3.6.1 runs the preset kafka-3.6 (3.6.0 - 3.6.2)." in (ran.stderr)
    plain = CliRunner().invoke(cli, [*args, "--truncation", "kafka-3.6"])
    assert "Note:" not in plain.stderr.replace("Note: liveness", "")
