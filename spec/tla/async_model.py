"""``AsyncIsrSpec``: the public spec's AsyncIsr module (``spec.tla.async_isr``) as a
``checker.model.Spec``, with its one invariant, ``ValidHighWatermark``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checker.model import ActionSpec, Label, LabelLayout
from checker.properties import INVARIANT, Property
from spec.tla import async_isr as m
from spec.tla.config import TlaConfig

if TYPE_CHECKING:
    from spec.tla.native.async_codec import Codec


class _Labels:
    """The labels with a replica argument, built once (the message-carrying ones,
    ``ControllerHandleRequest`` and ``LeaderHandleUpdate``, are built as they come)."""

    def __init__(self, n: int) -> None:
        def one(action: str) -> list[Label]:
            return [Label(action, (("replica", r),)) for r in range(n)]

        self.controller_shrink = one("ControllerShrinkIsr")
        self.leader_shrink = one("LeaderRequestShrinkIsr")
        self.leader_expand = one("LeaderRequestExpandIsr")
        self.replicate = one("FollowerReplicate")
        self.write = Label("LeaderWrite")


def properties() -> list[Property]:
    """``ValidHighWatermark`` (the module's invariant). Its ``TypeOk`` is not offered: it is
    false at ``Init``, where ``pendingVersion`` is Nil (-1), not a Nat."""
    return [
        Property(
            "ValidHighWatermark",
            "Every member of the controller's ISR has an offset at least the leader's high "
            "watermark (min offset over its ISR and pending ISR).",
            INVARIANT,
            m.valid_high_watermark,
        )
    ]


class AsyncIsrSpec(ActionSpec):
    """The AsyncIsr module under ``config`` (``replicas``, ``max_offset``, ``max_version``;
    the leader is replica 0). Raises ``ConfigError`` for impossible constants."""

    name = "tla"
    default_symmetry = False
    """No symmetry: the leader is fixed, and plain counts are TLC's."""
    no_symmetry = "AsyncIsr's Leader is one fixed replica, so replicas are not interchangeable"
    """Why ``--symmetry`` is refused (``checker.symmetry.for_spec``)."""

    def __init__(self, config: TlaConfig | None = None) -> None:
        self.config = (config or TlaConfig(truncation="async-isr")).validate()
        self.labels = _Labels(self.config.replicas)
        self.next_actions = m.NEXT
        self.set_actions(m.NEXT)

    def compiled_model(self, layout: LabelLayout) -> tuple[Codec | None, str]:
        """``(its compiled core's codec, "")`` (``spec.tla.native.async_codec``), or ``(None,
        why not)``: bounds past the core's."""
        from spec.tla.native import async_codec

        why = async_codec.unsupported(self)
        return (None, why) if why else (async_codec.codec(self, layout), "")

    def init_states(self) -> list[tuple[Any, ...]]:
        """The module's single initial state."""
        return [m.initial_state(self.config.replicas)]

    def config_dict(self) -> dict[str, Any]:
        """The constants, as written into reports."""
        return self.config.to_dict()

    def view(self, state: tuple[Any, ...]) -> dict[str, Any]:
        """The picture every viewer draws: the module has no logs, so replica ``r``'s log is
        its offset drawn as records ``m0 .. m<offset-1>`` (one leader, no truncation: the
        record at an offset is the same everywhere); the leader's HW is ``HighWatermark``, a
        follower's 0 (the module has none); the leader's ISR, pending ISR and versions; the
        controller's ISR and version (its "epoch" is 0: the leader never changes)."""
        hw = m.high_watermark(state)
        replicas = []
        for r, offset in enumerate(state[m.OFFSETS]):
            leads = r == m.LEADER
            replicas.append(
                {
                    "replica": r,
                    "alive": True,
                    "role": "leader" if leads else "follower",
                    "leader": m.LEADER,
                    "epoch": 0,
                    "isr": list(state[m.ISR]) if leads else [],
                    "log": [[o, 0] for o in range(offset)],
                    "hw": hw if leads else 0,
                    "leo": offset,
                    "remote_leo": [],
                }
            )
        replicas[m.LEADER]["pending_isr"] = list(state[m.PENDING_ISR])
        replicas[m.LEADER]["version"] = state[m.VERSION]
        replicas[m.LEADER]["pending_version"] = state[m.PENDING_VERSION]
        return {
            "replicas": replicas,
            "controller": {
                "epoch": 0,
                "leader": m.LEADER,
                "isr": list(state[m.C_ISR]),
                "version": state[m.C_VERSION],
            },
            "requests": [{"isr": list(i), "version": v} for i, v in state[m.REQUESTS]],
            "updates": [{"isr": list(i), "version": v} for i, v in state[m.UPDATES]],
            "committed": [],
        }

    def event(self, label: Label) -> str | None:
        """No crashes, restarts or elections."""
        return None
