"""The documentation site's generated pages say what hwcheck says: the command-line page
(mkdocs-click over ``checker.cli``) lists each command as ``hwcheck --help`` does, and the
File formats page describes the schedule file to the people who write one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.formats import schedule


def help_summaries() -> dict[str, str]:
    """Each command's summary as ``hwcheck --help`` prints it, its wrapped lines joined."""
    text = CliRunner().invoke(cli, ["--help"], env={"COLUMNS": "80"}).output
    summaries: dict[str, str] = {}
    name = ""
    for line in text[text.index("Commands:") :].splitlines()[1:]:
        found = re.match(r"^  (\S+)\s+(.*)$", line)
        if found:
            name = found[1]
            summaries[name] = found[2]
        elif line.strip():
            summaries[name] += " " + line.strip()
    return summaries


def test_the_cli_page_gives_each_command_the_summary_help_gives():
    docs = pytest.importorskip("mkdocs_click._docs", reason="pip install -e '.[docs]'")
    page = "\n".join(
        docs.make_command_docs(
            "hwcheck", cli, depth=1, style="plain", list_subcommands=True, has_attr_list=True
        )
    )
    listed = dict(re.findall(r"^- \*\[(\S+)\]\(#[^)]*\)\*: (.*)$", page, re.MULTILINE))
    summaries = help_summaries()
    assert len(summaries) == len(cli.commands) == 11
    assert listed == summaries
    assert summaries["gate"].endswith("(states, depth, coverage, guards, shortest traces).")


def test_the_formats_page_describes_schedules_for_their_writers(tmp_path):
    """The File formats page shows ``schedule.DESCRIPTION``: its example is a schedule hwcheck
    plays, and it names no module, class or function of hwcheck's code."""
    text = schedule.DESCRIPTION
    example = text.split("```text\n")[1].split("```")[0]
    (tmp_path / "example.txt").write_text(example)
    played = CliRunner().invoke(
        cli, ["scenario", str(tmp_path / "example.txt"), "--out", str(tmp_path / "out")]
    )
    assert played.exit_code == 0, played.output
    read = schedule.parse(example, Path("example.txt"))
    assert read.header == ("--replicas", "2", "--truncation", "hw", "--max-records", "3")
    assert [step.text for step in read.steps][-1] == "Produce(leader=0)"
    prose = text.replace(example, "").replace("```", "")
    assert not re.search(r"checker\.|``|\bparse\b|\bload\b|ScheduleError", prose)
    gen_pages = (Path(__file__).resolve().parents[1] / "docs" / "gen_pages.py").read_text()
    assert "schedule.DESCRIPTION" in gen_pages and "schedule.__doc__" not in gen_pages
