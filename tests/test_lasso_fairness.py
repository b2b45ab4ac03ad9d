"""What a lasso's loop leaves undone and why fairness lets it (``checker.formats.fairloop``), as
the terminal, ``explore``'s counterexample list and ``hwcheck serve`` say it, on the gallery's
HW-truncation lasso: after state 13 follower 0 holds m0 (epoch 0) where leader 1 holds m1
(epoch 2), both at LEO 1 and HW 1, and state 14 stutters for ever. Its follower's fetch at the
leader's LEO brings nothing (a stutter: it changes no state), and the only real steps left are
the two crashes, a perturbation no fairness covers (``spec.kafka.progress.PERTURBATIONS``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from checker.commands import serve
from checker.formats import fairloop, tracefile
from checker.renderers import shown, steps
from checker.web.app import create_app
from checker.web.jump import Jumps

GALLERY = Path(__file__).resolve().parents[1] / "reports" / "gallery"
STUTTER = GALLERY / "hw-follower-never-repaired" / "trace.json"


@pytest.fixture(scope="module")
def replayed():
    document = tracefile.load(STUTTER)
    spec, violation = tracefile.replay(STUTTER, document)
    return document, spec, violation


def drawn(document) -> list[str]:
    console = Console(width=400, record=True, color_system=None)
    steps.print_document(console, document)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_the_analysis_of_the_stutter(replayed):
    document, spec, violation = replayed
    entries = fairloop.analyse(
        spec,
        [step.state for step in violation.trace],
        [None if s.label is None else str(s.label) for s in violation.trace],
        13,
        True,
        document["loop"]["fairness"],
    )
    assert entries == [
        {
            "action": "Fetch(follower=0, leader=1)",
            "fairness": "WF(each Fetch)",
            "enabled_in": [],
            "stutters_in": [14],
            "note": "not fairly enabled: it changes nothing in state 14 (a stutter)",
        },
        *(
            {
                "action": f"Crash(replica={r})",
                "fairness": "",
                "enabled_in": [14],
                "stutters_in": [],
                "note": "a perturbation, never assumed fair",
            }
            for r in (0, 1)
        ),
    ]
    assert document["loop"]["enabled"] == entries  # the gallery file carries it


def test_the_terminal_names_the_property_and_leaves_crashes_out_of_the_fair_actions(replayed):
    lines = drawn(replayed[0])
    assert lines[1].startswith("Property: FollowerCatchesUp (leads-to): \\A f, e : (InIsr(f, e)")
    assert lines[2] == "stem: states 1-13; then state 14 for ever (a stutter)"
    assert "╭─ state 14: BecomeFollower(replica=0, epoch=2)  ◼ stays here for ever ─" in "\n".join(
        lines
    )
    end = lines.index("◼ stutters in state 14 for ever: no fair action is enabled")
    assert lines[end + 1 : end + 5] == [
        "  stem: states 1-13; then state 14 for ever (a stutter)",
        "  fair actions the loop never takes (each offered in some loop state):",
        (
            "    Fetch(follower=0, leader=1) [WF(each Fetch)]: not fairly enabled: it changes nothing "
            "in state 14 (a stutter)"
        ),
        (
            "  not assumed fair (enabled, never taken, owed nothing): Crash(replica=0), "
            "Crash(replica=1)"
        ),
    ]


def test_explore_draws_the_first_lasso_in_full_beside_the_first_safety_trace(replayed):
    lasso = replayed[0]
    safety = json.loads(json.dumps(lasso))
    del safety["loop"]
    safety["property"]["name"] = "NoDivergence"
    safety["steps"][0]["fingerprint"] = "1" * 16  # another trace than the lasso
    other = json.loads(json.dumps(lasso))
    other["steps"][-1]["fingerprint"] = "0" * 16  # another lasso: a line only
    console = Console(width=400, record=True, color_system=None)
    entries = [("NoDivergence", safety, "a"), ("FollowerCatchesUp", lasso, "b"), ("X", other, "c")]
    shown.print_counterexamples(console, entries, "first")
    text = console.export_text()
    assert text.count("╭─ state 1: initial state") == 2
    assert "◼ stutters in state 14 for ever: no fair action is enabled" in text
    assert "X violated (14 states): trace: c" in text


def test_serve_names_the_property_the_stutter_and_what_each_action_owes(replayed):
    document, explorer = serve._from_trace(STUTTER, (), None)
    client = create_app(explorer, Jumps(1), document).test_client()
    page = client.get("/trace/last", follow_redirects=True).text
    assert "<title>hwcheck explorer: state 14 (lasso: FollowerCatchesUp violated)" in page
    assert '<b id="lasso-property">FollowerCatchesUp violated (leads-to)</b>' in page
    assert (
        '<p id="lasso-where">State 14 is where the behaviour stutters for ever: no fair action '
        "is enabled.</p>"
    ) in page
    assert "◼ stutters in state 14 for ever: no fair action is enabled · stem: states 1-13" in page
    tags = [chunk.split("</span>")[0] for chunk in page.split('<span class="fairness">')[1:]]
    assert tags == [
        "changes nothing here (a stutter): not fairly enabled",
        "never taken in the loop: a perturbation, never assumed fair",
        "never taken in the loop: a perturbation, never assumed fair",
    ]
    stem = client.get("/", query_string={"step": document["steps"][1]["action"]}).text
    assert "State 2 is in the stem (states 1-13), before the loop." in stem
    assert stem.count('<span class="fairness">') == 1  # the lasso's next step only
    assert "the lasso&#39;s next step</span>" in stem
    off = client.get("/", query_string={"step": "Elect(leader=0)"}).text
    assert 'id="lasso"' not in off
