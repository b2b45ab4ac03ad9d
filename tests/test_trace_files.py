"""Trace files: the JSON schema, clear errors (exit 4) for bad files, ``hwcheck replay`` and
``hwcheck show``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker import __version__
from checker.cli import cli
from checker.fingerprint import fingerprint
from checker.formats import tracefile


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """The traces of ``explore --replicas 2 --truncation hw`` and of the TLA+ port's hw."""
    out = tmp_path_factory.mktemp("runs")
    runner = CliRunner()
    for name, args in (
        ("kafka", ["--truncation", "hw"]),
        ("tla", ["--model", "tla", "--truncation", "hw"]),
    ):
        result = runner.invoke(
            cli,
            [
                "explore",
                "--replicas",
                "2",
                "--max-epoch",
                "1",
                "--no-symmetry",
                *args,
                "--no-progress",
                "--out",
                str(out / name),
            ],
        )
        assert result.exit_code == 12, result.output
    return out


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_every_written_trace_matches_the_schema(traces):
    paths = sorted(traces.rglob("trace.json"))
    assert [p.parent.name for p in paths if p.parts[-3] == "kafka"] == [
        "NoAckedLoss",
        "NoCommittedLoss",
        "NoDivergence",
        "StrongIsr",
        "WeakIsr",
    ]
    for path in paths:
        document = tracefile.load(path)
        assert document["length"] == len(document["steps"])


def test_replay_checks_every_fingerprint(traces):
    path = traces / "kafka" / "NoCommittedLoss" / "trace.json"
    result = invoke("replay", path)
    assert result.exit_code == 0
    assert "replayed 10 actions" in result.output
    assert "all 11 fingerprints match and the last state violates NoCommittedLoss" in result.output


def test_replay_of_tla_trace(traces):
    result = invoke("replay", traces / "tla" / "StrongIsr" / "trace.json")
    assert result.exit_code == 0, result.output


def _rewrite(source, target, change):
    document = json.loads(source.read_text())
    change(document)
    target.write_text(json.dumps(document))
    return target


CAUSES = (
    "Either the file was edited (an action, a fingerprint or its config) or it was written by "
    "a hwcheck whose model differs (the file says hwcheck {written}; this is hwcheck "
    f"{__version__})."
)


def test_a_state_with_another_fingerprint_is_named_as_show_numbers_it(traces, tmp_path):
    """The trace's 6th state (index 5) gets another fingerprint: its action is enabled in
    state 5 and reaches the state the model says, whose fingerprint is not the file's."""
    source = traces / "kafka" / "NoCommittedLoss" / "trace.json"
    real = json.loads(source.read_text())["steps"][5]

    def older(document):
        document["hwcheck_version"] = "0.0.9"
        document["steps"][5]["fingerprint"] = "0123456789abcdef"

    path = _rewrite(source, tmp_path / "old.json", older)
    result = invoke("replay", path)
    assert result.exit_code == 4
    assert result.output == (
        f"Error: {path}: rejected: this model does not reproduce state 6: its action, "
        f"{real['action']}, is enabled in state 5 but reaches a state with fingerprint "
        f"{real['fingerprint']}, not the file's 0123456789abcdef. "
        + CAUSES.format(written="0.0.9")
        + "\n"
    )


def test_an_action_changed_to_another_enabled_one_reaches_another_fingerprint(traces, tmp_path):
    """State 3's action becomes Crash(replica=1), which is enabled in state 2 (no crash yet)
    but reaches another state than the file's: the message says so, not "not enabled"."""
    source = traces / "kafka" / "NoCommittedLoss" / "trace.json"
    document = json.loads(source.read_text())
    spec, _, _, _ = tracefile.model_of(source, document)

    def after(state, action):
        return next(s for lab, s in spec.successors(state) if str(lab) == action)

    state_2 = after(spec.init_states()[0], document["steps"][1]["action"])
    crashed = after(state_2, "Crash(replica=1)")

    def other(document):
        document["steps"][2]["action"] = "Crash(replica=1)"

    path = _rewrite(source, tmp_path / "bad.json", other)
    result = invoke("replay", path)
    assert result.exit_code == 4
    assert result.output == (
        f"Error: {path}: rejected: this model does not reproduce state 3: its action, "
        "Crash(replica=1), is enabled in state 2 but reaches a state with fingerprint "
        f"{fingerprint(crashed):016x}, not the file's {document['steps'][2]['fingerprint']}. "
        + CAUSES.format(written=document["hwcheck_version"])
        + "\n"
    )


def test_an_action_that_is_not_enabled_lists_what_was(traces, tmp_path):
    """State 6 of the fixture's NoCommittedLoss trace is reached by Fetch(follower=0,
    leader=1); in state 5 (replica 1 leads epoch 0 with m0, replica 0 has just become its
    follower) Fetch(follower=1, leader=1) is not enabled: replica 1 leads, it follows no one
    (``KafkaSpec.why_disabled``). Enabled there, by hand: replica 1's second Produce, replica
    0's fetch, dropping replica 0 from the ISR (its remote LEO is unknown), electing replica 0
    (epoch 1 is left), and either crash."""
    source = traces / "kafka" / "NoCommittedLoss" / "trace.json"
    assert json.loads(source.read_text())["steps"][5]["action"] == "Fetch(follower=0, leader=1)"

    def other(document):
        document["steps"][5]["action"] = "Fetch(follower=1, leader=1)"

    path = _rewrite(source, tmp_path / "bad.json", other)
    written = json.loads(path.read_text())["hwcheck_version"]
    for command in ("replay", "show"):  # show checks the trace as replay does
        result = invoke(command, path)
        assert result.exit_code == 4
        assert result.output == (
            f"Error: {path}: rejected: this model does not reproduce state 6: its action, "
            "Fetch(follower=1, leader=1), is not enabled in state 5 (replica 1 follows no "
            "leader: it leads epoch 0 in its view); enabled there: "
            "Produce(leader=1), Fetch(follower=0, leader=1), ShrinkIsr(leader=1, follower=0), "
            "Elect(leader=0), Crash(replica=0), Crash(replica=1). "
            + CAUSES.format(written=written)
            + "\n"
        )


def test_an_initial_state_with_another_fingerprint_is_state_1(traces, tmp_path):
    source = traces / "kafka" / "NoCommittedLoss" / "trace.json"
    real = json.loads(source.read_text())["steps"][0]["fingerprint"]

    def other(document):
        document["steps"][0]["fingerprint"] = "0123456789abcdef"

    path = _rewrite(source, tmp_path / "bad.json", other)
    written = json.loads(path.read_text())["hwcheck_version"]
    result = invoke("replay", path)
    assert result.exit_code == 4
    assert result.output == (
        f"Error: {path}: rejected: this model does not reproduce state 1: the initial state "
        f"here has fingerprint {real}, not the file's 0123456789abcdef. "
        + CAUSES.format(written=written)
        + "\n"
    )


def test_show_refuses_a_picture_the_model_does_not_draw(traces, tmp_path):
    """Replay checks actions and fingerprints; show also draws each state's ``view``, so it
    checks that every view is the model's picture of the state replayed."""
    source = traces / "kafka" / "NoCommittedLoss" / "trace.json"

    def lie(document):
        document["steps"][5]["view"]["replicas"][0]["hw"] = 7

    path = _rewrite(source, tmp_path / "bad.json", lie)
    written = json.loads(path.read_text())["hwcheck_version"]
    result = invoke("show", path)
    assert result.exit_code == 4
    assert result.output == (
        f'Error: {path}: rejected: the picture of state 6 (its "view") is not this model\'s '
        "picture of the state its fingerprint names. Either the file was edited (a state's "
        f"view) or it was written by a hwcheck whose model differs (the file says hwcheck "
        f"{written}; this is hwcheck {__version__}).\n"
    )
    assert invoke("replay", path).exit_code == 0  # replay draws nothing


def test_show_refuses_an_aftermath_that_does_not_follow(traces, tmp_path):
    """The aftermath (states 12 to 14 of the 11-state trace) is drawn too, so it is replayed
    from the last state like the trace."""
    source = traces / "kafka" / "NoCommittedLoss" / "trace.json"
    second = json.loads(source.read_text())["aftermath"]["steps"][1]

    def other(document):
        document["aftermath"]["steps"][1]["fingerprint"] = "00000000000000ff"

    path = _rewrite(source, tmp_path / "bad.json", other)
    written = json.loads(path.read_text())["hwcheck_version"]
    result = invoke("show", path)
    assert result.exit_code == 4
    assert result.output == (
        f"Error: {path}: rejected: this model does not reproduce state 13 (aftermath): its "
        f"action, {second['action']}, is enabled in state 12 but reaches a state with "
        f"fingerprint {second['fingerprint']}, not the file's 00000000000000ff. "
        + CAUSES.format(written=written)
        + "\n"
    )


def test_show_refuses_a_trace_whose_property_holds(traces, tmp_path):
    """A trace of StrongIsr relabelled as a NoCommittedLoss trace: every fingerprint
    matches, but nothing is lost at its last state."""

    def other(document):
        document["property"]["name"] = "NoCommittedLoss"

    path = _rewrite(traces / "kafka" / "StrongIsr" / "trace.json", tmp_path / "bad.json", other)
    for command in ("replay", "show"):
        result = invoke(command, path)
        assert result.exit_code == 4
        assert result.output == (
            f"Error: {path}: every fingerprint matches, but NoCommittedLoss holds on the last "
            "state with this hwcheck: the property changed since the trace was written\n"
        )


def test_show_no_check_draws_the_file_and_says_it_is_unchecked(traces, tmp_path):
    source = traces / "kafka" / "NoCommittedLoss" / "trace.json"

    def other(document):
        document["steps"][5]["action"] = "Fetch(follower=1, leader=1)"

    path = _rewrite(source, tmp_path / "bad.json", other)
    result = invoke("show", path, "--no-check")
    assert result.exit_code == 0
    assert result.output.startswith(
        "Unchecked (--no-check): drawn as the file says, not replayed on this model.\n"
        "NoCommittedLoss violated"
    )
    assert "state 6: Fetch(follower=1, leader=1)" in result.output
    page = tmp_path / "bad.html"
    written = invoke("show", path, "--no-check", "--html", page)
    assert written.exit_code == 0 and written.output == f"Wrote {page} (unchecked: --no-check)\n"
    assert (
        '<p class="expected" id="unchecked">Unchecked (--no-check): drawn as the file says, '
        "not replayed on this model.</p>" in page.read_text()
    )
    refused = invoke("show", path, "--html", page)
    assert refused.exit_code == 4 and "is not enabled in state 5" in refused.output


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda text: text[: len(text) // 2], "(the file ends early — truncated?)"),
        (
            lambda text: "{not json",
            "not valid JSON: expecting property name enclosed in double quotes at line 1 column 2",
        ),
        (
            lambda text: text.replace('"version": 1', '"version": 3'),
            "trace format version 3; this hwcheck reads versions 1 and 2",
        ),
        (lambda text: text.replace('"hwcheck-trace"', '"something-else"'), "not an hwcheck trace"),
        (
            lambda text: text.replace('"fingerprint": "', '"fingerprint": "zz', 1),
            "field steps/0/fingerprint: 'zz",
        ),
        (
            lambda text: text.replace('"explanation"', '"explained"'),
            "'explanation' is a required property",
        ),
    ],
)
def test_bad_files_end_in_one_message_and_exit_4(traces, tmp_path, mangle, message):
    source = (traces / "kafka" / "WeakIsr" / "trace.json").read_text()
    path = tmp_path / "trace.json"
    path.write_text(mangle(json.dumps(json.loads(source), indent=1)))
    for command in ("show", "replay"):
        result = invoke(command, path)
        assert result.exit_code == 4, result.output
        assert message in result.output
        assert result.output.count("Error:") == 1 and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '{\n "format": "hwcheck-trace",\n "steps": [{"action": "Elect(lea',
            (
                "not valid JSON: unterminated string starting at line 3 column 23 (the file ends "
                "early — truncated?)"
            ),
        ),
        (
            '{"format": "hwcheck-trace",\n',
            (
                "not valid JSON: expecting property name enclosed in "
                "double quotes at line 2 column 1 (the file ends early — truncated?)"
            ),
        ),
        ('{"format": 1}}', "not valid JSON: extra data at line 1 column 14"),
        (" \n", "not valid JSON: the file is empty"),
    ],
)
def test_json_that_does_not_parse_is_said_in_words(tmp_path, text, said):
    """Where and what, and whether the file was cut short: never the parser's bare
    "Unterminated string starting at" with the place left out."""
    path = tmp_path / "trace.json"
    path.write_text(text)
    result = invoke("show", path)
    assert result.exit_code == 4 and result.output == f"Error: {path}: {said}\n"


def test_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "trace.json"
    path.write_bytes(b'{"format": "\xff"}')
    result = invoke("show", path)
    assert result.exit_code == 4
    assert result.output == f"Error: {path}: not UTF-8 text (byte 0xff at offset 12)\n"


def test_missing_file(tmp_path):
    result = invoke("show", tmp_path / "nowhere.json")
    assert result.exit_code == 4
    assert "cannot read it (No such file or directory)" in result.output


def test_show_draws_every_state(traces):
    result = invoke("show", traces / "kafka" / "NoCommittedLoss" / "trace.json")
    assert result.exit_code == 0
    assert [
        line.split(":")[0].strip("╭─ ")
        for line in result.output.splitlines()
        if line.startswith("╭─ state")
    ] == [f"state {n}" for n in range(1, 12)] + [f"state {n} (aftermath)" for n in range(12, 15)]
    assert "Why: record m0 was committed at offset 0" in result.output
    assert "state 11: BecomeFollower(replica=0, epoch=0)" in result.output


def test_show_options(traces):
    path = traces / "kafka" / "NoCommittedLoss" / "trace.json"
    one = invoke("show", path, "--step", "8")
    assert one.exit_code == 0
    assert "state 8: Crash(replica=0)" in one.output and "state 7" not in one.output
    assert "DOWN" in one.output
    hidden = invoke("show", path, "--step", "8", "--hide", "controller", "--hide", "isr")
    assert "controller:" not in hidden.output and "{0,1}" not in hidden.output
    changes = invoke("show", path, "--step", "8", "--changes-only")
    rows = [line for line in changes.output.splitlines() if line.startswith("│ ")]
    assert len(rows) == 2  # the header and replica 0, the one that crashed
    assert invoke("show", path, "--step", "12").exit_code == 2


def test_every_written_summary_matches_its_schema(traces, tmp_path):
    """summary.json of a violated run (both models), a run that holds and one a depth bound
    cut, against ``checker/formats/summary.schema.json`` (the reference's format page is
    generated from it)."""
    import jsonschema

    from checker.formats import report

    schema = json.loads(report.SUMMARY_SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for name, args, code in (("holds", [], 0), ("cut", ["--max-depth", "3"], 3)):
        result = invoke(
            "explore",
            "--replicas",
            2,
            "--max-epoch",
            1,
            "--no-progress",
            *args,
            "--out",
            tmp_path / name,
        )
        assert result.exit_code == code, result.output
    paths = sorted([*traces.rglob("summary.json"), *tmp_path.rglob("summary.json")])
    documents = [json.loads(p.read_text()) for p in paths]
    assert sorted(d["status"] for d in documents) == ["INCOMPLETE", "OK", "VIOLATED", "VIOLATED"]
    for document in documents:
        jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)
    broken = {**documents[0], "status": "DONE"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema, cls=jsonschema.Draft202012Validator)
