"""The gate's pins notice careless edits that keep every verdict, one edit at a time.

Each test edits the model's source the way a careless change would (a line of a protocol rule,
an invariant that checks less, an engine that drops information from what it compares),
compiles the edited function in this process, and runs ``hwcheck gate`` on the small gate of
``tests/data/pins`` with its committed lock file. The gate must fail (exit 1) and say what
changed. The edits are of the reference model and engine (Python), so the gate runs on
``--core reference --workers 1``; the same lock file passes unchanged on every engine and core
(``test_gate_pins.test_one_lock_file_passes_on_every_engine_and_core``).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import sys
import textwrap
from xml.etree import ElementTree

import pytest

from checker import fingerprint
from spec.kafka import rules, variants
from tests.test_gate_pins import REFERENCE, gate

pytestmark = pytest.mark.usefixtures("fresh_models")


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
        if (
            getattr(other, "__name__", "").startswith(("spec.", "invariants.", "checker."))
            and getattr(other, name, None) is original
        ):
            monkeypatch.setattr(other, name, edited)
    from spec.kafka import model

    monkeypatch.setattr(
        model,
        "ACTIONS",
        tuple((action, edited if fn is original else fn) for action, fn in model.ACTIONS),
    )


def fails_with(tmp_path, *expected: str, verdict: str = "", junit: str = "") -> str:
    """Run the gate on the reference core: it must fail, every ``expected`` text must be in
    what it prints and in its JUnit report, ``verdict`` (a failed expectation, as the table
    says it) in what it prints and ``junit`` in the JUnit report. Returns the output."""
    report = tmp_path / "gate.xml"
    result = gate(tmp_path, *REFERENCE, "--junit-xml", str(report))
    assert result.exit_code == 1, result.output
    failures = "\n".join(
        (element.get("message") or "") + "\n" + (element.text or "")
        for element in ElementTree.parse(report).iter()
        if element.tag in ("failure", "error")
    )
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
    cases = [
        (case.get("name"), case.find("failure"))
        for case in ElementTree.parse(report).iter()
        if case.tag == "testcase" and case.get("name") in ("pins", "replay")
    ]
    assert len(cases) == 4 + 19 and all(failure is None for _, failure in cases)
    assert "pins match" in result.output and "no pins" not in result.output


# -- protocol rules ----------------------------------------------------------------------------


def test_unfenced_offsets_for_leader_epoch_at_two_replicas(monkeypatch, tmp_path):
    """KIP-320's OffsetsForLeaderEpoch fence deleted (a leader of any epoch answers): at 2
    replicas every verdict stays, but followers truncate in states they did not reach."""
    kip320 = variants.PRESETS["kip320"]
    monkeypatch.setitem(
        variants.PRESETS,
        "kip320",
        dataclasses.replace(kip320, switches=kip320.switches - {"fenced-lookup"}),
    )
    fails_with(tmp_path, "states 6,016 → 6,165 (+2.5 %)", "BecomeFollower first reached 571 → 653")


def test_removing_the_fetch_fence_at_two_replicas(monkeypatch, tmp_path):
    """KIP-320's fetch fence deleted: a follower fetches from a leader of another epoch.
    kip320's own verdict fails (the search finds a violation);
    the pins add that with unclean election, where every verdict stays, the fetch now reaches
    new states."""
    edit(
        monkeypatch,
        "spec.kafka.guards_data",
        "fetch_leader",
        "if fenced and not same_epoch(ctx, s, f, leader):",
        "if False:",
    )
    output = fails_with(
        tmp_path,
        "states 588 → 590 (+0.3 %)",
        "Fetch first reached 69 → 71",
        verdict="expected to hold, but violates",
    )
    assert output.count("Pins differ") == 1


def test_a_follower_hw_from_the_updated_leader_hw(monkeypatch, tmp_path):
    """The HW rule: the response carries the leader's HW *after* this fetch moved it, not
    before (Kafka reads the log, then updates the follower's fetch state)."""
    edit(
        monkeypatch,
        "spec.kafka.actions",
        "fetch",
        "new_follower = (new_log, min(response_hw, lleo)",
        "new_follower = (new_log, min(hw, lleo)",
    )
    fails_with(tmp_path, "states 6,016 → 4,861 (-19.2 %)")


def test_a_leader_hw_that_waits_for_one_more_isr_member(monkeypatch, tmp_path):
    """The HW rule's min ISR test off by one (``<=`` for ``<``): the HW waits for one
    member more than min.insync.replicas."""
    edit(
        monkeypatch,
        "spec.kafka.state",
        "leader_hw",
        "if (len(isr) if committed < 0 else committed) < min_isr:",
        "if (len(isr) if committed < 0 else committed) <= min_isr:",
    )
    fails_with(tmp_path, "states 6,016 → 7,228 (+20.1 %)")


def test_offset_out_of_range_truncating_to_the_leader_hw(monkeypatch, tmp_path):
    """An error path: on OFFSET_OUT_OF_RANGE the follower truncates to the leader's HW
    instead of its LEO. Only kip101 with unclean election reaches it here."""
    edit(
        monkeypatch,
        "spec.kafka.actions",
        "fetch",
        "new_rep = (flog[:lleo], min(rep[HW], lleo)",
        "new_rep = (flog[:lrep[HW]], min(rep[HW], lrep[HW])",
    )
    output = fails_with(tmp_path, "states 7,494 → 7,497")
    assert output.count("Pins differ") == 1


def test_truncating_one_record_short_of_the_last_match(monkeypatch, tmp_path):
    """KIP-279's truncation rule (kip320's too) off by one: the follower drops the last
    record it shares with the leader. This one flips a verdict: kip320 no longer holds."""
    edit(
        monkeypatch,
        "spec.kafka.rules",
        "after_last_match",
        "return last_match_end(log, leader_log)",
        "end = last_match_end(log, leader_log)\n    return end if not end else end - 1",
    )
    rule = dataclasses.replace(
        variants.RULES["last-match-truncation"], function=rules.after_last_match
    )
    for name, preset in list(variants.PRESETS.items()):
        if preset.rule.name == rule.name:
            monkeypatch.setitem(variants.PRESETS, name, dataclasses.replace(preset, rule=rule))
    fails_with(
        tmp_path,
        verdict="expected to hold, but violates",
        junit="NoCommittedLoss violated unexpectedly",
    )


# -- invariants weakened -----------------------------------------------------------------------


def test_no_committed_loss_skipping_the_first_record(monkeypatch, tmp_path):
    """Every verdict stays (another record is lost a step later), but the shortest losses
    grow and the gallery's losses of m0 hold throughout their traces."""
    edit(
        monkeypatch,
        "invariants.safety",
        "properties",
        "return _missing(acc.logs(s)[leader], acc.committed(s)) is None",
        "return _missing(acc.logs(s)[leader], acc.committed(s)[1:]) is None",
    )
    fails_with(
        tmp_path,
        "NoCommittedLoss shortest 11 → 12 states",
        "NoCommittedLoss trace differs from state 5: BecomeFollower(replica=1, epoch=0) "
        "↔ Produce(leader=0)",
        "NoCommittedLoss first fails at state 11 → holds throughout",
    )


def test_no_divergence_comparing_fewer_replica_pairs(monkeypatch, tmp_path):
    """The pairs with replica 0 left out: the hw check's NoDivergence stops failing, and the
    3-replica gallery traces say where it used to fail."""
    edit(
        monkeypatch,
        "invariants.safety",
        "properties",
        "for a in range(n - 1):\n            ha",
        "for a in range(1, n - 1):\n            ha",
    )
    fails_with(
        tmp_path,
        "NoDivergence first fails at state 15 → holds throughout",
        verdict="expected violation not found",
        junit="NoDivergence expected to be violated but holds",
    )


def test_isr_invariants_checking_one_member(monkeypatch, tmp_path):
    """WeakIsr and StrongIsr compare the leader with the first ISR member only: no search
    verdict changes, the replayed gallery traces do."""
    edit(
        monkeypatch,
        "invariants.safety",
        "_isr_holds",
        "for member in quorum_isr if strong else cached_isr:",
        "for member in (quorum_isr if strong else cached_isr)[:1]:",
    )
    fails_with(
        tmp_path,
        "WeakIsr first fails at state 11 → holds throughout",
        "StrongIsr first fails at state 12 → holds throughout",
    )


# -- engine bugs -------------------------------------------------------------------------------


def _replace_everywhere(monkeypatch, name: str, original, replacement) -> None:
    for module in list(sys.modules.values()):
        if (
            getattr(module, "__name__", "").startswith("checker.")
            and getattr(module, name, None) is original
        ):
            monkeypatch.setattr(module, name, replacement)


def test_a_fingerprint_that_leaves_out_the_committed_history(monkeypatch, tmp_path):
    """The fingerprint drops the ghost variables (what was committed): distinct states merge,
    and no stored trace's fingerprints match any more."""
    original = fingerprint.fingerprint
    _replace_everywhere(monkeypatch, "fingerprint", original, lambda s: original(s[:3]))
    fails_with(
        tmp_path,
        "states 6,016 → 4,189 (-30.4 %)",
        "state 1: no initial state of this model has the trace's fingerprint",
    )


def test_a_fingerprint_cut_to_20_bits(monkeypatch, tmp_path):
    """Fingerprints kept in 20 bits: collisions merge distinct states."""
    original = fingerprint.fingerprint
    _replace_everywhere(monkeypatch, "fingerprint", original, lambda s: original(s) & 0xFFFFF)
    fails_with(tmp_path, "states 6,016 → 5,994 (-0.4 %)")


def test_a_seen_set_that_compares_fingerprints_by_their_top_20_bits(monkeypatch, tmp_path):
    """The seen set's lookup compares only the top 20 bits of a fingerprint: a new state
    whose neighbour in the sorted seen set shares them is taken as seen and dropped."""
    edit(
        monkeypatch,
        "checker.search.reference.seen",
        "in_sorted",
        "= seen[at] == keys",
        "= (seen[at] >> np.uint64(44)) == (keys >> np.uint64(44))",
    )
    fails_with(tmp_path, "pins differ: states 6,016 → ")
