"""``KafkaSpec``: the hwcheck model of Kafka replication as a ``checker.model.Spec``.

It also provides the read-only accessors the invariants use (``invariants.access``), so each
invariant is stated once for every model.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker.model import ActionSpec, Label, LabelLayout, Refusal
from spec.kafka import (
    actions,
    alter,
    disabled,
    durability,
    elr,
    fetching,
    flight,
    membership,
    picture,
    progress,
    symmetry,
)
from spec.kafka.config import Config
from spec.kafka.labels import Labels
from spec.kafka.state import (
    ALIVE,
    C_EPOCH,
    C_ISR,
    C_LEADER,
    CONTROLLER,
    G_COMMITTED,
    G_NEXT_ID,
    GHOST,
    HW,
    LOG,
    REPLICAS,
    V_EPOCH,
    V_ISR,
    V_LEADER,
    VIEW,
    initial_state,
)
from spec.tuples import LastTwo

if TYPE_CHECKING:
    from spec.kafka.native import Codec

ACTIONS = (
    ("Produce", actions.produce),
    ("Fetch", actions.fetch),
    ("ShrinkIsr", actions.shrink_isr),
    ("ExpandIsr", actions.expand_isr),
    ("ControllerShrinkIsr", membership.controller_shrink_isr),
    ("Elect", membership.elect),
    ("UncleanElect", membership.unclean_elect),
    ("Crash", membership.crash),
    ("Restart", membership.restart),
    ("BecomeLeader", membership.become_leader),
    ("BecomeFollower", membership.become_follower),
)
"""Every action, in the fixed order successors are generated."""

ELR_ACTIONS = (("UncleanRecovery", elr.unclean_recovery),)
"""Appended to ``ACTIONS`` with the elr mechanism (KIP-966's unclean recovery)."""

SPLIT_FETCH_ACTIONS = (
    ("FetchRequest", flight.fetch_request),
    ("FetchResponse", flight.fetch_response),
)
"""Replace ``Fetch`` (at its place) with the ``split-fetch`` mechanism."""

LOSE_RESPONSE_ACTIONS = (("LoseResponse", flight.lose_response),)
"""Follow ``SPLIT_FETCH_ACTIONS`` with ``--max-lost-responses`` above 0."""

ASYNC_ISR_ACTIONS = (
    ("ShrinkIsr", alter.shrink_isr),
    ("ExpandIsr", alter.expand_isr),
    ("AlterPartition", alter.alter_partition),
)
"""Replace ``ShrinkIsr`` and ``ExpandIsr`` (at their place) with the ``async-isr``
mechanism."""


DURABILITY_ACTIONS = (
    ("Flush", durability.flush),
    ("UncleanShutdown", durability.unclean_shutdown),
)
"""Appended to ``ACTIONS`` when unclean shutdowns are possible (``Config.durability``)."""

_get_log = itemgetter(LOG)
_get_hw = itemgetter(HW)

_EVENTS = {
    "Crash": "crash",
    "UncleanShutdown": "crash",
    "Restart": "restart",
    "Elect": "election",
    "UncleanElect": "election",
    "UncleanRecovery": "election",
}


TRUNCATE_ACTIONS = (("TruncateOnFetchResponse", fetching.truncate_on_fetch_response),)
"""Follow the fetch actions with ``hw-before-truncation`` (KAFKA-14704's window)."""


def model_actions(
    split_fetch: bool,
    max_lost_responses: int,
    async_isr: bool = False,
    truncate_on_fetch: bool = False,
    hw_before_truncation: bool = False,
) -> tuple[Any, ...]:
    """``ACTIONS``, with ``Fetch`` replaced by ``SPLIT_FETCH_ACTIONS`` (and then
    ``LOSE_RESPONSE_ACTIONS`` when responses may be lost) under the ``split-fetch``
    mechanism, and ``ShrinkIsr`` / ``ExpandIsr`` by ``ASYNC_ISR_ACTIONS`` under
    ``async-isr``. With ``truncate_on_fetch`` the fetch actions are ``spec.kafka.fetching``'s,
    followed, with ``hw_before_truncation``, by ``TRUNCATE_ACTIONS``."""
    names = [name for name, _ in ACTIONS]
    chosen: tuple[Any, ...] = ACTIONS
    if async_isr:
        at = names.index("ShrinkIsr")
        chosen = chosen[:at] + ASYNC_ISR_ACTIONS + chosen[at + 2 :]
    at = names.index("Fetch")
    fetches: tuple[Any, ...] = (chosen[at],)
    if split_fetch:
        fetches = SPLIT_FETCH_ACTIONS + (LOSE_RESPONSE_ACTIONS if max_lost_responses else ())
    if truncate_on_fetch:
        request = fetching.fetch_request if split_fetch else fetching.fetch
        fetches = ((fetches[0][0], request),) + fetches[1:]
        fetches += TRUNCATE_ACTIONS if hw_before_truncation else ()
    return chosen[:at] + fetches + chosen[at + 1 :]


class KafkaSpec(ActionSpec):
    """The Kafka replication model (protocol.md) under ``config``.

    Raises ``spec.kafka.ConfigError`` if the config is impossible (see ``Config.validate``).
    """

    replica_args = ("replica", "leader", "follower")
    """The label arguments that name replicas (``checker.liveness.orbits``)."""

    name = "kafka"
    default_symmetry = True
    """Replicas are interchangeable (``spec.kafka.symmetry``): ``explore`` reduces by symmetry
    unless told ``--no-symmetry``."""
    replica_keys = staticmethod(symmetry.replica_keys)
    permute = staticmethod(symmetry.permute)

    def __init__(self, config: Config | None = None) -> None:
        self.config = (config or Config()).validate()
        self.variant = self.config.variant
        self.variant_name = self.variant.name
        self.hw_min_isr = self.config.min_isr if self.variant.strict_min_isr else 1
        """The ISR size a leader's HW needs to advance (``state.leader_hw``; KIP-966)."""
        self.produce_min_isr = self.config.min_isr if self.config.acks == "all" else 1
        """The ISR size a leader needs to take a write (min.insync.replicas with acks=all)."""
        self.labels = Labels(self.config.replicas, self.config.max_epoch)
        self.durable = self.config.durability
        self._cut = progress.make_cut(
            self.config.max_epoch, self.variant.elr, self.config.unclean_election
        )
        """The state has the ``durable`` component (unclean shutdowns are possible)."""
        variant = self.variant
        self.alter_at: int | None = GHOST + 1 + self.durable if variant.async_isr else None
        """The index of the state's ``alter`` component (``async-isr``), or None."""
        self.fetcher_at: int | None = (
            GHOST + 1 + self.durable + variant.async_isr if variant.fetcher_state else None
        )
        """The index of the state's ``fetcher`` component (``Variant.fetcher_state``), or
        None."""
        self.set_actions(
            model_actions(
                variant.split_fetch,
                self.config.max_lost_responses,
                variant.async_isr,
                variant.truncate_on_fetch,
                variant.hw_before_truncation,
            )
            + (ELR_ACTIONS if self.variant.elr else ())
            + (DURABILITY_ACTIONS if self.config.durability else ())
        )
        if variant.split_fetch or variant.async_isr or variant.fetcher_state:  # the layout
            split, at, fat = variant.split_fetch, self.alter_at, self.fetcher_at
            self.replica_keys = partial(
                symmetry.replica_keys, split_fetch=split, alter_at=at, fetcher_at=fat
            )
            self.permute = partial(symmetry.permute, split_fetch=split, alter_at=at, fetcher_at=fat)
        self.symmetric_ids = self.config.replicas
        # the invariants ask about the same few states many times in a row (every transition
        # from one state shares its ``before``): remember the last two answers
        self._logs = LastTwo(lambda replicas: tuple(map(_get_log, replicas)))
        self._hws = LastTwo(lambda replicas: tuple(map(_get_hw, replicas)))
        self._acked = LastTwo(self._acked_of)  # successors share their parent's ghost
        self._leaders = LastTwo(
            lambda replicas: [
                (r, rep[VIEW][V_ISR])
                for r, rep in enumerate(replicas)
                if rep[ALIVE] and rep[VIEW][V_LEADER] == r
            ]
        )

    # -- checker.model.Spec -----------------------------------------------------------------
    def compiled_model(self, layout: LabelLayout) -> tuple[Codec | None, str]:
        """``(its compiled core's codec, "")`` (``spec.kafka.native``), or ``(None, why
        not)``: a truncation rule of the team's own (named by its file), bounds past the
        core's."""
        from spec.kafka import native

        why = native.unsupported(self)
        if why is None:
            return native.codec(self, layout), ""
        variant_file = self.config.variant_file
        if variant_file and why.startswith("user variant"):
            why = f"user variant {Path(variant_file).name}"
        return None, why

    def liveness(self) -> list[Any]:
        """The progress properties (``spec.kafka.progress``)."""
        return progress.properties(self.variant.elr)

    def fairness(self) -> tuple[Any, ...]:
        """The default fairness (``spec.kafka.progress.fairness``)."""
        return progress.fairness(self.action_names())

    def conditions(self) -> dict[str, Any]:
        """Named state conditions for ``Fairness.when``."""
        return progress.conditions()

    def cut(self, state: tuple[Any, ...]) -> str | None:
        """Where the epoch budget, not Kafka, stops progress (``spec.kafka.progress``)."""
        why: str | None = self._cut(state)
        return why

    perturbations = progress.PERTURBATIONS

    def init_states(self) -> list[tuple[Any, ...]]:
        """The single initial state (``spec.kafka.state.initial_state``)."""
        config = self.config
        return [
            initial_state(
                config.replicas,
                config.durability,
                config.flush == "always",
                self.variant.elr,
                self.variant.split_fetch,
                self.variant.async_isr,
                self.variant.fetcher_state,
            )
        ]

    def why_disabled(self, state: tuple[Any, ...], label: Label) -> Refusal | None:
        """Which guard keeps ``label`` from being enabled in ``state`` (``spec.kafka.disabled``);
        None when it is enabled."""
        if any(lab == label for lab, _ in self.successors(state)):
            return None
        return disabled.why_disabled(self, state, label)

    def config_dict(self) -> dict[str, Any]:
        """The bounds, as written into reports."""
        return self.config.to_dict()

    def view(self, state: tuple[Any, ...]) -> dict[str, Any]:
        """A JSON-friendly picture of a state (``spec.kafka.picture.picture``)."""
        return picture.picture(self, state)

    # -- invariants.access.Replication ------------------------------------------------------
    # (map/itemgetter rather than generator expressions: these run on every transition)
    def logs(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """Per replica, its log: a tuple of records ``(id, epoch)``."""
        logs: tuple[Any, ...] = self._logs.get(state[REPLICAS])
        return logs

    def hws(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """Per replica, its HW (offset, exclusive)."""
        hws: tuple[Any, ...] = self._hws.get(state[REPLICAS])
        return hws

    def presumed_leaders(self, state: tuple[Any, ...]) -> list[tuple[int, tuple[Any, ...]]]:
        """``(replica, its cached ISR)`` for every live replica that presumes leadership."""
        leaders: list[tuple[int, tuple[Any, ...]]] = self._leaders.get(state[REPLICAS])
        return leaders

    def quorum(self, state: tuple[Any, ...]) -> tuple[int | None, int, tuple[Any, ...]]:
        """The controller's ``(leader, epoch, isr)``."""
        ctrl = state[CONTROLLER]
        return ctrl[C_LEADER], ctrl[C_EPOCH], ctrl[C_ISR]

    def committed(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """Ghost: every ``(offset, record id)`` ever committed."""
        committed: tuple[Any, ...] = state[GHOST][G_COMMITTED]
        return committed

    def acked(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """Ghost: the ids of every record the producer was told was written. With acks=1 a
        write is acknowledged on the leader's append, so every record produced; with
        acks=all once committed (a leader's HW passed it; Kafka's ``DelayedProduce``)."""
        acked: tuple[Any, ...] = self._acked.get(state[GHOST])
        return acked

    def _acked_of(self, ghost: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.config.acks == "1":
            return tuple(range(ghost[G_NEXT_ID]))
        return tuple(sorted({rid for _, rid in ghost[G_COMMITTED]}))

    def epochs(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """``(controller epoch, epoch of replica 0, ...)``, None for a replica that is down."""
        return (
            state[CONTROLLER][C_EPOCH],
            *[rep[VIEW][V_EPOCH] if rep[ALIVE] else None for rep in state[REPLICAS]],
        )

    def event(self, label: Label) -> str | None:
        """``crash``, ``restart`` or ``election`` for labels of those kinds, else None."""
        return _EVENTS.get(label.action)
