"""``hwcheck list`` (issue 64): a short summary by default, one topic in full on request,
``all`` for every table, and ``--json`` for the whole catalog, unchanged."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.formats import catalog
from spec.kafka import versions
from spec.kafka.variants import PRESETS


def listed(*args: str) -> tuple[int, str]:
    run = CliRunner().invoke(cli, ["list", *args], env={"COLUMNS": "200"})
    return run.exit_code, run.output


def flat(text: str) -> str:
    return " ".join(re.sub(r"[│┃]", " ", text).split())


def test_the_default_is_a_summary_of_one_line_a_preset():
    code, out = listed()
    assert code == 0
    lines = [line.rstrip() for line in out.splitlines()]
    # one line a preset with its Kafka versions; the rest (models, tla's modules, each
    # model's properties by name, the hint) wraps into a few lines more
    for name, variant in PRESETS.items():
        assert any(
            re.fullmatch(rf"  {re.escape(name)} +.*{re.escape(variant.kafka)}.*", line)
            for line in lines
        ), name
    assert "  kafka-3.0       Kafka 2.8.1 - 2.8.2, 3.0 - 3.2" in lines
    assert "  kafka-4.1       Kafka 4.1 - 4.4 (new clusters, or ELR enabled) (default)" in lines
    assert len(lines) <= len(PRESETS) + 10, out
    assert "LeaderInIsr (only when named)" in out and "kip320 (default)" in out
    assert (
        "hwcheck list presets | mechanisms | actions | properties | fairness | bounds | all" in out
    )


def test_presets_show_the_version_aliases_and_what_each_release_leaves_out():
    code, out = listed("presets", "--model", "kafka")
    assert code == 0 and "tla model" not in out
    text = flat(out)
    also = [alias for alias, preset in versions.VERSIONS.items() if preset == "kafka-2.1"]
    assert "kafka-2.1 " + ", ".join(also) in text
    assert "kip320 epoch" in text
    assert PRESETS["kafka-4.1"].left_out.split(";")[0] in text


def test_properties_show_each_liveness_formula_and_why_one_is_only_checked_when_named():
    code, out = listed("properties", "--model", "tla")
    assert code == 0 and "kafka model" not in out
    text = flat(out)
    assert "CommitProgress == \\A r \\in Replicas" in text
    assert "Checked only when named (--invariant LeaderInIsr): as written it is false" in text


@pytest.mark.parametrize(
    "topic,title",
    [
        ("mechanisms", "kafka model: mechanisms (--with / --without)"),
        ("actions", "tla model, --truncation async-isr: actions, then its invariant"),
        ("fairness", "tla model: fairness of the liveness check"),
        ("bounds", "kafka model: default bounds, and the range each one accepts"),
    ],
)
def test_each_topic_prints_its_own_tables(topic, title):
    code, out = listed(topic)
    assert code == 0 and title in out
    titles = re.findall(r"^(?:kafka|tla) model[:,].*$", out, re.MULTILINE)
    assert all(topic.rstrip("s")[:6] in t or "async-isr" in t for t in titles), titles


def test_all_is_every_table_and_json_is_the_catalog_unchanged():
    code, out = listed("all")
    assert code == 0 and out.count(" model: ") == 11  # 6 kafka tables, 5 tla
    assert "tla model, --truncation async-isr: actions, then its invariant" in out
    code, out = listed("--json")
    assert code == 0
    catalog.document([])  # the schema loads
    assert [m["name"] for m in json.loads(out)["models"]] == ["kafka", "tla"]
    code, out = listed("presets", "--json")
    assert code == 2 and "--json prints the whole catalog" in out
