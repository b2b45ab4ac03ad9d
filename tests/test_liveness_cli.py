"""``explore --liveness``, ``--fair``, ``--unfair``: verdicts in summary.json, exit codes, and
the same answers on every core and worker count."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.liveness import budget


def explore(tmp_path, *args):
    out = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        ["explore", "--no-progress", "--show", "none", "--out", str(out), *args],
        catch_exceptions=False,
    )
    summary = json.loads((out / "summary.json").read_text()) if out.exists() else None
    return result, summary


@pytest.mark.parametrize(
    "engine",
    [
        ("--core", "compiled"),
        ("--core", "reference"),
        ("--core", "compiled", "--workers", "2"),
        ("--engine", "spark", "--partitions", "3"),
    ],
)
def test_tla_liveness_is_the_same_on_every_engine_and_core(tmp_path, engine):
    result, summary = explore(tmp_path, "--model", "tla", "--liveness", *engine)
    assert result.exit_code == 12
    verdicts = {n: p["verdict"] for n, p in summary["properties"].items() if "-" in p["kind"]}
    assert verdicts == {"NamedLeaderTakesOver": "holds", "CommitProgress": "violated"}
    assert summary["properties"]["CommitProgress"]["length"] == 6
    assert "5,973 states, 11,732 edges" in result.stderr
    trace = json.loads((tmp_path / "run" / "CommitProgress" / "trace.json").read_text())
    assert trace["loop"]["stutter"] and trace["loop"]["back_to"] == 5


def test_a_named_liveness_property_is_checked_alone_with_the_safety_ones(tmp_path):
    result, summary = explore(
        tmp_path, "--model", "tla", "--invariant", "NamedLeaderTakesOver", "--invariant", "WeakIsr"
    )
    assert result.exit_code == 0, result.output
    assert set(summary["properties"]) >= {"NamedLeaderTakesOver", "WeakIsr"}
    assert "CommitProgress" not in summary["properties"]


def test_kafka_liveness_under_symmetry_is_judged_on_the_orbit_graph(tmp_path):
    result, summary = explore(tmp_path, "--replicas", "2", "--liveness")
    assert result.exit_code == 3, result.output  # LeaderElected is cut by --max-epoch
    assert summary["stats"]["symmetry"] is True
    orbits = summary["stats"]["distinct"]
    assert f"judged on the orbit graph ({orbits:,} orbits" in result.stderr
    verdicts = {n: p["verdict"] for n, p in summary["properties"].items() if "-" in p["kind"]}
    (tmp_path / "plain").mkdir()
    plain, alike = explore(tmp_path / "plain", "--replicas", "2", "--liveness", "--no-symmetry")
    assert "23,667 states" in plain.stderr and "no symmetry reduction" in plain.stderr
    assert {n: p["verdict"] for n, p in alike["properties"].items() if "-" in p["kind"]} == verdicts
    assert verdicts["LeaderElected"] == "unknown" and verdicts["FollowerCatchesUp"] == "holds"


@pytest.mark.parametrize("memory", ["6M", "16M"])
def test_memory_places_the_liveness_graph(tmp_path, memory):
    """``--memory`` against the orbit graph's estimate (56,421 orbits at 3 replicas, 1 record,
    epoch 1): at ``ORBIT_BYTES`` an orbit (8.6 MiB) it fits 16 MiB and is held in memory;
    under 6 MiB its arrays go to files (``FILE_BYTES`` an orbit held, 0.9 MiB), with a note
    and the same verdicts."""
    bounds = ("--replicas", "3", "--max-records", "1", "--max-epoch", "1", "--liveness")
    result, summary = explore(tmp_path, *bounds, "--memory", memory)
    verdicts = {n: p["verdict"] for n, p in summary["properties"].items() if "-" in p["kind"]}
    need = "the orbit graph's 56,421 orbits need about 9 MiB in memory (160 bytes each)"
    assert "judged on the orbit graph (56,421 orbits" in result.stderr
    assert (need in result.stderr) == (memory == "6M")
    assert ("holds its graph's arrays in files in" in result.stderr) == (memory == "6M")
    assert verdicts == {
        "AckedReachesIsr": "holds",
        "HwReachesLeo": "holds",
        "LeaderElected": "unknown",
        "FollowerCatchesUp": "holds",
        "ReplicasConverge": "unknown",
    }


def test_a_graph_past_memory_even_in_files_is_refused(tmp_path):
    """345,204 orbits (3 replicas, 2 records, epoch 1) under ``--memory 2M``: 53 MiB in
    memory, 5.3 MiB with the arrays in files (``FILE_BYTES`` an orbit); refused before it is
    built, every liveness property unknown with the reason."""
    bounds = ("--replicas", "3", "--max-records", "2", "--max-epoch", "1", "--liveness")
    result, summary = explore(tmp_path, *bounds, "--memory", "2M")
    assert result.exit_code == 3, result.output
    verdicts = {n: p["verdict"] for n, p in summary["properties"].items() if "-" in p["kind"]}
    assert set(verdicts.values()) == {"unknown"}
    assert (
        "the orbit graph's 345,204 orbits need about 53 MiB in memory (160 bytes each), past "
        "--memory 2 MiB, and about 5 MiB with its arrays in files (16 bytes each)"
        in summary["reason"]
    )


def test_the_graph_s_files_want_room_on_a_disk(tmp_path, monkeypatch):
    """The files' folder must have room for them (``DISK_ORBIT_BYTES`` an orbit: 10 MiB
    here), else under ``--memory`` the graph is refused before it is built; a folder on a
    tmpfs is used with a warning (its files would be held in memory)."""
    bounds = ("--replicas", "3", "--max-records", "1", "--max-epoch", "1", "--liveness")
    real = budget.disk_usage
    monkeypatch.setattr(budget, "disk_usage", lambda path: real(path)._replace(free=1 << 20))
    result, summary = explore(tmp_path, *bounds, "--memory", "6M")
    assert result.exit_code == 3, result.output
    assert "and its files would take about 10 MiB in " in summary["reason"]
    assert "which has 1 MiB free: set TMPDIR to a folder with room" in summary["reason"]
    monkeypatch.setattr(budget, "disk_usage", real)
    monkeypatch.setattr(budget, "filesystem", lambda folder: "tmpfs")
    (tmp_path / "tmpfs").mkdir()
    result, summary = explore(tmp_path / "tmpfs", *bounds, "--memory", "6M")
    assert "is on a tmpfs, whose files are held in memory: set TMPDIR to a disk" in result.stderr
    assert summary["properties"]["FollowerCatchesUp"]["verdict"] == "holds"


def test_the_file_system_of_a_folder_is_its_longest_mount_s():
    """``/proc/mounts``' longest mount point holding the folder names its file system."""
    assert budget.filesystem("/proc/self") == "proc"
    assert budget.filesystem("/proc") == "proc"
    assert budget.filesystem("/") not in ("", "proc")


def test_the_plain_graph_past_memory_is_held_in_files_too(tmp_path):
    """``--no-symmetry`` at 2 replicas: the plain graph's 23,667 states need 7 MiB at
    ``PLAIN_BYTES``, past 6 MiB, and 0.4 MiB at ``FILE_BYTES``: held in files, with the
    plain graph's verdicts."""
    result, summary = explore(
        tmp_path, "--replicas", "2", "--liveness", "--no-symmetry", "--memory", "6M"
    )
    assert result.exit_code == 3, result.output  # LeaderElected is cut by --max-epoch
    assert "the whole plain graph's 23,667 states need about 7 MiB in memory" in result.stderr
    assert "holds its graph's arrays in files in" in result.stderr
    assert "judged on the whole plain graph (23,667 states" in result.stderr
    verdicts = {n: p["verdict"] for n, p in summary["properties"].items() if "-" in p["kind"]}
    assert verdicts["LeaderElected"] == "unknown" and verdicts["FollowerCatchesUp"] == "holds"


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--fair=WF(Fetch", "not a fairness constraint: 'WF(Fetch'"),
        ("--fair=Crash", "Crash is a perturbation and cannot be fair"),
        ("--fair=WF(Fetch when Sunny)", "no condition 'Sunny' in this model"),
        ("--unfair=Teleport", "no action 'Teleport' in this model"),
    ],
)
def test_bad_fairness_is_one_line_and_exit_2(tmp_path, flag, message):
    result, _ = explore(tmp_path, "--replicas", "2", "--liveness", flag)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_liveness_on_a_model_without_it_is_a_usage_error(tmp_path):
    result, _ = explore(tmp_path, "--model", "tla", "--truncation", "async-isr", "--liveness")
    assert result.exit_code == 2
    assert "has no liveness property" in result.output


GATE = """
[[tool.hwcheck.gate]]
name = "tla kip320 liveness"
model = "tla"
truncation = "kip320"
replicas = 2
liveness = true
invariants = ["NamedLeaderTakesOver", "CommitProgress", "WeakIsr"]
violates = ["CommitProgress"]

[[tool.hwcheck.gate]]
name = "tla kip320 fair fetch"
model = "tla"
truncation = "kip320"
replicas = 2
invariants = ["CommitProgress", "WeakIsr"]
fairness = "SF(FencedLeaderIncHighWatermark), SF(LeaderWrite), WF(FencedBecomeFollowerAndTruncate), WF(BecomeLeader), WF(each FencedFollowerFetch)"
expect = "holds"
"""


def test_the_gate_checks_liveness_with_its_own_fairness_and_pins_the_lasso(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "pyproject.toml"
    config.write_text(GATE)
    gate = ["gate", "--config", str(config), "--no-progress"]
    first = CliRunner().invoke(cli, [*gate, "--update"], catch_exceptions=False)
    assert first.exit_code == 0, first.output
    lock = json.loads((tmp_path / "hwcheck-gate.lock").read_text())
    pinned = lock["checks"]["tla kip320 liveness"]["violations"]["CommitProgress"]
    assert pinned["length"] == 6
    assert lock["checks"]["tla kip320 fair fetch"]["check"]["fairness"].startswith("SF(")
    again = CliRunner().invoke(cli, gate, catch_exceptions=False)
    assert again.exit_code == 0, again.output
    config.write_text(GATE.replace("WF(each FencedFollowerFetch)", "WF(Teleport)"))
    bad = CliRunner().invoke(cli, gate, catch_exceptions=False)
    assert bad.exit_code == 4 and "key 'fairness': no action 'Teleport'" in bad.output


def test_simulate_finds_the_stuttering_lasso_and_shrinks_it(tmp_path):
    out = tmp_path / "sim"
    result = CliRunner().invoke(
        cli,
        ["simulate", "--model", "tla", "--liveness", "--walks", "200", "--no-progress"]
        + ["--show", "none", "--out", str(out)],
        catch_exceptions=False,
    )
    assert result.exit_code == 12, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["properties"]["CommitProgress"]["verdict"] == "violated"
    assert summary["properties"]["NamedLeaderTakesOver"]["verdict"] == "not found"
    trace = json.loads((out / "CommitProgress" / "trace.json").read_text())
    # a real lasso: it ends where no fair action is enabled, found by walk 1 of seed 0
    assert trace["found_by"]["walk"] == 1 and trace["length"] == 9


def test_liveness_after_a_resumed_search_is_the_one_run_answer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = ["explore", "--model", "tla", "--liveness", "--no-progress", "--show", "none"]
    cut = CliRunner().invoke(
        cli,
        [*base, "--core", "reference", "--workers", "1", "--checkpoint", "ckpt"]
        + ["--checkpoint-every", "0.0001", "--time-limit", "0.05", "--out", "r1", "--json"],
        catch_exceptions=False,
    )
    # cut short: exit 3 (LeaderInIsr, false in the initial state, is checked only when named)
    assert cut.exit_code == 3 and "Resume with" in cut.output, cut.output
    first = json.loads(cut.stdout[: cut.stdout.rindex("}") + 1])
    assert first["properties"]["CommitProgress"]["verdict"] == "unknown"
    again = CliRunner().invoke(
        cli, [*base, "--resume", "ckpt", "--out", "r2", "--json"], catch_exceptions=False
    )
    assert again.exit_code == 12, again.output
    resumed = json.loads(again.stdout)
    assert resumed["properties"]["CommitProgress"]["verdict"] == "violated"
    assert resumed["properties"]["CommitProgress"]["length"] == 6
    assert resumed["properties"]["NamedLeaderTakesOver"]["verdict"] == "holds"


def test_a_premise_never_reached_is_called_vacuous(tmp_path):
    result, summary = explore(tmp_path, "--model", "tla", "--liveness", "--max-records", "0")
    assert summary["properties"]["CommitProgress"]["verdict"] == "holds"
    assert "CommitProgress holds vacuously: no reachable state opens an obligation" in (
        result.stderr
    )


def test_a_walk_that_runs_out_of_fair_steps_is_only_suspected(tmp_path):
    result = CliRunner().invoke(
        cli,
        ["simulate", "--replicas", "2", "--liveness", "--liveness-bound", "1", "--walks", "300"]
        + ["--no-progress", "--show", "none", "--core", "reference", "--out", str(tmp_path / "s")],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert (
        "HwReachesLeo: suspected violation: walk 129 still had it open after 1 fair step "
        "(suspected, not a proof)" in result.stderr
    )
    # a loop where only the epoch budget keeps the election away proves nothing either
    # (a leader fenced while it runs, again and again, spends the epochs)
    assert (
        "LeaderElected: suspected violation: walk 0 ended in a loop where the partition has no "
        "leader and --max-epoch 6 forbids the next election (unknown at these bounds, not a "
        "proof)" in result.stderr
    )


def test_ctrl_c_during_the_liveness_pass_leaves_it_unknown(tmp_path, monkeypatch):
    from checker.liveness import run as live

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(live, "check", interrupted)
    result, summary = explore(tmp_path, "--replicas", "2", "--liveness")
    assert result.exit_code == 3
    assert "Interrupted (Ctrl-C) in the liveness pass: the results below are partial." in (
        result.stderr
    )
    assert "The search had finished" in result.stderr
    assert summary["status"] == "INCOMPLETE"
    assert summary["properties"]["LeaderElected"]["verdict"] == "unknown"
    assert summary["properties"]["NoCommittedLoss"]["verdict"] == "holds"
