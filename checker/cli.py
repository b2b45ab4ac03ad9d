"""The ``hwcheck`` command line (click): the group, its ``--help`` and ``--version``, every
command of ``checker.commands`` registered, and ``main``, which owns SIGTERM and stops Spark
before the process ends. Exit codes are documented in the reference (``checker.result``); a
user mistake never prints a traceback.
"""

from __future__ import annotations

import signal
import sys

import click

from checker import __version__
from checker.commands import (
    compare,
    conform,
    engines,
    explore,
    gate,
    graph,
    scenario,
    serve,
    simulate,
    trace,
)
from checker.commands import list as list_command
from checker.limits import ENDING, received
from checker.result import EXIT_OK


def _first_sentence(text: str) -> str:
    """The first sentence of a command's help, on one line."""
    words = " ".join(text.split("\n\n")[0].split())
    head, dot, _ = words.partition(". ")
    return head + "." if dot else words


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hwcheck")
def cli() -> None:
    """hwcheck: an explicit-state model checker for Kafka's replication protocol."""


for command in (
    explore.explore_cmd,
    list_command.list_cmd,
    compare.compare_cmd,
    conform.conform_cmd,
    graph.graph_cmd,
    gate.gate_cmd,
    trace.show_cmd,
    trace.replay_cmd,
    scenario.scenario_cmd,
    simulate.simulate_cmd,
    serve.serve_cmd,
):
    # Each command's summary, in ``hwcheck --help`` and the docs' command-line page
    # (mkdocs-click reads ``short_help``), is its first sentence whole: click would cut the
    # help at the terminal's width with "...", and mkdocs-click at the docstring's first line.
    command.short_help = _first_sentence(command.help or "")
    cli.add_command(command)


def main() -> None:
    """Console-script entry point; exits with the documented codes. SIGTERM (what CI runners
    and schedulers send) and SIGHUP (the terminal closed) end a command as one Ctrl-C does:
    partial results marked partial, workers, JVM and the disk tier's files gone, exit 3; a
    second one ends the process at once."""
    for signum in ENDING:
        signal.signal(signum, _terminated)
    try:
        cli.main(prog_name="hwcheck", standalone_mode=True)
    except KeyboardInterrupt:  # outside the search (which handles Ctrl-C itself)
        click.echo("interrupted", err=True)
        sys.exit(3)
    finally:
        engines.close_spark()
    sys.exit(EXIT_OK)


def _terminated(signum: int, frame: object) -> None:
    """The SIGTERM and SIGHUP handler: the next such signal gets the default action (end at
    once); this one becomes the KeyboardInterrupt every command already handles as one
    Ctrl-C."""
    for each in ENDING:
        signal.signal(each, signal.SIG_DFL)
    received.append(signal.Signals(signum).name)
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
