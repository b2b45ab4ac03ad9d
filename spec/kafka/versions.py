"""Kafka versions as users write them (``kafka-3.6.1``, ``3.6.1``, ``3.6``) and the release
preset that models each (``spec.kafka.releases``: the presets themselves).

Plain data and parsing: this module imports nothing of the model but the release table.
"""

from __future__ import annotations

from spec.kafka.releases import RELEASES

FIRST = (
    ((0, 0, 0), "kafka-0.10"),
    ((0, 11, 0), "kafka-0.11"),
    ((2, 0, 0), "kafka-2.0"),
    ((2, 1, 0), "kafka-2.1"),
    ((2, 8, 0), "kafka-2.8"),
    ((2, 8, 1), "kafka-3.0"),
    ((3, 3, 0), "kafka-3.3"),
    ((3, 4, 1), "kafka-3.4.1"),
    ((3, 5, 0), "kafka-3.5"),
    ((3, 5, 1), "kafka-3.5.1"),
    ((3, 6, 0), "kafka-3.6"),
    ((3, 7, 0), "kafka-3.7"),
    ((4, 0, 0), "kafka-4.0"),
    ((4, 1, 0), "kafka-4.1"),
)
"""The first Kafka version each release preset models, in version order: a version runs the
preset of the last entry at or below it (2.7.2 is ``kafka-2.1``: 2.7 never sends a last
fetched epoch; 2.8.1 is ``kafka-3.0``; 3.4.1 is ``kafka-3.4.1``, before 3.5.0)."""

LINES = (
    *((0, minor) for minor in (8, 9, 10, 11)),
    (1, 0),
    (1, 1),
    *((2, minor) for minor in range(9)),
    *((3, minor) for minor in range(10)),
    *((4, minor) for minor in range(5)),
)
"""The Kafka release lines (major, minor) that exist and were read for this model, oldest
first; 4.4 is the newest (4.2, 4.3 and 4.4 change no rule the model has: ``kafka-4.1``)."""


class UnknownVersion(ValueError):
    """A Kafka version of no release line in ``LINES``; the message names the nearest."""


def _parse(name: str) -> tuple[int, ...] | None:
    """``(major, minor, patch)`` of ``kafka-X.Y[.Z]`` or ``X.Y[.Z]`` (ASCII digits only);
    None for anything else."""
    text = name.removeprefix("kafka-")
    parts = text.split(".")
    if not 2 <= len(parts) <= 3:
        return None
    if not all(p.isascii() and p.isdigit() and len(p) <= 4 for p in parts):
        return None
    numbers = tuple(int(p) for p in parts)
    return numbers + (0,) * (3 - len(numbers))


def preset_for(name: str) -> str | None:
    """The release preset that models the Kafka version ``name`` (``kafka-3.6.1``,
    ``3.6.1``, ``kafka-3.6`` or ``3.6``; a bare ``X.Y`` is ``X.Y.0``), by ``FIRST``; a
    preset's own name gives itself. None when ``name`` is not a version. Raises
    ``UnknownVersion`` for a version of no release line in ``LINES`` (naming the nearest)."""
    version = _parse(name)
    if version is None:
        return None
    if version[:2] not in LINES:
        below = [line for line in LINES if line < version[:2]]
        nearest = below[-1] if below else LINES[0]
        raise UnknownVersion(
            f"Kafka {'.'.join(map(str, version[:2]))} is not a release line this model knows "
            f"(0.8 to {'.'.join(map(str, LINES[-1]))}); the nearest is "
            f"{'.'.join(map(str, nearest))}, modelled by {preset_for('.'.join(map(str, nearest)))}"
        )
    return next(preset for first, preset in reversed(FIRST) if first <= version)


def covers(preset: str) -> str:
    """The versions ``preset`` models, as its ``Release.kafka`` says ('' for a KIP preset)."""
    return next((r.kafka for r in RELEASES if r.name == preset), "")


BOUNDARIES = (
    "2.0.1", "2.7.2", "2.8.0", "2.8.1", "3.0.0", "3.2.3", "3.3.0", "3.4.0", "3.4.1", "3.5.0",
    "3.5.1", "3.5.2", "3.6.0", "3.6.2", "3.7.0", "3.9.1", "4.0.0", "4.1.0", "4.2.0", "4.3.0",
    "4.4.0",
)  # fmt: skip
"""The versions on either side of a preset's boundary (``tests/test_releases.py`` holds each
to the preset it must map to)."""

VERSIONS = {
    **{
        f"kafka-{major}.{minor}": preset_for(f"{major}.{minor}")
        for major, minor in LINES
        if f"kafka-{major}.{minor}" not in {r.name for r in RELEASES}
    },
    **{f"kafka-{version}": preset_for(version) for version in BOUNDARIES},
}
"""Other Kafka versions, as ``hwcheck list --json`` and the docs name them, and the release
preset that models each: every release line, and the boundary patch versions. Any other
``kafka-X.Y.Z`` is mapped the same way (``preset_for``)."""
