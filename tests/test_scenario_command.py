"""``hwcheck scenario FILE`` and ``serve --scenario``: schedule files (``checker.formats.schedule``)
played on the model (``checker.simulate.scenario``), every property judged at every step.

The schedules are the seed articles' (``spec.kafka.seeds``, protocol.md), shipped as files in
``examples/scenarios/``. Where each property first fails is counted by hand from protocol.md's
story: A = replica 0, B = replica 1; state 1 is the initial state, state k + 1 the one after
the schedule's k-th action.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.composition.compose import build_model, make_config
from checker.formats import schedule
from checker.model import Label
from checker.simulate.scenario import play
from spec.kafka import seeds

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "scenarios"
LOSS_FILE = EXAMPLES / "textbook-loss.txt"
DIVERGENCE_FILE = EXAMPLES / "textbook-divergence.txt"


def run(*args: str):
    return CliRunner().invoke(cli, ["scenario", *args])


def test_the_example_files_are_the_seed_schedules():
    for path, labels in ((LOSS_FILE, seeds.LOSS), (DIVERGENCE_FILE, seeds.DIVERGENCE)):
        read = schedule.load(path)
        assert [step.text for step in read.steps] == list(labels)
        assert read.header == (
            "--replicas",
            "2",
            "--truncation",
            "hw",
            "--max-records",
            "3",
            "--max-epoch",
            "1",
            "--max-crashes",
            "2",
            "--min-isr",
            "1",
        )


def test_parse_reads_header_comments_and_labels(tmp_path):
    text = (
        "# a comment\n"
        "# hwcheck: --replicas 2 --truncation 'hw'\n"
        "\n"
        "Elect(leader=0)   # the first election\n"
        "   BecomeLeader(replica=0, epoch=0)\n"
    )
    read = schedule.parse(text, tmp_path / "s.txt")
    assert read.header == ("--replicas", "2", "--truncation", "hw") and read.header_line == 2
    assert [(s.line, s.text) for s in read.steps] == [
        (4, "Elect(leader=0)"),
        (5, "BecomeLeader(replica=0, epoch=0)"),
    ]
    assert read.steps[1].label.args == (("replica", 0), ("epoch", 0))


@pytest.mark.parametrize(
    "text,message",
    [
        ("Elect(leader=0\n", "s.txt line 1: not an action label: 'Elect(leader=0'"),
        ("Elect(0)\n", "s.txt line 1: label arguments must be named"),
        ("# only comments\n\n", "s.txt: no action in it"),
        ("# hwcheck: --replicas 2\n# hwcheck: --replicas 3\nElect(leader=0)\n", "line 2: a second"),
        ("Elect(leader=0)\n# hwcheck: --replicas 2\n", "line 2: the header must come before"),
        ("# hwcheck: --truncation 'hw\nElect(leader=0)\n", "line 1: the header is not valid"),
    ],
)
def test_parse_refuses_what_it_cannot_read(tmp_path, text, message):
    with pytest.raises(schedule.ScheduleError) as caught:
        schedule.parse(text, tmp_path / "s.txt")
    assert message in str(caught.value)


def _played(truncation: str, labels):
    spec, props = build_model(
        "kafka", make_config("kafka", {**seeds.SEED_BOUNDS, "truncation": truncation})
    )
    return play(spec, props, [Label.parse(t) for t in labels])


def test_loss_fails_where_the_story_says_under_hw_and_nowhere_under_kip320():
    hw = _played("hw", seeds.LOSS)
    assert hw.disabled is None and len(hw.steps) == len(seeds.LOSS) + 1 == 18
    # B truncates m1 away when it follows again (action 11, state 12): A's HW 2 then covers an
    # offset its ISR member B lacks (WeakIsr, and StrongIsr with the controller's ISR); B's
    # election (action 13, state 14) makes a leader without committed m1 (NoCommittedLoss, and
    # NoAckedLoss: m1 was acknowledged with acks=all).
    assert hw.first == {"WeakIsr": 11, "StrongIsr": 11, "NoCommittedLoss": 13, "NoAckedLoss": 13}
    assert [v.prop.name for v in hw.violations()] == [
        "WeakIsr",
        "StrongIsr",
        "NoCommittedLoss",
        "NoAckedLoss",
    ]
    assert hw.violations()[2].length == 14
    kip320 = _played("kip320", seeds.LOSS)
    assert kip320.disabled is None and kip320.first == {}
    assert {p.kind for p in kip320.judged} == {"invariant", "transition"}


def test_divergence_forks_as_the_new_leader_commits_alone_under_hw():
    hw = _played("hw", seeds.DIVERGENCE)
    # B leads epoch 1 with an ISR of itself: its Produce (action 15) puts m2 at offset 1 and
    # commits it at once (HW 2), while A, down, holds m1 there below its own HW 2 (state 16).
    # A's restart, BecomeFollower and fetch (actions 16 to 18) find nothing to repair.
    assert hw.first["NoDivergence"] == 15
    assert str(hw.steps[15].label) == "Produce(leader=1)"
    assert _played("kip320", seeds.DIVERGENCE).first == {}


def test_a_step_that_is_not_enabled_stops_the_schedule_and_says_what_was():
    labels = [t for t in seeds.LOSS if t != "Restart(replica=1)"]
    played = _played("hw", labels)
    assert played.disabled is not None
    assert (played.disabled.index, str(played.disabled.label)) == (
        10,
        "BecomeFollower(replica=1, epoch=0)",
    )
    # B is down: the leader can produce, the controller can drop B from the ISR, A can crash
    # (one of the two crashes is left) and B can restart; nothing else.
    assert [str(label) for label in played.disabled.enabled] == [
        "Produce(leader=0)",
        "ControllerShrinkIsr(replica=1)",
        "Crash(replica=0)",
        "Restart(replica=1)",
    ]
    assert len(played.steps) == 10


def test_the_command_writes_each_failing_property_as_a_counterexample(tmp_path):
    result = run(str(LOSS_FILE), "--out", str(tmp_path / "out"))
    assert result.exit_code == 12, result.output
    assert "state 14: Elect(leader=1)   (line" in result.output
    assert "fails here: NoAckedLoss, NoCommittedLoss" in result.output
    assert "holds in all 18 states" in result.output
    written = sorted(p.parent.name for p in (tmp_path / "out").glob("*/trace.json"))
    assert written == ["NoAckedLoss", "NoCommittedLoss", "StrongIsr", "WeakIsr"]
    loss = tmp_path / "out" / "NoCommittedLoss" / "trace.json"
    document = json.loads(loss.read_text())
    assert document["length"] == 14 and document["variant"] == "hw"
    gallery = Path(__file__).resolve().parents[1] / "reports/gallery/hw-truncation-loss/trace.json"
    flagship = json.loads(gallery.read_text())
    assert [s["fingerprint"] for s in document["steps"]] == [
        s["fingerprint"] for s in flagship["steps"]
    ]
    replayed = CliRunner().invoke(cli, ["replay", str(loss)])
    assert replayed.exit_code == 0, replayed.output


def test_the_same_schedule_under_kip320_holds_and_writes_nothing(tmp_path):
    result = run(str(LOSS_FILE), "--truncation", "kip320", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "on kafka kip320" in result.output and "fails" not in result.output
    assert not (tmp_path / "out").exists()


def test_a_disabled_step_is_exit_4_naming_the_line_and_what_was_enabled(tmp_path):
    lines = LOSS_FILE.read_text().splitlines()
    broken = tmp_path / "broken.txt"
    broken.write_text("\n".join(line for line in lines if line != "Restart(replica=1)") + "\n")
    result = run(str(broken), "--out", str(tmp_path / "out"))
    assert result.exit_code == 4
    line = next(
        i
        for i, t in enumerate(broken.read_text().splitlines(), 1)
        if t.startswith("BecomeFollower(replica=1") and i > 12
    )
    assert (
        f"broken.txt line {line}: step 10, BecomeFollower(replica=1, epoch=0), is not enabled in "
        "state 10: replica 1 is down. Enabled there: Produce(leader=0), "
        "ControllerShrinkIsr(replica=1), Crash(replica=0), Restart(replica=1)"
    ) in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "text,code,message",
    [
        (
            "Fecth(follower=1, leader=0)\n",
            4,
            "line 1: Fecth is not an action of the kafka model (did you mean Fetch?)",
        ),
        ("Elect(leader=0\n", 4, "line 1: not an action label"),
        (
            "# hwcheck: --replicas 0\nElect(leader=0)\n",
            4,
            "line 1: header: Invalid value for '--replicas'",
        ),
        (
            "# hwcheck: --frobnicate\nElect(leader=0)\n",
            4,
            "line 1: header: No such option '--frobnicate'",
        ),
        (
            "# hwcheck: --replicas 2 --min-isr 3\nElect(leader=0)\n",
            4,
            (
                "s.txt line 1: header: Invalid value for '--min-isr': --min-isr must be between 1 "
                "and --replicas (2), got 3"
            ),
        ),
        (
            "# hwcheck: --model tla --max-crashes 1\nElect(leader=0)\n",
            4,
            (
                "s.txt line 1: header: Invalid value for '--max-crashes': --max-crashes does not "
                "apply to --model tla"
            ),
        ),
        (
            "\n# hwcheck: --invariant Nope\nElect(leader=0)\n",
            4,
            "s.txt line 2: header: Invalid value for '--invariant': unknown property 'Nope'",
        ),
    ],
)
def test_mistakes_in_the_file_are_one_message(tmp_path, text, code, message):
    path = tmp_path / "s.txt"
    path.write_text(text)
    result = run(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == code, result.output
    assert message in result.output and "Traceback" not in result.output


def test_a_file_saved_with_a_byte_order_mark_and_crlf_reads_the_same(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"\xef\xbb\xbf# hwcheck: --replicas 2\r\nElect(leader=0)\r\n")
    read = schedule.load(path)
    assert read.header == ("--replicas", "2") and [s.text for s in read.steps] == [
        "Elect(leader=0)"
    ]


def test_a_missing_file_is_exit_4(tmp_path):
    result = run(str(tmp_path / "none.txt"))
    assert result.exit_code == 4
    assert "none.txt: cannot read it: No such file or directory" in result.output


def test_the_command_line_overrides_the_header(tmp_path):
    path = tmp_path / "s.txt"
    path.write_text("# hwcheck: --replicas 3\nElect(leader=2)\n")
    assert run(str(path), "--out", str(tmp_path / "o")).exit_code == 0
    narrowed = run(str(path), "--replicas", "2", "--out", str(tmp_path / "o"))
    assert (
        narrowed.exit_code == 4
        and (
            "Elect(leader=2), is not enabled in state 1: there is no replica 2 (replicas=2: 0 to 1; "
            "raise --replicas on the command line)"
        )
        in narrowed.output
    )


def test_serve_refuses_a_scenario_that_does_not_play_or_comes_with_a_trace(tmp_path):
    broken = tmp_path / "broken.txt"
    broken.write_text("# hwcheck: --replicas 2\nProduce(leader=0)\n")
    result = CliRunner().invoke(cli, ["serve", "--scenario", str(broken), "--port", "0"])
    assert result.exit_code == 4 and result.output == (
        f"Error: {broken} line 2: step 1, Produce(leader=0), is not enabled in state 1: replica "
        "0 does not presume it leads: it applied no LeaderAndIsr since it started. Enabled "
        "there: ControllerShrinkIsr(replica=0), ControllerShrinkIsr(replica=1), Elect(leader=0), "
        "Elect(leader=1), Crash(replica=0), Crash(replica=1)\n"
    )
    both = CliRunner().invoke(
        cli, ["serve", "--scenario", str(LOSS_FILE), "--trace", str(LOSS_FILE), "--port", "0"]
    )
    assert both.exit_code == 2 and "give one" in both.output


THREE = (
    "# hwcheck: --replicas 2 --truncation hw --max-records 2\n"
    "Elect(leader=0)\n"
    "BecomeLeader(replica=0, epoch=0)\n"
    "Produce(leader=0)\n"
    "Produce(leader=0)\n"
    "Produce(leader=0)  # a third record: past the header's bound\n"
)
AFTER = (
    "Enabled there: ShrinkIsr(leader=0, follower=1), Elect(leader=1), Crash(replica=0), "
    "Crash(replica=1), BecomeFollower(replica=1, epoch=0)\n"
)


def _error_line(result):
    return next(line for line in result.output.splitlines(True) if line.startswith("Error:"))


def test_a_step_past_a_bound_names_the_bound_and_where_to_raise_it(tmp_path):
    """Two records produced with max_records=2: the third Produce is disabled by the bound,
    not by anything of the replica (it leads epoch 0 with ISR {0,1}: both produced records
    wait for replica 1, so only its ISR shrink, an election, a crash or its BecomeFollower
    are enabled)."""
    path = tmp_path / "three.txt"
    path.write_text(THREE)
    result = run(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 4
    assert _error_line(result) == (
        f"Error: {path} line 6: step 5, Produce(leader=0), is not enabled in state 5: 2 records "
        "already produced (max_records=2; raise --max-records in the header). " + AFTER
    )
    given = run(str(path), "--max-records", "2", "--out", str(tmp_path / "out"))
    assert given.exit_code == 4 and "(max_records=2; raise --max-records on the command line)" in (
        _error_line(given)
    )
    assert run(str(path), "--max-records", "3", "--out", str(tmp_path / "out")).exit_code == 0
    bare = tmp_path / "bare.txt"  # no header: the default bound, raised in either place
    bare.write_text(THREE.partition("\n")[2])
    default = run(str(bare), "--out", str(tmp_path / "out"))
    assert default.exit_code == 4 and (
        "(max_records=2; raise --max-records in a '# hwcheck:' header line or on the command "
        "line)" in _error_line(default)
    )


def test_a_fetch_before_become_follower_says_the_follower_follows_no_one(tmp_path):
    path = tmp_path / "early.txt"
    path.write_text(
        "# hwcheck: --replicas 2 --truncation hw\n"
        "Elect(leader=0)\nBecomeLeader(replica=0, epoch=0)\nFetch(follower=1, leader=0)\n"
    )
    result = run(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 4
    assert _error_line(result) == (
        f"Error: {path} line 4: step 3, Fetch(follower=1, leader=0), is not enabled in state 3: "
        "replica 1 follows no leader: it applied no LeaderAndIsr since it started. Enabled "
        "there: Produce(leader=0), ShrinkIsr(leader=0, follower=1), Elect(leader=1), "
        "Crash(replica=0), Crash(replica=1), BecomeFollower(replica=1, epoch=0)\n"
    )


def test_serve_gives_the_same_reason(tmp_path):
    path = tmp_path / "three.txt"
    path.write_text(THREE)
    result = CliRunner().invoke(cli, ["serve", "--scenario", str(path), "--port", "0"])
    assert result.exit_code == 4 and result.output == (
        f"Error: {path} line 6: step 5, Produce(leader=0), is not enabled in state 5: 2 records "
        "already produced (max_records=2; raise --max-records in the header). " + AFTER
    )


def test_the_tla_port_lists_the_enabled_actions_only(tmp_path):
    """The TLA+ port has no ``why_disabled``: the message is the line, the step and what was
    enabled."""
    path = tmp_path / "tla.txt"
    path.write_text("# hwcheck: --model tla --replicas 2\nLeaderWrite(leader=0)\n")
    result = run(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 4
    assert _error_line(result).startswith(
        f"Error: {path} line 2: step 1, LeaderWrite(leader=0), is not enabled in state 1. "
        "Enabled there: "
    )


def test_a_bad_value_in_the_header_names_the_file_and_line_and_is_exit_4(tmp_path):
    """The header's flags are checked by the model as the command line's are, but a value
    the model rejects is the file's mistake: exit 4, the file and the header's line. The
    same value given on the command line is a usage error, exit 2."""
    path = tmp_path / "s.txt"
    path.write_text(
        "# a comment first\n# hwcheck: --replicas 2 --truncation kip999\nElect(leader=0)\n"
    )
    result = run(str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 4
    assert result.output.startswith(
        f"Error: {path} line 2: header: Invalid value for '--truncation': --truncation must be "
        "one of hw, kip101, "
    )
    assert result.output.endswith(", got 'kip999'\n") and result.output.count("\n") == 1
    overridden = run(str(path), "--truncation", "kip320", "--out", str(tmp_path / "out"))
    assert overridden.exit_code == 0, overridden.output
    path.write_text("# hwcheck: --replicas 2\nElect(leader=0)\n")
    typed = run(str(path), "--truncation", "kip999", "--out", str(tmp_path / "out"))
    assert typed.exit_code == 2 and "Usage: " in typed.output and "line 1" not in typed.output
    assert "Invalid value for '--truncation'" in typed.output
