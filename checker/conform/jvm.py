"""How hwcheck starts one Kafka JVM: its command line (``command``), a process that dies
with hwcheck (``spawn``, ``run``), and the class-data-sharing archive it starts from.

The archive holds Kafka's broker classes, so that a broker restarts in half the time
(HotSpot's dynamic AppCDS, JDK 13 and later: ``-XX:ArchiveClassesAtExit`` writes the classes
a JVM loaded when it exits cleanly; ``-XX:SharedArchiveFile`` maps them at the next start
instead of reading, verifying and linking them from the jars).

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

import ctypes
import hashlib
import os
import signal
import subprocess
from pathlib import Path
from typing import IO, Any

from checker.conform.jars import cache_root
from checker.java import JavaRuntime

FLAGS = ("-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true")
"""Every Kafka JVM's flags besides its heap: small stacks, the serial collector and the
first JIT tier (a broker here is small, short-lived and one of four on two cores)."""


def command(
    java: JavaRuntime,
    jars: list[Path],
    heap: str,
    main: str,
    *args: str,
    logs: Path | None = None,
    archive: Path | None = None,
    writes_archive: bool = False,
) -> list[str]:
    """The command line that runs ``main`` with ``args`` on the class path ``jars`` with a
    ``heap`` (``256m``); with its log4j and log4j2 configurations in the folder ``logs``;
    starting from ``archive`` when it exists, or writing it when ``writes_archive``."""
    if archive is None:
        sharing = []
    else:
        sharing = write_flags(archive) if writes_archive else use_flags(archive)
    log4j = (
        [
            f"-Dlog4j.configuration=file:{logs / 'log4j.properties'}",
            f"-Dlog4j2.configurationFile={logs / 'log4j2.properties'}",
        ]
        if logs
        else []
    )
    return [str(java.java), f"-Xmx{heap}", *FLAGS, *sharing, *log4j, "-cp"] + [
        ":".join(str(j) for j in jars),
        main,
        *args,
    ]


_PRCTL: Any = None
try:  # resolved in the parent: the child, forked from a threaded process, only calls it
    _PRCTL = ctypes.CDLL("libc.so.6", use_errno=True).prctl
except (OSError, AttributeError):
    pass


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, before exec
    """Ask Linux to SIGKILL this child when hwcheck dies (``PR_SET_PDEATHSIG``)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL, 0, 0, 0)


def spawn(cmd: list[str], out: IO[bytes]) -> subprocess.Popen[bytes]:
    """Start ``cmd`` writing to ``out``, in its own session (a Ctrl-C at the terminal is
    hwcheck's to handle), SIGKILLed by Linux if hwcheck dies."""
    return subprocess.Popen(
        cmd,
        stdout=out,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_die_with_parent,  # noqa: PLW1509 - one libc call, resolved before the fork
        start_new_session=True,
    )


def run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` to its end as ``spawn`` starts it, its output captured as text. Raises
    ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
    return subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=_die_with_parent,
        start_new_session=True,
    )


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
