"""The class-data-sharing archive ``hwcheck conform``'s JVMs start from
(``checker.conform.classes``): named by the Java build and the class path, written once by a
broker that stops cleanly, a runtime that writes none never asked again, and the flags each
JVM gets. A real cluster writing and using it is in ``test_conform``'s slow tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checker.conform import classes
from checker.conform.cluster import Cluster
from checker.java import JavaRuntime


@pytest.fixture
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("HWCHECK_CACHE", str(tmp_path / "cache"))
    home = tmp_path / "jdk"
    home.mkdir()
    (home / "release").write_text('JAVA_VERSION="17.0.15"\n')
    jars = []
    for name in ("kafka_2.13-4.1.0.jar", "kafka-clients-4.1.0.jar"):
        jar = tmp_path / name
        jar.write_bytes(b"PK" + name.encode())
        jars.append(jar)
    return JavaRuntime(home, 17, "PATH"), jars


def test_the_archive_is_named_by_the_java_build_and_the_class_path(setup):
    java, jars = setup
    first = classes.archive_path(java, jars)
    assert first == classes.archive_path(java, list(jars))
    assert first.parent == Path(os.environ["HWCHECK_CACHE"]) / "classes"
    os.utime(jars[1], ns=(0, 10**9))  # a jar replaced in place: another archive
    second = classes.archive_path(java, jars)
    assert second != first
    (java.home / "release").write_text('JAVA_VERSION="17.0.16"\n')  # a Java update
    assert classes.archive_path(java, jars) not in (first, second)


def test_a_written_archive_is_moved_into_place_and_used(setup):
    java, jars = setup
    archive = classes.archive_path(java, jars)
    assert classes.wanted(archive) and classes.use_flags(archive) == []
    (flag, quiet) = classes.write_flags(archive)
    written = Path(flag.split("=", 1)[1])
    assert flag.startswith("-XX:ArchiveClassesAtExit=") and written.parent == archive.parent
    written.write_bytes(b"archive")  # what the JVM writes as it exits
    assert classes.settle_written(archive)
    assert not written.exists() and archive.read_bytes() == b"archive"
    assert classes.use_flags(archive) == [f"-XX:SharedArchiveFile={archive}", quiet]
    assert not classes.wanted(archive)


def test_a_runtime_that_writes_no_archive_is_not_asked_again(setup):
    java, jars = setup
    archive = classes.archive_path(java, jars)
    classes.write_flags(archive)
    assert not classes.settle_written(archive)  # the JVM exited without writing one
    assert not classes.wanted(archive) and classes.use_flags(archive) == []


def test_each_jvm_starts_from_the_archive_and_one_broker_writes_it(setup, tmp_path):
    java, jars = setup
    cluster = Cluster(tmp_path / "run", jars, java)
    cluster.archive = classes.archive_path(java, jars)
    writing = cluster._java("kafka.Kafka", "server.properties", writes_archive=True)
    assert any(a.startswith("-XX:ArchiveClassesAtExit=") for a in writing)
    assert not any(a.startswith("-XX:SharedArchiveFile") for a in cluster._java("kafka.Kafka"))
    cluster.archive.write_bytes(b"archive")
    for main in ("kafka.Kafka", "kafka.tools.StorageTool"):
        command = cluster._java(main)
        assert f"-XX:SharedArchiveFile={cluster.archive}" in command
        assert command.index(f"-XX:SharedArchiveFile={cluster.archive}") < command.index("-cp")
