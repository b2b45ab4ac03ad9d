"""Trace files: the JSON schema, clear errors (exit 4) for bad files, ``hwcheck replay`` and
``hwcheck show``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker.cli import cli
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


def test_trace_of_another_model_version_is_rejected(traces, tmp_path):
    def older(document):
        document["hwcheck_version"] = "0.0.9"
        document["steps"][5]["fingerprint"] = "0123456789abcdef"

    path = _rewrite(
        traces / "kafka" / "NoCommittedLoss" / "trace.json", tmp_path / "old.json", older
    )
    result = invoke("replay", path)
    assert result.exit_code == 4
    assert (
        "rejected: written by hwcheck 0.0.9, and this model does not reproduce it" in result.output
    )
    assert "step 5" in result.output and "Traceback" not in result.output


def test_action_that_is_not_enabled_is_rejected(traces, tmp_path):
    def other(document):
        document["steps"][2]["action"] = "Crash(replica=1)"

    path = _rewrite(
        traces / "kafka" / "NoCommittedLoss" / "trace.json", tmp_path / "bad.json", other
    )
    result = invoke("replay", path)
    assert result.exit_code == 4
    assert "step 2: action Crash(replica=1) is not enabled" in result.output


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
