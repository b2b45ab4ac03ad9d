"""The ``--variant-file`` flag: the one way a command is told to run a team's Python.

A variant file is Python, and importing it runs it, so hwcheck imports one only when the user
names it (``spec.kafka.plugins.trust``): this flag on the command line, or ``variant_file``
in the gate config they own. Files that only name one (a trace, a schedule's header, a
checkpoint manifest) never make it run (issue 63).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from spec.kafka import plugins

F = TypeVar("F", bound=Callable[..., Any])


def trust_variant_file(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """The flag's callback: the user named this file, so its Python may run. A command that
    parses flags out of a file (a schedule's header) uses ``untrusted`` instead, so that no
    file can vouch for itself."""
    if value is not None:
        plugins.trust(value)
    return value


def variant_file_option(help_text: str) -> Callable[[F], F]:
    """The ``--variant-file RULES.PY`` option, trusted when given, with ``help_text``."""
    return click.option(
        "--variant-file",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        default=None,
        callback=trust_variant_file,
        metavar="RULES.PY",
        help=help_text,
    )


def untrusted(command: F) -> F:
    """``command`` (a click command) with ``--variant-file`` not trusted: for flags read from
    a file rather than typed by the user."""
    for param in command.params:  # type: ignore[attr-defined]
        if param.name == "variant_file":
            param.callback = None
    return command
