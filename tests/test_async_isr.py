"""The port of the public spec's AsyncIsr module (``--model tla --truncation async-isr``):
each operator on hand-built states, the state constraint, TLC's count and the CLI.

A state is ``(controller ISR, controller version, leader ISR, leader version, pending ISR,
pending version, offsets, requests, updates)``; the leader is replica 0; messages are
``(isr, version)``.
"""

from __future__ import annotations

from click.testing import CliRunner
from reference import enumerate_states

from checker.cli import cli
from checker.composition.compose import build_model
from checker.search.reference.bfs import explore
from spec.tla import TlaConfig
from spec.tla.async_isr import high_watermark, valid_high_watermark


def spec_of(replicas=2, **bounds):
    return build_model("tla", TlaConfig(replicas=replicas, truncation="async-isr", **bounds))


def moves(spec, s):
    return {str(label): nxt for label, nxt in spec.successors(s)}


INIT_2 = ((0, 1), 0, (0, 1), 0, (), -1, (0, 0), (), ())


def test_init_allows_only_the_leaders_write_and_the_shrinks():
    spec, _ = spec_of()
    (init,) = spec.init_states()
    assert init == INIT_2
    assert sorted(moves(spec, init)) == [
        "ControllerShrinkIsr(replica=1)",
        "LeaderRequestShrinkIsr(replica=1)",
        "LeaderWrite()",
    ]


def test_a_request_is_pending_until_the_update_arrives():
    """The leader asks to drop replica 1: the request carries its version 0 and {0} joins its
    pending ISR, so the HW still counts replica 1 (min over {0, 1} ∪ {0}) until the update."""
    spec, _ = spec_of()
    s = ((0, 1), 0, (0, 1), 0, (), -1, (2, 1), (), ())
    asked = moves(spec, s)["LeaderRequestShrinkIsr(replica=1)"]
    assert asked == ((0, 1), 0, (0, 1), 0, (0,), 0, (2, 1), (((0,), 0),), ())
    assert high_watermark(asked) == 1
    accepted = moves(spec, asked)["ControllerHandleRequest(isr=(0,), version=0)"]
    assert accepted[:2] == ((0,), 1) and accepted[-1] == (((0,), 1),)
    applied = moves(spec, accepted)["LeaderHandleUpdate(isr=(0,), version=1)"]
    assert applied[2:6] == ((0,), 1, (), -1)
    assert high_watermark(applied) == 2  # replica 1 no longer counts


def test_the_controller_rejects_a_request_of_an_old_version():
    """The controller shrank the ISR on its own (version 1): the leader's request of version 0
    is not accepted."""
    spec, _ = spec_of()
    s = ((0,), 1, (0, 1), 0, (0,), 0, (1, 0), (((0,), 0),), (((0,), 1),))
    assert not any(k.startswith("ControllerHandleRequest") for k in moves(spec, s))


def test_expansion_needs_the_offset_at_the_hw_and_counts_at_once():
    spec, _ = spec_of()
    s = ((0,), 1, (0,), 1, (), -1, (2, 1), (), (((0,), 1),))
    assert "LeaderRequestExpandIsr(replica=1)" not in moves(spec, s)  # offset 1 < HW 2
    caught_up = ((0,), 1, (0,), 1, (), -1, (2, 2), (), (((0,), 1),))
    asked = moves(spec, caught_up)["LeaderRequestExpandIsr(replica=1)"]
    assert asked[4:6] == ((0, 1), 1)  # pending: the ISR it asked for, at its version
    assert high_watermark(asked) == 2


def test_valid_high_watermark_reads_the_controllers_isr():
    """Replica 1 is in the controller's ISR with offset 0 while the leader's HW, over its own
    ISR {0}, is 1: the invariant fails (a state the module never reaches)."""
    assert not valid_high_watermark(((0, 1), 1, (0,), 1, (), -1, (1, 0), (), ()))
    assert valid_high_watermark(((0,), 1, (0,), 1, (), -1, (1, 0), (), ()))


def test_the_state_constraint_bounds_offsets_and_versions():
    spec, _ = spec_of(max_offset=1, max_version=0)
    s = ((0, 1), 0, (0, 1), 0, (), -1, (1, 1), (), ())
    assert "LeaderWrite()" not in moves(spec, s)  # offset 2 > MaxOffset 1
    assert "ControllerShrinkIsr(replica=1)" not in moves(spec, s)  # version 1 > 0


def test_tlc_counts_and_the_naive_enumerator():
    """TLC 2.18: 168 distinct states, depth 15, for Replicas {r1, r2}, Leader r1, MaxOffset 2,
    versions up to 3. At 3 replicas the naive enumerator (tests/reference.py) counts what
    the engine counts. ValidHighWatermark holds in both."""
    for replicas, count, depth in ((2, 168, 15), (3, 22_456, 21)):
        spec, props = spec_of(replicas)
        result = explore(spec, props)
        assert (result.status.value, result.stats.distinct, result.stats.depth) == (
            "OK",
            count,
            depth,
        )
        assert enumerate_states(spec) == (count, depth)


def test_the_cli_runs_it_and_refuses_what_does_not_apply(tmp_path):
    runner = CliRunner()
    done = runner.invoke(
        cli, ["explore", "--model", "tla", "--truncation", "async-isr", "--out", str(tmp_path)]
    )
    assert done.exit_code == 0, done.output
    assert "168" in done.output and "offsets up to 2, ISR versions up to 3" in done.output
    wrong = runner.invoke(cli, ["explore", "--max-offset", "3"])
    assert wrong.exit_code == 2 and "--max-offset does not apply to --model kafka" in wrong.output
    for args, message in (
        (["--truncation", "async-isr", "--symmetry"], "AsyncIsr's Leader is one fixed replica"),
        (
            ["--truncation", "async-isr", "--log-size", "3"],
            "--log-size does not apply to --truncation async-isr",
        ),
        (
            ["--max-version", "2"],
            "--max-version does not apply to --model tla without --truncation async-isr",
        ),
    ):
        refused = runner.invoke(cli, ["explore", "--model", "tla", *args])
        assert refused.exit_code == 2 and message in refused.output, refused.output
    walked = runner.invoke(
        cli,
        [
            "simulate",
            "--model",
            "tla",
            "--truncation",
            "async-isr",
            "--walks",
            "50",
            "--out",
            str(tmp_path / "s"),
        ],
    )
    assert walked.exit_code == 0, walked.output  # simulate's own default bounds are not AsyncIsr's
    listed = runner.invoke(cli, ["list", "all"], env={"COLUMNS": "200"})
    assert "async-isr" in listed.output and "LeaderRequestExpandIsr" in listed.output
