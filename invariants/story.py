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
from invariants import acked, truncation
from invariants.safety import first_gap, record_text


def _arg(action: str, name: str) -> object:
    """Argument ``name`` of an action label's text (``Fetch(follower=1, leader=0)``)."""
    return Label.parse(action).arg(name)


def _at(actions: Sequence[str | None], k: int) -> str:
    """The prefix of a sentence about step ``k`` (state ``k + 1``, 1-based as shown)."""
    return f"State {k + 1} ({actions[k]}): "


def _holds(view: dict, r: int, offset: int, rid: int) -> bool:
    log = view["replicas"][r]["log"]
    return offset < len(log) and log[offset][0] == rid


def _removal(action: str | None, variant: str, before: dict, after: dict, r: int) -> str:
    """Why replica ``r`` lost a record between the views ``before`` and ``after``."""
    if action and action.startswith("BecomeFollower"):
        return (f"became follower{_follower_of(before, after, r)} and "
                f"{truncation.explain(variant, before, after, r)}")
    if action and action.startswith("Fetch"):
        leader = _arg(action, "leader")
        return (f"fetched from leader {leader} at an offset past its LEO: OFFSET_OUT_OF_RANGE, "
                "so it truncated to the leader's LEO")
    if action and action.startswith("UncleanShutdown"):
        flushed = before["replicas"][r].get("flushed", "?")
        return (f"lost power (an unclean shutdown) with its log flushed to disk only up to "
                f"offset {flushed}, so it lost the unflushed tail")
    return f"lost it in {action}"


def _follower_of(before: dict, after: dict, r: int) -> str:
    """`` of replica L in epoch E (whose log then held n records)``, from the views."""
    view = after["replicas"][r]
    leader = view.get("leader")
    if leader is None:
        return ""
    held = len(before["replicas"][leader]["log"])
    log = "was then empty" if held == 0 else \
        f"then held {held} record{'' if held == 1 else 's'}"
    return f" of replica {leader} in epoch {view.get('epoch')} (whose log {log})"


def _removed(variant: str, actions, views, k: int, r: int, rid: int) -> str:
    """The sentence for replica ``r`` losing record ``rid`` in step ``k``: how and why, and
    whether the LeaderAndIsr it applied was stale."""
    before, after = views[k - 1], views[k]
    return (f"{_at(actions, k)}replica {r} {_removal(actions[k], variant, before, after, r)}, "
            f"removing m{rid}{_fenced(actions[k], before, after, r)}."
            + _stale(actions[k], after, r))


def _fenced(action: str | None, before: dict, after: dict, r: int) -> str:
    """``; the controller took it out of the ISR ...`` when an unclean shutdown of replica
    ``r`` also fenced it (KIP-966: the broker re-registers with a new epoch), else ``""``."""
    if not (action or "").startswith("UncleanShutdown") or \
            r not in before["controller"]["isr"] or r in after["controller"]["isr"]:
        return ""
    return "; the controller took it out of the ISR and the ELR (KIP-966)"


def removed(variant: str, actions: Sequence[str | None], views: Sequence[dict[str, Any]],
            k: int, r: int, rid: int) -> str:
    """The sentence for replica ``r`` losing record ``m<rid>`` in step ``k`` (state ``k + 1``
    of ``views``, reached by ``actions[k]``): how, why under truncation ``variant``, and
    whether the LeaderAndIsr it applied was stale."""
    return _removed(variant, actions, views, k, r, rid)


def _stale(action: str | None, after: dict, r: int) -> str:
    """A sentence when replica ``r`` just became follower under a LeaderAndIsr older than the
    controller's epoch (requests reach replicas late and out of order), else ``""``."""
    epoch, current = after["replicas"][r].get("epoch"), after["controller"]["epoch"]
    if not (action or "").startswith("BecomeFollower") or not isinstance(epoch, int) \
            or epoch >= current:
        return ""
    return (f" That LeaderAndIsr (epoch {epoch}) was stale: the controller was already at "
            f"epoch {current}.")


def committed_loss(variant: str, actions: Sequence[str | None],
                   views: Sequence[dict[str, Any]]) -> list[str]:
    """NoCommittedLoss: which record, when it was committed, every removal and why, and the
    leader that took over without it. Empty when the trace does not show such a loss."""
    last = views[-1]
    leader = last["controller"]["leader"]
    everyone = range(len(last["replicas"]))
    lost = [(o, i) for o, i in last.get("committed", [])
            if not any(_holds(last, r, o, i) for r in ([leader] if leader is not None
                                                         else everyone))]
    if not lost:
        return []
    offset, rid = lost[0]
    epoch = next((rec[1] for v in views for rep in v["replicas"]
                  for o, rec in enumerate(rep["log"]) if o == offset and rec[0] == rid), "?")
    where = (f"is not in the log of the current leader, replica {leader}" if leader is not None
             else "is in no replica's log, and the partition has no leader")
    lines = [(f"Record m{rid} (written in leader epoch {epoch}) at offset {offset} was "
              f"committed and {where}.")]
    for k in range(1, len(views)):
        before, after = views[k - 1], views[k]
        if [offset, rid] not in before.get("committed", []) and \
                [offset, rid] in after.get("committed", []):
            movers = [r["replica"] for r, old in zip(after["replicas"], before["replicas"])
                      if old["hw"] <= offset < r["hw"]]
            who = f"replica {movers[0]}'s HW moved past offset {offset}" if movers else \
                "its HW moved past it"
            if movers:
                members = [m for m in after["replicas"][movers[0]]["isr"] if m != movers[0]]
                who += _lacking(actions, views, k, movers[0], members, offset, rid)
                who += "" if members else ", alone in its ISR"
            lines.append(f"{_at(actions, k)}m{rid} became committed: {who}.")
        for r in range(len(after["replicas"])):
            if _holds(before, r, offset, rid) and not _holds(after, r, offset, rid):
                lines.append(_removed(variant, actions, views, k, r, rid))
        if leader is not None and before["controller"]["leader"] != leader == \
                after["controller"]["leader"]:
            held = "which held" if _holds(after, leader, offset, rid) else "which did not hold"
            held += f" m{rid} at offset {offset}"
            if after.get("records_produced", rid + 1) <= rid:
                held = f"before m{rid} was written"
            if leader in before["controller"].get("elr", []):
                held = "from the ELR, " + held
            lines.append(f"{_at(actions, k)}the controller chose replica {leader}, {held}, as "
                         f"leader of epoch {after['controller']['epoch']}.")
    return lines


def divergence(variant: str, actions: Sequence[str | None],
               views: Sequence[dict[str, Any]]) -> list[str]:
    """NoDivergence: the offset and the two records; then, in order, how each replica came to
    hold its own (and any record it lost at that offset before, and why), and the step where
    the fork went below both HWs."""
    last = views[-1]["replicas"]
    for a in range(len(last)):
        for b in range(a + 1, len(last)):
            bound = min(last[a]["hw"], last[b]["hw"], len(last[a]["log"]), len(last[b]["log"]))
            offset = first_gap(last[a]["log"], bound, last[b]["log"])
            if offset is not None:
                lines = [(f"At offset {offset}, below both HWs ({last[a]['hw']} and "
                         f"{last[b]['hw']}), replica {a} holds "
                         f"{record_text(last[a]['log'][offset])} and replica {b} holds "
                         f"{record_text(last[b]['log'][offset])}.")]
                events = [*_history(variant, actions, views, a, offset),
                          *_history(variant, actions, views, b, offset),
                          *_exposed(actions, views, a, b, offset)]
                return lines + [text for _, text in sorted(events)]
    return []


def _history(variant, actions, views, r: int, offset: int) -> list[tuple[int, str]]:
    """``(step, sentence)``: where replica ``r`` got the record it ends with at ``offset``, and
    every other record it lost there before that (with why)."""
    record = views[-1]["replicas"][r]["log"][offset]
    events, got = [], 0
    for k in range(len(views) - 1, 0, -1):
        log = views[k - 1]["replicas"][r]["log"]
        if offset >= len(log) or log[offset] != record:
            how = (f"wrote m{record[0]} as leader" if (actions[k] or "").startswith("Produce")
                   else f"copied m{record[0]} from leader {_arg(actions[k], 'leader')}"
                   if (actions[k] or "").startswith("Fetch") else f"got m{record[0]}")
            events.append((k, f"{_at(actions, k)}replica {r} {how}."))
            got = k
            break
    else:
        events.append((0, f"Replica {r} held m{record[0]} from the initial state."))
    for k in range(1, got):
        before, after = views[k - 1], views[k]
        old = before["replicas"][r]["log"]
        if offset < len(old) and not _holds(after, r, offset, old[offset][0]):
            events.append((k, _removed(variant, actions, views, k, r, old[offset][0])))
    for k in range(got + 1, len(views)):  # truncations that kept the record: by which rule
        if (actions[k] or "").startswith("BecomeFollower") and _arg(actions[k], "replica") == r:
            before, after = views[k - 1], views[k]
            said = _removal(actions[k], variant, before, after, r)
            events.append((k, f"{_at(actions, k)}replica {r} {said}."))
    return events


def _exposed(actions, views, a: int, b: int, offset: int) -> list[tuple[int, str]]:
    """The step after which both replicas keep their final records at ``offset`` below their
    HWs, naming whose HW moved."""
    final = [views[-1]["replicas"][r]["log"][offset] for r in (a, b)]

    def forked(view) -> bool:
        reps = [view["replicas"][r] for r in (a, b)]
        return all(offset < min(rep["hw"], len(rep["log"])) and rep["log"][offset] == rec
                   for rep, rec in zip(reps, final))

    k = len(views) - 1
    while k > 0 and forked(views[k - 1]):
        k -= 1
    if k == 0:
        return []
    movers = [r for r in (a, b) if views[k - 1]["replicas"][r]["hw"] <= offset]
    who = " and ".join(f"replica {r}'s" for r in movers) or "a"
    text = (f"{_at(actions, k)}{who} HW moved past offset {offset}; both "
            "records are now below the HWs, visible to consumers.")
    return [(k, text)]


def isr_gap(prop: str, variant: str, actions: Sequence[str | None],
            views: Sequence[dict[str, Any]]) -> list[str]:
    """WeakIsr / StrongIsr: the presumed leader, its HW, the ISR member (its own ISR for
    WeakIsr, the controller's for StrongIsr) whose log differs below that HW and at which
    offset; then every step that removed the leader's record from that member and why, and the
    step where the leader's HW moved past the offset. Empty when the last state shows no gap."""
    last = views[-1]
    for leader, rep in enumerate(last["replicas"]):
        if rep["role"] != "leader":
            continue
        members = last["controller"]["isr"] if prop == "StrongIsr" else rep["isr"]
        for member in members:
            gap = first_gap(rep["log"], min(rep["hw"], len(rep["log"])),
                            last["replicas"][member]["log"])
            if gap is not None:
                return _isr_story(prop, variant, actions, views, leader, member, gap)
    return []


def _isr_story(prop, variant, actions, views, leader: int, member: int,
               gap: int) -> list[str]:
    last = views[-1]
    rep, mine = last["replicas"][leader], last["replicas"][member]["log"]
    rid, epoch = rep["log"][gap]
    which = "the controller's ISR" if prop == "StrongIsr" else "its own ISR"
    holds = record_text(mine[gap] if gap < len(mine) else None)
    lines = [(f"Leader {leader} (epoch {rep['epoch']}) has HW {rep['hw']}, so m{rid} "
              f"(epoch {epoch}) at offset {gap} is committed, but replica {member}, a member "
              f"of {which}, holds {holds} there (its LEO is {len(mine)}).")]
    for k in range(1, len(views)):
        before, after = views[k - 1], views[k]
        if _holds(before, member, gap, rid) and not _holds(after, member, gap, rid):
            lines.append(_removed(variant, actions, views, k, member, rid))
        old, new = before["replicas"][leader], after["replicas"][leader]
        if new["role"] == "leader" and old["hw"] <= gap < new["hw"]:
            lines.append(f"{_at(actions, k)}leader {leader}'s HW moved past "
                         f"offset {gap}"
                         f"{_lacking(actions, views, k, leader, [member], gap, rid)}.")
    return lines


def _lacking(actions, views, k: int, leader: int, members, offset: int, rid: int) -> str:
    """``, though replica M no longer held it: ...`` for each of ``members`` that does not hold
    record ``rid`` at ``offset`` in state ``k + 1`` (empty when they all do)."""
    return "".join(f", though replica {m} did not hold it{_counted(actions, views, k, leader, m)}"
                   for m in members if not _holds(views[k], m, offset, rid))


def _counted(actions, views, k: int, leader: int, member: int) -> str:
    """``: it still counted replica M at LEO n, reported by the fetch of state K`` when the
    leader's view at step ``k`` keeps a remote LEO for ``member`` (kafka model), else ``""``."""

    def remote(view) -> int | None:
        known = view["replicas"][leader].get("remote_leo") or []
        return known[member] if member < len(known) else None

    leo = remote(views[k])
    if leo is None or leo < 0:
        return ""
    since = next((j for j in range(k, 0, -1) if remote(views[j - 1]) != leo), None)
    told = f", reported by the fetch of state {since + 1} ({actions[since]})" if since else ""
    return f": it still counted replica {member} at LEO {leo}{told}"


def tell(prop: str, variant: str, actions: Sequence[str | None],
         views: Sequence[dict[str, Any]]) -> list[str]:
    """The story of a counterexample of ``prop`` as sentences (empty for the properties
    whose own explanation says it all, e.g. HwLeLeo or TypeOk)."""
    if not views or not isinstance(views[-1], dict) or "replicas" not in views[-1]:
        return []
    if prop == "NoCommittedLoss":
        return committed_loss(variant, actions, views)
    if prop == "NoDivergence":
        return divergence(variant, actions, views)
    if prop == "NoAckedLoss":
        return acked.story(variant, actions, views,
                           lambda k, r, rid: _removed(variant, actions, views, k, r, rid))
    if prop in ("WeakIsr", "StrongIsr"):
        return isr_gap(prop, variant, actions, views)
    return []
