"""The gate's pins notice changes that keep every verdict: careless edits, one at a time.

Each test edits the model's source the way a careless change would (a line of a protocol rule,
an invariant that checks less, an engine that drops information from what it compares),
compiles the edited function in this process, and runs ``hwcheck gate`` on the small gate of
``tests/data/pins`` with its committed lock file. The gate must fail (exit 1) and say what
changed. The edits are of the reference model and engine (Python), so the gate runs on
``--core reference --workers 1``; the same lock file passes unchanged on every engine and core
(``test_one_lock_file_passes_on_every_engine_and_core``).

The lock file was written by ``hwcheck gate --update`` on this config; its numbers are the
searches' own, which ``tests/test_golden.py`` and ``tests/test_compiled.py`` pin independently
(``test_the_lock_file_agrees_with_the_golden_counts`` ties them together).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import itertools
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner
from conftest import python_m

from checker import fingerprint, level, pins
from checker.cli import cli
from checker.fingerprint import encode
from checker.view import corpus
from spec.kafka import Config, KafkaSpec, variants
from tests.reference import reachable

DATA = Path(__file__).resolve().parent / "data" / "pins"
CONFIG = DATA / "gate.toml"
REFERENCE = ("--core", "reference", "--workers", "1")


@pytest.fixture(autouse=True)
def fresh_models(monkeypatch):
    """Level functions cache each recipe's model per process; an edited model must not be
    served from the cache of an earlier test."""
    monkeypatch.setattr(level, "_MODELS", {})
    monkeypatch.setattr(level, "_CANONS", {})


def gate(tmp_path, *extra, config=CONFIG):
    """Run the gate in this process; return the click result."""
    return CliRunner().invoke(cli, ["gate", "--config", str(config), "--no-progress",
                                    "--out", str(tmp_path / "reports"), *extra])


def edit(monkeypatch, module: str, name: str, old: str, new: str) -> None:
    """Replace the text ``old`` (it must occur exactly once) by ``new`` in the source of
    ``module.name`` (a function, or ``Class.method``), compile the edited function with the
    module's globals and put it wherever the original was: module attributes, the class,
    and the kafka model's action table."""
    mod = importlib.import_module(module)
    owner_name, _, name = name.rpartition(".")
    owner = getattr(mod, owner_name) if owner_name else mod
    original = getattr(owner, name)
    source = textwrap.dedent(inspect.getsource(original))
    assert source.count(old) == 1, f"{old!r} occurs {source.count(old)} times in {name}"
    namespace = dict(vars(mod))
    exec(compile(source.replace(old, new), mod.__file__, "exec"), namespace)  # noqa: S102
    edited = namespace[name]
    if owner_name:  # a method
        monkeypatch.setattr(owner, name, edited)
        return
    for other in list(sys.modules.values()):
        if getattr(other, "__name__", "").startswith(("spec.", "invariants.", "checker.")) \
                and getattr(other, name, None) is original:
            monkeypatch.setattr(other, name, edited)
    from spec.kafka import model

    monkeypatch.setattr(model, "ACTIONS", tuple(
        (action, edited if fn is original else fn) for action, fn in model.ACTIONS))


def fails_with(tmp_path, *expected: str, verdict: str = "", junit: str = "") -> str:
    """Run the gate on the reference core: it must fail, every ``expected`` text must be in
    what it prints and in its JUnit report, ``verdict`` (a failed expectation, as the table
    says it) in what it prints and ``junit`` in the JUnit report. Returns the output."""
    report = tmp_path / "gate.xml"
    result = gate(tmp_path, *REFERENCE, "--junit-xml", str(report))
    assert result.exit_code == 1, result.output
    failures = "\n".join((element.get("message") or "") + "\n" + (element.text or "")
                         for element in ElementTree.parse(report).iter()
                         if element.tag in ("failure", "error"))
    for text in expected:
        assert text in result.output, (text, result.output)
        assert text in failures, (text, failures)
    assert verdict in result.output, (verdict, result.output)
    assert junit in failures, (junit, failures)
    return result.output


def test_the_unchanged_model_passes_with_its_lock_file(tmp_path):
    report = tmp_path / "gate.xml"
    result = gate(tmp_path, *REFERENCE, "--junit-xml", str(report))
    assert result.exit_code == 0, result.output
    cases = [(case.get("name"), case.find("failure")) for case in ElementTree.parse(report).iter()
             if case.tag == "testcase" and case.get("name") in ("pins", "replay")]
    assert len(cases) == 4 + 11 and all(failure is None for _, failure in cases)
    assert "pins match" in result.output and "no pins" not in result.output


# -- protocol rules ----------------------------------------------------------------------------

def test_unfenced_offsets_for_leader_epoch_at_two_replicas(monkeypatch, tmp_path):
    """KIP-320's OffsetsForLeaderEpoch fence deleted (a leader of any epoch answers): at 2
    replicas every verdict stays, but followers truncate in states they did not reach."""
    kip320 = variants.PRESETS["kip320"]
    monkeypatch.setitem(variants.PRESETS, "kip320", dataclasses.replace(
        kip320, switches=kip320.switches - {"fenced-lookup"}))
    fails_with(tmp_path, "states 7,159 → 7,323 (+2.3 %)", "BecomeFollower first reached 561 → 661")


def test_removing_the_fetch_fence_at_two_replicas(monkeypatch, tmp_path):
    """KIP-320's fetch fence deleted: a follower fetches from a leader of another epoch.
    kip320's own verdict fails (the search finds a violation, 8,006 states instead of 7,159);
    the pins add that with unclean election, where every verdict stays, the fetch now reaches
    new states."""
    edit(monkeypatch, "spec.kafka.actions", "fetch",
         "if fenced and lview[V_EPOCH] != view[V_EPOCH]:", "if False:")
    output = fails_with(tmp_path, "states 645 → 647 (+0.3 %)", "Fetch first reached 69 → 71",
                        verdict="expected to hold, but violates")
    assert output.count("Pins differ") == 1


def test_a_follower_hw_from_the_updated_leader_hw(monkeypatch, tmp_path):
    """The HW rule: the response carries the leader's HW *after* this fetch moved it, not
    before (Kafka reads the log, then updates the follower's fetch state)."""
    edit(monkeypatch, "spec.kafka.actions", "fetch",
         "new_follower = (new_log, min(response_hw, lleo)", "new_follower = (new_log, min(hw, lleo)")
    fails_with(tmp_path, "states 7,159 → 5,662 (-20.9 %)")


def test_a_leader_hw_that_waits_for_one_more_isr_member(monkeypatch, tmp_path):
    """The HW rule's min ISR test off by one (``<=`` for ``<``): the HW waits for one
    member more than min.insync.replicas."""
    edit(monkeypatch, "spec.kafka.state", "leader_hw", "if len(isr) < min_isr:",
         "if len(isr) <= min_isr:")
    fails_with(tmp_path, "states 7,159 → 8,836 (+23.4 %)", "depth 21 → 23")


def test_offset_out_of_range_truncating_to_the_leader_hw(monkeypatch, tmp_path):
    """An error path: on OFFSET_OUT_OF_RANGE the follower truncates to the leader's HW
    instead of its LEO. Only kip101 with unclean election reaches it here."""
    edit(monkeypatch, "spec.kafka.actions", "fetch",
         "new_rep = (flog[:lleo], min(rep[HW], lleo)",
         "new_rep = (flog[:lrep[HW]], min(rep[HW], lrep[HW])")
    output = fails_with(tmp_path, "states 9,169 → 9,172")
    assert output.count("Pins differ") == 1


def test_truncating_one_record_short_of_the_last_match(monkeypatch, tmp_path):
    """KIP-279's truncation rule (kip320's too) off by one: the follower drops the last
    record it shares with the leader. This one flips a verdict: kip320 no longer holds."""
    edit(monkeypatch, "spec.kafka.variants", "after_last_match",
         "return last_match_end(log, leader_log)",
         "end = last_match_end(log, leader_log)\n    return end if not end else end - 1")
    rule = dataclasses.replace(variants.RULES["last-match-truncation"],
                               function=variants.after_last_match)
    for name, preset in list(variants.PRESETS.items()):
        if preset.rule.name == rule.name:
            monkeypatch.setitem(variants.PRESETS, name, dataclasses.replace(preset, rule=rule))
    fails_with(tmp_path, verdict="expected to hold, but violates",
               junit="NoCommittedLoss violated unexpectedly")


# -- invariants weakened -----------------------------------------------------------------------

def test_no_committed_loss_skipping_the_first_record(monkeypatch, tmp_path):
    """Every verdict stays (another record is lost a step later), but the shortest losses
    grow and the gallery's losses of m0 hold throughout their traces."""
    edit(monkeypatch, "invariants.safety", "properties",
         "return _missing(acc.logs(s)[leader], acc.committed(s)) is None",
         "return _missing(acc.logs(s)[leader], acc.committed(s)[1:]) is None")
    fails_with(tmp_path, "NoCommittedLoss shortest 11 → 12 states",
               "NoCommittedLoss trace differs from state 5: BecomeFollower(replica=1, epoch=0) "
               "↔ Produce(leader=0)",
               "NoCommittedLoss first fails at state 11 → holds throughout")


def test_no_divergence_comparing_fewer_replica_pairs(monkeypatch, tmp_path):
    """The pairs with replica 0 left out: the hw check's NoDivergence stops failing, and the
    3-replica gallery traces say where it used to fail."""
    edit(monkeypatch, "invariants.safety", "properties",
         "for a in range(n - 1):\n            ha", "for a in range(1, n - 1):\n            ha")
    fails_with(tmp_path, "NoDivergence first fails at state 15 → holds throughout",
               verdict="expected violation not found",
               junit="NoDivergence expected to be violated but holds")


def test_isr_invariants_checking_one_member(monkeypatch, tmp_path):
    """WeakIsr and StrongIsr compare the leader with the first ISR member only: no search
    verdict changes, the replayed gallery traces do."""
    edit(monkeypatch, "invariants.safety", "_isr_holds",
         "for member in (quorum_isr if strong else cached_isr):",
         "for member in (quorum_isr if strong else cached_isr)[:1]:")
    fails_with(tmp_path, "WeakIsr first fails at state 11 → holds throughout",
               "StrongIsr first fails at state 12 → holds throughout")


# -- engine bugs -------------------------------------------------------------------------------

def _replace_everywhere(monkeypatch, name: str, original, replacement) -> None:
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("checker.") \
                and getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, replacement)


def test_a_fingerprint_that_leaves_out_the_committed_history(monkeypatch, tmp_path):
    """The fingerprint drops the ghost variables (what was committed): distinct states merge,
    and no stored trace's fingerprints match any more."""
    original = fingerprint.fingerprint
    _replace_everywhere(monkeypatch, "fingerprint", original, lambda s: original(s[:3]))
    fails_with(tmp_path, "states 7,159 → 5,183 (-27.6 %)",
               "state 1: no initial state of this model has the trace's fingerprint")


def test_a_fingerprint_cut_to_20_bits(monkeypatch, tmp_path):
    """Fingerprints kept in 20 bits: collisions merge distinct states."""
    original = fingerprint.fingerprint
    _replace_everywhere(monkeypatch, "fingerprint", original, lambda s: original(s) & 0xFFFFF)
    fails_with(tmp_path, "states 7,159 → 7,124 (-0.5 %)")


def test_a_seen_set_that_compares_fingerprints_by_their_top_20_bits(monkeypatch, tmp_path):
    """The seen set's lookup compares only the top 20 bits of a fingerprint: a new state
    whose neighbour in the sorted seen set shares them is taken as seen and dropped."""
    edit(monkeypatch, "checker.seen", "in_sorted", "return visited[at] == keys",
         "return (visited[at] >> np.uint64(44)) == (keys >> np.uint64(44))")
    fails_with(tmp_path, "pins differ: states 7,159 → ")


# -- the lock file ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["kip320 holds, 2 replicas",
                                  "hw loses and forks committed data, 2 replicas, epoch 1"])
def test_the_lock_file_agrees_with_a_naive_enumeration(name):
    """The pinned orbits and depth, counted again without the engine: every reachable state
    in a Python set (``tests/reference.py``), then one orbit per set of renamings."""
    lock = pins.read_lock(DATA / pins.LOCK_NAME)
    pinned = lock.checks[name]
    defined = pinned["check"]
    spec = KafkaSpec(Config(replicas=defined["replicas"], truncation=defined["truncation"],
                            max_epoch=defined.get("max_epoch", Config().max_epoch)))
    seen, depth = reachable(spec)
    renamings = list(itertools.permutations(range(defined["replicas"])))
    orbits = {min(encode(spec.permute(state, perm)) for perm in renamings) for state in seen}
    assert (len(orbits), depth) == (pinned["states"], pinned["depth"])


def test_the_gallery_loss_is_pinned_where_the_gallery_says():
    lock = pins.read_lock(DATA / pins.LOCK_NAME)
    loss = lock.traces["../../../reports/gallery/hw-truncation-loss/trace.json"]
    # the gallery's loss: m0 is lost at its 11th state, and held on every state before
    assert loss["states"] == 11 and loss["first_violated_at"]["NoCommittedLoss"] == 11


def copied_gate(tmp_path) -> Path:
    """The test gate and its lock file copied under ``tmp_path`` (the corpus still the
    repository's gallery); returns the config's path."""
    folder = tmp_path / "gate"
    shutil.copytree(DATA, folder)
    config = folder / "gate.toml"
    config.write_text(config.read_text().replace("../../../reports",
                                                 str(DATA.parents[2] / "reports")))
    return config


def test_update_round_trip_over_a_model_edit(monkeypatch, tmp_path):
    """Edit the model: the gate fails; --update: it passes; revert the edit: it fails with
    the inverse differences."""
    config = copied_gate(tmp_path)
    kip320 = variants.PRESETS["kip320"]
    with monkeypatch.context() as edited:
        edited.setitem(variants.PRESETS, "kip320", dataclasses.replace(
            kip320, switches=kip320.switches - {"fenced-lookup"}))
        assert gate(tmp_path, *REFERENCE, config=config).exit_code == 1
        updated = gate(tmp_path, *REFERENCE, "--update", config=config)
        assert updated.exit_code == 0, updated.output
        assert "Pins updated: kip320 holds, 2 replicas" in updated.output
        assert "states 7,159 → 7,323 (+2.3 %)" in updated.output
        assert gate(tmp_path, *REFERENCE, config=config).exit_code == 0
    reverted = gate(tmp_path, *REFERENCE, config=config)
    assert reverted.exit_code == 1
    assert "states 7,323 → 7,159 (-2.2 %)" in reverted.output
    assert "BecomeFollower first reached 661 → 561" in reverted.output


def test_update_round_trip(tmp_path):
    """Change a check, see the gate fail, --update, pass; change it back: the inverse diff."""
    config = copied_gate(tmp_path)
    (config.parent / pins.LOCK_NAME).unlink()
    first = gate(tmp_path, "--update", config=config)
    assert first.exit_code == 0 and "pinned now" in first.output, first.output
    original = config.read_text()
    config.write_text(original.replace('truncation = "kip320"\nreplicas = 2\nexpect',
                                       'truncation = "kip320"\nreplicas = 2\nmax_epoch = 1\nexpect'))
    changed = gate(tmp_path, config=config)
    assert changed.exit_code == 1
    assert "check's max_epoch (none) → 1 since it was pinned" in changed.output
    assert "states 7,159 → " in changed.output and "--update" in changed.output
    updated = gate(tmp_path, "--update", config=config)
    assert updated.exit_code == 0 and "Pins updated: kip320 holds" in updated.output
    assert gate(tmp_path, config=config).exit_code == 0
    config.write_text(original)
    reverted = gate(tmp_path, config=config)
    assert reverted.exit_code == 1
    assert "check's max_epoch 1 → (none) since it was pinned" in reverted.output
    assert " → 7,159 (" in reverted.output


ENGINES = {
    "compiled, 1 thread": ("--workers", "1"),
    "compiled, 2 threads": ("--workers", "2"),
    "reference, 2 processes": ("--core", "reference", "--workers", "2"),
    "spark, 3 partitions, every level a job": (
        "--engine", "spark", "--master", "local[2]", "--partitions", "3",
        "--spark-min-frontier", "0"),
}


@pytest.mark.slow
@pytest.mark.parametrize("engine", list(ENGINES))
def test_one_lock_file_passes_on_every_engine_and_core(engine, tmp_path):
    """The lock file written on the reference core passes unchanged everywhere (a separate
    process each, so Spark and worker processes start and end as for a user)."""
    report = tmp_path / "gate.xml"
    done = subprocess.run(
        [*python_m("checker.cli"), "gate", "--config", str(CONFIG), "--no-progress",
         "--out", str(tmp_path / "reports"), "--junit-xml", str(report), *ENGINES[engine]],
        check=False, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    compared = [case for case in ElementTree.parse(report).iter()
                if case.tag == "testcase" and case.get("name") in ("pins", "replay")]
    assert len(compared) == 4 + 11 and not any(case.find("failure") is not None
                                               for case in compared)


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


@pytest.mark.parametrize(("text", "said"), [
    ("{not json", "not valid JSON"),
    ('{"format": "something-else"}', "not an hwcheck gate lock file"),
    ('{"format": "hwcheck-gate-lock", "version": 9, "checks": {}, "traces": {}}',
     "lock format version 9"),
    (('{"format": "hwcheck-gate-lock", "version": 1, "checks": {"a": {"states": -1}}, '
     '"traces": {}}'), "field checks/a"),
])
def test_a_corrupt_lock_file_is_one_message_and_exit_4(tmp_path, text, said):
    (tmp_path / pins.LOCK_NAME).write_text(text)
    result = gate(tmp_path, config=small_gate(tmp_path))
    assert result.exit_code == 4
    assert said in result.output and "Traceback" not in result.output


def test_a_lock_file_that_cannot_be_written_is_exit_5(tmp_path):
    (tmp_path / "file").write_text("")
    result = gate(tmp_path, "--update", "--lock", str(tmp_path / "file" / pins.LOCK_NAME),
                  config=small_gate(tmp_path))
    assert result.exit_code == 5
    assert "cannot write the lock file" in result.output and "Traceback" not in result.output


def test_lock_files_are_written_sorted_and_stable():
    """Reading and writing the committed lock files gives them back byte for byte, so a
    reviewed change is the only diff."""
    for path in (DATA / pins.LOCK_NAME, DATA.parents[2] / pins.LOCK_NAME):
        assert pins.lock_text(pins.read_lock(path)) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted((DATA.parents[2] / "reports" / "gallery").glob(
    "*/trace.json")), ids=lambda path: path.parent.name)
def test_a_trace_replays_alike_on_both_cores(path):
    """The corpus replay on the compiled core (single-state calls into C) and on the Python
    model: the same states, and every property first failing at the same state."""
    compiled, reference = corpus.replay(path, "compiled"), corpus.replay(path, "reference")
    assert not compiled.problem and not reference.problem
    assert compiled.pins() == reference.pins()
    assert compiled.first_violated_at[compiled.property] == compiled.states
