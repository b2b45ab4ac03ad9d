"""Kafka versions as users write them: the note that says which preset a version runs.

``--truncation kafka-3.6.1`` (or ``3.6.1``) runs the release preset that models it
(``spec.kafka.versions.preset_for``); the command says so in one line on stderr, once a
process, so that nobody reads the summary's ``kafka-3.6`` as a different release.
"""

from __future__ import annotations

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
