"""The command line's number types: click's ranges, read strictly (issue 63).

``Integer`` and ``Seconds`` are ``click.IntRange`` and ``click.FloatRange`` that take ASCII
digits only (Python's ``int`` reads ``"３"`` and ``"٣"`` as 3) and, for seconds, a finite
number (``nan`` passes every comparison a range makes, so ``--time-limit nan`` never ended).
``WORKERS`` bounds ``--workers`` by what this machine can use.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import click

MAX_WORKERS = max(8, 4 * (os.cpu_count() or 1))
MAX_WALK_DEPTH = 1_000_000
"""The longest walk ``simulate --depth`` takes, in states (a walk's states are held while it
is shrunk; the models' depths are under a hundred)."""
"""The most workers a command starts: four a core, at least 8 (more only queue on the cores;
100,000 once ran for minutes on a search of 0.3 s)."""


def _ascii(kind: Any, value: Any, param: Any, ctx: Any) -> None:
    if isinstance(value, str) and not value.strip().isascii():
        kind.fail(f"{value!r} is not a number written in ASCII digits.", param, ctx)


def _expected(kind: click.IntRange | click.FloatRange, what: str) -> str:
    """What a range option takes, in words: ``a whole number from 1 to 8``, ``a number of
    seconds greater than 0`` (click's own words, "is not a valid integer range", name the
    type rather than what to write)."""
    low, high = kind.min, kind.max
    if low is not None and high is not None:
        return f"{what} from {low} to {high}"
    if low is not None:
        return f"{what} greater than {low}" if kind.min_open else f"{what}, {low} or more"
    return what


def _a_number(
    kind: click.IntRange | click.FloatRange,
    value: Any,
    parse: Callable[[str], Any],
    what: str,
    param: Any,
    ctx: Any,
) -> None:
    """Refuse a text ``parse`` cannot read, saying what the option takes (``_expected``)."""
    if isinstance(value, str):
        try:
            parse(value)
        except ValueError:
            expected = _expected(kind, what)
            kind.fail(f"{value!r} is not a number; expected {expected}.", param, ctx)


class Integer(click.IntRange):
    """``click.IntRange`` that refuses digits other than ASCII ones."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        _ascii(self, value, param, ctx)
        _a_number(self, value, int, "a whole number", param, ctx)
        return super().convert(value, param, ctx)


class Seconds(click.FloatRange):
    """``click.FloatRange`` of a finite number, in ASCII digits."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        _ascii(self, value, param, ctx)
        _a_number(self, value, float, "a number of seconds", param, ctx)
        result = super().convert(value, param, ctx)
        if not math.isfinite(result):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return result


WORKERS = Integer(1, MAX_WORKERS)
"""``--workers``' type."""
