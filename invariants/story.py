"""Why a counterexample fails, told from the trace itself (not from a template per scenario).

Works on the model's views of the states (``spec.view``: per replica its log of ``[id, epoch]``,
HW, role and epoch; the controller; the committed records) and the action labels, so it
explains traces read from files as well as violations just found. Offsets are 0-based; HW and
LEO are exclusive. Truncation causes follow protocol.md: ``hw`` truncates to the follower's own
HW on becoming follower (Kafka < 0.11), ``kip101`` to the leader's end offset for the
follower's latest epoch (OffsetsForLeaderEpoch, KIP-101), ``kip279`` / ``kip320`` just after the
last offset where follower and leader agree (KIP-279, KIP-320), and a fetch past the leader's
LEO gets OFFSET_OUT_OF_RANGE and truncates to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from invariants import acked, crux, fork, reads
from invariants.removal import at, elected_from, holds, removed
from invariants.safety import first_gap, record_text


def committed_loss(
    variant: str, actions: Sequence[str | None], views: Sequence[dict[str, Any]]
) -> list[str]:
    """NoCommittedLoss: which record, when it was committed, every removal and why, and the
    leader that took over without it. Empty when the trace does not show such a loss."""
    last = views[-1]
    leader = last["controller"]["leader"]
    found = lost(last)
    if found is None:
        return []
    offset, rid = found
    epoch = next(
        (
            rec[1]
            for v in views
            for rep in v["replicas"]
            for o, rec in enumerate(rep["log"])
            if o == offset and rec[0] == rid
        ),
        "?",
    )
    where = (
        f"is not in the log of the current leader, replica {leader}"
        if leader is not None
        else "is in no replica's log, and the partition has no leader"
    )
    lines = [
        (
            f"Record m{rid} (written in leader epoch {epoch}) at offset {offset} was "
            f"committed and {where}."
        )
    ]
    for k in range(1, len(views)):
        before, after = views[k - 1], views[k]
        if [offset, rid] not in before.get("committed", []) and [offset, rid] in after.get(
            "committed", []
        ):
            movers = [
                r["replica"]
                for r, old in zip(after["replicas"], before["replicas"])
                if old["hw"] <= offset < r["hw"]
            ]
            who = (
                f"replica {movers[0]}'s HW moved past offset {offset}"
                if movers
                else "its HW moved past it"
            )
            if movers:
                members = [m for m in after["replicas"][movers[0]]["isr"] if m != movers[0]]
                who += _lacking(actions, views, k, movers[0], members, offset, rid)
                who += "" if members else ", alone in its ISR"
            lines.append(f"{at(actions, k)}m{rid} became committed: {who}.")
        for r in range(len(after["replicas"])):
            if holds(before, r, offset, rid) and not holds(after, r, offset, rid):
                lines.append(removed(variant, actions, views, k, r, rid))
        if (
            leader is not None
            and before["controller"]["leader"] != leader == after["controller"]["leader"]
        ):
            held = "which held" if holds(after, leader, offset, rid) else "which did not hold"
            held += f" m{rid} at offset {offset}"
            if after.get("records_produced", rid + 1) <= rid:
                held = f"before m{rid} was written"
            held = elected_from(before["controller"], leader) + held
            held += _in_flight(after["replicas"][leader].get("in_flight"), offset, rid)
            lines.append(
                f"{at(actions, k)}the controller chose replica {leader}, {held}, as "
                f"leader of epoch {after['controller']['epoch']}."
            )
    return lines


def _in_flight(response: dict[str, Any] | None, offset: int, rid: int) -> str:
    """`` (m<rid> was still in flight to it ...)`` when the fetch response in flight to a
    replica (split-fetch; ``spec.kafka.flight.describe``) carries record ``rid`` at ``offset``,
    else ``""`` (also for OFFSET_OUT_OF_RANGE and a DivergingEpoch, which carry no records)."""
    if not response or "records" not in response:
        return ""
    at_offset = offset - response["fetch_offset"]
    records = response["records"]
    if not 0 <= at_offset < len(records) or records[at_offset][0] != rid:
        return ""
    return (
        f" (m{rid} was still in flight to it, in replica {response['leader']}'s fetch "
        f"response it had not applied yet)"
    )


def isr_gap(
    prop: str, variant: str, actions: Sequence[str | None], views: Sequence[dict[str, Any]]
) -> list[str]:
    """WeakIsr / StrongIsr: the presumed leader, its HW, the ISR member (its own ISR for
    WeakIsr, the controller's for StrongIsr) whose log differs below that HW and at which
    offset; then every step that removed the leader's record from that member and why, and the
    step where the leader's HW moved past the offset. Empty when the last state shows no gap."""
    found = _gap(prop, views)
    return [] if found is None else _isr_story(prop, variant, actions, views, *found)


def _gap(prop: str, views: Sequence[dict[str, Any]]) -> tuple[int, int, int] | None:
    """``(leader, member, offset)`` of the first ISR gap ``prop`` finds in the last view."""
    last = views[-1]
    for leader, rep in enumerate(last["replicas"]):
        if rep["role"] != "leader":
            continue
        members = last["controller"]["isr"] if prop == "StrongIsr" else rep["isr"]
        for member in members:
            gap = first_gap(
                rep["log"], min(rep["hw"], len(rep["log"])), last["replicas"][member]["log"]
            )
            if gap is not None:
                return leader, member, gap
    return None


def lost(last: dict[str, Any]) -> tuple[int, int] | None:
    """NoCommittedLoss read from a view: ``(offset, id)`` of the first committed record the
    controller's leader does not hold at its offset (with no leader, or one that is down:
    that no replica holds there), or None."""
    leader = last["controller"]["leader"]
    up = leader is not None and last["replicas"][leader].get("alive", True)
    holders = [leader] if up else range(len(last["replicas"]))
    return next(
        (
            (o, i)
            for o, i in last.get("committed", [])
            if not any(holds(last, r, o, i) for r in holders)
        ),
        None,
    )


def involved(prop: str, views: Sequence[dict[str, Any]]) -> tuple[set[int], int] | None:
    """``(replicas, offset)`` a counterexample of ``prop`` is about (``invariants.crux``):
    for NoCommittedLoss every replica that held the lost record and the controller's leader,
    for NoDivergence the two forked replicas, for WeakIsr / StrongIsr the leader and the
    member; None for another property or a last view without the violation."""
    if prop == "NoCommittedLoss" and (found := lost(views[-1])) is not None:
        offset, rid = found
        who = {r for v in views for r in range(len(v["replicas"])) if holds(v, r, offset, rid)}
        leader = views[-1]["controller"]["leader"]
        return who | ({leader} if leader is not None else set()), offset
    if prop == "NoDivergence" and (forked := fork.forked(views)) is not None:
        return {forked[0], forked[1]}, forked[2]
    if prop in ("WeakIsr", "StrongIsr") and (gap := _gap(prop, views)) is not None:
        return {gap[0], gap[1]}, gap[2]
    if prop == "NoUncommittedRead" and (found := reads.exposed_in(views[-1])) is not None:
        return {found[0]}, found[1]
    return None


def _isr_story(
    prop: Any, variant: Any, actions: Any, views: Any, leader: int, member: int, gap: int
) -> list[str]:
    last = views[-1]
    rep, mine = last["replicas"][leader], last["replicas"][member]["log"]
    rid, epoch = rep["log"][gap]
    which = "the controller's ISR" if prop == "StrongIsr" else "its own ISR"
    held = record_text(mine[gap] if gap < len(mine) else None)
    lines = [
        (
            f"Leader {leader} (epoch {rep['epoch']}) has HW {rep['hw']}, so m{rid} "
            f"(epoch {epoch}) at offset {gap} is committed, but replica {member}, a member "
            f"of {which}, holds {held} there (its LEO is {len(mine)})."
        )
    ]
    for k in range(1, len(views)):
        before, after = views[k - 1], views[k]
        if holds(before, member, gap, rid) and not holds(after, member, gap, rid):
            lines.append(removed(variant, actions, views, k, member, rid))
        old, new = before["replicas"][leader], after["replicas"][leader]
        if new["role"] == "leader" and old["hw"] <= gap < new["hw"]:
            lines.append(
                f"{at(actions, k)}leader {leader}'s HW moved past "
                f"offset {gap}"
                f"{_lacking(actions, views, k, leader, [member], gap, rid)}."
            )
    return lines


def _lacking(
    actions: Any, views: Any, k: int, leader: int, members: Any, offset: int, rid: int
) -> str:
    """``, though replica M no longer held it: ...`` for each of ``members`` that does not hold
    record ``rid`` at ``offset`` in state ``k + 1`` (empty when they all do)."""
    return "".join(
        f", though replica {m} did not hold it{_counted(actions, views, k, leader, m)}"
        for m in members
        if not holds(views[k], m, offset, rid)
    )


def _counted(actions: Any, views: Any, k: int, leader: int, member: int) -> str:
    """``: it still counted replica M at LEO n, reported by the fetch of state K`` when the
    leader's view at step ``k`` keeps a remote LEO for ``member`` (kafka model), else ``""``."""

    def remote(view: Any) -> int | None:
        known = view["replicas"][leader].get("remote_leo") or []
        return known[member] if member < len(known) else None

    leo = remote(views[k])
    if leo is None or leo < 0:
        return ""
    since = next((j for j in range(k, 0, -1) if remote(views[j - 1]) != leo), None)
    told = f", reported by the fetch of state {since + 1} ({actions[since]})" if since else ""
    if since and _diverged(views[since - 1], views[since], member):
        told += (
            ", a fetch it answered with a DivergingEpoch and recorded all the same (KAFKA-13141)"
        )
    return f": it still counted replica {member} at LEO {leo}{told}"


def _diverged(before: Any, after: Any, member: int) -> bool:
    """Replica ``member`` truncated, or got a truncation pending, between the views: the
    fetch of that step was answered with a DivergingEpoch."""
    old, new = before["replicas"][member], after["replicas"][member]
    pending = (new.get("fetcher") or {}).get("truncate_to") is not None
    return pending or len(new["log"]) < len(old["log"])


def tell(
    prop: str, variant: str, actions: Sequence[str | None], views: Sequence[dict[str, Any]]
) -> list[str]:
    """The story of a counterexample of ``prop`` as sentences (empty for the properties
    whose own explanation says it all, e.g. HwLeLeo or TypeOk): the property's own account,
    with every step that changed an involved replica's log or ISR, or moved its HW past the
    offset, added in order where the account leaves it out (``invariants.crux``)."""
    if not views or not isinstance(views[-1], dict) or "replicas" not in views[-1]:
        return []
    lines = _account(prop, variant, actions, views)
    about = involved(prop, views) if lines else None
    if about is None:
        return lines
    replicas, offset = about
    return crux.merge(lines, crux.events(actions, views, replicas, offset, crux.mentioned(lines)))


def _account(
    prop: str, variant: str, actions: Sequence[str | None], views: Sequence[dict[str, Any]]
) -> list[str]:
    if prop == "NoCommittedLoss":
        return committed_loss(variant, actions, views)
    if prop == "NoDivergence":
        return fork.divergence(variant, actions, views)
    if prop == "NoAckedLoss":
        return acked.story(
            variant, actions, views, lambda k, r, rid: removed(variant, actions, views, k, r, rid)
        )
    if prop in ("WeakIsr", "StrongIsr"):
        return isr_gap(prop, variant, actions, views)
    if prop == "NoUncommittedRead":
        return reads.story(variant, actions, views)
    return []
