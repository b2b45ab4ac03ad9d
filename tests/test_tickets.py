"""The ticket behind a release preset's violation (``invariants.tickets``,
``checker.composition.fixes``).

The rule: a property P violated at release preset R is explained by the changes of the first
later release preset where P holds. Checked three ways: against the release table (every
change has a ticket, every ticket is cited by the release that makes its change, every
version said to ship a fix runs a preset with the fix); against the verdicts at 2 replicas
(the tickets Kafka's history names for the 2.8 to 3.4.0 columns: KAFKA-13141, fixed in 2.7.2,
2.8.1 and 3.0.0, and KAFKA-14704, fixed in 3.4.1 and 3.5.0, as the fix commits' release tags
in apache/kafka say); and counterfactually: R with just the fixing changes made holds P.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from checker.composition import fixes
from checker.composition.compose import Recipe, make_config
from checker.renderers import notes
from checker.renderers.matrix import Cell
from checker.search.door import explore
from invariants import tickets
from spec.kafka import versions
from spec.kafka.releases import RELEASES
from spec.kafka.rules import RULES
from spec.kafka.variants import PRESETS

NAMES = [r.name for r in RELEASES]
SAFETY = (
    "NoCommittedLoss",
    "NoAckedLoss",
    "NoUncommittedRead",
    "NoDivergence",
    "WeakIsr",
    "StrongIsr",
    "RecordEpochsMonotonic",
)


def test_changes_are_read_off_the_release_table():
    assert tickets.changes("kafka-0.10") == ()
    assert tickets.changes("kafka-0.11") == ("+leader-epoch-truncation",)
    assert tickets.changes("kafka-2.1") == ("+fenced-lookup", "+fenced-fetch", "+fenced-expand")
    assert tickets.changes("kafka-3.0") == ("-diverging-fetch-state",)
    assert tickets.changes("kafka-3.4.1") == ("-hw-before-truncation",)
    assert tickets.changes("kafka-3.7") == ("+strict-min-isr", "-empty-clears-epoch")
    assert tickets.changes("kafka-4.0") == ()
    with pytest.raises(KeyError):
        tickets.changes("kip320")


def test_every_change_has_a_ticket_that_its_release_cites():
    for release in RELEASES:
        cited = f"{release.description} {release.source}"
        for word in tickets.changes(release.name):
            assert tickets.TICKETS[word].name in cited, (release.name, word)


def _has(preset: str, word: str) -> bool:
    variant = PRESETS[preset]
    name = word[1:]
    on = variant.rule.name == name or name in variant.switches
    return on if word.startswith("+") else not on


def test_each_version_said_to_ship_a_fix_runs_a_preset_with_it():
    """``3.4.1`` runs kafka-3.4.1, without hw-before-truncation; a version the table says
    the model does not split off (3.9.1's KAFKA-18991, in kafka-3.7's ``left_out``) aside."""
    for word, ticket in tickets.TICKETS.items():
        assert ticket.fix == bool(ticket.fixed), word
        for version in ticket.fixed:
            preset = versions.preset_for(version)
            assert preset is not None
            left_out = next(r.left_out for r in RELEASES if r.name == preset)
            assert _has(preset, word) or version in left_out, (word, version, preset)


def test_the_rule_says_why_when_it_names_no_ticket():
    def only(*holding: str):
        return lambda release: release in holding

    found = tickets.explain("kafka-3.3", "P", only("kafka-3.4.1"))
    assert found.status == tickets.FIXED and found.at == "kafka-3.4.1"
    assert found.text == (
        "KAFKA-14704, the follower takes the HW before it truncates; fixed in 3.4.1 and 3.5.0"
    )
    assert tickets.explain("kafka-3.3", "P", only("kafka-3.3")).status == tickets.HOLDS_HERE
    assert tickets.explain("kafka-4.0", "P", only()).status == tickets.NEVER
    unknown = tickets.explain("kafka-3.0", "P", lambda r: False if r == "kafka-3.0" else None)
    assert unknown.status == tickets.UNKNOWN
    # kafka-3.6's only change is KAFKA-15021's shrink in the same epoch: it closes no hole
    shrink = tickets.explain("kafka-3.5.1", "P", only("kafka-3.6"))
    assert shrink.status == tickets.NO_FIX and shrink.at == "kafka-3.6"
    assert tickets.explain("kip320", "P", only()) is None


def test_the_tickets_at_2_replicas_are_kafkas():
    """Kafka's history: 2.8.0's loss and ISR holes are KAFKA-13141's (fixed 2.7.2, 2.8.1,
    3.0.0); every 2.8.0 to 3.4.0 read of an uncommitted record is KAFKA-14704's (3.4.1,
    3.5.0); HW truncation's loss is what KIP-101 (0.11.0) replaced."""
    expected = {
        ("kafka-2.8", "NoCommittedLoss"): "KAFKA-13141",
        ("kafka-2.8", "WeakIsr"): "KAFKA-13141",
        ("kafka-2.8", "NoUncommittedRead"): "KAFKA-14704",
        ("kafka-3.0", "NoUncommittedRead"): "KAFKA-14704",
        ("kafka-3.0", "NoDivergence"): "KAFKA-14704",
        ("kafka-3.3", "NoUncommittedRead"): "KAFKA-14704",
        ("kafka-3.3", "NoDivergence"): "KAFKA-14704",
        ("kafka-0.10", "NoCommittedLoss"): "KIP-101",
    }
    for (preset, prop), name in expected.items():
        found = fixes.explain(preset, prop)
        assert found.status == tickets.FIXED and [t.name for t in found.tickets] == [name]
    assert fixes.explain("kafka-3.3", "NoUncommittedRead").tickets[0].fixed == ("3.4.1", "3.5.0")
    assert fixes.explain("kafka-2.8", "NoCommittedLoss").tickets[0].fixed == (
        "2.7.2",
        "2.8.1",
        "3.0.0",
    )


def _holding_with(preset: str, words: tuple[str, ...], names: list[str]) -> list[str]:
    """Which of the properties ``names`` hold at ``preset`` with just ``words`` changed, at 2
    replicas."""
    add = tuple(w[1:] for w in words if w.startswith("+"))
    drop = tuple(w[1:] for w in words if w.startswith("-") and w[1:] not in RULES)
    given = {"replicas": 2, "truncation": preset, "with_mechanisms": add or None}
    given["without_mechanisms"] = drop or None
    recipe = Recipe("kafka", make_config("kafka", given), tuple(names))
    spec, props = recipe.build()
    result = explore(spec, props, symmetry=True, recipe=recipe)
    return [p.name for p in props if p.name in names and result.verdict(p) == "holds"]


@pytest.mark.parametrize(
    "preset", ["kafka-0.10", "kafka-0.11", "kafka-2.0", "kafka-2.8", "kafka-3.0", "kafka-3.3"]
)
def test_the_fixing_changes_alone_make_the_property_hold(preset):
    """Counterfactually: R with only the changes of the named tickets made (a rule change
    replaces R's rule) holds P at 2 replicas; every violation of R gets a ticket."""
    violated = [p for p in SAFETY if fixes.reference(preset, p) is False]
    assert violated
    groups: dict[tuple[str, ...], list[str]] = {}
    for prop in violated:
        found = fixes.explain(preset, prop)
        assert found.status == tickets.FIXED, (preset, prop)
        words = tuple(w for w in tickets.changes(found.at) if tickets.TICKETS[w] in found.tickets)
        groups.setdefault(words, []).append(prop)
    for words, names in groups.items():
        assert _holding_with(preset, words, names) == names, (preset, words)


def test_releases_from_3_4_1_on_violate_nothing_at_2_replicas():
    assert all(fixes.reference(n, p) for n in NAMES[NAMES.index("kafka-3.4.1") :] for p in SAFETY)


def test_a_violation_under_other_options_gets_no_ticket():
    config = {"replicas": 2, "truncation": "kafka-3.3", "min_isr": 1}
    assert fixes.trace_lines("kafka", "kafka-3.3", "NoDivergence", config)
    assert fixes.trace_lines("kafka", "kafka-3.3", "NoDivergence", {**config, "acks": "1"}) == []
    assert fixes.trace_lines("kafka", "kafka-3.3", "NoDivergence", {**config, "min_isr": 3}) == []
    assert fixes.explain("kafka-3.3", "NoDivergence", 2).tickets[0].name == "KAFKA-14704"
    assert fixes.trace_lines("kafka", "kafka-3.3 -live-isr", "NoDivergence", config) == []
    assert fixes.trace_lines("tla", "kip320", "StrongIsr", config) == []
    assert fixes.trace_lines("kafka", "kafka-3.3", "CommitProgress", config) == []
    held = fixes.trace_lines("kafka", "kafka-0.11", "NoUncommittedRead", config)
    needs = "this hole needs this trace's larger bounds, where hwcheck compare names its fix"
    assert held == [f"kafka-0.11 holds NoUncommittedRead at 2 replicas: {needs}"]


class _Judged:
    """A stand-in for a compare cell's ``CheckResult``: NoUncommittedRead's verdict only."""

    def __init__(self, holds: bool) -> None:
        self.checked = [SimpleNamespace(name="NoUncommittedRead")]
        self.holds = holds

    def verdict(self, prop) -> str:
        return "holds" if self.holds else "violated"


def test_compare_notes_add_the_runs_own_first_holding_release():
    """README's matrix at 3 replicas: NoUncommittedRead fails from 0.10 to 2.0 and from 2.8 to
    3.3. 0.11 and 2.0 hold it at 2 replicas, so their line reads the run's own columns
    (KIP-320, 2.1); 0.10's names KIP-101 (2 replicas) and KIP-320 (these bounds); with the
    releases after it missing, 0.11's says where to look."""
    failing = {"kafka-0.10", "kafka-0.11", "kafka-2.0", "kafka-2.8", "kafka-3.0", "kafka-3.3"}
    cells = [Cell(n, {}, _Judged(n not in failing), "") for n in NAMES]
    lines = notes.tickets(cells, True)
    kip320 = tickets.TICKETS["+fenced-fetch"].text
    kip101 = tickets.TICKETS["+leader-epoch-truncation"].text
    assert lines[1] == (
        f"  0.10 (Kafka 0.10.x and earlier): NoUncommittedRead ✗ — {kip101}; at this run's "
        f"bounds it first holds in kafka-2.1: {kip320}"
    )
    assert lines[2] == (
        f"  0.11 (Kafka 0.11 - 1.1): NoUncommittedRead ✗ — {kip320} (where it first holds at "
        "this run's bounds)"
    )
    alone = notes.tickets([Cell("kafka-0.11", {}, _Judged(False), "", ("1.1.1",))], True)
    assert alone[1] == (
        "  1.1.1 (kafka-0.11, Kafka 0.11 - 1.1): NoUncommittedRead ✗ — holds at 2 replicas; at "
        "these bounds compare every release (no --releases) to see where it is closed"
    )
    assert notes.tickets(cells, False) == []
