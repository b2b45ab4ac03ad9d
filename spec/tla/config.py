"""Constants of the TLA+ model: Replicas, LogSize, MaxRecords, MaxLeaderEpoch, the variant."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from spec.bounds import require_within, resolve_variant

TLA_VARIANTS = ("hw", "kip101", "kip279", "kip320-first-try", "kip320", "kip320-kip279")
"""Which module's Next relation: KafkaTruncateToHighWatermark, Kip101, Kip279,
Kip320FirstTry, Kip320, and Kip320 with its fenced truncation replaced by Kip279's (the
experiment Kip320's own comment describes)."""

TLA_MODULES = (*TLA_VARIANTS, "async-isr")
"""Every ``--truncation`` of ``--model tla``: the KafkaReplication variants, then AsyncIsr
(KIP-497's asynchronous ISR changes with a fixed leader; ``spec.tla.async_isr``), which has
other variables, other constants and its own invariant, so ``compare`` leaves it out."""

ASYNC_ISR = "async-isr"

TLA_ALIASES = {"epoch": "kip320"}

TLA_MAX_REPLICAS = 5
"""The TLA+ port's largest ``Replicas`` set."""


TLA_LIMITS = {
    "replicas": (1, TLA_MAX_REPLICAS),
    "log_size": (0, 8),
    "max_records": (0, 100),
    "max_epoch": (0, 14),
    "max_offset": (1, 100),
    "max_version": (0, 14),
}
"""Each constant's range, inclusive: what the compiled core's tables hold (``tla.h``:
``MAXN``, ``MAXL``, ``MAXE``; ``state.c`` and ``async_isr.c`` refuse the rest); the reference
core is held to the same. ``hwcheck list`` shows them."""


@dataclass(frozen=True)
class TlaConfig:
    """The spec's constants: ``replicas`` (the size of the model-value set ``Replicas``),
    ``log_size`` (``LogSize``: slots per log), ``max_records`` (``MaxRecords``: record ids
    0..MaxRecords-1), ``max_epoch`` (``MaxLeaderEpoch``: epochs 0..MaxLeaderEpoch; every
    controller action uses one), ``truncation`` (one of ``TLA_MODULES``); AsyncIsr's
    ``max_offset`` (``MaxOffset``) and ``max_version`` (the bound on the controller's
    version), its state constraint."""

    replicas: int = 2
    log_size: int = 2
    max_records: int = 2
    max_epoch: int = 2
    truncation: str = "kip320"
    max_offset: int = 2
    max_version: int = 3

    def validate(self) -> TlaConfig:
        """The config with the alias resolved; raises ``ConfigError`` naming the option."""
        require_within(  # MaxOffset >= 1: AsyncIsr ASSUMEs MaxOffset > 0
            (f"--{k.replace('_', '-')}", getattr(self, k), TLA_LIMITS[k]) for k in TLA_LIMITS
        )
        truncation = resolve_variant(self.truncation, TLA_MODULES, TLA_ALIASES, " with --model tla")
        return replace(self, truncation=truncation)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form: the constants of the chosen module only."""
        async_only = ("max_offset", "max_version")
        if self.truncation == ASYNC_ISR:
            return {
                k: v
                for k, v in asdict(self).items()
                if k in ("replicas", "truncation", *async_only)
            }
        return {k: v for k, v in asdict(self).items() if k not in async_only}
