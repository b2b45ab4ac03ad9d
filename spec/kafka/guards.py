"""The guards of the Kafka model's actions: each a named predicate and its words, stated once.

An action's generator (``spec.kafka.actions``, ``fetching``, ``flight``, ``alter``,
``membership``, ``elr``, ``durability``) tests its guards by calling their predicates, and
``spec.kafka.disabled`` (``hwcheck scenario`` / ``replay``: why a label is not enabled) walks
the action's list of the same guards and says the first that is false. So a condition is
written once, and what the action does and what ``why_disabled`` says cannot drift apart
(``tests/test_disabled.py`` still checks the two against each other on many states).

A ``Guard`` is a predicate ``holds(ctx, state, *args)`` (``args``: the label's arguments it
reads, ``on``), its words ``says(ctx, state, *args)`` (the ``Refusal``'s text, only asked
when the guard is false; it may read the state to say more, never to decide) and the bound
it reaches, if any (``Refusal.bound``); ``unless`` makes the guard that a predicate is false.
A guard that reads none of the arguments (a budget, ``budget``: records left, an epoch left)
is tested once, before a generator's loop over replicas, and so is ``when``, the mechanism
or option a guard belongs to. A generator takes some arguments from where the guard finds
them (the leader a follower follows, a member of the ISR, the LeaderAndIsr requests after a
replica's view): its comment names the guard such a choice satisfies. The list's order is
the order ``why_disabled`` says them in; a generator may test a conjunction in a cheaper
order (the predicates are pure).

This module has the type, the guards several actions share (a replica up, one that presumes
it leads, an epoch left) and the words helpers. The guards of each family are beside:
``guards_data`` (Produce, the fetches), ``guards_isr`` (the ISR changes),
``guards_controller`` (elections, the controller's ISR shrink) and ``guards_broker`` (crash,
restart, LeaderAndIsr, durability). Replica ids and epochs are ints; offsets 0-based, LEO and
HW exclusive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from checker.model import Refusal
from spec.kafka.context import ModelContext
from spec.kafka.state import ALIVE, C_EPOCH, CONTROLLER, REPLICAS, V_LEADER, VIEW


@dataclass(frozen=True)
class Guard:
    """One condition of an action (module docstring).

    - ``holds(ctx, state, *args)``: the predicate, on the label's arguments at the positions
      ``on`` (the first by default; ``()`` for none); with ``negated`` the guard is that it
      is false (``unless``: a generator tests ``not holds(...)``, no second function).
    - ``says(ctx, state, *args)``: the words when the guard is false, on the same arguments
      or, when its words need others, those at ``says_on``.
    - ``bound``: the ``Config`` field whose limit the guard is, or None.
    - ``when(ctx)``: False leaves the guard out of this model (None: always in).
    """

    holds: Callable[..., Any]
    says: Callable[..., str]
    bound: str | None = None
    on: tuple[int, ...] = (0,)
    when: Callable[[ModelContext], bool] | None = None
    negated: bool = False
    says_on: tuple[int, ...] | None = None

    def applies(self, ctx: ModelContext) -> bool:
        """Whether the guard is part of the action in this model."""
        return self.when is None or self.when(ctx)

    def at(self, *on: int) -> Guard:
        """The same guard on other arguments of the label (``on``)."""
        return replace(self, on=on)


def first_false(
    guards: Sequence[Guard], ctx: ModelContext, s: tuple[Any, ...], args: Sequence[Any]
) -> Refusal | None:
    """The ``Refusal`` of the first of ``guards`` (in order, those that apply) that is false
    for the label's ``args`` in ``s``, or None when all hold."""
    for guard in guards:
        if not guard.applies(ctx):
            continue
        picked = [args[i] for i in guard.on]
        if bool(guard.holds(ctx, s, *picked)) == guard.negated:  # the guard is false
            if guard.says_on is not None:
                picked = [args[i] for i in guard.says_on]
            return Refusal(guard.says(ctx, s, *picked), guard.bound)
    return None


def unless(
    holds: Callable[..., Any], says: Callable[..., str], on: tuple[int, ...] = (0,)
) -> Guard:
    """The guard that ``holds`` is false (a replica down: ``unless(up, ...)``)."""
    return Guard(holds, says, on=on, negated=True)


# -- words ------------------------------------------------------------------------------------


def members(isr: tuple[Any, ...]) -> str:
    """An ISR as ``show`` draws it: ``{0,1}``."""
    return "{" + ",".join(map(str, isr)) + "}"


def counted(n: int, noun: str, plural: str = "") -> str:
    """``1 record``, ``2 records``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def view_of(r: int, rep: tuple[Any, ...]) -> str:
    """What replica ``r``'s view (its last LeaderAndIsr applied) says of the leader."""
    leader, epoch, _ = rep[VIEW]
    if leader is None:
        return "it applied no LeaderAndIsr since it started"
    if leader == r:
        return f"it leads epoch {epoch} in its view"
    return f"it follows replica {leader} in epoch {epoch}"


def budget(
    left: Callable[..., Any],
    bound: str,
    used: Callable[[tuple[Any, ...]], int],
    noun: str,
    spent: str = "already",
    plural: str = "",
) -> Guard:
    """The guard of a budget of the run: ``left(ctx, state)``, some of ``bound`` (a ``Config``
    field) is left; its words count what ``used(state)`` says was spent: ``2 records already
    produced (max_records=2)``."""

    def says(ctx: ModelContext, s: tuple[Any, ...]) -> str:
        return f"{counted(used(s), noun, plural)} {spent} ({bound}={getattr(ctx.config, bound)})"

    return Guard(left, says, bound, on=())


# -- shared guards ----------------------------------------------------------------------------


def up(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """Replica ``r`` is up."""
    alive: bool = s[REPLICAS][r][ALIVE]
    return alive


UP = Guard(up, lambda ctx, s, r: f"replica {r} is down")

UP_STILL = Guard(up, lambda ctx, s, r: f"replica {r} is down already")
"""``UP`` as a crash says it: the replica is down already."""


def leads(ctx: ModelContext, s: tuple[Any, ...], r: int) -> bool:
    """Replica ``r`` presumes it leads: its view (its last LeaderAndIsr) names it leader; a
    stale leader does too."""
    holds: bool = s[REPLICAS][r][VIEW][V_LEADER] == r
    return holds


LEADS = Guard(
    leads,
    lambda ctx, s, r: f"replica {r} does not presume it leads: {view_of(r, s[REPLICAS][r])}",
)


def epochs_left(ctx: ModelContext, s: tuple[Any, ...]) -> bool:
    """The epoch budget: every controller decision but an ISR change takes a new epoch, up to
    ``max_epoch``."""
    holds: bool = s[CONTROLLER][C_EPOCH] < ctx.config.max_epoch
    return holds


def _last_epoch(ctx: ModelContext, s: tuple[Any, ...], *_: Any) -> str:
    epoch, limit = s[CONTROLLER][C_EPOCH], ctx.config.max_epoch
    return f"the controller is at epoch {epoch}, the last one (max_epoch={limit})"


EPOCHS_LEFT = Guard(epochs_left, _last_epoch, "max_epoch", on=())
