"""What a Kafka engineer sees of the release presets (issue 39): ``hwcheck list --json`` and
its schema, and ``hwcheck compare``'s release matrix at 2 replicas with its notes."""

from __future__ import annotations

import json
import re

import jsonschema
from click.testing import CliRunner

from checker.cli import cli
from checker.formats import catalog
from spec.kafka.variants import RELEASE_PRESETS


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
    hold."""
    args = ["compare", "--replicas", "2", "--no-progress", "--out", str(tmp_path / "c")]
    run = CliRunner().invoke(cli, args, env={"COLUMNS": "120"})
    assert run.exit_code == 0, run.output
    lines = run.stdout.splitlines()
    table = [line for line in lines if not line.startswith(("Note:", "Reports"))]
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
    # the count row is named as explore names the count: symmetry is on, so orbits
    assert any(line.strip().startswith("orbits ") for line in lines)
    assert not any(line.strip().startswith("states ") for line in lines)
