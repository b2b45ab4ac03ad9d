"""Fuzzing of ``serve`` (issue 63's contract, ``tests/fuzzing.py``): its pages and JSON API
answer a malformed request (a mutated path, action or body, a cut or non-UTF-8 body) 400 with
a one-line JSON error, never 500, and ``serve --trace`` refuses a mutated trace file with
exit 4 or serves its pages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fuzzing import (
    CHEAP,
    FAST,
    MANY,
    damaged,
    fail,
    folder,
    json_bytes,
    labels,
    mutate_json,
)
from hypothesis import given
from hypothesis import strategies as st


@pytest.fixture(scope="module")
def client(seeds):
    from checker.web.app import create_app
    from checker.web.explorer import Explorer
    from checker.web.jump import Jumps
    from spec.kafka import Config

    explorer = Explorer("kafka", Config(replicas=2, truncation="hw", max_epoch=1))
    return create_app(explorer, Jumps(1)).test_client()


def _answers(response: Any, api: bool) -> None:
    if response.status_code >= 500:
        fail(f"status {response.status_code}", str(response.get_data()[:500]))
    if api and response.status_code >= 400:
        said = json.loads(response.get_data())
        if not isinstance(said.get("error"), str) or "\n" in said["error"]:
            fail("error not one line", str(said)[:500])


def _request_case(seeds: dict, client: Any, data: Any) -> None:
    path = list(seeds["traces"]["NoCommittedLoss"]["steps"][1:])
    prefix = [s["action"] for s in path[: data.draw(st.integers(0, 4), label="prefix")]]
    steps = data.draw(st.lists(labels(seeds["labels"]), max_size=2), label="steps")
    endpoint = data.draw(
        st.sampled_from(["/", "/api/state", "/api/actions", "/api/check", "/api/step", "/api/jump"])
    )
    if endpoint in ("/api/step", "/api/jump"):
        body = {"path": prefix + steps[:-1], "action": (steps or ["Elect(leader=0)"])[-1]}
        if endpoint == "/api/jump":
            body = {"path": prefix + steps, "invariant": "NoDivergence"}
        raw = json_bytes(mutate_json(data, body, label_texts=seeds["labels"]))
        raw = damaged(data, raw)
        response = client.post(endpoint, data=raw, content_type="application/json")
    else:
        query = [
            ("step", s.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
            for s in prefix + steps
        ]
        response = client.get(endpoint, query_string=query)
    _answers(response, endpoint.startswith("/api/"))


@CHEAP
@given(data=st.data())
def test_serve_answers_a_malformed_request_400(seeds, client, data):
    _request_case(seeds, client, data)


@MANY
@given(data=st.data())
def test_serve_answers_a_malformed_request_400_many(seeds, client, data):
    _request_case(seeds, client, data)


def _served_trace_case(seeds: dict, data: Any) -> None:
    """``serve --trace FILE``: a file refused is exit 4; a file accepted serves its pages."""
    from checker.commands import serve
    from checker.web.app import create_app
    from checker.web.jump import Jumps

    name = data.draw(st.sampled_from(sorted(seeds["traces"])), label="seed")
    document = mutate_json(data, seeds["traces"][name], label_texts=seeds["labels"])
    with folder(seeds["root"]) as here:
        (here / "trace.json").write_bytes(json_bytes(document))
        try:
            loaded, explorer = serve._from_trace(here / "trace.json", (), None)
        except SystemExit as exc:
            if exc.code != 4:
                fail(f"exit {exc.code}", "serve --trace")
            return
        except Exception as exc:  # noqa: BLE001 -- the finding itself
            fail(f"{type(exc).__name__} in serve --trace", repr(exc)[:300])
        app = create_app(explorer, Jumps(1), loaded).test_client()
        for page in ("/trace", "/trace/last", "/api/trace"):
            _answers(app.get(page), page.startswith("/api/"))


@FAST
@given(data=st.data())
def test_serve_draws_an_accepted_trace_or_refuses_it(seeds, data):
    _served_trace_case(seeds, data)


@MANY
@given(data=st.data())
def test_serve_draws_an_accepted_trace_or_refuses_it_many(seeds, data):
    _served_trace_case(seeds, data)
