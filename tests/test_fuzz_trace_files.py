"""Fuzzing of trace files (issue 63's contract, ``tests/fuzzing.py``): ``replay``, ``show``
with and without ``--no-check`` and ``--html``, and ``graph --trace`` each read a mutated seed
trace (a run's violations and a gallery lasso) with a documented exit code and at most one
message, and ``show --html`` writes no page past ``PAGE_BYTES``."""

from __future__ import annotations

from typing import Any

from fuzzing import (
    FAST,
    MANY,
    PAGE_BYTES,
    damaged,
    fail,
    folder,
    holds,
    invoke,
    json_bytes,
    mutate_json,
)
from hypothesis import given
from hypothesis import strategies as st

TRACE_COMMANDS = {
    "replay": lambda t, d: ["replay", t],
    "show": lambda t, d: ["show", t],
    "show --no-check": lambda t, d: ["show", "--no-check", t],
    "show --changes-only --step": lambda t, d: [
        "show",
        "--no-check",
        "--changes-only",
        "--step",
        "3",
        t,
    ],
    "show --html": lambda t, d: ["show", "--html", d / "page.html", t],
    "show --no-check --html": lambda t, d: ["show", "--no-check", "--html", d / "page.html", t],
    "graph --trace": lambda t, d: ["graph", "--trace", t, "--out", d / "g.dot"],
}


def _trace_case(seeds: dict, data: Any) -> None:
    name = data.draw(st.sampled_from(sorted(seeds["traces"])), label="seed")
    document = mutate_json(data, seeds["traces"][name], label_texts=seeds["labels"])
    command = data.draw(st.sampled_from(sorted(TRACE_COMMANDS)), label="command")
    with folder(seeds["root"]) as here:
        trace = here / "trace.json"
        trace.write_bytes(damaged(data, json_bytes(document)))
        result = invoke(TRACE_COMMANDS[command](trace, here))
        holds(result, {0, 2, 4}, here, {"trace.json", "page.html", "g.dot"})
        page = here / "page.html"
        if page.exists() and page.stat().st_size > PAGE_BYTES:
            fail("page blown up", f"a {page.stat().st_size:,}-byte page")


@FAST
@given(data=st.data())
def test_a_damaged_trace_file_is_one_message(seeds, data):
    _trace_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_trace_file_is_one_message_many(seeds, data):
    _trace_case(seeds, data)
