"""What ``hwcheck gate`` writes besides its table: the updated lock file, the JUnit report,
GitHub Actions annotations and step summary, and its wrapped messages. A file that cannot be
written ends the command with one line on stderr and exit 5 (README's exit codes)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import click

from checker.formats import gate_output, pins
from checker.renderers import terminal
from checker.result import EXIT_ENVIRONMENT

UPDATE_HINT = "run hwcheck gate --update"


def update_lock(fresh: pins.Lock, names: set[str], keys: set[str], complete: bool) -> None:
    """Write the updated lock file (exit 5 when it cannot be written); pins of checks and
    traces no longer in the config are dropped when every check ran."""
    stale = sorted(set(fresh.checks) - names) if complete else []
    gone = sorted(set(fresh.traces) - keys) if complete else []
    for name in stale:
        del fresh.checks[name]
    for key in gone:
        del fresh.traces[key]
    stale += [f"trace {key}" for key in gone]
    try:
        fresh.path.parent.mkdir(parents=True, exist_ok=True)
        pins.write_lock(fresh)
    except OSError as exc:
        cannot_write(f"cannot write the lock file {fresh.path}: {exc.strerror or exc}")
    dropped = f"; dropped the pins of {', '.join(stale)}" if stale else ""
    say(
        f"\nWrote {fresh.path}: {count(len(fresh.checks), 'check')} and "
        f"{count(len(fresh.traces), 'trace')} pinned{dropped}. Review its diff before "
        "committing it."
    )


def say(text: str, indent: str = "") -> None:
    """Print ``text`` on stdout wrapped to the table's width (the terminal's, ``COLUMNS`` or
    160 columns when piped), continuation lines indented two more spaces."""
    width = terminal.stdout_console().width
    lead = "\n" if text.startswith("\n") else ""
    click.echo(
        lead
        + textwrap.fill(
            text.lstrip("\n"),
            width,
            initial_indent=indent,
            subsequent_indent=indent + "  ",
            break_on_hyphens=False,
        )
    )


def count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def write_outputs(outcomes: Any, junit_xml: Path | None, config_path: Path) -> None:
    """The JUnit file (exit 5 when it cannot be written), and on GitHub Actions the
    annotations and the step summary."""
    if junit_xml is not None:
        try:
            junit_xml.parent.mkdir(parents=True, exist_ok=True)
            junit_xml.write_text(gate_output.junit_xml(outcomes), encoding="utf-8")
        except OSError as exc:
            cannot_write(f"cannot write the JUnit report to {junit_xml}: {exc.strerror or exc}")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in gate_output.github_annotations(outcomes, str(config_path)):
            click.echo(line)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(gate_output.markdown_summary(outcomes))


def cannot_write(message: str) -> None:
    """One line on stderr and exit 5: an output file cannot be written."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(EXIT_ENVIRONMENT)
