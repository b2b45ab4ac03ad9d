"""Protocol variants as sets of mechanisms: one truncation rule plus on/off switches.

A variant is what a follower does when it applies a LeaderAndIsr (its truncation rule) and
which of Kafka's fences and rules are on. The named presets are the Kafka generations
(``PRESETS``); ``resolve`` changes one mechanism of a preset (``--with`` / ``--without``).

A truncation rule is ``rule(log, hw, leader_log) -> offset | None``:

- ``log``: the follower's log, a tuple of records ``(record id, leader epoch)``, offset 0
  first; ``hw``: its HW (an offset, exclusive); ``leader_log``: the log of the leader it must
  ask, or None for a rule that asks nobody (``asks_leader`` False).
- returns the offset (0-based, exclusive) to truncate to; it is clamped to ``[0, len(log)]``.
  None means "no answer yet": becoming follower stays disabled and is retried later, as
  Kafka's fetcher retries OffsetsForLeaderEpoch.

A rule that asks the leader is only called when the follower's log is non-empty (an empty log
has nothing to truncate) and the leader is up and presumes leadership (it answers
OffsetsForLeaderEpoch); with ``fenced-lookup`` also only when the leader is already in the
request's epoch (KIP-320: the request carries the current leader epoch).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from spec.kafka.releases import RELEASES
from spec.kafka.rules import RULES, TruncationRule
from spec.kafka.state import ALIVE, HW, LOG, V_EPOCH, V_LEADER, VIEW

__all__ = [
    "BUILTIN_PRESETS",
    "BUILTIN_RULES",
    "KIP_PRESETS",
    "MECHANISMS",
    "PRESETS",
    "RELEASE_PRESETS",
    "RULES",
    "SWITCHES",
    "TruncationRule",
    "Variant",
    "mechanisms",
    "resolve",
    "truncation_point",
]

SWITCHES = {
    "fenced-lookup": "OffsetsForLeaderEpoch carries the current leader epoch and is answered "
    "only by a leader in that epoch (KIP-320)",
    "fenced-fetch": "a fetch is rejected unless follower and leader are in the same leader "
    "epoch (KIP-320, KAFKA-6880)",
    "fenced-expand": "ISR expansion needs the follower's LEO to reach the start offset of the "
    "leader's epoch as well as its HW (KAFKA-7128, Kafka 2.0.1 and 2.1: "
    "Partition.isFollowerInSync)",
    "fenced-response": "with truncation on fetch, a follower drops a fetch response once its "
    "leader epoch changed since the request, even from the same leader at the same fetch "
    "offset (KAFKA-18991: Kafka 3.9.1, 4.0.1 and 4.1; 2.8.0 to 3.9.0 and 4.0.0 apply it; "
    "before 2.8 a new epoch put the partition back to truncating, which dropped it)",
    "live-isr": "a crashed replica (fenced or offline) cannot join the ISR (KIP-841: Kafka 3.3 "
    "in KRaft, 3.3.0 and 3.4 with ZooKeeper; Partition.isReplicaIsrEligible)",
    "broker-epoch": "a leader forgets a replica's fetch state when the replica comes back from "
    "an unclean shutdown with a new broker epoch, so a fetch from before cannot put it back "
    "into the ISR (KIP-903: Kafka 3.5 in KRaft)",
    "strict-min-isr": "HW needs min ISR: a leader's HW advances only while its ISR has at least "
    "min.insync.replicas members (KIP-966; KAFKA-15583, Kafka 3.7.0: "
    "Partition.maybeIncrementLeaderHW)",
    "split-fetch": "a fetch is two steps, request and response, with the response in flight "
    "in between (lost in a crash; --max-lost-responses lets the network drop it)",
    "async-isr": "ISR changes are AlterPartition requests the controller accepts later or "
    "rejects; until then the leader counts the maximal ISR for its HW (KIP-497)",
    "diverging-fetch-state": "a fetch answered with a DivergingEpoch still updates the leader's "
    "record of the follower's fetch offset and so its HW (the bug KAFKA-13141 fixed in 2.7.2, "
    "2.8.1 and 3.0)",
    "hw-before-truncation": "the follower applies a diverging response's HW before it truncates, "
    "in a step of its own (TruncateOnFetchResponse; the bug KAFKA-14704 fixed in 3.4.1 and 3.5.0)",
    "empty-clears-epoch": "a response with no records clears the follower's last fetched epoch, "
    "so its next fetch carries none (KAFKA-15510, Kafka 3.5.1 to 3.6.2)",
    "fence-live": "the controller fences a broker that stops heartbeating while it runs (paused, "
    "or cut off from the controller) as it fences a crashed one: ControllerShrinkIsr takes a "
    "live replica out of the ISR or its leadership (KRaft's broker.session.timeout.ms, KIP-631;"
    " ZooKeeper's session expiry); seen on Kafka 3.9.1 and 4.1.0 by hwcheck conform",
    "shrink-in-epoch": "the controller takes a failed or fenced follower out of the ISR in the "
    "same leader epoch (KAFKA-15021: KRaft from metadata version 3.6-IV0; ZooKeeper's "
    "controller and older metadata versions take a new epoch)",
    "elr": "eligible leader replicas: members dropped from an ISR below min ISR stay electable; "
    "a broker back from an unclean shutdown leaves ISR and ELR until it catches up; "
    "--unclean means unclean recovery (KIP-966)",
}
"""Every on/off mechanism and what it does when on."""

MECHANISMS = tuple(RULES) + tuple(SWITCHES)
"""Every built-in mechanism name ``--with`` / ``--without`` accept (rules registered by a
team, ``spec.kafka.plugins``, are accepted too: see ``mechanisms()``)."""

BUILTIN_RULES = tuple(RULES)


def mechanisms() -> tuple[str, ...]:
    """Every mechanism name now known: the truncation rules (built-in and registered), then
    the switches."""
    return tuple(RULES) + tuple(SWITCHES)


@dataclass(frozen=True)
class Variant:
    """A protocol variant: its ``name`` (a preset, or a preset with changes), its truncation
    ``rule``, the ``switches`` that are on, the Kafka versions that ran it, a
    ``description``, for a release preset the tickets and PRs that set its mechanisms
    (``source``) and what of that release the model leaves out (``left_out``). Hashable and
    picklable. Its switches read as attributes (``fenced_fetch``), each computed once: the
    actions read them on every state."""

    name: str
    rule: TruncationRule
    switches: frozenset[str]
    kafka: str = ""
    description: str = ""
    source: str = ""
    left_out: str = ""

    @cached_property
    def mechanisms(self) -> tuple[str, ...]:
        """The rule's name and the switches that are on, in ``MECHANISMS`` order."""
        return tuple(m for m in mechanisms() if m == self.rule.name or m in self.switches)

    @cached_property
    def fenced_lookup(self) -> bool:
        return "fenced-lookup" in self.switches

    @cached_property
    def fenced_fetch(self) -> bool:
        return "fenced-fetch" in self.switches

    @cached_property
    def fenced_expand(self) -> bool:
        return "fenced-expand" in self.switches

    @cached_property
    def fenced_response(self) -> bool:
        return "fenced-response" in self.switches

    @cached_property
    def live_isr(self) -> bool:
        return "live-isr" in self.switches

    @cached_property
    def broker_epoch(self) -> bool:
        return "broker-epoch" in self.switches

    @cached_property
    def strict_min_isr(self) -> bool:
        return "strict-min-isr" in self.switches

    @cached_property
    def fence_live(self) -> bool:
        return "fence-live" in self.switches

    @cached_property
    def shrink_in_epoch(self) -> bool:
        return "shrink-in-epoch" in self.switches

    @cached_property
    def elr(self) -> bool:
        return "elr" in self.switches

    @cached_property
    def async_isr(self) -> bool:
        return "async-isr" in self.switches

    @cached_property
    def split_fetch(self) -> bool:
        return "split-fetch" in self.switches

    @cached_property
    def diverging_fetch_state(self) -> bool:
        return "diverging-fetch-state" in self.switches

    @cached_property
    def hw_before_truncation(self) -> bool:
        return "hw-before-truncation" in self.switches

    @cached_property
    def empty_clears_epoch(self) -> bool:
        return "empty-clears-epoch" in self.switches

    @cached_property
    def truncate_on_fetch(self) -> bool:
        """Truncation on the fetch response's DivergingEpoch (KAFKA-10554)."""
        return self.rule.name == "diverging-epoch-truncation"

    @cached_property
    def fetcher_state(self) -> bool:
        """The state needs the ``fetcher`` component: a switch that makes a follower's fetch
        state more than its log (``hw-before-truncation``, ``empty-clears-epoch``) is on with
        truncation on fetch."""
        return self.truncate_on_fetch and bool(
            self.switches & {"hw-before-truncation", "empty-clears-epoch"}
        )


def _preset(
    name: str, rule: str, switches: tuple[str, ...], kafka: str, description: str, source: str
) -> Any:
    return Variant(name, RULES[rule], frozenset(switches), kafka, description, source)


KIP320_FENCES = ("fenced-lookup", "fenced-fetch", "fenced-expand")
KIP966_RULES = ("live-isr", "broker-epoch", "strict-min-isr", "elr")

PRESETS = {
    "hw": _preset(
        "hw", "hw-truncation", (), "< 0.11", "truncate to the follower's own HW", "KAFKA-1211"
    ),
    "kip101": _preset(
        "kip101",
        "leader-epoch-truncation",
        (),
        "0.11 - 1.1",
        "truncate to the leader's end offset for the follower's latest epoch",
        "KIP-101",
    ),
    "kip279": _preset(
        "kip279",
        "last-match-truncation",
        (),
        "2.0",
        "truncate after the last record follower and leader share",
        "KIP-279",
    ),
    "kip320": _preset(
        "kip320",
        "last-match-truncation",
        KIP320_FENCES,
        "2.1 - 2.7",
        "as kip279 against a leader in the same epoch; fetch and ISR fenced",
        "KIP-320",
    ),
    "kip966": _preset(
        "kip966",
        "last-match-truncation",
        KIP320_FENCES + KIP966_RULES,
        "4.1's ELR rules on 2.1's truncation (the release is kafka-4.1)",
        "as kip320; HW needs min ISR; eligible leader replicas (ELR), with the ISR rules they "
        "assume (KIP-841, KIP-903)",
        "KIP-966",
    ),
}
"""The named variants, oldest first: fixed combinations of mechanisms (and, after them, any
a team registered: ``spec.kafka.plugins``)."""

PRESETS.update(
    (
        r.name,
        Variant(
            r.name,
            RULES[r.rule],
            frozenset(r.switches),
            r.kafka,
            r.description,
            r.source,
            r.left_out,
        ),
    )
    for r in RELEASES
)

KIP_PRESETS = ("hw", "kip101", "kip279", "kip320", "kip966")
"""The presets named for the KIPs that changed truncation and fencing."""

RELEASE_PRESETS = tuple(release.name for release in RELEASES)
"""The presets named for the Kafka releases that changed modelled replication behaviour,
oldest first (``spec.kafka.releases``)."""

BUILTIN_PRESETS = tuple(PRESETS)


def resolve(preset: str, enable: tuple[str, ...] = (), disable: tuple[str, ...] = ()) -> Variant:
    """``preset`` with the mechanisms in ``enable`` turned on and those in ``disable`` off.

    Enabling a truncation rule replaces the preset's rule. The name is the preset's, followed
    by ``+mechanism`` / ``-mechanism`` for every change that alters the preset (``kip320
    -fenced-fetch``). Raises ``ValueError`` naming the offending mechanism when one is unknown,
    named in both lists, or when a truncation rule is disabled (a variant has exactly one).
    """
    base: Variant = PRESETS[preset]
    known = mechanisms()
    for name in (*enable, *disable):
        if name not in known:
            raise ValueError(f"unknown mechanism {name!r}; one of {', '.join(known)}")
    both = sorted(set(enable) & set(disable))
    if both:
        raise ValueError(f"{both[0]} is both enabled and disabled")
    rules = [m for m in enable if m in RULES]
    if len(set(rules)) > 1:
        raise ValueError(f"one truncation rule per variant: {' and '.join(sorted(set(rules)))}")
    for name in disable:
        if name in RULES:
            raise ValueError(
                f"{name} cannot be disabled: a variant needs one truncation rule; "
                f"enable another instead"
            )
    rule = RULES[rules[0]] if rules else base.rule
    switches = (base.switches | {m for m in enable if m in SWITCHES}) - set(disable)
    changes = [f"+{rule.name}"] if rule != base.rule else []
    changes += [f"+{m}" for m in SWITCHES if m in switches - base.switches]
    changes += [f"-{m}" for m in SWITCHES if m in base.switches - switches]
    if not changes:
        return base
    return Variant(
        " ".join([preset, *changes]),
        rule,
        frozenset(switches),
        "",
        "; ".join([base.description, *changes]),
    )


def truncation_point(
    variant: Variant, replicas: tuple[Any, ...], r: int, leader: int, epoch: int
) -> int | None:
    """Where replica ``r`` truncates when it applies a LeaderAndIsr of ``epoch`` naming
    ``leader``: an offset in ``[0, LEO of r]``, or None while the rule has no answer (the leader
    to ask is down, not leading, or, with ``fenced-lookup``, not yet in ``epoch``)."""
    rep = replicas[r]
    log = rep[LOG]
    rule = variant.rule
    if not rule.asks_leader:
        offset = rule.function(log, rep[HW], None)
    else:
        if not log:
            return 0
        lrep = replicas[leader]
        lview = lrep[VIEW]
        if not lrep[ALIVE] or lview[V_LEADER] != leader:
            return None
        if variant.fenced_lookup and lview[V_EPOCH] != epoch:
            return None
        offset = rule.function(log, rep[HW], lrep[LOG])
    if offset is None:
        return None
    return max(0, min(offset, len(log)))
