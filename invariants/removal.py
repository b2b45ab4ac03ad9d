"""How a replica lost a record, in words: the truncation rule that removed it (or the
fetch past the leader's LEO, or the power loss), the LeaderAndIsr it followed, and whether
that request was stale. Shared by the stories (``invariants.story``, ``invariants.fork``)
and the aftermath (``invariants.aftermath``). Works on the model's views of the states."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from checker.model import Label
from invariants import truncation


def arg(action: str, name: str) -> object:
    """Argument ``name`` of an action label's text (``Fetch(follower=1, leader=0)``)."""
    return Label.parse(action).arg(name)


def fetched_from(action: str, before: dict[Any, Any], r: int) -> object:
    """The leader replica ``r`` fetched from in the step ``action`` (a ``Fetch`` label names
    it; for a ``FetchResponse`` of the split-fetch mechanism, the response in flight to ``r``
    in the view ``before`` does)."""
    if action.startswith("FetchResponse"):
        return before["replicas"][r].get("in_flight", {}).get("leader", "?")
    return arg(action, "leader")


def at(actions: Sequence[str | None], k: int) -> str:
    """The prefix of a sentence about step ``k`` (state ``k + 1``, 1-based as shown)."""
    return f"State {k + 1} ({actions[k]}): "


def holds(view: dict[Any, Any], r: int, offset: int, rid: int) -> bool:
    log = view["replicas"][r]["log"]
    return offset < len(log) and log[offset][0] == rid


def removal(
    action: str | None, variant: str, before: dict[Any, Any], after: dict[Any, Any], r: int
) -> str:
    """Why replica ``r`` lost a record between the views ``before`` and ``after``."""
    if action and action.startswith("BecomeFollower"):
        return (
            f"became follower{_follower_of(before, after, r)} and "
            f"{truncation.explain(variant, before, after, r)}"
        )
    if action and action.startswith("TruncateOnFetchResponse"):
        return (
            f"truncated to offset {len(after['replicas'][r]['log'])}, where the DivergingEpoch "
            "of its last fetch response said, after it had already taken that response's HW "
            "(KAFKA-14704)"
        )
    if action and action.startswith("Fetch") and truncation.rule_of(variant) == "diverging":
        return _diverged(action, before, after, r)
    if action and action.startswith("Fetch"):
        leader = fetched_from(action, before, r)
        fetched = (
            f"received leader {leader}'s answer to its fetch"
            if action.startswith("FetchResponse")
            else f"fetched from leader {leader}"
        )
        return (
            f"{fetched} at an offset past its LEO: OFFSET_OUT_OF_RANGE, "
            "so it truncated to the leader's LEO"
        )
    if action and action.startswith("UncleanShutdown"):
        flushed = before["replicas"][r].get("flushed", "?")
        return (
            f"lost power (an unclean shutdown) with its log flushed to disk only up to "
            f"offset {flushed}, so it lost the unflushed tail"
        )
    return f"lost it in {action}"


def _diverged(action: str, before: dict[Any, Any], after: dict[Any, Any], r: int) -> str:
    """Why a fetch (or its response) truncated replica ``r`` under truncation on the fetch
    response: the DivergingEpoch it carried, or OFFSET_OUT_OF_RANGE."""
    leader = fetched_from(action, before, r)
    mine = before["replicas"][r]["log"]
    cut = len(after["replicas"][r]["log"])
    response = before["replicas"][r].get("in_flight") or {}
    answer = response.get("diverging_epoch")
    if answer is None and isinstance(leader, int) and mine and not response:
        lrep = before["replicas"][leader]
        answer = truncation.diverging_epoch(lrep["log"], lrep["epoch"], len(mine), mine[-1][1])
    if answer is None:
        return (
            f"fetched from leader {leader} at an offset past its LEO: OFFSET_OUT_OF_RANGE, "
            "so it truncated to the leader's LEO"
        )
    epoch, end = answer
    return (
        f"fetched from leader {leader} with last fetched epoch {mine[-1][1]}; the leader's "
        f"epoch {epoch} ends at offset {end}, so it answered a DivergingEpoch ({epoch}, {end}) "
        f"and the follower truncated to {cut} (KAFKA-10554)"
    )


def _follower_of(before: dict[Any, Any], after: dict[Any, Any], r: int) -> str:
    """`` of replica L in epoch E (whose log then held n records)``, from the views."""
    view = after["replicas"][r]
    leader = view.get("leader")
    if leader is None:
        return ""
    held = len(before["replicas"][leader]["log"])
    log = "was then empty" if held == 0 else f"then held {held} record{'' if held == 1 else 's'}"
    return f" of replica {leader} in epoch {view.get('epoch')} (whose log {log})"


def removed(variant: str, actions: Any, views: Any, k: int, r: int, rid: int) -> str:
    """The sentence for replica ``r`` losing record ``rid`` in step ``k``: how and why, and
    whether the LeaderAndIsr it applied was stale."""
    before, after = views[k - 1], views[k]
    return (
        f"{at(actions, k)}replica {r} {removal(actions[k], variant, before, after, r)}, "
        f"removing m{rid}." + _stale(actions[k], after, r)
    )


def elected_from(controller: dict[str, Any], leader: int) -> str:
    """``"from the ELR, "`` or ``"as the last known leader, "`` when the controller (a view's
    ``controller``, before the election) elected ``leader`` that way (KIP-966), else ``""``."""
    if leader in controller.get("elr", []):
        return "from the ELR, "
    if (
        leader == controller.get("last_known_leader")
        and not controller["isr"]
        and not controller.get("elr")
    ):
        return (
            "its last known leader (ISR and ELR empty: Kafka 4.1 elects it even after an "
            "unclean shutdown, KAFKA-15584), "
        )
    return ""


def _stale(action: str | None, after: dict[Any, Any], r: int) -> str:
    """A sentence when replica ``r`` just became follower under a LeaderAndIsr older than the
    controller's epoch (requests reach replicas late and out of order), else ``""``."""
    epoch, current = after["replicas"][r].get("epoch"), after["controller"]["epoch"]
    if (
        not (action or "").startswith("BecomeFollower")
        or not isinstance(epoch, int)
        or epoch >= current
    ):
        return ""
    return (
        f" That LeaderAndIsr (epoch {epoch}) was stale: the controller was already at "
        f"epoch {current}."
    )
