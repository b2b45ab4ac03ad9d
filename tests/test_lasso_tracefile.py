"""Lasso trace files (``trace.json`` version 2): what is written, the schema of versions 1 and
2, ``load`` and ``replay`` (the loop must close), ``still_violated`` on a lasso, and
``hwcheck replay`` / ``hwcheck show`` on a lasso file."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
import lassos
import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.formats import report, tracefile

FAIRNESS = (
    "WF(BecomeLeader), SF(FencedLeaderExpandIsr), SF(LeaderWrite), "
    "SF(FencedLeaderIncHighWatermark), WF(FencedBecomeFollowerAndTruncate)"
)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """``{"stutter": path, "cycle": path}``: the two lassos written as trace.json."""
    out = tmp_path_factory.mktemp("lassos")
    paths = {}
    for name, (spec, violation) in (("stutter", lassos.stutter()), ("cycle", lassos.cycle())):
        paths[name] = report.write_violation(out / name, spec, violation)
    return paths


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def validate(document):
    jsonschema.Draft202012Validator(tracefile.schema()).validate(document)


def test_a_lasso_is_written_as_version_2_with_its_loop_and_formula(written):
    document = json.loads(written["stutter"].read_text())
    assert document["version"] == 2 and document["length"] == 6
    assert document["loop"] == {
        "back_to": 5,
        "stutter": True,
        "never_taken": [
            "ControllerElectLeader(newLeader=1)",
            "ControllerShrinkIsr(replica=0)",
            "ControllerShrinkIsr(replica=1)",
            "FencedFollowerFetch(follower=1, leader=0)",
            "FencedLeaderShrinkIsr(leader=0, replica=1)",
        ],
        "fairness": FAIRNESS,
        "obligation": "for leader 0",
        # Kip320.tla's Spec makes none of the five fair; the controller's two are its
        # perturbations (spec.tla.liveness.PERTURBATIONS), the others simply not assumed fair.
        "enabled": [
            {
                "action": action,
                "fairness": "",
                "enabled_in": [6],
                "stutters_in": [],
                "note": "a perturbation, never assumed fair"
                if action.startswith("Controller")
                else "not assumed fair",
            }
            for action in (
                "ControllerElectLeader(newLeader=1)",
                "ControllerShrinkIsr(replica=0)",
                "ControllerShrinkIsr(replica=1)",
                "FencedLeaderShrinkIsr(leader=0, replica=1)",
                "FencedFollowerFetch(follower=1, leader=0)",
            )
        ],
    }
    prop = document["property"]
    assert prop["kind"] == "leads-to"
    assert prop["formula"].startswith("CommitProgress == \\A r \\in Replicas : ")
    assert " ~> " in prop["formula"]
    cycle = json.loads(written["cycle"].read_text())
    assert cycle["loop"]["back_to"] == 5 and cycle["loop"]["stutter"] is False
    assert cycle["steps"][-1]["fingerprint"] == cycle["steps"][5]["fingerprint"]
    validate(document)
    validate(cycle)


def test_a_safety_trace_stays_version_1_without_loop_or_formula():
    spec, violation = lassos.cycle()
    plain = replace(violation, loop=None)
    document = report.trace_document(spec, plain)
    assert document["version"] == 1
    assert "loop" not in document and "formula" not in document["property"]
    document["property"]["kind"] = "invariant"
    validate(document)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("loop"), "'loop' is a required property"),
        (lambda d: d.update(version=1), "should not be valid under"),
        (lambda d: d["loop"].pop("stutter"), "'stutter' is a required property"),
        (lambda d: d["loop"].update(back_to=-1), "-1 is less than the minimum of 0"),
        (lambda d: d["property"].update(kind="sometimes"), "'sometimes' is not one of"),
    ],
)
def test_the_schema_ties_the_loop_to_version_2(written, change, message):
    document = json.loads(written["cycle"].read_text())
    change(document)
    with pytest.raises(jsonschema.ValidationError, match=message):
        validate(document)


def test_load_reads_both_versions_and_refuses_others(written, tmp_path):
    assert tracefile.load(written["cycle"])["version"] == 2
    document = json.loads(written["cycle"].read_text())
    document["version"] = 3
    bad = tmp_path / "v3.json"
    bad.write_text(json.dumps(document))
    with pytest.raises(tracefile.TraceFileError) as caught:
        tracefile.load(bad)
    assert str(caught.value) == (
        f"{bad}: trace format version 3; this hwcheck reads versions 1 and 2"
    )


def test_load_refuses_a_loop_that_points_past_the_trace(written, tmp_path):
    for name, back_to, says in (
        ("cycle", 8, "8 is not the index of a step"),
        ("stutter", 2, "2 is not the last step's index"),
    ):
        document = json.loads(written[name].read_text())
        document["loop"]["back_to"] = back_to
        bad = tmp_path / f"{name}.json"
        bad.write_text(json.dumps(document))
        with pytest.raises(tracefile.TraceFileError) as caught:
            tracefile.load(bad)
        assert str(caught.value) == f"{bad}: field loop/back_to: {says}"


def test_replay_rebuilds_the_loop(written):
    for name, (_, original) in (("stutter", lassos.stutter()), ("cycle", lassos.cycle())):
        path = written[name]
        _, violation = tracefile.replay(path, tracefile.load(path))
        assert violation.loop == original.loop
        assert violation.trace == original.trace
        assert tracefile.still_violated(violation)


def test_replay_rejects_a_loop_that_does_not_close(written, tmp_path):
    document = json.loads(written["cycle"].read_text())
    document["loop"]["back_to"] = 4
    bad = tmp_path / "open.json"
    bad.write_text(json.dumps(document))
    with pytest.raises(tracefile.TraceFileError, match="the loop does not close") as caught:
        tracefile.replay(bad, tracefile.load(bad))
    fps = [step["fingerprint"] for step in document["steps"]]
    assert str(caught.value) == (
        f"{bad}: the loop does not close: state 8 is not state 5 "
        f"(fingerprints {fps[7]} and {fps[4]})"
    )
    result = invoke("replay", bad)
    assert result.exit_code == 4
    assert "the loop does not close: state 8 is not state 5" in result.output


def test_still_violated_judges_the_lasso_not_its_last_state():
    _, cycle = lassos.cycle()
    assert tracefile.still_violated(cycle)
    prop = cycle.prop
    assert [list(prop.predicate(step.state)) for step in cycle.trace[4:]] == [[0]] * 4
    always = replace(prop, goal=lambda state, key: True)
    assert not tracefile.still_violated(replace(cycle, prop=always))
    never_open = replace(prop, predicate=lambda state: ())
    assert not tracefile.still_violated(replace(cycle, prop=never_open))


def test_still_violated_for_eventually_always():
    _, cycle = lassos.cycle()
    loop_states = {s.state for s in cycle.trace[5:]}

    def kind(predicate):
        prop = replace(cycle.prop, kind="eventually-always", goal=None, predicate=predicate)
        return tracefile.still_violated(replace(cycle, prop=prop))

    assert kind(lambda state: state not in loop_states)  # false on the loop for ever
    assert not kind(lambda state: state in loop_states)  # true on the loop: <>[]P holds
    assert kind(lambda state: state != cycle.trace[6].state)  # false once per round


def test_hwcheck_replay_says_the_loop_closes(written):
    result = invoke("replay", written["cycle"])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{written['cycle']}: replayed 7 actions from the initial state; all 8 fingerprints "
        "match; the loop closes: state 8 is state 6 again, so the steps from state 6 repeat "
        "for ever; the lasso violates CommitProgress.\n"
    )
    result = invoke("replay", written["stutter"])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{written['stutter']}: replayed 5 actions from the initial state; all 6 fingerprints "
        "match; it stutters in state 6 for ever; the lasso violates CommitProgress.\n"
    )
