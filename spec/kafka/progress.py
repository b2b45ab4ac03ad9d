"""Kafka's progress promises as liveness properties, with the fairness they need.

Fairness follows Vanlightly's Kafka specs (Vanlightly/kafka-tlaplus, ``kip_966``): weak
fairness on each instance of the actions that move the cluster forward, none on
perturbations, whose budgets keep behaviours finite:

- fair: ``Fetch`` (with ``split-fetch``: ``FetchRequest``, ``FetchResponse``;
  ``TruncateOnFetchResponse``), ``ExpandIsr``, ``BecomeLeader``, ``BecomeFollower``,
  ``Restart`` (broker start), ``AlterPartition`` (``async-isr``), ``Flush`` (the OS writes
  the page cache out), the unclean elections ``UncleanElect`` and ``UncleanRecovery``
  (in the model only with ``--unclean``, where Kafka's controller runs them on its own:
  ``unclean.leader.election.enable``, KIP-966's ``unclean.recovery.strategy=Balanced``),
  and ``Elect`` and ``ControllerShrinkIsr`` only while the partition has no live leader
  (``LeaderOffline``: the controller's failover, which fences the dead brokers and replaces
  the leader, or leaves the partition leaderless so that the dead leader may come back; an
  election of a live leader is a preferred-leader election, an operator's choice).
- never fair otherwise (``PERTURBATIONS``): ``Produce``, ``Crash``, ``UncleanShutdown``,
  ``LoseResponse``, and ``ShrinkIsr`` and ``ControllerShrinkIsr`` (ISR shrinks by failure).

A bound can stop progress where Kafka would not: once the leader epoch reaches
``--max-epoch`` no election can happen, so a leaderless partition stays leaderless. ``cut``
names such states; a behaviour that ends stuttering in one proves nothing
(``checker.liveness.check``).
"""

from __future__ import annotations

from typing import Any

from checker.properties import EVENTUALLY_ALWAYS, LEADS_TO, Fairness, Property
from spec.kafka.state import (
    ALIVE,
    C_ELR,
    C_EPOCH,
    C_ISR,
    C_LEADER,
    CONTROLLER,
    GHOST,
    HW,
    LOG,
    REPLICAS,
    V_EPOCH,
    V_ISR,
    V_LEADER,
    VIEW,
    last_known_leader,
)

FAIR = (
    "Fetch",
    "FetchRequest",
    "FetchResponse",
    "TruncateOnFetchResponse",
    "ExpandIsr",
    "BecomeLeader",
    "BecomeFollower",
    "Restart",
    "AlterPartition",
    "Flush",
    "UncleanElect",
    "UncleanRecovery",
)
PERTURBATIONS = (
    "Produce",
    "Crash",
    "UncleanShutdown",
    "LoseResponse",
    "ShrinkIsr",
    "ControllerShrinkIsr",
)


def fairness(actions: list[str]) -> tuple[Fairness, ...]:
    """The default fairness over the model's ``actions``: ``WF(each A)`` for every action in
    ``FAIR`` it has, ``WF(each Elect when LeaderOffline)`` and ``WF(each ControllerShrinkIsr
    when LeaderOffline)`` (a controller that lost its leader fences the dead brokers: it
    elects a replacement or, with none, takes the leadership away so that the broker may
    come back)."""
    chosen = [Fairness(a) for a in actions if a in FAIR]
    return (
        *chosen,
        Fairness("Elect", when="LeaderOffline"),
        Fairness("ControllerShrinkIsr", when="LeaderOffline"),
    )


def leader_offline(s: tuple[Any, ...]) -> bool:
    """No live replica is the controller's leader."""
    leader = s[CONTROLLER][C_LEADER]
    return leader is None or not s[REPLICAS][leader][ALIVE]


def took_over(s: tuple[Any, ...]) -> bool:
    """The controller's leader is up and has applied its LeaderAndIsr (it leads in the
    controller's epoch)."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    leader = ctrl[C_LEADER]
    if leader is None or not replicas[leader][ALIVE]:
        return False
    view = replicas[leader][VIEW]
    return bool(view[V_LEADER] == leader and view[V_EPOCH] == ctrl[C_EPOCH])


def conditions() -> dict[str, Any]:
    """The named state conditions fairness may use (``Fairness.when``)."""
    return {"LeaderOffline": leader_offline}


def _eligible(s: tuple[Any, ...], elr: bool) -> list[int]:
    """Live replicas an election may pick: ISR members, or with ``elr`` ELR members and the
    last known leader (``state.last_known_leader``)."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    members = list(ctrl[C_ISR])
    if elr and len(ctrl) > C_ELR:
        lkl = last_known_leader(ctrl)
        members += list(ctrl[C_ELR]) + ([] if lkl is None else [lkl])
    return [m for m in members if replicas[m][ALIVE]]


def make_cut(max_epoch: int, elr: bool, unclean: bool) -> Any:
    """``cut(state)``: the sentence for a state where only the epoch budget stops progress of
    a partition whose leader is down or gone (fenced while it ran: ``fence-live``): the next
    election, when a replica an election may pick
    is live (a live eligible one, or with ``unclean`` any live one), or, when the crashed
    leader is still the controller's, the decision that takes its leadership away, without
    which it cannot restart (``membership.restart``)."""

    def cut(s: tuple[Any, ...]) -> str | None:
        if s[CONTROLLER][C_EPOCH] < max_epoch or not leader_offline(s):
            return None
        if s[CONTROLLER][C_LEADER] is not None:
            return (
                f"the leader is down and --max-epoch {max_epoch} forbids the decision that "
                "replaces it or lets it restart"
            )
        if not _eligible(s, elr) and not (unclean and any(r[ALIVE] for r in s[REPLICAS])):
            return None
        return f"the partition has no leader and --max-epoch {max_epoch} forbids the next election"

    return cut


def _acked(s: tuple[Any, ...]) -> Any:
    return s[GHOST][2]


def _reached(s: tuple[Any, ...], key: tuple[int, int]) -> bool:
    offset, record = key
    replicas = s[REPLICAS]
    for m in s[CONTROLLER][C_ISR]:
        log = replicas[m][LOG]
        if replicas[m][ALIVE] and (len(log) <= offset or log[offset][0] != record):
            return False
    return True


def _true_leaders(s: tuple[Any, ...]) -> list[int]:
    leader = s[CONTROLLER][C_LEADER]
    return [leader] if leader is not None and took_over(s) else []


def _behind(s: tuple[Any, ...]) -> list[tuple[int, int]]:
    rep = s[REPLICAS]
    return [(r, s[CONTROLLER][C_EPOCH]) for r in _true_leaders(s) if rep[r][HW] < len(rep[r][LOG])]


def _hw_reached(s: tuple[Any, ...], key: tuple[int, int]) -> bool:
    leader, epoch = key
    rep = s[REPLICAS][leader]
    moved = s[CONTROLLER][C_EPOCH] != epoch or not rep[ALIVE]
    isr_down = any(not s[REPLICAS][m][ALIVE] for m in rep[VIEW][V_ISR])
    return bool(moved or isr_down or rep[HW] == len(rep[LOG]))


def _lagging(s: tuple[Any, ...]) -> list[tuple[int, int]]:
    ctrl, rep = s[CONTROLLER], s[REPLICAS]
    return [
        (f, ctrl[C_EPOCH])
        for leader in _true_leaders(s)
        for f in ctrl[C_ISR]
        if f != leader and rep[f][ALIVE] and rep[f][LOG] != rep[leader][LOG]
    ]


def _caught_up(s: tuple[Any, ...], key: tuple[int, int]) -> bool:
    follower, epoch = key
    ctrl, rep = s[CONTROLLER], s[REPLICAS]
    leader = ctrl[C_LEADER]
    if ctrl[C_EPOCH] != epoch or follower not in ctrl[C_ISR] or not rep[follower][ALIVE]:
        return True
    return bool(leader is None or not rep[leader][ALIVE] or rep[follower][LOG] == rep[leader][LOG])


def converged(s: tuple[Any, ...]) -> bool:
    """The controller's leader is up and has taken over, every live replica holds exactly
    its log, and its HW is its LEO."""
    if not took_over(s):
        return False
    replicas = s[REPLICAS]
    leader = replicas[s[CONTROLLER][C_LEADER]]
    same = all(r[LOG] == leader[LOG] for r in replicas if r[ALIVE])
    return bool(same and leader[HW] == len(leader[LOG]))


def properties(elr: bool) -> list[Property]:
    """The five progress properties (``elr``: the variant has eligible leader replicas)."""

    def leaderless(s: tuple[Any, ...]) -> list[tuple[()]]:
        return [()] if not took_over(s) and _eligible(s, elr) else []

    return [
        Property(
            "AckedReachesIsr",
            "Every committed (acknowledged, with acks=all) record eventually reaches every "
            "live member of the controller's ISR.",
            LEADS_TO,
            lambda s: [tuple(x) for x in _acked(s)],
            goal=_reached,
            explain=lambda key: f"record m{key[1]} at offset {key[0]}",
            key_ids=(),
            formula="\\A <<o, id>> : Committed(o, id) ~> \\A m \\in LiveIsr : log[m][o].id = id",
        ),
        Property(
            "HwReachesLeo",
            "A leader's HW eventually reaches its LEO while it leads and its ISR stays up.",
            LEADS_TO,
            _behind,
            goal=_hw_reached,
            explain=lambda key: f"leader {key[0]} in epoch {key[1]}",
            key_ids=(0,),
            formula="\\A r, e : (TrueLeader(r, e) /\\ hw[r] < LEO(r)) ~> (hw[r] = LEO(r) \\/ "
            "epoch # e \\/ ~alive[r] \\/ \\E m \\in isr[r] : ~alive[m])",
        ),
        Property(
            "LeaderElected",
            "A partition with a live eligible replica (ISR, or ELR under KIP-966) eventually "
            "has a live leader that has taken over.",
            LEADS_TO,
            leaderless,
            goal=lambda s, key: took_over(s),
            explain=lambda key: "the leaderless partition",
            key_ids=(),
            formula="(~LeaderTookOver /\\ \\E m \\in Eligible : alive[m]) ~> LeaderTookOver",
        ),
        Property(
            "FollowerCatchesUp",
            "A live follower in the ISR eventually holds its leader's log, or leaves the ISR, "
            "or the leader changes (no fetch livelock).",
            LEADS_TO,
            _lagging,
            goal=_caught_up,
            explain=lambda key: f"follower {key[0]} in epoch {key[1]}",
            key_ids=(0,),
            formula="\\A f, e : (InIsr(f, e) /\\ log[f] # log[leader]) ~> (log[f] = "
            "log[leader] \\/ f \\notin isr \\/ epoch # e \\/ ~alive[f] \\/ ~alive[leader])",
        ),
        Property(
            "ReplicasConverge",
            "Once the perturbations are spent, the partition settles for ever: a leader that "
            "has taken over, every live replica holding its log, its HW at its LEO.",
            EVENTUALLY_ALWAYS,
            converged,
            formula="<>[](LeaderTookOver /\\ \\A r \\in Live : log[r] = log[leader] /\\ "
            "hw[leader] = LEO(leader))",
        ),
    ]
