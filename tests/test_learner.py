"""What a learner sees (issue 28): the output's order and ``--show``, a loss's aftermath, the
expected-violation notes, the terminal's removed records, and the small things (descriptions,
``list``'s option names, plurals, ``--help``, ``compare --fail-on-violation``).

Golden facts here come from the seed articles' story (``spec.kafka.seeds``) and from an
independent brute force (every continuation of the violating state up to one step shorter
than the aftermath), not from the code under test.
"""

from __future__ import annotations

import itertools
import json
import re

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.commands.options import bounds, build
from invariants import aftermath


def invoke(*args, env=None):
    return CliRunner().invoke(cli, list(map(str, args)), env={"COLUMNS": "120", **(env or {})})


def flat(text: str) -> str:
    return " ".join(re.sub(r"[│┃]", " ", text).split())


@pytest.fixture(scope="module")
def flagship(tmp_path_factory):
    """``explore --replicas 2 --truncation hw`` (the README's second command), on 1 worker."""
    out = tmp_path_factory.mktemp("flag") / "run"
    run = invoke(
        "explore",
        "--replicas",
        2,
        "--truncation",
        "hw",
        "--workers",
        1,
        "--no-progress",
        "--out",
        out,
    )
    assert run.exit_code == 12
    return run.output, out


def test_summary_and_verdicts_come_before_the_one_trace_drawn(flagship):
    output, out = flagship
    summary = output.index("hwcheck explore: model kafka, variant hw")
    verdicts = output.index("Properties")
    first = output.index("NoCommittedLoss violated (11 states): Every committed")
    assert summary < verdicts < first
    assert output.count("╭─ state 1: initial state") == 1  # one trace drawn, not six
    assert (
        "NoAckedLoss violated (11 states): same trace as NoCommittedLoss; trace: "
        f"{out}/NoAckedLoss/trace.json" in flat(output)
    )
    assert f"NoDivergence violated (13 states): trace: {out}/NoDivergence/trace.json" in flat(
        output
    )
    assert len(output.splitlines()) < 200
    assert output.rstrip().splitlines()[-1] == f"Reports written to {out}/"


def test_show_none_and_all(tmp_path):
    none = invoke(
        "explore",
        "--replicas",
        2,
        "--truncation",
        "hw",
        "--workers",
        1,
        "--no-progress",
        "--show",
        "none",
        "--out",
        tmp_path / "a",
    )
    assert none.exit_code == 12 and "╭─ state" not in none.output
    assert "NoCommittedLoss violated (11 states): trace: " in flat(none.output)
    every = invoke(
        "explore",
        "--replicas",
        2,
        "--truncation",
        "hw",
        "--workers",
        1,
        "--no-progress",
        "--show",
        "all",
        "--out",
        tmp_path / "b",
    )
    assert every.output.count("╭─ state 1: initial state") == 4  # 6 violated, 4 distinct
    assert (tmp_path / "a" / "WeakIsr" / "trace.html").exists()  # files whatever is shown


def test_the_aftermath_makes_the_loss_visible_and_is_shortest(flagship):
    _, out = flagship
    document = json.loads((out / "NoCommittedLoss" / "trace.json").read_text())
    assert document["length"] == len(document["steps"]) == 11
    after = document["aftermath"]
    rid = after["record"]
    assert after["everywhere"] and [s["index"] for s in after["steps"]] == [11, 12, 13]
    last = after["steps"][-1]["view"]
    assert not any(rec[0] == rid for rep in last["replicas"] for rec in rep["log"])
    leader = last["controller"]["leader"]
    assert last["replicas"][leader]["role"] == "leader"
    assert after["story"][0].startswith(
        "State 11 decides the loss: the controller's leader of "
        f"epoch 1, replica {leader}, does not hold m{rid}"
    )
    assert after["story"][-1] == (
        f"After 3 more steps, m{rid} is in no replica's log: the committed record is lost."
    )
    # brute force: no continuation of 1 or 2 actions reaches such a state
    _, spec, _ = build("kafka", bounds(replicas=2, truncation="hw"))
    from checker.formats.tracefile import replay

    _, violation = replay(out / "NoCommittedLoss" / "trace.json", document)
    frontier = [violation.trace[-1].state]
    for _ in range(2):
        frontier = [succ for state in frontier for _, succ in spec.successors(state)]
        for state in frontier:
            view = spec.view(state)
            assert not (aftermath.taken_over(view) and aftermath.gone(view, rid))


def test_the_terminal_marks_removed_records_as_the_page_does(flagship):
    output, _ = flagship
    panel = output[output.index("╭─ state 11:") : output.index("╭─ state 12 (aftermath)")]
    assert re.search(r"follower →\d\s+0\s+up\s+\{0,1\}\s+┃✗m0/0", panel)
    assert "✗ struck through (red): removed from the log in this step" in flat(output)


def test_a_documented_window_says_so():
    run = invoke(
        "explore",
        "--replicas",
        2,
        "--truncation",
        "kip966",
        "--min-isr",
        2,
        "--max-unclean-shutdowns",
        1,
        "--workers",
        1,
        "--no-progress",
        "--out",
        "/tmp/hwcheck-test-kip966",
        "--invariant",
        "WeakIsr",
    )
    assert run.exit_code == 12
    text = flat(run.output)
    assert (
        "Note: Expected under unclean shutdowns: between a follower's power loss and the "
        "leader learning of it"
    ) in text
    assert "documented in docs/explanation/bug-zoo.md" in text
    # the power loss removed m0; the controller learns of it only when the broker is fenced
    assert "so it lost the unflushed tail, removing m0." in text
    from pathlib import Path

    zoo = Path(__file__).resolve().parents[1] / "docs" / "explanation" / "bug-zoo.md"
    words = flat(zoo.read_text())
    assert zoo.read_text().startswith("# The bug zoo")
    assert (
        "WeakIsr still fails in kip966: between a follower's power loss and the leader "
        "learning of it" in words
    )


def test_an_undocumented_violation_gets_no_note(flagship):
    output, _ = flagship
    assert "Note: Expected" not in output


def test_descriptions_are_one_line_everywhere(flagship):
    output, _ = flagship
    assert "(with no leader, or one that is down: in some replica's log)" in flat(output)
    listing = invoke("list", "all", env={"COLUMNS": "300"}).output
    assert "(with no\n" not in listing and "        leader:" not in listing


def test_list_names_the_options_that_exist():
    listing = invoke("list", "all", env={"COLUMNS": "200"}).output
    assert "--with-mechanisms" not in listing and "--without-mechanisms" not in listing
    for option in ("--with ", "--without ", "--unclean/--clean"):
        assert option in listing
    explore = cli.commands["explore"]
    known = {opt for param in explore.params for opt in (*param.opts, *param.secondary_opts)}
    named = re.findall(r"^│ (--[a-z-]+(?:/--[a-z]+)?) ", listing, re.MULTILINE)
    assert len(named) >= 12
    for option in named:  # every option the default-bounds tables name is explore's
        assert set(option.split("/")) <= known, option


def test_plurals_and_the_bounds_line():
    run = invoke(
        "explore",
        "--replicas",
        1,
        "--max-records",
        1,
        "--max-crashes",
        1,
        "--workers",
        1,
        "--no-progress",
        "--out",
        "/tmp/hwcheck-test-plural",
    )
    assert "Bounds: 1 replica, at most 1 record, " in flat(run.output)
    assert "at most 1 crash," in flat(run.output)


def test_help_lists_every_command_whole():
    text = invoke("--help").output
    commands = text[text.index("Commands:") :]
    assert "..." not in commands and len(commands.splitlines()) > 9
    assert "Run every truncation variant and print a variant × property matrix." in flat(text)


def test_truncation_help_is_per_model():
    text = flat(invoke("explore", "--help").output)
    assert "kafka: hw, kip101, kip279, kip320, kip966, kafka-0.10, kafka-0.11, kafka-2.0" in text
    assert "kafka-3.7, kafka-4.0, kafka-4.1 ('epoch' is kip320; any Kafka version" in text
    assert "tla: hw, kip101, kip279, kip320-first-try, kip320, kip320-kip279" in text


def test_compare_exit_code_and_fail_on_violation(tmp_path):
    args = [
        "compare",
        "--replicas",
        2,
        "--max-epoch",
        1,
        "--max-records",
        1,
        "--workers",
        1,
        "--no-progress",
        "--out",
    ]
    plain = invoke(*args, tmp_path / "a")
    assert plain.exit_code == 0 and "✗" in plain.output
    strict = invoke(*args, tmp_path / "b", "--fail-on-violation")
    assert strict.exit_code == 12


@pytest.mark.parametrize("name", ["NoCommittedLoss", "NoDivergence", "StrongIsr"])
def test_html_story_states_are_links(flagship, name):
    _, out = flagship
    page = (out / name / "trace.html").read_text()
    told = re.findall(
        r"State (\d+)", " ".join(json.loads((out / name / "trace.json").read_text())["story"])
    )
    assert told
    for number in told:
        assert f'<a href="#state-{number}">State {number}</a>' in page
        assert f'id="state-{number}"' in page


def test_every_pair_of_distinct_traces_differs(flagship):
    """The "same trace as" lines are right: equal traces have equal fingerprints."""
    output, out = flagship
    docs = {p.parent.name: json.loads(p.read_text()) for p in out.glob("*/trace.json")}
    for a, b in itertools.combinations(sorted(docs), 2):
        same = [s["fingerprint"] for s in docs[a]["steps"]] == [
            s["fingerprint"] for s in docs[b]["steps"]
        ]
        text = flat(output)
        said = (
            f"{b} violated ({docs[b]['length']} states): same trace as {a}" in text
            or f"{a} violated ({docs[a]['length']} states): same trace as {b}" in text
        )
        assert same == said, (a, b)


SIMULATED = [
    ("kip101", 4, "NoDivergence"),
    ("kip101", 5, "NoDivergence"),
    ("kip279", 4, "NoCommittedLoss"),
    ("kip279", 5, "NoCommittedLoss"),
]


@pytest.mark.parametrize(
    "variant,replicas,prop", SIMULATED, ids=[f"{v}-r{r}" for v, r, _ in SIMULATED]
)
def test_simulate_stories_keep_the_crux(tmp_path, variant, replicas, prop):
    """A shrunk walk at 4 and 5 replicas: its story names every step that removed a record
    at or below the offset from a replica it is about, every ISR change that gains or loses
    such a replica (or changes such a leader's own ISR), and, for a fork, every time such a
    replica became follower after it got its record (the truncation that kept it)."""
    from invariants import story

    run = invoke(
        "simulate",
        "--replicas",
        replicas,
        "--truncation",
        variant,
        "--invariant",
        prop,
        "--walks",
        6000,
        "--workers",
        1,
        "--no-progress",
        "--out",
        tmp_path,
    )
    assert run.exit_code == 12, run.output
    document = json.loads((tmp_path / prop / "trace.json").read_text())
    views = [s["view"] for s in document["steps"]]
    actions = [s["action"] for s in document["steps"]]
    involved, offset = story.involved(prop, views)
    told = {int(n) for line in document["story"] for n in re.findall(r"^State (\d+)", line)}
    must = set()
    for k in range(1, len(views)):
        before, after = views[k - 1], views[k]
        for r in involved:
            old, new = before["replicas"][r]["log"], after["replicas"][r]["log"]
            if any(o < len(old) and (o >= len(new) or new[o] != old[o]) for o in range(offset + 1)):
                must.add(k + 1)  # a record at or below the offset removed
            if (
                prop == "NoDivergence"
                and actions[k].startswith("BecomeFollower")
                and f"replica={r}," in actions[k]
                and offset < len(new)
            ):
                must.add(k + 1)  # became follower holding its record: which rule kept it
        for old, new in zip(before["replicas"], after["replicas"]):
            changed = set(old["isr"]) ^ set(new["isr"])
            if (
                changed
                and old["role"] == new["role"] == "leader"
                and (old["replica"] in involved or changed & involved)
            ):
                must.add(k + 1)
        if (set(before["controller"]["isr"]) ^ set(after["controller"]["isr"])) & involved:
            must.add(k + 1)
    assert must, "the walk has no such step: the test proves nothing"
    assert must <= told, (sorted(must - told), document["story"])
