"""A class-data-sharing archive of Kafka's broker classes, so a broker restarts in half the
time (HotSpot's dynamic AppCDS, JDK 13 and later: ``-XX:ArchiveClassesAtExit`` writes the
classes a JVM loaded when it exits cleanly; ``-XX:SharedArchiveFile`` maps them at the next
start instead of reading, verifying and linking them from the jars).

A broker's restart is most of a schedule's time after its waits (docs/benchmarks.md
measures the two).

The archive is only valid for the Java build and the class path that wrote it (HotSpot
checks both, and ignores a mismatched archive with a warning), so its name is a digest of
the runtime's ``release`` file and of each jar's path, size and modification time; it lives
in hwcheck's cache beside the jars (``checker.conform.jars.cache_root``). A runtime that
cannot write one (no base CDS archive, as a trimmed ``jlink`` image may lack) leaves a
``.none`` marker, so that no later cluster tries again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from checker.conform.jars import cache_root
from checker.java import JavaRuntime

QUIET = "-Xlog:cds=off,cds+dynamic=off"
"""HotSpot's notes about classes it cannot archive (old class file versions, unlinked
classes) are not the broker's output."""


def archive_path(java: JavaRuntime, jars: list[Path]) -> Path:
    """Where the archive for ``java`` and the class path ``jars`` is kept (module docstring).
    The path may not exist."""
    digest = hashlib.sha256()
    release = java.home / "release"
    digest.update(str(java.home.resolve()).encode())
    digest.update(release.read_bytes() if release.is_file() else str(java.major).encode())
    for jar in jars:
        try:
            st = jar.stat()
        except OSError:
            continue
        digest.update(f"{jar.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return cache_root() / "classes" / f"kafka-{digest.hexdigest()[:20]}.jsa"


def use_flags(archive: Path) -> list[str]:
    """The JVM flags that start from ``archive`` when it exists, else none."""
    return [f"-XX:SharedArchiveFile={archive}", QUIET] if archive.is_file() else []


def wanted(archive: Path) -> bool:
    """Whether a cluster should write ``archive``: neither it nor its ``.none`` marker is
    there."""
    return not archive.is_file() and not _marker(archive).exists()


def write_flags(archive: Path) -> list[str]:
    """The JVM flags that write the archive to a temporary file beside ``archive`` when the
    JVM exits cleanly (``settle_written`` moves it into place); none when the cache folder
    cannot be made."""
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return []
    return [f"-XX:ArchiveClassesAtExit={_temporary(archive)}", QUIET]


def settle_written(archive: Path) -> bool:
    """After the writing JVM exited: move its archive into place, or leave the ``.none``
    marker when it wrote none. Returns whether the archive is there. Raises nothing: the
    archive only makes starts faster."""
    temporary = _temporary(archive)
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
        if temporary.is_file() and temporary.stat().st_size > 0:
            os.replace(temporary, archive)
            return True
        _marker(archive).touch()
    except OSError:
        pass
    return False


def _temporary(archive: Path) -> Path:
    return archive.with_name(f"{archive.stem}.{os.getpid()}.tmp")


def _marker(archive: Path) -> Path:
    return archive.with_suffix(".none")
