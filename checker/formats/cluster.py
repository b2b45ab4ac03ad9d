"""A Kafka cluster's settings files as ``--cluster`` reads them: a broker's
``server.properties`` and, optionally, a topic's settings (``kafka-configs.sh`` /
``kafka-topics.sh --config`` keys), in Java's properties format.

The files are parsed as Kafka reads its own (``Utils.loadProps``: ``java.util.Properties.load``
of the file's bytes, so ISO-8859-1 with ``\\uXXXX`` escapes): ``key=value``, ``key: value`` and
``key value``, ``#`` and ``!`` comments, a trailing backslash continuing a line, escapes.
The parsing is ``javaproperties``'; this module adds the line each key is on and the checks a
reader of this project makes (a size limit, no control characters). Later files override
earlier ones key by key, and within a file the last line of a key wins, as in Kafka.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import javaproperties

MAX_BYTES = 1 << 20
"""The largest settings file read (a ``server.properties`` is a few KiB)."""

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


class ClusterFileError(ValueError):
    """A settings file that cannot be read or parsed, or a key or value hwcheck will not
    print (a control character); the message starts with ``file:line:`` where it has one."""


@dataclass(frozen=True)
class Setting:
    """One key as the files give it: its ``value`` (escapes decoded, as Kafka reads it), the
    ``file`` and 1-based ``line`` it is on, and the earlier place it overrides (``"file:line"``;
    "" when none)."""

    key: str
    value: str
    file: str
    line: int
    overrides: str = ""

    @property
    def where(self) -> str:
        """``file:line``."""
        return f"{self.file}:{self.line}"


def read(paths: list[Path] | tuple[Path, ...]) -> dict[str, Setting]:
    """The settings of ``paths``, in order: ``{key: Setting}``, a later file's key overriding
    an earlier one's (a topic file after the broker's ``server.properties``, as a topic
    config overrides the broker's default).

    Raises ``ClusterFileError`` for a file that is missing, unreadable, larger than
    ``MAX_BYTES``, has a malformed ``\\uXXXX`` escape or a control character in a key or value.
    """
    settings: dict[str, Setting] = {}
    for path in paths:
        for setting in read_one(path):
            earlier = settings.get(setting.key)
            if earlier is not None and earlier.file != setting.file:
                setting = Setting(
                    setting.key, setting.value, setting.file, setting.line, earlier.where
                )
            settings[setting.key] = setting
    return settings


def read_one(path: Path) -> list[Setting]:
    """Every key-value line of one file, in file order (a key given twice appears twice).
    Raises ``ClusterFileError`` as ``read`` does."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ClusterFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ClusterFileError(f"{path}: larger than {MAX_BYTES >> 20} MiB: not a settings file")
    found: list[Setting] = []
    line = 1
    try:
        for element in javaproperties.parse(data):
            if isinstance(element, javaproperties.KeyValue):
                for text in (element.key, element.value):
                    if _CONTROL.search(text):
                        raise ClusterFileError(
                            f"{path}:{line}: a control character in {element.key!r}'s line "
                            "(a terminal escape?): not printed, not read"
                        )
                found.append(Setting(element.key, element.value.strip(), str(path), line))
            line += _lines(element.source)
    except javaproperties.InvalidUEscapeError as exc:
        raise ClusterFileError(
            f"{path}:{line}: a malformed \\u escape ({exc.escape!r}): \\u takes 4 hex digits"
        ) from None
    return found


def _lines(source: str) -> int:
    """How many lines of the file ``source`` (one element, continuation lines included)
    spans: its line breaks (``\\r\\n``, ``\\r`` or ``\\n``), at least 1."""
    return max(1, len(re.findall(r"\r\n|\r|\n", source)))
