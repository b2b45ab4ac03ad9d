"""Constants of the TLA+ model: Replicas, LogSize, MaxRecords, MaxLeaderEpoch, the variant."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from spec.bounds import require_non_negative, require_replicas, resolve_variant

TLA_VARIANTS = ("hw", "kip101", "kip279", "kip320-first-try", "kip320", "kip320-kip279")
"""Which module's Next relation: KafkaTruncateToHighWatermark, Kip101, Kip279,
Kip320FirstTry, Kip320, and Kip320 with its fenced truncation replaced by Kip279's (the
experiment Kip320's own comment describes)."""

TLA_ALIASES = {"epoch": "kip320"}

TLA_MAX_REPLICAS = 5
"""The TLA+ port's largest ``Replicas`` set."""


@dataclass(frozen=True)
class TlaConfig:
    """The spec's constants: ``replicas`` (the size of the model-value set ``Replicas``),
    ``log_size`` (``LogSize``: slots per log), ``max_records`` (``MaxRecords``: record ids
    0..MaxRecords-1), ``max_epoch`` (``MaxLeaderEpoch``: epochs 0..MaxLeaderEpoch; every
    controller action uses one), ``truncation`` (one of ``TLA_VARIANTS``)."""

    replicas: int = 2
    log_size: int = 2
    max_records: int = 2
    max_epoch: int = 2
    truncation: str = "kip320"

    def validate(self) -> TlaConfig:
        """The config with the alias resolved; raises ``ConfigError`` naming the option."""
        require_replicas(self.replicas, TLA_MAX_REPLICAS)
        require_non_negative(
            (
                ("--log-size", self.log_size),
                ("--max-records", self.max_records),
                ("--max-epoch", self.max_epoch),
            )
        )
        truncation = resolve_variant(
            self.truncation, TLA_VARIANTS, TLA_ALIASES, " with --model tla"
        )
        return replace(self, truncation=truncation)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return asdict(self)
