"""Validation shared by the models' configs: one message naming the option and its range."""

from __future__ import annotations

from collections.abc import Iterable


class ConfigError(ValueError):
    """An impossible bound. ``option`` is the CLI option at fault (``--min-isr``); the message
    names it and the allowed range."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def require_within(bounds: Iterable[tuple[str, int, tuple[int, int]]]) -> None:
    """Raise ``ConfigError`` for the first ``(option, value, (least, most))`` outside its
    range (inclusive), or that is not an integer (a boolean is not one). The ranges are the
    models' ``LIMITS``: what the cores' tables and the action labels can hold, checked before
    a model is built, so that a bound from a file or the command line never hangs a run."""
    for option, value, (least, most) in bounds:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(option, f"{option} must be an integer, got {value!r}")
        if not least <= value <= most:
            raise ConfigError(option, f"{option} must be between {least} and {most}, got {value}")


def resolve_variant(
    name: str, variants: tuple[str, ...], aliases: dict[str, str], context: str = ""
) -> str:
    """The variant ``name`` names (aliases resolved); ``ConfigError`` if there is none."""
    resolved = aliases.get(name, name)
    if resolved not in variants:
        allowed = ", ".join(variants + tuple(aliases))
        raise ConfigError(
            "--truncation", f"--truncation must be one of {allowed}{context}, got {name!r}"
        )
    return resolved
