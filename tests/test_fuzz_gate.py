"""Fuzzing of the gate's files (issue 63's contract, ``tests/fuzzing.py``): ``gate`` reads a
mutated config (checks dropped, doubled or renamed, a ``tool`` table of the wrong type) and a
mutated lock file, with and without ``--update``, with a documented exit code and at most one
message, and its JUnit report, when written, is well-formed XML."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from fuzzing import (
    FAST,
    GATE,
    MANY,
    damaged,
    fail,
    folder,
    holds,
    invoke,
    json_bytes,
    mutate_json,
    toml,
)
from hypothesis import given
from hypothesis import strategies as st

BOUNDED = {"replicas", "max_epoch", "max_records", "max_crashes", "gate"}
"""Gate keys a mutation never drops: without them a check runs the default (large) model."""


def junit(path: Path) -> None:
    """A JUnit report, when written, is well-formed XML whatever the names and pins say."""
    if path.exists():
        try:
            ElementTree.parse(path)
        except ElementTree.ParseError as exc:
            fail("junit not XML", str(exc))


GATE_NAMES = ["..", ".", "", "a/b", "bad\x01\x1bname", "hw forks, 2 replicas", "x" * 300]


def _small(checks: Any) -> None:
    """Bounds from 3 to 15 made 2: in range, they only make a check a longer run (7
    replicas took two minutes), which is no finding."""
    for check in checks if isinstance(checks, list) else []:
        for key in BOUNDED & set(check if isinstance(check, dict) else ()):
            value = check[key]
            if isinstance(value, int) and not isinstance(value, bool) and 3 <= value <= 15:
                check[key] = 2


def _gate_case(seeds: dict, data: Any) -> None:
    document = mutate_json(data, GATE, keep=BOUNDED)
    how = data.draw(st.sampled_from(["plain"] * 4 + ["duplicate", "name", "tool"]))
    checks = document.get("gate") if isinstance(document, dict) else None
    _small(checks)
    if how == "duplicate" and isinstance(checks, list) and checks:
        checks.append(copy.deepcopy(checks[0]))
    elif how == "name" and isinstance(checks, list) and checks and isinstance(checks[0], dict):
        checks[0]["name"] = data.draw(st.sampled_from(GATE_NAMES))
    elif how == "tool":
        document = {
            "tool": data.draw(st.sampled_from([5, "x", {"hwcheck": 5}, {"hwcheck": document}]))
        }
    content = damaged(data, toml(document).encode("utf-8", "surrogatepass"))
    with folder(seeds["root"]) as here:
        (here / "gate.toml").write_bytes(content)
        result = invoke(
            [
                "gate",
                "--config",
                here / "gate.toml",
                "--out",
                here / "out",
                "--junit-xml",
                here / "junit.xml",
                "--no-progress",
            ]
        )
        holds(result, {0, 1, 3, 4}, here, {"gate.toml", "out", "junit.xml"})
        junit(here / "junit.xml")


@FAST
@given(data=st.data())
def test_a_damaged_gate_config_is_one_message(seeds, data):
    _gate_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_gate_config_is_one_message_many(seeds, data):
    _gate_case(seeds, data)


def _lock_case(seeds: dict, data: Any) -> None:
    lock = mutate_json(data, seeds["lock"])
    update = data.draw(st.booleans(), label="--update")
    with folder(seeds["root"]) as here:
        (here / "gate.toml").write_text(toml(GATE))
        (here / "hwcheck-gate.lock").write_bytes(damaged(data, json_bytes(lock)))
        result = invoke(
            [
                "gate",
                "--config",
                here / "gate.toml",
                "--out",
                here / "out",
                "--junit-xml",
                here / "junit.xml",
                "--no-progress",
                *(["--update"] if update else []),
            ]
        )
        holds(result, {0, 1, 3, 4}, here, {"gate.toml", "hwcheck-gate.lock", "out", "junit.xml"})
        junit(here / "junit.xml")


@FAST
@given(data=st.data())
def test_a_damaged_lock_file_is_one_message(seeds, data):
    _lock_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_lock_file_is_one_message_many(seeds, data):
    _lock_case(seeds, data)
