"""NoAckedLoss: a write the producer was told succeeded is never lost; and its story.

With ``acks=1`` the leader acknowledges a write on its own append, before any follower holds
it, so losing that leader (a crash and an election, or a power loss) loses an acknowledged
write: Kafka documents acks=1 as "the leader will write the record to its local log but will
respond without awaiting full acknowledgement from all followers" (``ProducerConfig``,
``acks``). With ``acks=all`` a write is acknowledged only once committed, so NoAckedLoss
holds wherever NoCommittedLoss does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checker.properties import INVARIANT, Property
from invariants.access import Acknowledged
from invariants.safety import live_leader


def _missing(log: Sequence[Any], acked: Any) -> int | None:
    """The first acknowledged record id that ``log`` does not hold, or None."""
    held = {record[0] for record in log}
    return next((rid for rid in acked if rid not in held), None)


def _nowhere(logs: Any, acked: Any) -> int | None:
    """The first acknowledged record id that no log in ``logs`` holds, or None."""
    return next(
        (rid for rid in acked if all(_missing(log, (rid,)) is not None for log in logs)), None
    )


def properties(acc: Acknowledged) -> list[Property]:
    """NoAckedLoss over ``acc`` (which must offer ``acked``)."""

    def no_acked_loss(s: tuple[Any, ...]) -> bool:
        """Every acknowledged write is in the current leader's log (with no leader, or one
        that is down: in some replica's log)."""
        acked = acc.acked(s)
        if not acked:
            return True
        leader = live_leader(acc, s)
        if leader is not None:
            return _missing(acc.logs(s)[leader], acked) is None
        return _nowhere(acc.logs(s), acked) is None

    def explain(s: tuple[Any, ...]) -> str:
        named, epoch, _ = acc.quorum(s)
        leader = live_leader(acc, s)
        if leader is None:
            rid = _nowhere(acc.logs(s), acc.acked(s))
            live = "live " if named is not None else ""
            return (
                f"record m{rid} was acknowledged to the producer but the partition has no "
                f"{live}leader and no replica holds it"
            )
        rid = _missing(acc.logs(s)[leader], acc.acked(s))
        return (
            f"record m{rid} was acknowledged to the producer but the leader of epoch "
            f"{epoch}, replica {leader}, does not hold it"
        )

    return [Property("NoAckedLoss", no_acked_loss.__doc__ or "", INVARIANT, no_acked_loss, explain)]


def holds_id(view: dict[Any, Any], r: int, rid: int) -> bool:
    """Replica ``r``'s log holds record ``m<rid>`` at some offset (``view``: the model's view
    of a state)."""
    return any(record[0] == rid for record in view["replicas"][r]["log"])


def lost_id(view: dict[Any, Any]) -> int | None:
    """NoAckedLoss read from a view: the first acknowledged record id that the controller's
    leader does not hold (with no leader, or one that is down: that no replica holds), or
    None."""
    leader = view["controller"]["leader"]
    up = leader is not None and view["replicas"][leader].get("alive", True)
    holders = [leader] if up else range(len(view["replicas"]))
    return next(
        (rid for rid in view.get("acked", []) if not any(holds_id(view, r, rid) for r in holders)),
        None,
    )


def story(
    variant: str, actions: Sequence[str | None], views: Sequence[dict[str, Any]], removed: Any
) -> list[str]:
    """The story of a NoAckedLoss counterexample: which write, when and how it was
    acknowledged (acks=1: on the leader's append, with who else held it), every removal and
    why (``removed(k, r, rid)`` gives that sentence), and the leader that took over without
    it. Empty when the last view shows no such loss."""
    last = views[-1]
    leader = last["controller"]["leader"]
    if leader is None:
        return []
    rid = lost_id(last)
    if rid is None:
        return []
    acks = last.get("acks", "all")
    lines = [
        (
            f"The producer was told m{rid} was written (acks={acks}), and it is not in the "
            f"log of the current leader, replica {leader}."
        )
    ]
    for k in range(1, len(views)):
        before, after = views[k - 1], views[k]
        if rid in after.get("acked", []) and rid not in before.get("acked", []):
            holders = [r for r in range(len(after["replicas"])) if holds_id(after, r, rid)]
            others = [r for r in holders if not (actions[k] or "").endswith(f"leader={r})")]
            how = (
                "on the leader's own append (acks=1), while no follower held it"
                if acks == "1" and not others
                else "on the leader's own append (acks=1)"
                if acks == "1"
                else "once it was committed (acks=all)"
            )
            lines.append(f"State {k + 1} ({actions[k]}): m{rid} was acknowledged {how}.")
        for r in range(len(after["replicas"])):
            if holds_id(before, r, rid) and not holds_id(after, r, rid):
                lines.append(removed(k, r, rid))
        if before["controller"]["leader"] != leader == after["controller"]["leader"]:
            held = "which held" if holds_id(after, leader, rid) else "which did not hold"
            lines.append(
                f"State {k + 1} ({actions[k]}): the controller chose replica "
                f"{leader}, {held} m{rid}, as leader of epoch "
                f"{after['controller']['epoch']}."
            )
    return lines
