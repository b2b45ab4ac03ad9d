"""The aftermath of a loss: the few steps after a counterexample that make the loss visible.

A loss property (NoCommittedLoss, NoAckedLoss) fails where the loss is *decided*: the
controller's leader no longer holds the record. The shortest counterexample ends there, and
the record is often still on another replica, so the last picture does not show a loss yet.
The aftermath is the shortest continuation, found by a breadth-first search from the
violating state over the same model and bounds, to a state where the leader the controller
chose has taken over (it acts as leader in the controller's epoch) and the record is in no
replica's log; when no such state is within reach, to one where no *live* replica holds it.
It is shown after the counterexample, marked as aftermath, and not counted in its length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from checker.model import Label
from invariants import acked, removal, story

LOSS_PROPERTIES = ("NoCommittedLoss", "NoAckedLoss")
"""The properties whose counterexamples get an aftermath."""

MAX_STEPS = 6
"""The longest aftermath searched for (actions after the violating state)."""

MAX_STATES = 20_000
"""The most states the search visits before it gives up (no aftermath is then shown)."""


@dataclass(frozen=True)
class Aftermath:
    """``record``: the lost record's id (``m<record>``); ``steps``: ``(label, state)`` per
    action after the violating state, in order; ``everywhere``: True when the last state has
    the record in no replica's log, False when only no live replica holds it."""

    record: int
    steps: tuple[tuple[Label, Any], ...]
    everywhere: bool


def lost_record(prop: str, view: dict[str, Any]) -> int | None:
    """The id of the record ``prop`` (a ``LOSS_PROPERTIES`` name) says is lost in ``view``
    (the model's view of the violating state), as the property's story reads it
    (``invariants.story.lost``, ``invariants.acked.lost_id``); None for another property or
    a view without that loss."""
    if prop not in LOSS_PROPERTIES or "replicas" not in view:
        return None
    if prop == "NoAckedLoss":
        return acked.lost_id(view)
    found = story.lost(view)
    return None if found is None else found[1]


def taken_over(view: dict[str, Any]) -> bool:
    """The controller's leader (if any) acts as leader in the controller's epoch."""
    ctrl = view["controller"]
    leader = ctrl["leader"]
    if leader is None:
        return True
    rep = view["replicas"][leader]
    return bool(rep["role"] == "leader" and rep["epoch"] == ctrl["epoch"])


def gone(view: dict[str, Any], rid: int, live_only: bool = False) -> bool:
    """No replica's log (no live replica's, with ``live_only``) holds record ``rid``."""
    return not any(
        acked.holds_id(view, r, rid)
        for r, rep in enumerate(view["replicas"])
        if rep["alive"] or not live_only
    )


def search(spec: Any, state: Any, prop: str) -> Aftermath | None:
    """The aftermath of ``prop``'s violation at ``state`` under ``spec`` (the reference
    model: ``successors`` and ``view``), or None when ``prop`` is not a loss property, the
    record is not lost there, or no continuation of at most ``MAX_STEPS`` actions within
    ``MAX_STATES`` visited states reaches the goal. Deterministic: breadth first, successors
    in the model's order, the first goal state found wins; the strict goal (gone from every
    replica) is preferred to the relaxed one (gone from every live replica) at any length."""
    rid = lost_record(prop, spec.view(state))
    if rid is None:
        return None
    for live_only in (False, True):

        def goal(v: dict[str, Any], live: bool = live_only) -> bool:
            return taken_over(v) and gone(v, rid, live)

        path = _bfs(spec, state, goal)

        if path is not None:
            return Aftermath(rid, tuple(path), not live_only)
    return None


def _bfs(spec: Any, start: Any, goal: Callable[[dict[str, Any]], bool]) -> list[Any] | None:
    """The shortest ``[(label, state), ...]`` from ``start`` to a state whose view meets
    ``goal`` (``[]`` when ``start`` does), or None."""
    if goal(spec.view(start)):
        return []
    parents: dict[Any, tuple[Any, Label, Any] | None] = {start: None}  # states are tuples
    frontier = [start]
    for _ in range(MAX_STEPS):
        following = []
        for state in frontier:
            for label, succ in spec.successors(state):
                if succ in parents:
                    continue
                parents[succ] = (state, label, succ)
                if goal(spec.view(succ)):
                    return _path(parents, succ)
                if len(parents) >= MAX_STATES:
                    return None
                following.append(succ)
        frontier = following
    return None


def _path(parents: dict[Any, Any], key: Any) -> list[tuple[Label, Any]]:
    path = []
    while parents[key] is not None:
        previous, label, state = parents[key]
        path.append((label, state))
        key = previous
    return path[::-1]


def _in_flight_to(view: dict[str, Any], r: int, rid: int) -> bool:
    """Whether the fetch response in flight to replica ``r`` (split-fetch) carries ``rid``."""
    response = view["replicas"][r].get("in_flight")
    return bool(response) and any(record[0] == rid for record in response.get("records", []))


def tell(
    prop: str,
    variant: str,
    actions: Sequence[str | None],
    views: Sequence[dict[str, Any]],
    length: int,
    rid: int,
    everywhere: bool,
) -> list[str]:
    """The aftermath in sentences: first the decisive step (state ``length``, the
    counterexample's last), then each aftermath step that took the record from a replica
    (how and why, as ``invariants.story`` tells removals) or let the chosen leader take over,
    then where the record is at the end. ``actions`` and ``views`` cover the counterexample
    and its aftermath (``length`` states, then the aftermath's); ``variant`` names the
    truncation rule."""
    ctrl = views[length - 1]["controller"]
    leader = ctrl["leader"]
    what = "committed" if prop == "NoCommittedLoss" else "acknowledged"
    if leader is None:
        decided = (
            f"State {length} decides the loss: the partition has no leader and no "
            f"replica holds m{rid}, which was {what}."
        )
    elif _in_flight_to(views[length - 1], leader, rid):
        decided = (
            f"State {length} makes the loss possible: the controller's leader of epoch "
            f"{ctrl['epoch']}, replica {leader}, does not hold m{rid}, which was {what}; "
            f"m{rid} is still in flight to it, but once it applies the LeaderAndIsr it drops "
            f"that response, and followers truncate to its log."
        )
    else:
        decided = (
            f"State {length} decides the loss: the controller's leader of epoch "
            f"{ctrl['epoch']}, replica {leader}, does not hold m{rid}, which was "
            f"{what}; followers truncate to the leader's log."
        )
    lines = [decided]
    for k in range(length, len(views)):
        before, after = views[k - 1], views[k]
        if (
            not taken_over(before)
            and taken_over(after)
            and after["controller"]["leader"] is not None
        ):
            now = after["controller"]
            lines.append(
                f"State {k + 1} ({actions[k]}): replica {now['leader']} takes over "
                f"as leader of epoch {now['epoch']}."
            )
        for r in range(len(after["replicas"])):
            if acked.holds_id(before, r, rid) and not acked.holds_id(after, r, rid):
                lines.append(removal.removed(variant, actions, views, k, r, rid))
    steps = len(views) - length
    end = "in no replica's log" if everywhere else "on no live replica"
    lines.append(
        f"After {steps} more step{'' if steps == 1 else 's'}, m{rid} is {end}: the "
        f"{what} record is lost."
    )
    return lines
