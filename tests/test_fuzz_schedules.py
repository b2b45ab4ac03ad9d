"""Fuzzing of schedules (issue 63's contract, ``tests/fuzzing.py``): ``scenario`` reads a
shipped schedule (``tests/data/scenarios``) with labels, ``# hwcheck:`` header lines and junk
lines added, lines dropped or doubled, and the file cut or not UTF-8, with a documented exit
code and at most one message."""

from __future__ import annotations

import shlex
from typing import Any

from fuzzing import CHEAP, MANY, ROOT, damaged, folder, holds, invoke, labels, nasty_text
from hypothesis import given
from hypothesis import strategies as st

SCENARIOS = sorted((ROOT / "tests" / "data" / "scenarios").glob("*.txt"))

HEADER_FLAGS = [
    "--replicas",
    "--max-epoch",
    "--max-records",
    "--truncation",
    "--with",
    "--invariant",
    "--model",
    "--min-isr",
    "--unclean",
    "--variant-file",
]
HEADER_VALUES = [
    "2",
    "True",
    "-1",
    "1.5",
    "٣",
    "9" * 400,
    "",
    "hw",
    "nope",
    "\x00",
    "'",
    "--help",
    "../../x.py",
]


def _schedule_case(seeds: dict, data: Any) -> None:
    seed = data.draw(st.sampled_from(SCENARIOS), label="seed")
    lines = seed.read_text().splitlines()
    texts = [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        how = data.draw(st.sampled_from(["label"] * 4 + ["header", "junk", "drop", "double"]))
        at = data.draw(st.integers(0, max(0, len(lines) - 1)), label="line")
        if how == "label":
            lines.insert(at, data.draw(labels(texts), label="new label"))
        elif how == "header":
            flag = data.draw(st.sampled_from(HEADER_FLAGS))
            value = data.draw(st.sampled_from(HEADER_VALUES))
            lines.insert(at, f"# hwcheck: {flag} {shlex.quote(value)}")
        elif how == "junk":
            lines.insert(at, data.draw(nasty_text, label="junk"))
        elif how == "drop" and lines:
            del lines[at]
        elif lines:
            lines.insert(at, lines[at])
    text = "\n".join(lines) + data.draw(st.sampled_from(["\n", "\r\n", ""]))
    content = damaged(data, text.encode("utf-8", "surrogatepass"))
    with folder(seeds["root"]) as here:
        (here / "s.txt").write_bytes(content)
        result = invoke(["scenario", here / "s.txt", "--out", here / "out"])
        holds(result, {0, 4, 12}, here, {"s.txt", "out"})


@CHEAP
@given(data=st.data())
def test_a_damaged_schedule_is_one_message(seeds, data):
    _schedule_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_schedule_is_one_message_many(seeds, data):
    _schedule_case(seeds, data)
