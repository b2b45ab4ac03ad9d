"""The jars of a Kafka release, resolved from Maven Central by the project's ``pom.xml``.

A release's classpath is ``org.apache.kafka:kafka_2.13:VERSION`` with its dependencies and a
logging binding (``pom.xml`` beside this module), copied by Maven's dependency plugin into
``<cache>/kafka/VERSION/lib``. The cache is ``$HWCHECK_CACHE``, else
``$XDG_CACHE_HOME/hwcheck``, else ``~/.cache/hwcheck``. A folder is used only once Maven
finished (a ``.complete`` marker written last), so an interrupted download is done again.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

POM = Path(__file__).with_name("pom.xml")
DEFAULT_KAFKA = "4.1.0"
FIRST_KRAFT = (3, 3)
"""KRaft is production-ready from 3.3 (KIP-833): the first release ``conform`` runs."""
MAVEN_TIMEOUT = 900.0
"""Seconds Maven may take to resolve one release (about 45 jars, 43 MB for 4.1.0)."""


class KafkaUnavailable(RuntimeError):
    """A Kafka release's jars cannot be had: Maven is missing, the version is not a release
    this command runs, or Maven failed (the message gives Maven's last lines)."""


def cache_root() -> Path:
    """hwcheck's cache folder (module docstring)."""
    if os.environ.get("HWCHECK_CACHE"):
        return Path(os.environ["HWCHECK_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hwcheck"


def release(version: str) -> tuple[int, int, int]:
    """``(major, minor, patch)`` of a release number such as ``4.1.0``, or of a team's own
    build of one that Maven finds in the local repository (``4.1.0-acme.2``: the suffix is
    letters, digits, ``.``, ``_`` and ``-``).

    Raises ``KafkaUnavailable`` for anything else, or a release before 3.3 (no production
    KRaft)."""
    match = re.fullmatch(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?:-[A-Za-z0-9._-]{1,40})?", version)
    if not match:
        raise KafkaUnavailable(
            f"--kafka {version!r} is not a Kafka release number such as {DEFAULT_KAFKA}"
        )
    parts = (int(match[1]), int(match[2]), int(match[3]))
    if parts[:2] < FIRST_KRAFT:
        raise KafkaUnavailable(
            f"Kafka {version} predates production KRaft (3.3, KIP-833): conform runs 3.3.0 "
            "and later"
        )
    return parts


def local_jars(folder: Path) -> list[Path]:
    """The jars of a Kafka distribution's ``libs`` folder (a team's own build), sorted.

    Raises ``KafkaUnavailable`` when ``folder`` holds no ``kafka_2.13-*.jar``."""
    jars = sorted(folder.glob("*.jar"))
    if not any(j.name.startswith("kafka_2.13-") for j in jars):
        raise KafkaUnavailable(
            f"--kafka-libs {folder} holds no kafka_2.13-*.jar (a Kafka libs/ folder)"
        )
    return jars


def kafka_jars(version: str, quiet: bool = True) -> list[Path]:
    """The sorted jar paths of Kafka ``version``'s broker, resolving them first if the cache
    lacks them (one Maven run, up to ``MAVEN_TIMEOUT`` seconds).

    Raises ``KafkaUnavailable`` (no ``mvn`` on PATH, a bad version, or Maven's failure: an
    unknown release, no network)."""
    release(version)
    folder = cache_root() / "kafka" / version
    lib = folder / "lib"
    if not (folder / ".complete").exists():
        _resolve(version, folder, quiet)
    jars = sorted(lib.glob("*.jar"))
    if not any(j.name.startswith("kafka_2.13-") for j in jars):
        raise KafkaUnavailable(f"the cache {lib} holds no kafka_2.13 jar: remove it and retry")
    return jars


def _resolve(version: str, folder: Path, quiet: bool) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise KafkaUnavailable(
            "conform needs Maven to fetch Kafka's jars from Maven Central, and 'mvn' is not on "
            "PATH (Debian: apt install maven)"
        )
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    command = [
        mvn,
        "-B",
        "-f",
        str(POM),
        "dependency:copy-dependencies",
        f"-Dkafka.version={version}",
        f"-DoutputDirectory={folder / 'lib'}",
    ]
    if quiet:
        command.insert(2, "-q")
    try:
        done = subprocess.run(
            command, capture_output=quiet, text=True, timeout=MAVEN_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise KafkaUnavailable(
            f"Maven did not resolve Kafka {version} within {MAVEN_TIMEOUT:.0f} s"
        ) from None
    if done.returncode != 0:
        tail = " | ".join(
            line.strip() for line in (done.stdout or "").splitlines()[-40:] if "[ERROR]" in line
        )[:600]
        raise KafkaUnavailable(
            f"Maven could not resolve org.apache.kafka:kafka_2.13:{version} "
            f"(exit {done.returncode}): {tail or 'see mvn output'}"
        )
    (folder / ".complete").write_text(version + "\n")
