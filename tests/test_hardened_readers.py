"""One validated load per file type (issue 63): JSON read with a depth limit and its strings
checked for encodability, labels read without recursion, trace fields typed as the model
needs them (a boolean is no count), ``show`` drawing the model's story (not the file's), the
gate refusing twin names and tables of the wrong type with JUnit XML that stays well-formed,
and ``serve`` answering 400 to every malformed body. Each case was a traceback, a hang or a
wrong answer before (the issue's fuzz campaign); each now ends in one line and its exit code.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.formats.gate_output import junit_xml, xml_safe
from checker.formats.retell import ADDED
from checker.gate.policy import FAIL, Check, Outcome
from checker.jsontext import MAX_DEPTH, Unusable, parse
from checker.model import Label
from checker.web.app import MAX_BODY, create_app
from checker.web.explorer import Explorer
from checker.web.jump import Jumps
from spec.kafka import Config

ROOT = Path(__file__).resolve().parent.parent
LOSS = ROOT / "reports" / "gallery" / "hw-truncation-loss" / "trace.json"
ACKS = ROOT / "reports" / "gallery" / "acks-1-loss" / "trace.json"


def invoke(*argv: object):
    result = CliRunner().invoke(cli, [str(a) for a in argv])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def edited(tmp_path: Path, source: Path, change) -> Path:
    document = json.loads(source.read_text())
    change(document)
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document))
    return path


def test_json_past_the_depth_limit_or_with_a_lone_surrogate_is_refused():
    assert parse("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert parse('{"a": "[[[[ not brackets", "b": "\\ud83d\\ude00"}')["b"] == "\U0001f600"
    with pytest.raises(Unusable, match=f"deeper than {MAX_DEPTH}"):
        parse("[" * 100_000 + "]" * 100_000)  # json.loads meets Python's recursion limit
    with pytest.raises(Unusable, match=r"\\ud800"):
        parse('["\\ud800"]')
    assert parse('["\\\\ud800"]') == ["\\ud800"]  # an escaped backslash, then text


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.update(story=json.loads("[" * 200 + "]" * 200)), "deeper"),
        (lambda d: d.update(explanation="\ud800"), "\\ud800"),
        (lambda d: d["steps"][2].update(action=None), "field steps/2/action: None is not"),
        (lambda d: d["steps"][0].update(action="Elect(leader=0)"), "steps/0/action"),
        (lambda d: d["steps"][1].update(action="Elect(leader=" + "[" * 5000 + ")"), "steps/1"),
    ],
)
def test_a_malformed_trace_is_one_line_and_exit_4(tmp_path, change, said):
    trace = edited(tmp_path, LOSS, change)
    for command in ("replay", "show"):
        result = invoke(command, trace)
        assert result.exit_code == 4 and said in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1


def test_a_deeply_nested_label_argument_is_refused_at_once():
    start = time.monotonic()
    with pytest.raises(ValueError, match="not an action label"):
        Label.parse("Fetch(follower=" + "(" * 100_000 + "1" + ")" * 100_000 + ")")
    assert time.monotonic() - start < 5  # a bound on a hang, not a speed measurement
    with pytest.raises(ValueError, match="argument leader twice"):
        Label.parse("Elect(leader=0, leader=1)")
    label = Label.parse("""A(s='it\\'s, (fine)', n=-3, b=True, z=None)""")
    assert label.args == (("s", "it's, (fine)"), ("n", -3), ("b", True), ("z", None))
    assert Label.parse(str(label)) == label


def test_a_boolean_in_a_view_is_not_the_model_s_count(tmp_path):
    """Python's ``True == 1`` once let a boolean stand for an HW in the picture check."""

    def leo_true(document):
        found.append(
            next(i for i, s in enumerate(document["steps"]) if s["view"]["replicas"][0]["leo"] == 1)
        )
        document["steps"][found[0]]["view"]["replicas"][0]["leo"] = True

    found: list[int] = []
    result = invoke("show", edited(tmp_path, LOSS, leo_true))
    assert result.exit_code == 4, result.output
    assert f'the picture of state {found[0] + 1} (its "view")' in result.output


def test_show_draws_the_model_s_story_and_says_when_the_file_told_another(tmp_path):
    def all_good(document):
        document["explanation"] = "All good."
        document["story"] = ["all good, nothing lost"]

    result = CliRunner().invoke(cli, ["show", str(edited(tmp_path, ACKS, all_good))])
    assert result.exit_code == 0
    assert "Note: the file's explanation and story differ from this model's" in result.stderr
    assert "All good" not in result.stdout and "nothing lost" not in result.stdout
    assert "Why: record m0 was acknowledged to the producer" in result.stdout
    gallery = CliRunner().invoke(cli, ["show", str(ACKS)])
    assert gallery.exit_code == 0 and gallery.stderr == ""  # the model's story, as written
    assert f"{ADDED} The fix (acks=1)" in gallery.stdout  # the gallery's own line, marked


def test_show_no_check_of_a_view_it_cannot_draw_is_one_line(tmp_path):
    trace = edited(tmp_path, LOSS, lambda d: d["steps"][1].update(view={"replicas": 7}))
    for extra in ([], ["--html", tmp_path / "page.html"]):
        result = invoke("show", "--no-check", trace, *extra)
        assert result.exit_code == 4 and "--no-check cannot draw this file" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json"]  # no page, no .tmp


HOLDS = """
[[tool.hwcheck.gate]]
truncation = "kip320"
replicas = 2
max_epoch = 1
expect = "holds"
"""


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            HOLDS + HOLDS,
            "gate check at line 8 and the one at line 2 are both named 'kafka kip320 r2'",
        ),
        (HOLDS + 'name = "a"\n' + HOLDS + 'name = "a"\n', "both named 'a' (a check's name keys"),
        (HOLDS + 'name = "bad\\u0007name"\n', "a name without control characters"),
        (HOLDS + "time_limit = nan\n", "key 'time_limit': seconds, a finite number"),
        ("tool = 3\n", "key 'tool' is an integer; the gate reads its checks"),
        ("[tool]\nhwcheck = [1]\n", "key 'hwcheck' is an array"),
        ("gate = [1, 2]\n", "key 'gate': a list of tables ([[tool.hwcheck.gate]]), but check 1"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nest too deep"),
    ],
)
def test_a_malformed_gate_config_is_one_line_and_exit_4(tmp_path, text, said):
    config = tmp_path / "gate.toml"
    config.write_text(text, encoding="utf-8")
    result = invoke("gate", "--config", config, "--workers", "1")
    assert result.exit_code == 4 and said in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1


def test_junit_xml_stays_well_formed_whatever_a_name_or_message_holds():
    check = Check("evil\x00\x1b[31m<name>&", "kafka", "hw", {})
    xml = junit_xml([Outcome(check, FAIL, "bad \ud800 \x07 message")])
    case = ElementTree.fromstring(xml.split("?>", 1)[1]).find("testcase")
    assert case is not None and case.get("classname") == "evil\ufffd\ufffd[31m<name>&"
    assert xml_safe("tab\tok\n") == "tab\tok\n"


@pytest.fixture(scope="module")
def client():
    explorer = Explorer("kafka", Config(replicas=2, truncation="hw", max_epoch=1))
    return create_app(explorer, Jumps(1)).test_client()


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested deeper than"),
        (b'{"action": "\\ud800"}', "half of a surrogate pair"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b'{"action": ', "not valid JSON"),
        (b"[1, 2]", "the body must be a JSON object"),
        (b'{"action": "Fetch(follower=' + b"(" * 50_000 + b')"}', "a path is at most 500 steps"),
        (b'{"action": "Fetch(follower=' + b"(" * 150 + b')"}', "is not an action label"),
        (b'{"action": "Elect(leader=99999999999999999999999999)"}', "there is no replica"),
        (b'{"action": "Elect(leader=0)", "path": [1]}', "field path/0"),
    ],
)
def test_serve_answers_400_with_one_line_to_a_malformed_body(client, body, said):
    reply = client.post("/api/step", data=body, content_type="application/json")
    assert reply.status_code == 400, reply.get_data(as_text=True)
    error = reply.get_json()["error"]
    assert said in error and "\n" not in error


def test_serve_refuses_a_body_past_its_limit(client):
    reply = client.post("/api/step", data=b" " * (MAX_BODY + 1), content_type="application/json")
    assert reply.status_code == 413 and "error" in reply.get_json()


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A search's checkpoint holding violations: HW truncation, cut at depth 14."""
    folder = tmp_path_factory.mktemp("ck") / "ck"
    argv = ["explore", "--replicas", "2", "--max-epoch", "2", "--truncation", "hw"]
    argv += ["--checkpoint", folder, "--checkpoint-every", "0.0001", "--max-depth", "14"]
    assert invoke(*argv, "--no-progress", "--out", folder.parent / "o").exit_code == 12
    return folder


def _resealed(source: Path, target: Path, change) -> Path:
    from checker.checkpoint.format import SEAL, sealed

    shutil.copytree(source, target)
    manifest = json.loads((target / "checkpoint.json").read_text())
    manifest.pop(SEAL)
    change(manifest)
    (target / "checkpoint.json").write_bytes(sealed(manifest))
    return target


def _step(manifest, field, value):
    manifest["search"]["violations"][0]["steps"][1][field] = value


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda m: m.update(config=[1]), "field config: [1] is not of type 'object'"),
        (lambda m: m["config"].update(replicas=True), "field config/replicas: True is not of type"),
        (lambda m: m["config"].update(replicas=99), "--replicas must be between"),
        (lambda m: m["search"].update(distinct="x"), "field search/distinct: 'x' is not of"),
        (lambda m: m["files"].update(frontier="../../x.npy"), "field files/frontier"),
        (lambda m: m["search"].update(pending=["Nope"]), "names Nope, which this run does not"),
        (lambda m: _step(m, 0, "Fetch(("), "is unreadable: not an action label"),
        (lambda m: _step(m, 2, "KAMAAABpAQAAAGkCAAAAaQMAAAA="), "not the one its fingerprint"),
    ],
)
def test_a_resealed_manifest_is_still_held_to_the_format(checkpoint, tmp_path, change, said):
    """The seal stops edits; a manifest sealed again after one is still checked field by
    field (a traceback, exit 75 or a wrong count before), the folder left as it was."""
    folder = _resealed(checkpoint, tmp_path / "ck", change)
    before = sorted(p.name for p in folder.rglob("*"))
    result = invoke("explore", "--resume", folder, "--no-progress", "--out", tmp_path / "o")
    assert result.exit_code == 4 and said in result.output, result.output
    assert sorted(p.name for p in folder.rglob("*")) == before
