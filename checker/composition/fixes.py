"""The verdicts ``invariants.tickets`` explains a violation by, and the lines that say it.

The reference verdicts are those of every release preset at 2 replicas and the other default
bounds (``REFERENCE``): cheap (a few hundredths of a second a preset on the compiled core,
about a second on the reference one), searched the first time a process asks and kept. A
counterexample of a release preset (``trace_lines``: explore's, ``show``'s, trace.html's,
``serve``'s) and a compare column (``checker.renderers.notes``) are both explained from them,
so the four outputs and compare say the same.

The rule holds only where the run's protocol options are the reference's: clean elections,
acks=all, no unclean shutdown, no lost response, no ``--with`` / ``--without`` (``plain``);
min ISR may be 1 or 2, and the reference verdicts are then those at that min ISR. A violation
under other options gets no ticket line (a documented trade-off has its own note,
``checker.renderers.expected``).
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

from checker.composition.compose import Recipe, make_config
from checker.search.door import explore
from invariants import tickets
from invariants.tickets import Explanation

REFERENCE = {"replicas": 2}
"""The reference bounds: 2 replicas, every other bound at its default."""

PLAIN = {
    "unclean_election": False,
    "with_mechanisms": [],
    "without_mechanisms": [],
    "max_unclean_shutdowns": 0,
    "max_lost_responses": 0,
    "acks": "all",
}
"""The protocol options the reference verdicts have (``spec.kafka.Config``'s defaults); a
config's missing key counts as its default."""
MIN_ISRS = (1, 2)
"""The min ISRs the reference searches take (at most its 2 replicas)."""

_LOCK = threading.Lock()


def plain(config: dict[str, Any]) -> bool:
    """Whether ``config`` (``spec.config_dict()``) has the reference's protocol options, and
    a min ISR of ``MIN_ISRS``."""
    same = all(config.get(key, value) == value for key, value in PLAIN.items())
    return same and config.get("min_isr", 1) in MIN_ISRS


@cache
def _verdicts(preset: str, min_isr: int) -> dict[str, str]:
    given = {**REFERENCE, "truncation": preset, "min_isr": min_isr}
    recipe = Recipe("kafka", make_config("kafka", given))
    spec, props = recipe.build()
    result = explore(spec, props, symmetry=True, recipe=recipe)
    return {p.name: result.verdict(p) for p in result.checked}


def reference(preset: str, prop: str, min_isr: int = 1) -> bool | None:
    """Whether ``prop`` holds at release preset ``preset`` at the reference bounds and
    ``min_isr`` (one of ``MIN_ISRS``; None: no such property there). Searched once a process,
    thread-safe (``serve``)."""
    with _LOCK:
        verdict = _verdicts(preset, min_isr).get(prop)
    return None if verdict is None else verdict == "holds"


def explain(preset: str, prop: str, min_isr: int = 1) -> Explanation | None:
    """``invariants.tickets.explain`` on the reference verdicts at ``min_isr``."""
    return tickets.explain(preset, prop, lambda release: reference(release, prop, min_isr))


def trace_lines(model: str, variant: str, prop: str, config: dict[str, Any]) -> list[str]:
    """The ticket lines of a counterexample of ``prop`` (``[]`` when it gets none: not the
    kafka model, not a release preset, options not ``plain``, a property the reference
    verdicts do not judge, as a liveness one): one per ticket,
    ``KAFKA-14704, the follower takes the HW before it truncates; fixed in 3.4.1 and 3.5.0
    (kafka-3.4.1, the first release preset where NoUncommittedRead holds at 2 replicas)``,
    or one line saying why the rule names none."""
    if model != "kafka" or not plain(config) or variant not in tickets.RELEASE_NAMES:
        return []
    min_isr = int(config.get("min_isr", 1))
    if reference(variant, prop, min_isr) is None:  # a property it does not judge (liveness)
        return []
    found = explain(variant, prop, min_isr)
    if found is None:
        return []
    if found.status == tickets.FIXED:
        where = f"({found.at}, the first release preset where {prop} holds at 2 replicas)"
        return [f"{ticket.text} {where}" for ticket in found.tickets]
    if found.status == tickets.HOLDS_HERE:
        needs = "this hole needs this trace's larger bounds, where hwcheck compare names its fix"
        return [f"{variant} holds {prop} at 2 replicas: {needs}"]
    return [found.text]
