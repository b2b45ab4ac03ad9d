"""The gate's lock file: pins written, compared, updated and refused, on every engine.

The lock file of ``tests/data/pins`` was written by ``hwcheck gate --update`` on its config;
``test_the_lock_file_agrees_with_a_naive_enumeration`` recounts its numbers without the
engine. ``test_gate_edits.py`` makes careless edits to the model and watches the same gate fail.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import shutil
import subprocess
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from conftest import python_m

from checker.cli import cli
from checker.commands import gate_checks
from checker.commands import gate_corpus as corpus
from checker.fingerprint import encode
from checker.formats import pins
from checker.gate.policy import Check
from spec.kafka import Config, KafkaSpec, variants
from tests.reference import reachable

DATA = Path(__file__).resolve().parent / "data" / "pins"
CONFIG = DATA / "gate.toml"
REFERENCE = ("--core", "reference", "--workers", "1")

pytestmark = pytest.mark.usefixtures("fresh_models")


def gate(tmp_path, *extra, config=CONFIG):
    """Run the gate in this process; return the click result."""
    return CliRunner().invoke(
        cli,
        [
            "gate",
            "--config",
            str(config),
            "--no-progress",
            "--out",
            str(tmp_path / "reports"),
            *extra,
        ],
    )


# -- the lock file ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["kip320 holds, 2 replicas", "hw loses and forks committed data, 2 replicas, epoch 1"]
)
def test_the_lock_file_agrees_with_a_naive_enumeration(name):
    """The pinned orbits and depth, counted again without the engine: every reachable state
    in a Python set (``tests/reference.py``), then one orbit per set of renamings."""
    lock = pins.read_lock(DATA / pins.LOCK_NAME)
    pinned = lock.checks[name]
    defined = pinned["check"]
    spec = KafkaSpec(
        Config(
            replicas=defined["replicas"],
            truncation=defined["truncation"],
            max_epoch=defined.get("max_epoch", Config().max_epoch),
        )
    )
    seen, depth = reachable(spec)
    renamings = list(itertools.permutations(range(defined["replicas"])))
    orbits = {min(encode(spec.permute(state, perm)) for perm in renamings) for state in seen}
    assert (len(orbits), depth) == (pinned["states"], pinned["depth"])


def test_the_gallery_loss_is_pinned_where_the_gallery_says():
    lock = pins.read_lock(DATA / pins.LOCK_NAME)
    loss = lock.traces["../../../reports/gallery/hw-truncation-loss/trace.json"]
    # the gallery's loss (the seed schedule): m1 is lost at its 14th state, where B is
    # elected (tests/test_scenarios.py), and held on every state before
    assert loss["states"] == 14 and loss["first_violated_at"]["NoCommittedLoss"] == 14


def copied_gate(tmp_path) -> Path:
    """The test gate and its lock file copied under ``tmp_path`` (the corpus still the
    repository's gallery); returns the config's path."""
    folder = tmp_path / "gate"
    shutil.copytree(DATA, folder)
    config = folder / "gate.toml"
    config.write_text(
        config.read_text().replace("../../../reports", str(DATA.parents[2] / "reports"))
    )
    return config


def test_update_round_trip_over_a_model_edit(monkeypatch, tmp_path):
    """Edit the model: the gate fails; --update: it passes; revert the edit: it fails with
    the inverse differences."""
    config = copied_gate(tmp_path)
    kip320 = variants.PRESETS["kip320"]
    with monkeypatch.context() as edited:
        edited.setitem(
            variants.PRESETS,
            "kip320",
            dataclasses.replace(kip320, switches=kip320.switches - {"fenced-lookup"}),
        )
        assert gate(tmp_path, *REFERENCE, config=config).exit_code == 1
        updated = gate(tmp_path, *REFERENCE, "--update", config=config)
        assert updated.exit_code == 0, updated.output
        assert "Pins updated: kip320 holds, 2 replicas" in updated.output
        assert "states 6,016 → 6,165 (+2.5 %)" in updated.output
        assert gate(tmp_path, *REFERENCE, config=config).exit_code == 0
    reverted = gate(tmp_path, *REFERENCE, config=config)
    assert reverted.exit_code == 1
    assert "states 6,165 → 6,016 (-2.4 %)" in reverted.output
    assert "BecomeFollower first reached 653 → 571" in reverted.output


def test_update_round_trip(tmp_path):
    """Change a check, see the gate fail, --update, pass; change it back: the inverse diff."""
    config = copied_gate(tmp_path)
    (config.parent / pins.LOCK_NAME).unlink()
    first = gate(tmp_path, "--update", config=config)
    assert first.exit_code == 0 and "pinned now" in first.output, first.output
    original = config.read_text()
    config.write_text(
        original.replace(
            'truncation = "kip320"\nreplicas = 2\nexpect',
            'truncation = "kip320"\nreplicas = 2\nmax_epoch = 1\nexpect',
        )
    )
    changed = gate(tmp_path, config=config)
    assert changed.exit_code == 1
    assert "check's max_epoch 2 (default) → 1 since it was pinned" in changed.output
    assert "states 6,016 → " in changed.output and "--update" in changed.output
    updated = gate(tmp_path, "--update", config=config)
    assert updated.exit_code == 0 and "Pins updated: kip320 holds" in updated.output
    assert gate(tmp_path, config=config).exit_code == 0
    config.write_text(original)
    reverted = gate(tmp_path, config=config)
    assert reverted.exit_code == 1
    assert "check's max_epoch 1 → 2 (default) since it was pinned" in reverted.output
    assert " → 6,016 (" in reverted.output


def test_the_one_line_summary_counts_the_changes_it_leaves_out():
    """``(+11 more)`` after ``depth 21 → 23`` read as eleven more levels."""
    changes = ["states 7,159 → 23,803 (+232.5 %)", "depth 21 → 23"]
    assert pins.summary(changes) == "states 7,159 → 23,803 (+232.5 %); depth 21 → 23"
    assert pins.summary(["a", *changes, "b"]) == (
        "a; states 7,159 → 23,803 (+232.5 %); depth 21 → 23; and 1 more change"
    )
    assert pins.summary(["a", *changes, *"bcdefghijkl"]).endswith(
        "; depth 21 → 23; and 11 more changes"
    )


def test_a_key_given_on_one_side_says_the_default_it_was():
    old = {"check": {"model": "kafka", "truncation": "kip320", "replicas": 2}}
    new = {"check": {**old["check"], "max_records": 3, "with": ["elr"]}}
    pinned = {"states": 1, "depth": 1, "generated": 1, "coverage": {}, "guards": []}
    defaults = gate_checks.defaults(Check("c", "kafka", "kip320", {"replicas": 2}))
    assert (defaults["max_records"], defaults["with"], defaults["unclean"]) == (2, [], False)
    said = pins.check_differences(
        {**old, **pinned, "violations": {}}, {**new, **pinned, "violations": {}}, defaults
    )
    assert said == [
        "check's max_records 2 (default) → 3 since it was pinned",
        "check's with none (default) → [elr] since it was pinned",
    ]
    simulated = Check("s", "kafka", "kip320", {}, mode="simulate")
    assert gate_checks.defaults(simulated)["max_records"] == 4  # simulate's bounds
    assert gate_checks.defaults(simulated)["walks"] == 1000


ENGINES = {
    "compiled, 1 thread": ("--workers", "1"),
    "reference, 2 processes": ("--core", "reference", "--workers", "2"),
    "spark, 3 partitions, levels of 1,000+ states as jobs": (
        "--engine",
        "spark",
        "--master",
        "local[2]",
        "--partitions",
        "3",
        "--spark-min-frontier",
        "1000",
    ),
}
"""The Spark case runs the widest levels as Spark jobs (2 of kip320's, 4 of kip101's with
unclean election, the checks of 6,016 and 7,494 orbits) and every level of the two small
checks in the driver: 10 s, against 20 s with levels of 100+ orbits as jobs. The compiled
core on its default workers (every core: 2 threads on the CI machine) passes the same lock
file in ``test_certificate.test_the_default_gate_sees_an_edit_of_the_python_model_on_disk``
(its exit code)."""


@pytest.mark.parametrize("engine", list(ENGINES))
def test_one_lock_file_passes_on_every_engine_and_core(engine, tmp_path):
    """The lock file written on the reference core passes unchanged everywhere (a separate
    process each, so Spark and worker processes start and end as for a user)."""
    report = tmp_path / "gate.xml"
    done = subprocess.run(
        [
            *python_m("checker.cli"),
            "gate",
            "--config",
            str(CONFIG),
            "--no-progress",
            "--out",
            str(tmp_path / "reports"),
            "--junit-xml",
            str(report),
            *ENGINES[engine],
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    compared = [
        case
        for case in ElementTree.parse(report).iter()
        if case.tag == "testcase" and case.get("name") in ("pins", "replay")
    ]
    assert len(compared) == 4 + 19 and not any(
        case.find("failure") is not None for case in compared
    )


SMALL = """
[[gate]]
name = "kip320 holds"
truncation = "kip320"
replicas = 2
max_epoch = 1
expect = "holds"
"""


def small_gate(tmp_path, text=SMALL):
    config = tmp_path / "gate.toml"
    config.write_text(text)
    return config


def test_a_check_without_pins_passes_on_its_verdict_and_says_how_to_pin(tmp_path):
    result = gate(tmp_path, config=small_gate(tmp_path))
    assert result.exit_code == 0, result.output
    assert "no pins: run hwcheck gate --update" in result.output
    assert "No pins yet" in result.output and not (tmp_path / pins.LOCK_NAME).exists()


def test_update_with_a_failing_verdict_still_fails_and_keeps_the_old_pins(tmp_path):
    config = small_gate(tmp_path)
    assert gate(tmp_path, "--update", config=config).exit_code == 0
    before = (tmp_path / pins.LOCK_NAME).read_text()
    config.write_text(SMALL.replace('truncation = "kip320"', 'truncation = "hw"'))
    result = gate(tmp_path, "--update", config=config)
    assert result.exit_code == 1 and "expected to hold, but violates" in result.output
    assert (tmp_path / pins.LOCK_NAME).read_text() == before


def test_update_drops_the_pins_of_a_check_no_longer_in_the_config(tmp_path):
    config = small_gate(tmp_path)
    assert gate(tmp_path, "--update", config=config).exit_code == 0
    config.write_text(SMALL.replace('name = "kip320 holds"', 'name = "kip320 holds, renamed"'))
    renamed = gate(tmp_path, config=config)
    assert renamed.exit_code == 0 and "no pins: run hwcheck gate --update" in renamed.output
    updated = gate(tmp_path, "--update", config=config)
    assert "dropped the pins of kip320 holds" in updated.output
    assert set(pins.read_lock(tmp_path / pins.LOCK_NAME).checks) == {"kip320 holds, renamed"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "not valid JSON"),
        (
            '{"format": "hwcheck-gate-lock", "checks',
            (
                "hwcheck-gate.lock: not valid JSON: unterminated string starting at line 1 column 33 "
                "(the file ends early — truncated?); restore it from version control or write it "
                "again with hwcheck gate --update"
            ),
        ),
        ('{"format": "something-else"}', "not an hwcheck gate lock file"),
        (
            '{"format": "hwcheck-gate-lock", "version": 9, "checks": {}, "traces": {}}',
            "lock format version 9",
        ),
        (
            (
                '{"format": "hwcheck-gate-lock", "version": 1, "checks": {"a": {"states": -1}}, '
                '"traces": {}}'
            ),
            "field checks/a",
        ),
    ],
)
def test_a_corrupt_lock_file_is_one_message_and_exit_4(tmp_path, text, said):
    (tmp_path / pins.LOCK_NAME).write_text(text)
    result = gate(tmp_path, config=small_gate(tmp_path))
    assert result.exit_code == 4
    assert said in result.output and "Traceback" not in result.output


def test_a_lock_file_that_cannot_be_written_is_exit_5(tmp_path):
    (tmp_path / "file").write_text("")
    result = gate(
        tmp_path,
        "--update",
        "--lock",
        str(tmp_path / "file" / pins.LOCK_NAME),
        config=small_gate(tmp_path),
    )
    assert result.exit_code == 5
    assert "cannot write the lock file" in result.output and "Traceback" not in result.output


def test_lock_files_are_written_sorted_and_stable():
    """Reading and writing the committed lock files gives them back byte for byte, so a
    reviewed change is the only diff."""
    for path in (DATA / pins.LOCK_NAME, DATA.parents[2] / pins.LOCK_NAME):
        assert pins.lock_text(pins.read_lock(path)) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "path",
    sorted((DATA.parents[2] / "reports" / "gallery").glob("*/trace.json")),
    ids=lambda path: path.parent.name,
)
def test_a_trace_replays_alike_on_both_cores(path):
    """The corpus replay on the compiled core (single-state calls into C) and on the Python
    model: the same states, and every property first failing at the same state."""
    compiled, reference = corpus.replay(path, "compiled"), corpus.replay(path, "reference")
    assert not compiled.problem and not reference.problem
    assert compiled.pins() == reference.pins()
    assert compiled.first_violated_at[compiled.property] == compiled.states


def test_a_corpus_trace_whose_step_is_no_longer_enabled_says_which_guard(tmp_path):
    """An edited corpus trace (state 3's action made a Produce on replica 7 of 2) is refused
    with the state, the label and the model's false guard."""
    source = DATA.parents[2] / "reports" / "gallery" / "acks-1-loss" / "trace.json"
    document = json.loads(source.read_text(encoding="utf-8"))
    document["steps"][2]["action"] = "Produce(leader=7)"
    edited = tmp_path / "trace.json"
    edited.write_text(json.dumps(document), encoding="utf-8")
    assert corpus.replay(edited, "reference").problem == (
        "state 3: Produce(leader=7) is no longer enabled (there is no replica 7 (replicas=2: 0 "
        "to 1))"
    )
