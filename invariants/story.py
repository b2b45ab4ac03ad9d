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

from checker.model import Label

TRUNCATE_WHY = {
    "hw": "truncated its log to its own HW {hw} on becoming follower (pre-KIP-101 rule)",
    "kip101": "truncated to the leader's end offset for its latest epoch "
              "(OffsetsForLeaderEpoch, KIP-101) on becoming follower",
    "kip279": "truncated just after the last offset where it matches the leader (KIP-279) "
              "on becoming follower",
    "kip320": "truncated just after the last offset where it matches the leader of its own "
              "epoch (KIP-320) on becoming follower",
}


def _arg(action: str, name: str) -> object:
    """Argument ``name`` of an action label's text (``Fetch(follower=1, leader=0)``)."""
    return Label.parse(action).arg(name)


def _holds(view: dict, r: int, offset: int, rid: int) -> bool:
    log = view["replicas"][r]["log"]
    return offset < len(log) and log[offset][0] == rid


def _removal(action: str | None, variant: str, before: dict, r: int) -> str:
    if action and action.startswith("BecomeFollower"):
        return TRUNCATE_WHY.get(variant, "truncated on becoming follower").format(
            hw=before["replicas"][r]["hw"])
    if action and action.startswith("Fetch"):
        leader = _arg(action, "leader")
        return (f"fetched from leader {leader} at an offset past its LEO: OFFSET_OUT_OF_RANGE, "
                "so it truncated to the leader's LEO")
    return f"lost it in {action}"


def committed_loss(variant: str, actions: Sequence[str | None],
                   views: Sequence[dict[str, Any]]) -> list[str]:
    """NoCommittedLoss: which record, when it was committed, every removal and why, and the
    leader that took over without it. Empty when the trace does not show such a loss."""
    last = views[-1]
    leader = last["controller"]["leader"]
    lost = [(o, i) for o, i in last.get("committed", [])
            if leader is None or not _holds(last, leader, o, i)]
    if not lost:
        return []
    offset, rid = lost[0]
    epoch = next((rec[1] for v in views for rep in v["replicas"]
                  for o, rec in enumerate(rep["log"]) if o == offset and rec[0] == rid), "?")
    lines = [(f"Record m{rid} (written in leader epoch {epoch}) at offset {offset} was committed "
             f"and is not in the log of the current leader, replica {leader}.")]
    for k in range(1, len(views)):
        before, after = views[k - 1], views[k]
        if [offset, rid] not in before.get("committed", []) and \
                [offset, rid] in after.get("committed", []):
            movers = [r["replica"] for r, old in zip(after["replicas"], before["replicas"])
                      if old["hw"] <= offset < r["hw"]]
            who = f"replica {movers[0]}'s HW moved past offset {offset}" if movers else \
                "its HW moved past it"
            lines.append(f"State {k + 1} ({actions[k]}): m{rid} became committed: {who}.")
        for r in range(len(after["replicas"])):
            if _holds(before, r, offset, rid) and not _holds(after, r, offset, rid):
                lines.append(f"State {k + 1} ({actions[k]}): replica {r} "
                             f"{_removal(actions[k], variant, before, r)}, removing m{rid}.")
        if leader is not None and before["controller"]["leader"] != leader == \
                after["controller"]["leader"]:
            held = "which held" if _holds(after, leader, offset, rid) else "which did not hold"
            lines.append(f"State {k + 1} ({actions[k]}): the controller chose replica {leader}, "
                         f"{held} m{rid} at offset {offset}, as leader of epoch "
                         f"{after['controller']['epoch']}.")
    return lines


def divergence(actions: Sequence[str | None], views: Sequence[dict[str, Any]]) -> list[str]:
    """NoDivergence: the offset, the two records, and how each replica came to hold its own."""
    last = views[-1]["replicas"]
    for a in range(len(last)):
        for b in range(a + 1, len(last)):
            bound = min(last[a]["hw"], last[b]["hw"], len(last[a]["log"]), len(last[b]["log"]))
            for offset in range(bound):
                if last[a]["log"][offset] != last[b]["log"][offset]:
                    lines = [(f"At offset {offset}, below both HWs ({last[a]['hw']} and "
                             f"{last[b]['hw']}), replica {a} holds m{last[a]['log'][offset][0]} "
                             f"(epoch {last[a]['log'][offset][1]}) and replica {b} holds "
                             f"m{last[b]['log'][offset][0]} (epoch {last[b]['log'][offset][1]}).")]
                    lines += [_origin(actions, views, r, offset) for r in (a, b)]
                    return lines
    return []


def _origin(actions, views, r: int, offset: int) -> str:
    record = views[-1]["replicas"][r]["log"][offset]
    for k in range(len(views) - 1, 0, -1):
        log = views[k - 1]["replicas"][r]["log"]
        if offset >= len(log) or log[offset] != record:
            how = (f"wrote m{record[0]} as leader" if (actions[k] or "").startswith("Produce")
                   else f"copied m{record[0]} from leader {_arg(actions[k], 'leader')}"
                   if (actions[k] or "").startswith("Fetch") else f"got m{record[0]}")
            return f"State {k + 1} ({actions[k]}): replica {r} {how}."
    return f"Replica {r} held m{record[0]} from the initial state."


def tell(prop: str, variant: str, actions: Sequence[str | None],
         views: Sequence[dict[str, Any]]) -> list[str]:
    """The story of a counterexample of ``prop`` as sentences (empty when there is none to
    tell beyond the property's own explanation, e.g. for the ISR properties)."""
    if not views or not isinstance(views[-1], dict) or "replicas" not in views[-1]:
        return []
    if prop == "NoCommittedLoss":
        return committed_loss(variant, actions, views)
    if prop == "NoDivergence":
        return divergence(actions, views)
    return []
