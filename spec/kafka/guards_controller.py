"""The guards of the controller's decisions (``spec.kafka.guards`` says what a guard is):
``membership.controller_shrink_isr``, ``elect`` and ``unclean_elect`` and
``elr.unclean_recovery`` test them by these predicates, ``spec.kafka.disabled`` says the
first that is false. Each action's guards, in order: ``CONTROLLER_SHRINK_ISR``, ``ELECT``,
``UNCLEAN_ELECT``, ``UNCLEAN_RECOVERY``.

Who may be elected is here too, as these guards read it: the live ISR members, else with
``elr`` (KIP-966) the live ELR members (``elr_choices``), else the last known leader
(``last_known_choice``); ``replaceable`` says whether anyone but a fenced leader could be.
"""

from __future__ import annotations

from typing import Any

from spec.kafka.context import ModelContext
from spec.kafka.guards import EPOCHS_LEFT, UP, Guard, epochs_left, members, up
from spec.kafka.state import (
    ALIVE,
    C_ELR,
    C_EPOCH,
    C_ISR,
    C_LEADER,
    CONTROLLER,
    LOG,
    REPLICAS,
    last_known_leader,
)
from spec.log import last_epoch


def live_isr(s: tuple[Any, ...]) -> tuple[Any, ...]:
    """The controller's ISR members that are up, in ISR order."""
    replicas = s[REPLICAS]
    return tuple(m for m in s[CONTROLLER][C_ISR] if replicas[m][ALIVE])


def elr_choices(ctx: ModelContext, s: tuple[Any, ...]) -> list[int]:
    """The live ELR members, which Elect may pick once it found no live ISR member (empty
    without the ``elr`` mechanism). Source: KIP-966's election order."""
    if not ctx.variant.elr:
        return []
    replicas = s[REPLICAS]
    return [m for m in s[CONTROLLER][C_ELR] if replicas[m][ALIVE]]


def last_known_choice(ctx: ModelContext, s: tuple[Any, ...]) -> int | None:
    """The last known leader, when Elect may pick it now: with the ``elr`` mechanism, ISR and
    ELR both empty and that replica up (``state.last_known_leader``); else None. Source:
    Kafka 4.1's ``PartitionChangeBuilder.canElectLastKnownLeader`` (KAFKA-15584)."""
    if not ctx.variant.elr:
        return None
    lkl = last_known_leader(s[CONTROLLER])
    return lkl if lkl is not None and s[REPLICAS][lkl][ALIVE] else None


def candidates(ctx: ModelContext, s: tuple[Any, ...]) -> list[tuple[int, tuple[Any, ...]]]:
    """Those Elect may pick, by KIP-966's order, each with the ISR it is elected with: the
    live ISR members (that ISR: the live members); else the live ELR members
    (``elr_choices``), else the last known leader (``last_known_choice``), if any (the ISR:
    itself)."""
    live = live_isr(s)
    if live:
        return [(c, live) for c in live]
    chosen = elr_choices(ctx, s)
    if not chosen and (lkl := last_known_choice(ctx, s)) is not None:
        chosen = [lkl]
    return [(c, (c,)) for c in chosen]


def replaceable(ctx: ModelContext, s: tuple[Any, ...], fenced: int | None = None) -> bool:
    """Whether the controller could elect a live replica other than ``fenced`` now: a live
    ISR member, a live ELR member (``elr``), or with ``--unclean`` any live replica
    (``Elect``, ``UncleanElect``, ``UncleanRecovery``; their epoch budget aside). A fenced
    broker is never elected (``handleBrokerFenced`` elects among the others). With
    ``fence-live`` only a live ISR member counts: a live replica outside the ISR (in the ELR,
    or any for an unclean election) may be a fenced broker the controller cannot elect, so the
    partition may go leaderless though ``Elect`` could also pick it (KIP-966: an ELR member
    is elected only while unfenced; seen on Kafka 4.1.0 by ``hwcheck conform``)."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]

    def live(m: int) -> bool:
        return m != fenced and bool(replicas[m][ALIVE])

    if any(live(m) for m in ctrl[C_ISR]):
        return True
    if ctx.variant.fence_live:
        return False
    if any(live(m) for m in elr_choices(ctx, s)):
        return True
    return bool(ctx.config.unclean_election) and any(live(m) for m in range(len(replicas)))


# -- ControllerShrinkIsr ----------------------------------------------------------------------


def in_epoch(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """The controller takes ``r`` out of its ISR in the same epoch: ``r`` a follower of the
    ISR and ``shrink-in-epoch`` on (KAFKA-15021), once there is an epoch (not -1)."""
    ctrl = s[CONTROLLER]
    return (
        r in ctrl[C_ISR]
        and r != ctrl[C_LEADER]
        and ctx.variant.shrink_in_epoch
        and ctrl[C_EPOCH] >= 0
    )


def shrink_epoch(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """An epoch for taking ``r`` out: the same one (``in_epoch``) or one left."""
    return in_epoch(ctx, s, r) or epochs_left(ctx, s)


def in_controller_isr(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """``r`` is in the controller's ISR."""
    return r in s[CONTROLLER][C_ISR]


def fenceable(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """The controller fences ``r``: it crashed, or with ``fence-live`` any broker (one that
    stopped heartbeating while it runs)."""
    return ctx.variant.fence_live or not up(ctx, s, r)


def not_replaceable(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """``r`` is a follower, or the leader and nobody else could be elected in its place
    (``replaceable``; else Elect replaces it)."""
    return r != s[CONTROLLER][C_LEADER] or not replaceable(ctx, s, r)


def isr_stays(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """``r`` is the leader, or a follower of an ISR of 2 or more (taking it out never
    empties the ISR)."""
    ctrl = s[CONTROLLER]
    return r == ctrl[C_LEADER] or len(ctrl[C_ISR]) >= 2


IN_CONTROLLER_ISR = Guard(
    in_controller_isr,
    lambda ctx, s, r: f"replica {r} is not in the controller's ISR {members(s[CONTROLLER][C_ISR])}",
)

CONTROLLER_SHRINK_ISR = (
    Guard(shrink_epoch, EPOCHS_LEFT.says, "max_epoch"),
    IN_CONTROLLER_ISR,
    Guard(
        fenceable,
        lambda ctx, s, r: (
            f"replica {r} is up: the controller handles only a crashed member "
            "(--with fence-live: a live one too)"
        ),
    ),
    Guard(
        not_replaceable,
        lambda ctx, s, r: (
            f"replica {r} is the controller's leader and another live replica "
            "can take over: an election replaces it"
        ),
    ),
    Guard(
        isr_stays,
        lambda ctx, s, r: (
            f"the controller's ISR {members(s[CONTROLLER][C_ISR])} has fewer than 2 members"
        ),
    ),
)
"""ControllerShrinkIsr(replica): an epoch for it (the same one with ``shrink-in-epoch``), a
fenced (crashed; ``fence-live``: any) ISR member; the leader only when no other live replica
can be elected in its place; a follower only from an ISR of 2 or more."""


# -- elections --------------------------------------------------------------------------------


def electable(ctx: ModelContext, s: tuple[Any, ...], c: int) -> bool:
    """``c`` is one Elect may pick (``candidates``)."""
    return any(c == chosen for chosen, _ in candidates(ctx, s))


def not_leader(ctx: ModelContext, s: tuple[Any, ...], c: int) -> bool:
    """``c`` is not the controller's leader already."""
    holds: bool = c != s[CONTROLLER][C_LEADER]
    return holds


def _not_electable(ctx: ModelContext, s: tuple[Any, ...], c: int) -> str:
    """Why ``c`` is not among the ``candidates``, by the step of the order that chose."""
    ctrl, isr = s[CONTROLLER], s[CONTROLLER][C_ISR]
    if live_isr(s):
        return IN_CONTROLLER_ISR.says(ctx, s, c) if c not in isr else UP.says(ctx, s, c)
    if not ctx.variant.elr:
        return (
            f"no member of the controller's ISR {members(isr)} is up: a clean election needs "
            "one (UncleanElect, with --unclean, does not)"
        )
    lkl = last_known_leader(ctrl)
    known = "" if lkl is None else f"; the last known leader is replica {lkl}, down"
    return (
        f"no member of the controller's ISR {members(isr)} is up and replica {c} is not a "
        f"live member of its ELR {members(ctrl[C_ELR])} (KIP-966){known}"
    )


ELECT = (
    EPOCHS_LEFT,
    Guard(electable, _not_electable),
    Guard(
        not_leader,
        lambda ctx, s, c: (
            f"replica {c} is the controller's leader already (epoch {s[CONTROLLER][C_EPOCH]})"
        ),
    ),
)
"""Elect(leader): epochs left; ``c`` a live ISR member, or with ``elr`` (KIP-966), when no
ISR member is up, a live ELR member, or while ISR and ELR are empty the last known leader,
up; not the current leader."""


def unclean(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """``--unclean`` (unclean.leader.election.enable)."""
    return bool(ctx.config.unclean_election)


def without_elr(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """The model has no ``elr`` mechanism (with it, UncleanRecovery is the last resort)."""
    return not ctx.variant.elr


def none_up(ctx: ModelContext, s: tuple[Any, ...], elr: bool = False) -> bool:
    """No member of the controller's ISR (with ``elr``, nor of its ELR) is up: the
    last-resort elections' guard."""
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    return not any(replicas[m][ALIVE] for m in ctrl[C_ISR] + (ctrl[C_ELR] if elr else ()))


def _one_up(ctx: ModelContext, s: tuple[Any, ...], elr: bool = False) -> str:
    ctrl, replicas = s[CONTROLLER], s[REPLICAS]
    first = next(m for m in ctrl[C_ISR] + (ctrl[C_ELR] if elr else ()) if replicas[m][ALIVE])
    where = "ISR" if first in ctrl[C_ISR] else "ELR"
    return (
        f"replica {first} of the controller's {where} is up: a last-resort election only "
        "happens when none is"
    )


UNCLEAN_ELECT = (
    Guard(unclean, lambda ctx, s: "unclean leader election is off (--unclean turns it on)", on=()),
    EPOCHS_LEFT,
    Guard(
        without_elr,
        lambda ctx, s: "with the elr mechanism (KIP-966) UncleanRecovery replaces UncleanElect",
        on=(),
    ),
    Guard(none_up, _one_up, on=()),
    UP,
)
"""UncleanElect(leader): ``--unclean``, epochs left, not the ``elr`` mechanism, no live ISR
member, ``c`` up."""


def none_up_with_elr(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """No member of the controller's ISR or ELR is up (``none_up``)."""
    return none_up(ctx, s, elr=True)


def no_last_known(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """The last known leader may not be elected now (``last_known_choice``): Kafka tries it
    before an unclean recovery (``electAnyLeader``)."""
    return last_known_choice(ctx, s) is None


def log_end(rep: tuple[Any, ...]) -> tuple[int, int]:
    """A replica's log end: (the epoch of its last record, its LEO)."""
    return last_epoch(rep[LOG]), len(rep[LOG])


def longest_log(ctx: ModelContext, s: tuple[Any, ...], c: int) -> bool:
    """``c``'s log end (``log_end``) is the largest of the live replicas'."""
    replicas = s[REPLICAS]
    return log_end(replicas[c]) >= max(log_end(rep) for rep in replicas if rep[ALIVE])


def _shorter(ctx: ModelContext, s: tuple[Any, ...], c: int) -> str:
    replicas = s[REPLICAS]
    best = max(
        (r for r, rep in enumerate(replicas) if rep[ALIVE]), key=lambda r: log_end(replicas[r])
    )
    (epoch, leo), (best_epoch, best_leo) = log_end(replicas[c]), log_end(replicas[best])
    return (
        f"replica {c}'s log ends at epoch {epoch}, LEO {leo}; replica {best}'s at epoch "
        f"{best_epoch}, LEO {best_leo}: the longest log is elected"
    )


UNCLEAN_RECOVERY = (
    Guard(unclean, lambda ctx, s: "unclean recovery is off (--unclean turns it on)", on=()),
    EPOCHS_LEFT,
    Guard(none_up_with_elr, lambda ctx, s: _one_up(ctx, s, elr=True), on=()),
    Guard(
        no_last_known,
        lambda ctx, s: (
            f"replica {last_known_choice(ctx, s)}, the last known leader, is up: "
            "Elect picks it first"
        ),
        on=(),
    ),
    UP,
    Guard(longest_log, _shorter),
)
"""UncleanRecovery(leader): ``--unclean``, epochs left, no live ISR or ELR member, no last
known leader up, ``c`` up with the longest log, by (last epoch, LEO) (KIP-966)."""
