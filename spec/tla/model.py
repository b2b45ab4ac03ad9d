"""``TlaSpec``: the port of the public TLA+ spec as a ``checker.model.Spec``.

Actions are named after the TLA+ operators; labels carry the operator's bound variables.
Replicas are plain ids 0..N-1; by default no symmetry is applied, so the distinct-state counts
are those TLC reports for the same constants (with ``--symmetry``, TLC's counts under
``SYMMETRY Permutations(Replicas)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checker.model import ActionSpec, Label, LabelLayout
from spec.tla import actions as a
from spec.tla import fenced as f
from spec.tla import liveness as live
from spec.tla import symmetry
from spec.tla.config import TlaConfig
from spec.tla.labels import Labels
from spec.tla.state import (
    EPOCH,
    HW,
    ISR,
    LEADER,
    LOGS,
    NEXT_EPOCH,
    NEXT_ID,
    QUORUM,
    REQUESTS,
    RSTATES,
    initial_state,
)

if TYPE_CHECKING:
    from spec.tla.native import Codec

SHARED = [
    ("ControllerElectLeader", a.controller_elect_leader),
    ("ControllerShrinkIsr", a.controller_shrink_isr),
    ("BecomeLeader", a.become_leader),
]
UNFENCED = [
    ("LeaderExpandIsr", a.leader_expand_isr),
    ("LeaderShrinkIsr", a.leader_shrink_isr),
    ("LeaderWrite", a.leader_write),
    ("LeaderIncHighWatermark", a.leader_inc_high_watermark),
]
FENCED = [
    ("FencedLeaderExpandIsr", f.fenced_expand_isr),
    ("FencedLeaderShrinkIsr", f.fenced_shrink_isr),
    ("LeaderWrite", a.leader_write),
    ("FencedLeaderIncHighWatermark", f.fenced_inc_high_watermark),
]

NEXT = {
    "hw": SHARED
    + UNFENCED
    + [
        ("BecomeFollowerTruncateToHighWatermark", a.truncate_to_high_watermark),
        ("FollowerReplicate", a.follower_replicate),
    ],
    "kip101": SHARED
    + UNFENCED
    + [
        ("BecomeFollowerTruncateKip101", a.truncate_kip101),
        ("FollowerReplicate", a.follower_replicate),
    ],
    "kip279": SHARED
    + UNFENCED
    + [
        ("BecomeFollowerTruncateKip279", a.truncate_kip279),
        ("FollowerReplicate", a.follower_replicate),
    ],
    "kip320-first-try": SHARED
    + [
        ("LeaderExpandIsrBetterFencing", f.first_try_expand_isr),
        ("LeaderShrinkIsrBetterFencing", f.first_try_shrink_isr),
        ("LeaderWrite", a.leader_write),
        ("ImprovedLeaderIncHighWatermark", f.first_try_inc_high_watermark),
        ("BecomeFollower", f.first_try_become_follower),
        ("FollowerFetch", f.first_try_fetch),
        ("FollowerTruncate", f.first_try_truncate),
    ],
    "kip320": SHARED
    + FENCED
    + [
        ("FencedBecomeFollowerAndTruncate", f.fenced_become_follower),
        ("FencedFollowerFetch", f.fenced_follower_fetch),
    ],
    "kip320-kip279": SHARED
    + FENCED
    + [
        ("BecomeFollowerTruncateKip279", a.truncate_kip279),
        ("FencedFollowerFetch", f.fenced_follower_fetch),
    ],
}
"""Each variant's ``Next``: the disjuncts of its module, in the module's order of names."""


def _names(next_actions: list[Any]) -> dict[str, str]:
    """Operator names of the variant's HW, ISR, fetch and become-follower actions."""
    names = [name for name, _ in next_actions]

    def pick(*words: Any) -> Any:
        return next(n for n in names if all(w in n for w in words))

    return {
        "inc_hw": pick("HighWatermark"),
        "shrink": pick("ShrinkIsr", "Leader"),
        "expand": pick("ExpandIsr"),
        "fetch": pick("Follower", "Fetch")
        if any("Fetch" in n for n in names)
        else "FollowerReplicate",
        "follow": next(
            n for n in names if n.startswith(("BecomeFollower", "FencedBecomeFollower"))
        ),
    }


class TlaSpec(ActionSpec):
    """The public TLA+ spec under ``config``; raises ``ConfigError`` for impossible
    constants (``TlaConfig.validate``)."""

    name = "tla"
    default_symmetry = False
    """Off by default so that plain counts are TLC's; ``--symmetry`` gives TLC's counts under
    ``SYMMETRY Permutations(Replicas)`` (``spec.tla.symmetry``)."""
    replica_keys = staticmethod(symmetry.replica_keys)
    permute = staticmethod(symmetry.permute)
    replica_args = ("newLeader", "replica", "leader", "follower")
    """The label arguments that name replicas (``checker.liveness.orbits``)."""

    def __init__(self, config: TlaConfig | None = None) -> None:
        self.config = (config or TlaConfig()).validate()
        self.next_actions = NEXT[self.config.truncation]
        self.labels = Labels(self.config.replicas, self.config.max_epoch, _names(self.next_actions))
        self.set_actions(self.next_actions)  # the variant's Next disjuncts
        self.symmetric_ids = self.config.replicas

    def compiled_model(self, layout: LabelLayout) -> tuple[Codec | None, str]:
        """``(its compiled core's codec, "")`` (``spec.tla.native``), or ``(None, why not)``:
        bounds past the core's."""
        from spec.tla import native

        why = native.unsupported(self)
        return (None, why) if why else (native.codec(self, layout), "")

    def liveness(self) -> list[Any]:
        """The liveness properties (``spec.tla.liveness``)."""
        return live.properties()

    def fairness(self) -> tuple[Any, ...]:
        """The fairness of the variant's module ``Spec`` (``spec.tla.liveness``)."""
        return live.fairness(_names(self.next_actions))

    perturbations = live.PERTURBATIONS

    def init_states(self) -> list[tuple[Any, ...]]:
        """The spec's single initial state."""
        return [initial_state(self.config.replicas)]

    def config_dict(self) -> dict[str, Any]:
        """The constants, as written into reports."""
        return self.config.to_dict()

    def view(self, state: tuple[Any, ...]) -> dict[str, Any]:
        """The same picture as the Kafka model's view (replicas, controller), so one viewer
        draws both; the TLA+ model has no crashes, so every replica is up."""
        replicas = []
        for r, (log, (hw, epoch, leader, isr)) in enumerate(
            zip(state[LOGS], state[RSTATES], strict=True)
        ):
            role = "leader" if leader == r else "follower" if leader is not None else "no leader"
            replicas.append(
                {
                    "replica": r,
                    "alive": True,
                    "role": role,
                    "leader": leader,
                    "epoch": epoch,
                    "isr": list(isr),
                    "log": [list(x) for x in log],
                    "hw": hw,
                    "leo": len(log),
                    "remote_leo": [],
                }
            )
        epoch, leader, isr = state[QUORUM]
        return {
            "replicas": replicas,
            "controller": {"epoch": epoch, "leader": leader, "isr": list(isr)},
            "requests": [
                {"epoch": e, "leader": ld, "isr": list(i)} for e, ld, i in state[REQUESTS]
            ],
            "next_record_id": state[NEXT_ID],
            "next_leader_epoch": state[NEXT_EPOCH],
            "committed": [],
        }

    # -- invariants.access.Replication ------------------------------------------------------
    def logs(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """Per replica, its log."""
        logs: tuple[Any, ...] = state[LOGS]
        return logs

    def hws(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """Per replica, its HW."""
        return tuple(rs[HW] for rs in state[RSTATES])

    def presumed_leaders(self, state: tuple[Any, ...]) -> list[tuple[int, tuple[Any, ...]]]:
        """``(replica, cached ISR)`` for every replica with ``leader = self`` (no crashes)."""
        return [(r, rs[ISR]) for r, rs in enumerate(state[RSTATES]) if rs[LEADER] == r]

    def quorum(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """The quorum's ``(leader, epoch, isr)``."""
        epoch, leader, isr = state[QUORUM]
        return leader, epoch, isr

    def committed(self, state: tuple[Any, ...]) -> None:
        """The spec keeps no history of committed records."""
        return

    def epochs(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """``(quorum epoch, each replica's epoch)``."""
        return (state[QUORUM][0], *[rs[EPOCH] for rs in state[RSTATES]])

    def event(self, label: Label) -> str | None:
        """Elections are ControllerElectLeader; there are no crashes or restarts."""
        return "election" if label.action == "ControllerElectLeader" else None
