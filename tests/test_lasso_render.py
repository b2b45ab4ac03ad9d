"""A lasso drawn: its loop in the terminal (``hwcheck show``) and on the trace page, with the
exact lines and markers people read."""

from __future__ import annotations

import json

import lassos
import pytest
from click.testing import CliRunner
from rich.console import Console

from checker.cli import cli
from checker.formats import report
from checker.renderers import lasso, steps


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
    stutter = {**cycle, "back_to": 5, "stutter": True}
    assert lasso.loop_line(stutter, 6) == (
        "⏸ stutters in state 6 for ever: no fair action is enabled"
    )
    assert lasso.never_line(lassos.NEVER) == (
        "never happens though always enabled: Action0(x=0), Action1(x=1), Action2(x=2), "
        "Action3(x=3), Action4(x=4), Action5(x=5), +2 more"
    )
    assert lasso.never_line(["A(x=1)"]) == "never happens though always enabled: A(x=1)"
    assert lasso.never_line([]) == "never happens though always enabled: none"
    assert lasso.fairness_line("") == "fairness: none"


def test_a_cycle_in_the_terminal(documents):
    lines = drawn(documents["cycle"])
    titles = [line for line in lines if line.startswith("╭─ state")]
    assert len(titles) == 8
    assert titles[5].startswith(
        "╭─ state 6: FencedBecomeFollowerAndTruncate(leader=0, replica=1, epoch=1)  ↺ loop starts ─"
    )
    assert sum("loop starts" in title for title in titles) == 1
    last_panel = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    assert lines[last_panel + 1 : last_panel + 4] == [
        "↺ back to state 6: the steps from state 6 repeat for ever",
        (
            "  never happens though always enabled: Action0(x=0), Action1(x=1), Action2(x=2), "
            "Action3(x=3), Action4(x=4), Action5(x=5), +2 more"
        ),
        "  fairness: WF(BecomeLeader), SF(LeaderWrite)",
    ]
    assert lines[0].startswith("CommitProgress violated (8 states): ")
    assert lines[1].startswith("Why: CommitProgress == \\A r \\in Replicas : ")
    assert lines[1].endswith(" (never answered for 0)")


def test_a_stutter_in_the_terminal(documents):
    lines = drawn(documents["stutter"])
    titles = [line for line in lines if line.startswith("╭─ state")]
    assert len(titles) == 6 and "⏸ stays here for ever" in titles[5]
    last_panel = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    assert lines[last_panel + 1] == "⏸ stutters in state 6 for ever: no fair action is enabled"
    assert lines[last_panel + 2].startswith(
        "  never happens though always enabled: ControllerElectLeader(newLeader=1), "
    )
    assert lines[last_panel + 3].startswith("  fairness: WF(BecomeLeader), SF(")


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
