"""A Kafka 3.4.0 counterexample names the ticket a 3.4.0 operator needs, in every output:
explore's terminal, ``hwcheck show``, the trace.html beside trace.json and ``hwcheck serve``.

3.4.0 runs kafka-3.3, whose shortest NoDivergence counterexample at 2 replicas (10 states)
has the former leader take the HW of a DivergingEpoch response before it truncates: the bug
KAFKA-14704, fixed in 3.4.1 and 3.5.0 (apache/kafka PR 13230, tags 3.4.1 and 3.5.0).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.formats import retell
from checker.formats.tracefile import replay
from checker.web.app import create_app, path_url
from checker.web.explorer import Explorer
from checker.web.jump import Jumps
from spec.kafka import Config

TICKET = (
    "Ticket: KAFKA-14704, the follower takes the HW before it truncates; fixed in 3.4.1 and "
    "3.5.0 (kafka-3.4.1, the first release preset where NoDivergence holds at 2 replicas)."
)


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    out = tmp_path_factory.mktemp("k340") / "run"
    args = ["explore", "--truncation", "3.4.0", "--replicas", "2", "--out", str(out)]
    run = CliRunner().invoke(cli, args, env={"COLUMNS": "400"})
    assert run.exit_code == 12, run.output
    return run, out / "NoDivergence" / "trace.json"


def test_explore_prints_the_ticket_under_why(explored):
    run, _ = explored
    lines = run.stdout.splitlines()
    why = next(i for i, line in enumerate(lines) if line.startswith("Why: "))
    assert lines[why + 1].strip() == TICKET


def test_the_trace_file_and_its_page_name_it(explored):
    _, path = explored
    document = json.loads(path.read_text())
    assert document["variant"] == "kafka-3.3"
    assert document["tickets"] == [TICKET.removeprefix("Ticket: ").removesuffix(".")]
    page = path.with_name("trace.html").read_text()
    assert f'<ul class="tickets" id="tickets"><li>{TICKET}</li></ul>' in page


def test_show_draws_the_ticket_and_finds_the_file_as_told(explored):
    _, path = explored
    run = CliRunner().invoke(cli, ["show", str(path)], env={"COLUMNS": "400"})
    assert run.exit_code == 0, run.output
    assert TICKET in [line.strip() for line in run.stdout.splitlines()]
    assert "Note: the file's" not in run.output


def test_a_file_written_before_tickets_is_not_said_to_differ(explored):
    _, path = explored
    document = json.loads(path.read_text())
    del document["tickets"]
    spec, violation = replay(path, document)
    drawn, differed = retell.retold(document, spec, violation)
    assert differed == [] and drawn["tickets"] == [TICKET[8:-1]]


def test_serve_names_it_on_the_violating_state_and_the_trace_page(explored):
    _, path = explored
    document = json.loads(path.read_text())
    explorer = Explorer("kafka", Config(replicas=2, truncation="3.4.0"))
    client = create_app(explorer, Jumps(1), document).test_client()
    texts = [step["action"] for step in document["steps"][1:]]
    page = client.get(path_url(texts)).get_data(as_text=True)
    assert f'<ul class="tickets"><li>{TICKET}</li></ul>' in page
    assert TICKET in client.get("/trace").get_data(as_text=True)
    state = explorer.state_document(explorer.walk(texts))
    divergence = next(p for p in state["properties"] if p["name"] == "NoDivergence")
    assert divergence["tickets"] == [TICKET[8:-1]]
