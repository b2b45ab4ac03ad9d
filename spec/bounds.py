"""Validation shared by the models' configs: one message naming the option and its range."""

from __future__ import annotations

from collections.abc import Iterable


class ConfigError(ValueError):
    """An impossible bound. ``option`` is the CLI option at fault (``--min-isr``); the message
    names it and the allowed range."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def require_replicas(replicas: int, most: int) -> None:
    """Raise ``ConfigError`` unless ``1 <= replicas <= most``."""
    if not 1 <= replicas <= most:
        raise ConfigError("--replicas", f"--replicas must be between 1 and {most}, got {replicas}")


def require_non_negative(bounds: Iterable[tuple[str, int]]) -> None:
    """Raise ``ConfigError`` for the first ``(option, value)`` below 0."""
    for option, value in bounds:
        if value < 0:
            raise ConfigError(option, f"{option} must be 0 or more, got {value}")


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
