"""Fuzzing of command-line values (issue 63's contract, ``tests/fuzzing.py``): every option
of ``explore``, ``simulate``, ``graph`` and ``compare`` that takes a value (no flag, no path,
none that ``SKIPPED`` names: Spark, engine, resume, variants, output) given a strange one,
with a documented exit code and at most one message."""

from __future__ import annotations

import re
from typing import Any

import click
from fuzzing import CHEAP, MANY, folder, holds, invoke, nasty_text
from hypothesis import given
from hypothesis import strategies as st

from checker.cli import cli

TINY = ["--replicas", "2", "--max-epoch", "0", "--max-records", "1", "--max-crashes", "0"]
VALUE_COMMANDS = {
    "explore": [*TINY, "--no-progress", "--show", "none"],
    "simulate": [*TINY, "--no-progress", "--walks", "3", "--depth", "5"],
    "graph": TINY,
    "compare": [*TINY, "--no-progress", "--truncation", "hw", "--truncation", "kip320"],
}
SKIPPED = re.compile(r"spark|master|conf|engine|resume|checkpoint$|variant|out|connect")


def _options(command: str) -> list[str]:
    params = cli.commands[command].params
    return sorted(
        p.opts[0]
        for p in params
        if isinstance(p, click.Option)
        and not p.is_flag
        and not isinstance(p.type, click.Path)
        and not SKIPPED.search(p.name or "")
    )


VALUES = [
    "",
    " ",
    "-1",
    "-0",
    "+1",
    " 1 ",
    "1_000",
    "0x10",
    "1e999",
    "nan",
    "inf",
    "٣",
    "３",
    "9" * 400,
    "9" * 5000,
    "a\x00b",
    "\udcff",
    "True",
    "1.5",
    "Fetch=1e999",
    "NoDivergence",
    "kip320",
]


def _long_run(command: str, option: str, value: str) -> bool:
    """Whether ``value`` is a number of 3 or more that ``option`` accepts (``--walks 10**400``
    is a run of ten to the 400 walks, which is what it asks for)."""
    try:
        number = int(value) if value.strip().isascii() else None
    except ValueError:
        return False
    if number is None or number < 3:
        return False
    kind = next(p.type for p in cli.commands[command].params if option in p.opts)
    top = getattr(kind, "max", None)
    return top is None or number <= top


def _value_case(seeds: dict, data: Any) -> None:
    command = data.draw(st.sampled_from(sorted(VALUE_COMMANDS)), label="command")
    option = data.draw(st.sampled_from(_options(command)), label="option")
    value = data.draw(st.one_of(st.sampled_from(VALUES), nasty_text), label="value")
    if _long_run(command, option, value):
        value = "2"  # in range, a larger bound or more walks is a longer run, not a finding
    with folder(seeds["root"]) as here:
        out = ["--out", here / "g.dot"] if command == "graph" else ["--out", here / "out"]
        result = invoke([command, *VALUE_COMMANDS[command], option, value, *out])
        holds(result, {0, 2, 3, 12, 13}, here, {"out", "g.dot"})


@CHEAP
@given(data=st.data())
def test_a_strange_command_line_value_is_one_message(seeds, data):
    _value_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_strange_command_line_value_is_one_message_many(seeds, data):
    _value_case(seeds, data)
