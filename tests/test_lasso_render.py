"""A lasso drawn: its loop in the terminal (``hwcheck show``) and on the trace page, with the
exact lines and markers people read."""

from __future__ import annotations

import json
from dataclasses import replace

import lassos
import pytest
from click.testing import CliRunner
from rich.console import Console

from checker.cli import cli
from checker.composition import compose
from checker.formats import report
from checker.renderers import html, lasso, steps
from checker.renderers import page as page_assets


@pytest.fixture(scope="module")
def documents():
    """``{"stutter": trace document, "cycle": trace document}``."""
    return {
        name: report.trace_document(spec, violation)
        for name, (spec, violation) in (("stutter", lassos.stutter()), ("cycle", lassos.cycle()))
    }


def drawn(document, **options) -> list[str]:
    console = Console(width=400, record=True, color_system=None)
    steps.print_document(console, document, **options)
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_the_loop_lines_say_how_the_behaviour_goes_on():
    cycle = {"back_to": 5, "stutter": False, "never_taken": [], "fairness": ""}
    assert lasso.loop_line(cycle, 8) == (
        "↺ back to state 6: the steps from state 6 repeat for ever"
    )
    assert lasso.shape_line(cycle, 8) == (
        "stem: states 1-5; loop: states 6-8 (state 8 is state 6 again)"
    )
    stutter = {**cycle, "back_to": 5, "stutter": True}
    assert lasso.loop_line(stutter, 6) == (
        "◼ stutters in state 6 for ever: no fair action is enabled"
    )
    assert lasso.shape_line(stutter, 6) == "stem: states 1-5; then state 6 for ever (a stutter)"
    assert lasso.fairness_line("") == "fairness: none"
    assert lasso.unfair_line(lassos.NEVER) == (
        "not assumed fair (enabled, never taken, owed nothing): Action0(x=0), Action1(x=1), "
        "Action2(x=2), Action3(x=3), Action4(x=4), Action5(x=5), +2 more"
    )
    assert lasso.unfair_line([]) == "not assumed fair (enabled, never taken, owed nothing): none"


def test_a_file_without_the_fairness_analysis_splits_never_taken_by_its_fairness():
    """A trace written before ``loop.enabled`` existed: its actions always enabled and never
    taken are sorted by whether the file's fairness covers their action."""
    old = {
        "back_to": 5,
        "stutter": True,
        "never_taken": ["Crash(replica=0)", "Fetch(follower=1, leader=0)"],
        "fairness": "WF(each Fetch), WF(each Restart)",
    }
    fair, unfair = lasso.split(old)
    assert unfair == ["Crash(replica=0)"]
    assert fair == [
        {"action": "Fetch(follower=1, leader=0)", "fairness": "WF(each Fetch)", "note": lasso.NEVER}
    ]


def test_a_cycle_in_the_terminal(documents):
    lines = drawn(documents["cycle"])
    titles = [line for line in lines if line.startswith("╭─ state")]
    assert len(titles) == 8
    assert titles[5].startswith(
        "╭─ state 6: FencedBecomeFollowerAndTruncate(leader=0, replica=1, epoch=1)  ↺ loop starts ─"
    )
    assert titles[7].startswith(
        "╭─ state 8: FencedLeaderShrinkIsr(leader=0, replica=1)  ↺ back to state 6 ─"
    )
    assert sum("loop starts" in title for title in titles) == 1
    last_panel = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    # The hand-made lasso assumes SF(LeaderWrite), which its loop never honours: said plainly.
    assert lines[last_panel + 1 : last_panel + 8] == [
        "↺ back to state 6: the steps from state 6 repeat for ever",
        "  stem: states 1-5; loop: states 6-8 (state 8 is state 6 again)",
        "  fair actions the loop never takes (each offered in some loop state):",
        (
            "    LeaderWrite(replica=0) [SF(LeaderWrite)]: enabled under SF(LeaderWrite) and never "
            "taken: this lasso is not fair"
        ),
        (
            "  not assumed fair (enabled, never taken, owed nothing): ControllerShrinkIsr(replica=0), "
            "FencedLeaderIncHighWatermark(leader=0), FencedFollowerFetch(follower=1, leader=0), "
            "ControllerElectLeader(newLeader=1), ControllerShrinkIsr(replica=1)"
        ),
        "  fairness: WF(BecomeLeader), SF(LeaderWrite)",
        lines[last_panel + 7],
    ]
    assert lines[0].startswith("CommitProgress violated (8 states): ")
    assert lines[1].startswith("Property: CommitProgress (leads-to): CommitProgress == \\A r ")
    assert lines[2] == "stem: states 1-5; loop: states 6-8 (state 8 is state 6 again)"
    assert lines[3] == (
        "Why: What CommitProgress promises for leader 0 never happens: the behaviour loops back "
        "to state 6 for ever, fairly."
    )
    assert lines[4].startswith("  - The promise: CommitProgress == \\A r \\in Replicas : ")


def test_a_stutter_in_the_terminal(documents):
    lines = drawn(documents["stutter"])
    titles = [line for line in lines if line.startswith("╭─ state")]
    assert len(titles) == 6 and "◼ stays here for ever" in titles[5]
    assert not any("↺ back to" in title for title in titles)
    last_panel = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    assert lines[last_panel + 1 : last_panel + 5] == [
        "◼ stutters in state 6 for ever: no fair action is enabled",
        "  stem: states 1-5; then state 6 for ever (a stutter)",
        "  fair actions the loop never takes: none",
        (
            "  not assumed fair (enabled, never taken, owed nothing): "
            "ControllerElectLeader(newLeader=1), ControllerShrinkIsr(replica=0), "
            "ControllerShrinkIsr(replica=1), FencedLeaderShrinkIsr(leader=0, replica=1), "
            "FencedFollowerFetch(follower=1, leader=0)"
        ),
    ]
    assert lines[last_panel + 5].startswith("  fairness: WF(BecomeLeader), SF(")


def test_one_state_of_a_lasso_keeps_its_mark_without_the_loop_lines(documents):
    lines = drawn(documents["cycle"], step=6)
    assert next(line for line in lines if line.startswith("╭─")).startswith(
        "╭─ state 6: FencedBecomeFollowerAndTruncate(leader=0, replica=1, epoch=1)  ↺ loop starts"
    )
    assert not any(line.startswith("↺ back to") for line in lines)


def test_hwcheck_show_draws_a_lasso_file(documents, tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(documents["cycle"]))
    result = CliRunner().invoke(cli, ["show", str(path)])
    assert result.exit_code == 0, result.output
    assert "↺ back to state 6: the steps from state 6 repeat for ever\n" in result.output
    assert "↺ loop starts" in result.output


# -- the trace page ------------------------------------------------------------------------------
def section(page: str, number: int) -> str:
    start = page.index(f'id="state-{number}"')
    return page[page.rindex("<section", 0, start) : page.index("</section>", start)]


def test_a_cycle_on_the_page(documents):
    page = html.render(documents["cycle"])
    assert '<body data-length="8" data-back="5" data-stutter="false">' in page
    ticks = "".join(
        f'<a class="tick" href="#state-{n}" data-state="{n}">{n}</a>' for n in range(1, 9)
    )
    band = ticks.index('<a class="tick" href="#state-6"')
    assert (
        '<nav class="timeline" id="timeline" aria-label="states">'
        + ticks[:band]
        + '<span class="loop-band" title="↺ back to state 6: the steps from state 6 repeat for '
        'ever"><span class="loop-label">loop</span>'
        + ticks[band:]
        + '</span><a class="loop-end" href="#state-6">↺ back to state 6</a></nav>'
    ) in page
    assert section(page, 5).startswith('<section class="step" id="state-5"')
    assert section(page, 6).startswith('<section class="step in-loop" id="state-6"')
    assert (
        '<div class="action">state 6: FencedBecomeFollowerAndTruncate(leader=0, replica=1, '
        'epoch=1)<span class="loop-mark">↺ loop starts</span></div>'
    ) in section(page, 6)
    assert '<span class="loop-mark">' not in section(page, 7)
    assert section(page, 8).endswith(
        '<p class="loop-line next">↺ back to state 6: the steps from state 6 repeat for ever</p>'
    )
    assert (
        '<p class="loop" id="loop"><b id="property">Property: CommitProgress (leads-to)</b>: '
        "<code>CommitProgress == \\A r \\in Replicas"
    ) in page
    assert (
        '<b class="loop-line">↺ back to state 6: the steps from state 6 repeat for ever</b><br>'
        '<span id="shape">stem: states 1-5; loop: states 6-8 (state 8 is state 6 again)</span>'
    ) in page
    assert (
        '<ul class="never" id="never"><li><code>LeaderWrite(replica=0)</code> [SF(LeaderWrite)]: '
        "enabled under SF(LeaderWrite) and never taken: this lasso is not fair</li></ul>"
    ) in page
    assert (
        "not assumed fair (enabled, never taken, owed nothing): ControllerShrinkIsr(replica=0),"
        in page
    )
    assert "fairness: WF(BecomeLeader), SF(LeaderWrite)</p>" in page
    assert f"<script>{page_assets.LOOP_SCRIPT}</script>" in page
    assert page_assets.LOOP_STYLE in page


def test_a_stutter_on_the_page(documents):
    page = html.render(documents["stutter"])
    assert '<body data-length="6" data-back="5" data-stutter="true">' in page
    assert '<span class="loop-label">loop</span><a class="tick" href="#state-6"' in page
    assert '</span><span class="loop-end">◼ stutters for ever</span></nav>' in page
    assert '<span class="loop-mark">◼ stays here for ever</span>' in section(page, 6)
    assert section(page, 6).endswith(
        '<p class="loop-line next">◼ stutters in state 6 for ever: no fair action is enabled</p>'
    )


def test_a_safety_page_has_no_loop(documents):
    spec, violation = lassos.cycle()
    page = html.render(report.trace_document(spec, replace(violation, loop=None)))
    for marker in ("data-back", "timeline", "loop-mark", "in-loop", 'id="loop"', "loop-caption"):
        assert marker not in page
    assert page_assets.LOOP_SCRIPT not in page and page_assets.LOOP_STYLE not in page


def test_text_of_the_loop_is_escaped(documents):
    document = json.loads(json.dumps(documents["cycle"]))
    document["loop"]["enabled"][1]["action"] = "<script>alert(1)</script>"
    document["loop"]["fairness"] = "WF(<b>)"
    document["loop"]["obligation"] = 'for "<i>"'
    page = html.render(document)
    assert "<script>alert(1)" not in page and "<b>)" not in page and "<i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "fairness: WF(&lt;b&gt;)" in page
    assert "never answered for &quot;&lt;i&gt;&quot;)" in page


# -- hwcheck serve -------------------------------------------------------------------------------
def test_serve_sends_the_loop(documents):
    from checker.web.app import create_app
    from checker.web.explorer import Explorer
    from checker.web.jump import Jumps

    document = documents["cycle"]
    explorer = Explorer("tla", compose.make_config("tla", document["config"]))
    client = create_app(explorer, Jumps(1), document).test_client()
    page = client.get("/trace").text
    assert '<a class="loop-end" href="#state-6">↺ back to state 6</a>' in page
    assert '<span class="loop-mark">↺ loop starts</span>' in section(page, 6)
    assert "Branch here: explore on from state 6 in the explorer" in section(page, 6)
    sent = client.get("/api/trace").get_json()
    assert sent["version"] == 2 and sent["loop"] == document["loop"]
    bare = create_app(explorer, Jumps(1)).test_client().get("/api/trace")
    assert bare.status_code == 404
    assert bare.get_json() == {"error": "no trace loaded: start the server with --trace"}


def test_hwcheck_show_html_writes_the_lasso_page(documents, tmp_path):
    path, out = tmp_path / "trace.json", tmp_path / "page.html"
    path.write_text(json.dumps(documents["stutter"]))
    result = CliRunner().invoke(cli, ["show", str(path), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text() == html.render(documents["stutter"])
    assert '<span class="loop-end">◼ stutters for ever</span>' in out.read_text()
