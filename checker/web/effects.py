"""What one action would change, in one line, from the model's views of the states before and
after it (``spec.view``): the explorer shows it beside every enabled action, so a learner sees
"replica 1: LEO 1→2, HW 0→1" before clicking.

Offsets are 0-based, HW and LEO exclusive, as everywhere in hwcheck.
"""

from __future__ import annotations

from typing import Any

from checker.renderers.fields import fetcher_text, in_flight_text


def _isr(members: Any) -> str:
    return "{" + ",".join(map(str, members)) + "}"


def _role(replica: dict[str, Any]) -> str:
    if replica["role"] == "follower" and replica.get("leader") is not None:
        return f"follower of {replica['leader']}"
    return str(replica["role"])


def _log_change(old: list[Any], new: list[Any]) -> str:
    """``appends m3/e1``, ``truncates to offset 1 (removes m2)`` or ''."""
    keep = 0
    while keep < min(len(old), len(new)) and old[keep] == new[keep]:
        keep += 1
    removed = [f"m{rid}" for rid, _ in old[keep:]]
    added = [f"m{rid}/e{epoch}" for rid, epoch in new[keep:]]
    parts = []
    if removed:
        parts.append(f"truncates to offset {keep} (removes {', '.join(removed)})")
    if added:
        parts.append(f"{'then ' if removed else ''}appends {', '.join(added)}")
    return " ".join(parts)


def replica_change(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed on one replica, as short phrases (empty: nothing)."""
    parts = []
    if old["alive"] != new["alive"]:
        parts.append("goes DOWN" if not new["alive"] else "comes back up")
    if _role(old) != _role(new) and old["alive"] == new["alive"]:
        parts.append(f"{_role(old)} → {_role(new)}")
    if old["epoch"] != new["epoch"]:
        parts.append(f"epoch {old['epoch']}→{new['epoch']}")
    log = _log_change(old["log"], new["log"])
    if log:
        parts.append(log)
    if len(old["log"]) != len(new["log"]):
        parts.append(f"LEO {len(old['log'])}→{len(new['log'])}")
    if old["hw"] != new["hw"]:
        parts.append(f"HW {old['hw']}→{new['hw']}")
    if list(old["isr"]) != list(new["isr"]):
        parts.append(f"ISR {_isr(old['isr'])}→{_isr(new['isr'])}")
    if old.get("alter_partition") != new.get("alter_partition"):  # async-isr
        request = new.get("alter_partition")
        parts.append(
            "asks for ISR {" + ",".join(map(str, request["isr"])) + "}"
            if request
            else "request answered"
        )
    if old.get("fetcher") != new.get("fetcher"):  # truncation on fetch, historical orderings
        parts.append(f"fetcher: {fetcher_text(new.get('fetcher'))}")
    if old.get("in_flight") != new.get("in_flight"):  # split-fetch
        if new.get("in_flight") is None:
            parts.append(
                "response received"
                if old["log"] != new["log"] or old["hw"] != new["hw"]
                else "response dropped"
            )
        else:
            parts.append(f"response in flight: {in_flight_text(new['in_flight'])}")
    return parts


def describe(before: dict[str, Any], after: dict[str, Any]) -> str:
    """One line: per replica what changes, then the controller and the committed records;
    ``no visible change`` when the views are equal on all of those (an action may still
    change what the view does not show, such as a request in flight)."""
    parts = []
    for old, new in zip(before["replicas"], after["replicas"]):
        changes = replica_change(old, new)
        if changes:
            parts.append(f"replica {new['replica']}: " + ", ".join(changes))
    old_c, new_c = before["controller"], after["controller"]
    ctrl = [
        f"{key} {old_c[key]}→{new_c[key]}"
        for key in ("epoch", "leader")
        if old_c[key] != new_c[key]
    ]
    if list(old_c["isr"]) != list(new_c["isr"]):
        ctrl.append(f"ISR {_isr(old_c['isr'])}→{_isr(new_c['isr'])}")
    if list(old_c.get("elr", [])) != list(new_c.get("elr", [])):
        ctrl.append(f"ELR {_isr(old_c.get('elr', []))}→{_isr(new_c.get('elr', []))}")
    if old_c.get("last_known_leader") != new_c.get("last_known_leader"):
        known = [c.get("last_known_leader") for c in (old_c, new_c)]
        ctrl.append("last known leader " + "→".join("none" if k is None else str(k) for k in known))
    if ctrl:
        parts.append("controller: " + ", ".join(ctrl))
    old_done = {tuple(x) for x in before.get("committed", [])}
    new_done = [
        f"m{rid} at offset {offset}"
        for offset, rid in after.get("committed", [])
        if (offset, rid) not in old_done
    ]
    if new_done:
        parts.append("commits " + ", ".join(new_done))
    return "; ".join(parts) or "no visible change"
