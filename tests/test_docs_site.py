"""The documentation site's generated pages say what hwcheck says: the command-line page
(mkdocs-click over ``checker.cli``) lists each command as ``hwcheck --help`` does."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from checker.cli import cli


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
    assert len(summaries) == len(cli.commands) == 10
    assert listed == summaries
    assert summaries["gate"].endswith("(states, depth, coverage, guards, shortest traces).")
