"""What keeps a long ``hwcheck conform`` campaign fast: the class-data-sharing archive its
JVMs start from (``checker.conform.jvm``: named by the Java build and the class path,
written once by a broker that stops cleanly, a runtime that writes none never asked again,
the flags each JVM gets), and the controller's metadata log followed as it grows
(``MetadataLog``). A real cluster writing and using both is in ``test_conform``'s slow
tests."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from conformance import _batch

from checker.conform import jvm
from checker.conform.cluster import Cluster
from checker.conform.metadata import MetadataLog, fenced_brokers
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
    first = jvm.archive_path(java, jars)
    assert first == jvm.archive_path(java, list(jars))
    assert first.parent == Path(os.environ["HWCHECK_CACHE"]) / "classes"
    os.utime(jars[1], ns=(0, 10**9))  # a jar replaced in place: another archive
    second = jvm.archive_path(java, jars)
    assert second != first
    (java.home / "release").write_text('JAVA_VERSION="17.0.16"\n')  # a Java update
    assert jvm.archive_path(java, jars) not in (first, second)


def test_a_written_archive_is_moved_into_place_and_used(setup):
    java, jars = setup
    archive = jvm.archive_path(java, jars)
    assert jvm.wanted(archive) and jvm.use_flags(archive) == []
    (flag, quiet) = jvm.write_flags(archive)
    written = Path(flag.split("=", 1)[1])
    assert flag.startswith("-XX:ArchiveClassesAtExit=") and written.parent == archive.parent
    written.write_bytes(b"archive")  # what the JVM writes as it exits
    assert jvm.settle_written(archive)
    assert not written.exists() and archive.read_bytes() == b"archive"
    assert jvm.use_flags(archive) == [f"-XX:SharedArchiveFile={archive}", quiet]
    assert not jvm.wanted(archive)


def test_a_runtime_that_writes_no_archive_is_not_asked_again(setup):
    java, jars = setup
    archive = jvm.archive_path(java, jars)
    jvm.write_flags(archive)
    assert not jvm.settle_written(archive)  # the JVM exited without writing one
    assert not jvm.wanted(archive) and jvm.use_flags(archive) == []


def test_each_jvm_starts_from_the_archive_and_one_broker_writes_it(setup, tmp_path):
    java, jars = setup
    cluster = Cluster(tmp_path / "run", jars, java)
    cluster.archive = jvm.archive_path(java, jars)
    writing = cluster._java("kafka.Kafka", "server.properties", writes_archive=True)
    assert any(a.startswith("-XX:ArchiveClassesAtExit=") for a in writing)
    assert not any(a.startswith("-XX:SharedArchiveFile") for a in cluster._java("kafka.Kafka"))
    cluster.archive.write_bytes(b"archive")
    for main in ("kafka.Kafka", "kafka.tools.StorageTool"):
        command = cluster._java(main)
        assert f"-XX:SharedArchiveFile={cluster.archive}" in command
        assert command.index(f"-XX:SharedArchiveFile={cluster.archive}") < command.index("-cp")


def _registration(broker: int, change: int | None = None) -> bytes:
    """A metadata record's framed value: ``RegisterBrokerRecord`` (api key 0) when
    ``change`` is None, else ``BrokerRegistrationChangeRecord`` (17) whose tagged ``Fenced``
    is ``change`` (1 fences, -1 unfences)."""
    if change is None:
        return bytes([1, 0, 0]) + struct.pack(">i", broker) + b"\0"
    tagged = bytes([1, 0, 1]) + struct.pack(">b", change)
    return bytes([1, 17, 0]) + struct.pack(">iq", broker, 7) + tagged


NO_OP = bytes([1, 26, 0, 0])
"""A ``NoOpRecord``: what the controller appends every 500 ms."""


def test_the_metadata_log_is_followed_as_it_grows(tmp_path):
    """``MetadataLog.refresh`` reads only what was appended and agrees with a fresh read at
    every step: registered (fenced), unfenced, then broker 1 fenced past many NoOpRecords; a
    batch still being written waits for the next refresh; a segment cut shorter is read
    again from its start."""
    folder = tmp_path / "__cluster_metadata-0"
    folder.mkdir()
    segment = folder / "00000000000000000000.log"
    log = MetadataLog(folder)
    steps = [
        [_registration(b) for b in (0, 1, 2)],
        [_registration(b, -1) for b in (0, 1, 2)],
        [NO_OP] * 40 + [_registration(1, 1)],
    ]
    written, offset, seen = b"", 0, []
    for values in steps:
        for value in values:
            written += _batch(offset, 1, [value])
            offset += 1
        segment.write_bytes(written)
        seen.append(log.refresh().fenced_brokers())
        assert seen[-1] == fenced_brokers(folder)
    assert seen == [{0, 1, 2}, set(), {1}]
    assert len(log._kept) == 7  # the NoOpRecords are not kept
    whole = _batch(offset, 1, [_registration(2, 1)])
    segment.write_bytes(written + whole[:30])  # the controller is writing it
    assert log.refresh().fenced_brokers() == {1}
    segment.write_bytes(written + whole)
    assert log.refresh().fenced_brokers() == {1, 2}
    segment.write_bytes(_batch(0, 1, [_registration(0)]))  # cleaned: shorter than read
    assert log.refresh().fenced_brokers() == {0} == fenced_brokers(folder)
