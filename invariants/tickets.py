"""The ticket behind a release preset's violation, and the Kafka release that fixed it.

A release preset (``spec.kafka.releases``) is its predecessor with some mechanisms changed:
``changes`` reads them off the release table (``+leader-epoch-truncation``, the rule that
replaced the HW; ``-hw-before-truncation``, a bug's mechanism taken out). ``TICKETS`` names,
for each change, its KIP or ticket, the hole it closes and the first version of each release
line that shipped it (from the fix commits' release tags in apache/kafka: ``git tag
--contains``). The rule that ties a violation to a ticket:

    a property P violated at release preset R is explained by the changes of the first later
    release preset L where P holds (at the same bounds).

``explain`` applies it to whatever verdicts it is given (``checker.composition.fixes`` gives
those at 2 replicas, the reference bounds, or a compare run's own). Where the rule cannot
answer it says why instead of guessing (``Explanation.status``): P holds at R itself (the
hole needs larger bounds than the verdicts'), at no later release, or first holds at a
release whose changes close no hole (``TICKETS`` marks those: a change that adds behaviour,
such as KAFKA-15021's shrink in the same epoch, is never a fix). The tests hold the rule to
the verdicts at 2 replicas and check each answer counterfactually: R with just the fixing
changes made holds P (``tests/test_tickets.py``).

Plain data and words: no search depends on this module (``EXPLANATION_ONLY``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spec.kafka.releases import RELEASES, Release


@dataclass(frozen=True)
class Ticket:
    """A KIP or ticket: its ``name``, the ``hole`` it closes (what the release before it
    does, in a few words), the first version of each release line that ``fixed`` it (empty
    for a change that ``fix`` is False for: it adds behaviour, it closes no hole)."""

    name: str
    hole: str
    fixed: tuple[str, ...] = ()
    fix: bool = True

    @property
    def text(self) -> str:
        """``KAFKA-14704, the follower takes the HW before it truncates; fixed in 3.4.1 and
        3.5.0``."""
        return f"{self.name}, {self.hole}; fixed in {_and(self.fixed)}"


def _and(words: tuple[str, ...]) -> str:
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


_KIP320 = Ticket(
    "KIP-320",
    "fetches, OffsetsForLeaderEpoch and ISR expansion ignore the leader epoch",
    ("2.1.0",),
)

TICKETS = {
    "+leader-epoch-truncation": Ticket(
        "KIP-101", "a new follower truncates to its own lagging HW", ("0.11.0",)
    ),
    "+last-match-truncation": Ticket(
        "KIP-279",
        "the follower truncates at one OffsetsForLeaderEpoch answer, not where the logs agree",
        ("2.0.0",),
    ),
    "+fenced-lookup": _KIP320,
    "+fenced-fetch": _KIP320,
    "+fenced-expand": _KIP320,
    "+diverging-epoch-truncation": Ticket(
        "KAFKA-10554", "truncation on the fetch response's DivergingEpoch", fix=False
    ),
    "+diverging-fetch-state": Ticket(
        "KAFKA-13141", "a diverging fetch moves the leader's record of the follower", fix=False
    ),
    "+hw-before-truncation": Ticket(
        "KAFKA-14704", "the follower takes the HW before it truncates", fix=False
    ),
    "-diverging-fetch-state": Ticket(
        "KAFKA-13141",
        "a fetch answered with a DivergingEpoch still moves the leader's HW",
        ("2.7.2", "2.8.1", "3.0.0"),
    ),
    "+live-isr": Ticket("KIP-841", "a crashed replica can join the ISR", ("3.3.0",)),
    "-hw-before-truncation": Ticket(
        "KAFKA-14704", "the follower takes the HW before it truncates", ("3.4.1", "3.5.0")
    ),
    "+broker-epoch": Ticket(
        "KIP-903",
        "a fetch from before an unclean shutdown can put the replica back into the ISR",
        ("3.5.0",),
    ),
    "+fence-live": Ticket(
        "KIP-631", "the controller fences a broker that stops heartbeating", fix=False
    ),
    "+empty-clears-epoch": Ticket(
        "KAFKA-15510", "a response with no records clears the last fetched epoch", fix=False
    ),
    "+shrink-in-epoch": Ticket(
        "KAFKA-15021", "the controller shrinks the ISR in the same leader epoch", fix=False
    ),
    "-empty-clears-epoch": Ticket(
        "KAFKA-15510",
        "a response with no records clears the follower's last fetched epoch",
        ("3.7.0",),
    ),
    "+strict-min-isr": Ticket(
        "KAFKA-15583", "a leader's HW advances with fewer than min ISR members", ("3.7.0",)
    ),
    "+elr": Ticket(
        "KIP-966", "no replica left in the ISR after a crash may be elected cleanly", ("4.1.0",)
    ),
    "+fenced-response": Ticket(
        "KAFKA-18991",
        "a fetch response of an older leader epoch is still applied",
        ("3.9.1", "4.0.1", "4.1.0"),
    ),
}
"""Every change between two release presets (``changes``), with its ticket."""


RELEASE_NAMES = tuple(r.name for r in RELEASES)
"""Every release preset, oldest first."""


def _release(name: str) -> Release | None:
    return next((r for r in RELEASES if r.name == name), None)


def changes(release: str) -> tuple[str, ...]:
    """The mechanisms ``release`` (a release preset) changed from the one before it:
    ``+rule`` when the truncation rule changed, ``+switch`` / ``-switch`` for each switch
    turned on / off, in that order. Empty for the first release. Raises ``KeyError`` for a
    name that is no release preset."""
    index = [r.name for r in RELEASES].index(release) if _release(release) else -1
    if index < 0:
        raise KeyError(release)
    if index == 0:
        return ()
    before, now = RELEASES[index - 1], RELEASES[index]
    words = [f"+{now.rule}"] if now.rule != before.rule else []
    words += [f"+{s}" for s in now.switches if s not in before.switches]
    words += [f"-{s}" for s in before.switches if s not in now.switches]
    return tuple(words)


def fixes(release: str) -> tuple[Ticket, ...]:
    """The tickets of ``release``'s changes that close a hole, each once, in ``changes``
    order."""
    found: list[Ticket] = []
    for word in changes(release):
        ticket = TICKETS[word]
        if ticket.fix and ticket not in found:
            found.append(ticket)
    return tuple(found)


FIXED = "fixed"
HOLDS_HERE = "holds here"
NEVER = "never"
UNKNOWN = "unknown"
NO_FIX = "no fix"


@dataclass(frozen=True)
class Explanation:
    """Why release preset ``preset`` violates ``prop``: ``status`` ``FIXED`` with the
    ``tickets`` of ``at``, the first later release preset where ``prop`` holds; or why the
    rule gives none: ``HOLDS_HERE`` (the verdicts have ``prop`` holding at ``preset`` itself),
    ``NEVER`` (no later release holds it), ``UNKNOWN`` (a release between has no verdict),
    ``NO_FIX`` (``at``'s changes close no hole ``TICKETS`` knows)."""

    preset: str
    prop: str
    status: str
    at: str = ""
    tickets: tuple[Ticket, ...] = ()

    @property
    def text(self) -> str:
        """The tickets' texts joined by ``; ``, or why there are none, in a few words."""
        if self.status == FIXED:
            return "; ".join(t.text for t in self.tickets)
        return {
            HOLDS_HERE: f"{self.prop} holds in {self.preset} at the reference bounds",
            NEVER: f"no later release preset holds {self.prop}",
            UNKNOWN: f"no verdict of the releases after {self.preset}",
            NO_FIX: f"{self.prop} first holds in {self.at}, whose changes fix no known hole",
        }[self.status]


def explain(preset: str, prop: str, holds: Callable[[str], bool | None]) -> Explanation | None:
    """The explanation of ``prop`` violated at ``preset`` by the rule of this module, with
    ``holds(release preset)`` the verdict of ``prop`` there (None: not known). None when
    ``preset`` is not a release preset."""
    names = list(RELEASE_NAMES)
    if preset not in names:
        return None
    if holds(preset):
        return Explanation(preset, prop, HOLDS_HERE)
    for later in names[names.index(preset) + 1 :]:
        verdict = holds(later)
        if verdict is None:
            return Explanation(preset, prop, UNKNOWN)
        if verdict:
            found = fixes(later)
            return Explanation(preset, prop, FIXED if found else NO_FIX, later, found)
    return Explanation(preset, prop, NEVER)


def kafka_range(preset: str) -> str:
    """The Kafka versions ``preset`` models, as the release table says (``Release.kafka``);
    '' for a name that is no release preset."""
    release = _release(preset)
    return release.kafka if release else ""
