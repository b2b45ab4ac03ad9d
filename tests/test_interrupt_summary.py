"""What an interrupted ``explore`` says about its numbers (issue 64): the summary's counts
are those of the levels completed before the Ctrl-C, the progress line's also counted the
level in flight, and the checkpoint left behind is named with its size, how to resume it and
how to delete it. The Ctrl-C lands on an event (the progress line of level 7 shown), in
process, on a 2-replica model: no sleep, no subprocess."""

from __future__ import annotations

import contextlib
import json
import os

from click.testing import CliRunner

from checker.cli import cli
from checker.limits import Reporting
from checker.renderers import progress as progress_view


def test_the_interrupted_summary_says_what_it_counts_and_what_it_leaves(tmp_path, monkeypatch):
    shown = []

    @contextlib.contextmanager
    def terminal(enabled, resuming=None):
        def update(line):
            shown.append(line)
            if line.expanded is not None and line.depth == 6:
                raise KeyboardInterrupt  # Ctrl-C while level 7 is under way

        yield update

    monkeypatch.setattr(progress_view, "for_search", terminal)
    monkeypatch.setattr(Reporting, "due", lambda self: True)  # a line for every slice
    out = tmp_path / "x"
    args = ["explore", "--replicas", "2", "--workers", "1", "--show", "none"]
    run = CliRunner().invoke(cli, [*args, "--out", str(out)])
    assert run.exit_code == 3, run.output
    stats = json.loads((out / "summary.json").read_text())["stats"]
    saved = json.loads((out / "checkpoint" / "checkpoint.json").read_text())
    # the summary, the checkpoint and a run bounded to 6 levels agree
    bounded = CliRunner().invoke(cli, [*args, "--max-depth", "6", "--out", str(tmp_path / "y")])
    six = json.loads((tmp_path / "y" / "summary.json").read_text())["stats"]
    assert saved["level"] == 6 and saved["search"]["distinct"] == stats["distinct"]
    assert (stats["distinct"], stats["generated"]) == (six["distinct"], six["generated"])
    assert bounded.exit_code == 3
    last = max(shown, key=lambda line: line.distinct)  # then the checkpoint's line, at level 6
    assert last.depth == 6 and last.expanded is not None and last.distinct > stats["distinct"]
    lines = run.stderr.strip().splitlines()
    assert lines[0] == (
        f"Interrupted (Ctrl-C): the results below are partial. Their counts "
        f"({stats['distinct']:,} distinct states, {stats['generated']:,} generated) are those "
        f"of the 6 levels completed before the interrupt; the progress line's "
        f"{last.distinct:,} distinct also counted level 7, in flight, which is not kept."
    )
    size = sum(
        os.stat(os.path.join(top, name)).st_size
        for top, _, names in os.walk(out / "checkpoint")
        for name in names
    )
    where = out / "checkpoint"
    assert lines[-2:] == [
        f"Checkpoint kept: {where} ({size / 1024:,.0f} KiB); if you will not resume, delete it: rm -r {where}",
        f"Resume with: hwcheck explore --resume {where}",
    ]


def test_an_interrupt_after_the_search_says_only_liveness_was_cut():
    """Ctrl-C in the liveness pass, after the search had finished: the line says so, not
    that the counts are those of the levels completed before the interrupt."""

    class Stats:
        distinct, generated, depth = 5, 9, 3

    assert progress_view.interrupted_line("Ctrl-C", Stats(), None, searched=True) == (
        "Interrupted (Ctrl-C) in the liveness pass: the results below are partial. The search "
        "had finished (5 distinct states, 9 generated, every level); the liveness properties "
        "are unknown."
    )


def test_no_line_shown_means_no_in_flight_count_to_explain():
    class Stats:
        distinct, generated, depth = 5, 9, 1

    assert progress_view.interrupted_line("SIGTERM", Stats(), None) == (
        "Interrupted (SIGTERM): the results below are partial. Their counts (5 distinct "
        "states, 9 generated) are those of the level completed before the interrupt."
    )
