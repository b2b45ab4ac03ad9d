"""What a Kafka engineer sees of the release presets (issue 39): ``hwcheck list --json`` and
its schema, and ``hwcheck compare``'s release matrix at 2 replicas with its notes."""

from __future__ import annotations

import json
import re

import jsonschema
from click.testing import CliRunner

from checker.cli import cli
from checker.commands import versions as said
from checker.formats import catalog
from checker.renderers.notes import TICKETS_HEAD
from spec.kafka.variants import RELEASE_PRESETS

READ = "NoUncommittedRead, NoDivergence"


def test_list_json_names_the_release_presets_and_follows_its_schema():
    run = CliRunner().invoke(cli, ["list", "--json"])
    assert run.exit_code == 0, run.output
    doc = json.loads(run.stdout)
    jsonschema.validate(doc, catalog.schema())
    kafka = doc["models"][0]
    releases = [p for p in kafka["presets"] if p["kind"] == "release"]
    assert [p["name"] for p in releases] == list(RELEASE_PRESETS)
    k36 = next(p for p in releases if p["name"] == "kafka-3.6")
    assert k36["kafka"] == "3.6.0 - 3.6.2"
    assert "empty-clears-epoch" in k36["mechanisms"] and "PR 13843" in k36["source"]
    assert "shrink-in-epoch" in k36["mechanisms"] and "KAFKA-15021" in k36["source"]
    assert kafka["aliases"]["kafka-3.9"] == "kafka-3.7" and kafka["aliases"]["epoch"] == "kip320"
    props = {p["name"]: p["kind"] for p in kafka["properties"]}
    assert props["NoUncommittedRead"] == "invariant"
    assert any(a["name"].startswith("TruncateOnFetchResponse") for a in kafka["actions"])
    assert doc["models"][1]["name"] == "tla"


def test_compare_tells_the_history_in_120_columns(tmp_path):
    """At 2 replicas, 2 records, epoch 2 and 1 crash: 0.10 loses data, 2.8 loses it again
    (KAFKA-13141), 2.8, 3.0 and 3.3 expose an uncommitted record (KAFKA-14704), 3.4.1 on
    hold. Under it, a line per column with a ✗ names the tickets (``tests/test_tickets.py``)."""
    args = ["compare", "--replicas", "2", "--no-progress", "--out", str(tmp_path / "c")]
    run = CliRunner().invoke(cli, args, env={"COLUMNS": "120"})
    assert run.exit_code == 0, run.output
    lines = run.stdout.splitlines()
    table = [line for line in lines if not line.startswith(("Note:", "Reports", "Why", "  "))]
    assert max(map(len, table)) <= 120
    header = next(line for line in lines if "property" in line)
    columns = header.split()[1:]  # 14 columns: no vertical rules, cells apart by 2+ spaces
    assert columns == [name.removeprefix("kafka-") for name in RELEASE_PRESETS]
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines if line.strip().startswith("No")]
    cells = {row[0]: row[1:] for row in rows}
    loss, read = cells["NoCommittedLoss"], cells["NoUncommittedRead"]
    assert loss == ["✗ 11", "✓", "✓", "✓", "✗ 10", *["✓"] * 9]
    assert read == ["✗ 13", "✓", "✓", "✓", "✗ 10", "✗ 10", "✗ 10", *["✓"] * 7]
    notes = [line for line in lines if line.startswith("Note: kafka-")]
    assert [note.split()[1] for note in notes] == ["kafka-0.11", "kafka-2.0", "kafka-3.6"]
    why = [x for x in lines[lines.index(TICKETS_HEAD) + 1 :] if x.startswith("  ")]
    assert [line.split(" (")[0].strip() for line in why] == [
        "0.10",
        "0.11",
        "2.0",
        "2.8",
        "3.0",
        "3.3",
    ]
    k14704 = "KAFKA-14704, the follower takes the HW before it truncates; fixed in 3.4.1 and 3.5.0"
    k13141 = "a DivergingEpoch still moves the leader's HW; fixed in 2.7.2, 2.8.1 and 3.0.0"
    assert why[-2] == f"  3.0 (Kafka 2.8.1 - 2.8.2, 3.0 - 3.2): {READ} ✗ — {k14704}"
    assert why[-1] == f"  3.3 (Kafka 3.3 - 3.4.0): {READ} ✗ — {k14704}"
    assert why[-3] == (
        "  2.8 (Kafka 2.8.0): NoCommittedLoss, NoAckedLoss, WeakIsr, StrongIsr ✗ — "
        f"KAFKA-13141, a fetch answered with {k13141} · {READ} ✗ — {k14704}"
    )
    # kafka-4.0 runs kafka-3.7's rules: one search, both columns, its seconds cell says whose
    assert lines[-2] == (
        "kafka-4.0 runs kafka-3.7's model (the same truncation rule and switches): explored "
        "once, shown in both columns."
    )
    seconds = re.split(r"\s{2,}", next(x for x in lines if x.strip().startswith("seconds")).strip())
    assert seconds[columns.index("4.0") + 1] == "=3.7"
    # the count row is named as explore names the count: symmetry is on, so orbits
    assert any(line.strip().startswith("orbits ") for line in lines)
    assert not any(line.strip().startswith("states ") for line in lines)


def test_compare_takes_the_releases_as_users_write_them(tmp_path, monkeypatch):
    """``--releases 2.8,3.0 --releases 3.4.0``: three columns, the third named 3.4.0 over
    its preset, each version's preset said on stderr, and each column's tickets under it."""
    monkeypatch.setattr(said, "_SAID", set())  # once a process: another test may have said it
    args = ["compare", "--replicas", "2", "--no-progress", "--out", str(tmp_path / "c")]
    run = CliRunner().invoke(cli, [*args, "--releases", "2.8,3.0", "--releases", "3.4.0"])
    assert run.exit_code == 0, run.output
    assert "Note: 3.4.0 runs the preset kafka-3.3 (3.3 - 3.4.0)." in run.stderr
    lines = run.stdout.splitlines()
    head = [line.replace("┃", " ").split() for line in lines[2:4]]  # the title, a rule
    assert head == [["3.4.0"], ["property", "2.8", "3.0", "(3.3)"]]
    why = [x for x in lines[lines.index(TICKETS_HEAD) + 1 :] if x.startswith("  ")]
    assert [line.split(":")[0] for line in why] == [
        "  2.8 (Kafka 2.8.0)",
        "  3.0 (Kafka 2.8.1 - 2.8.2, 3.0 - 3.2)",
        "  3.4.0 (kafka-3.3, Kafka 3.3 - 3.4.0)",
    ]
    assert why[2].endswith(
        f"{READ} ✗ — KAFKA-14704, the follower takes the HW before it "
        "truncates; fixed in 3.4.1 and 3.5.0"
    )
    document = json.loads(CliRunner().invoke(cli, [*args, "--releases", "3.4.0", "--json"]).stdout)
    assert [(r["variant"], r["asked"]) for r in document["rows"]] == [("kafka-3.3", ["3.4.0"])]


def test_a_bad_release_is_one_line_and_exit_2(tmp_path):
    """A version of no release line names the nearest; a word that is no version says so;
    --releases with --kips is a usage error (exit 2, docs/reference/exit-codes.md)."""
    out = ["--out", str(tmp_path / "c")]
    nearest = "(0.8 to 4.4); the nearest is 4.4, modelled by kafka-4.1"
    for value, error in [
        ("3.4.0,5.2", f"Kafka 5.2 is not a release line this model knows {nearest}"),
        ("3.4.0,latest", "'latest' is not a Kafka version (X.Y or X.Y.Z, e.g. 3.4.0)"),
    ]:
        run = CliRunner().invoke(cli, ["compare", "--releases", value, *out])
        assert run.exit_code == 2
        assert run.stderr.splitlines()[-1] == f"Error: Invalid value for '--releases': {error}"
    run = CliRunner().invoke(cli, ["compare", "--kips", "--releases", "3.4.0", *out])
    assert run.exit_code == 2 and "not with --kips" in run.stderr.splitlines()[-1]
    assert not (tmp_path / "c").exists()
