"""Kafka versions as users write them: the note that says which preset a version runs.

``--truncation kafka-3.6.1`` (or ``3.6.1``) runs the release preset that models it
(``spec.kafka.versions.preset_for``); the command says so in one line on stderr, once a
process, so that nobody reads the summary's ``kafka-3.6`` as a different release.
``compare --releases 3.4.0,3.6.1`` takes a list of them (``Releases``).
"""

from __future__ import annotations

from typing import Any

import click

from spec.kafka import versions

_SAID: set[str] = set()


def say_preset(model: str, asked: object, preset: str) -> None:
    """Print ``Note: kafka-3.6.1 runs the preset kafka-3.6 (3.5.1 - ... 3.6.2).`` on stderr
    when ``asked`` (the ``--truncation`` text) is a Kafka version or alias that names another
    ``preset``; once a process (a command may build its model more than once)."""
    text = str(asked or "").lower()
    if model != "kafka" or text in ("", "epoch", preset) or text in _SAID:
        return
    _SAID.add(text)
    covers = versions.covers(preset)
    click.echo(
        f"Note: {text} runs the preset {preset}" + (f" ({covers})." if covers else "."), err=True
    )


class Releases(click.ParamType):  # type: ignore[type-arg]
    """``--releases``: Kafka versions as users write them, comma-separated (``3.4.0,3.6.1``,
    ``kafka-4.1``), each converted to ``(version as written, release preset that models it)``
    by ``spec.kafka.versions.preset_for``. A value that is no version, or a version of no
    release line the model knows, fails with one line (click's usage error, exit 2)."""

    name = "versions"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, tuple):
            return value
        out = []
        for item in str(value).split(","):
            text = item.strip().lower()
            try:
                preset = versions.preset_for(text)
            except versions.UnknownVersion as exc:
                self.fail(str(exc), param, ctx)
            if preset is None:
                self.fail(
                    f"{item.strip()!r} is not a Kafka version (X.Y or X.Y.Z, e.g. 3.4.0)",
                    param,
                    ctx,
                )
            out.append((text, preset))
        return tuple(out)
