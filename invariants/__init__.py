"""The Kafka replication properties, stated once over ``invariants.access.Replication``.

``catalog(acc)`` lists every property a model offers, in a fixed order: invariants
(``sanity``, ``safety``), transition properties (``transitions``), then the "sometimes"
vacuity guards (``reachability``).
"""

from __future__ import annotations

from checker.properties import Property
from invariants import acked, reachability, reads, safety, sanity, transitions
from invariants.access import Acknowledged, Replication


def catalog(
    acc: Acknowledged, committed_history: bool = True, lifecycle: bool = True
) -> list[Property]:
    """Every property for a model read through ``acc``.

    ``committed_history``: the model keeps the ghost sets of committed and acknowledged
    records (offers NoCommittedLoss and NoAckedLoss). ``lifecycle``: the model has crash and restart actions (offers their
    guards).
    """
    safe = safety.properties(acc, committed_history)
    if committed_history:  # NoAckedLoss right after NoCommittedLoss, NoUncommittedRead next
        safe = safe[:1] + acked.properties(acc) + reads.properties(acc) + safe[1:]
    return (
        sanity.properties(acc)
        + safe
        + transitions.properties(acc)
        + reachability.properties(acc, lifecycle)
    )


def tla_catalog(acc: Replication) -> list[Property]:
    """The properties of the public TLA+ spec over ``acc``: HwLeLeo (ours), LeaderInIsr as the
    spec writes it and LeaderInIsrOrNone, WeakIsr, StrongIsr, then the vacuity guards that
    apply to a model without crashes. (TypeOk is the model's own: ``spec.tla.typeok``.)"""
    return (
        sanity.properties(acc, strict_leader_in_isr=True)
        + safety.properties(acc, committed_history=False, divergence=False)
        + reachability.properties(acc, lifecycle=False)
    )


def select(props: list[Property], names: list[str]) -> list[Property]:
    """The properties named in ``names`` (all when empty), in catalog order.

    Raises ``KeyError`` with the unknown name when a name is not in ``props``.
    """
    if not names:
        return list(props)
    known = {p.name: p for p in props}
    for name in names:
        if name not in known:
            raise KeyError(name)
    return [p for p in props if p.name in set(names)]
