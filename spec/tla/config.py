"""Constants of the TLA+ model: Replicas, LogSize, MaxRecords, MaxLeaderEpoch, the variant."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from spec.kafka.config import MAX_REPLICAS, ConfigError

TLA_VARIANTS = ("hw", "kip101", "kip279", "kip320-first-try", "kip320", "kip320-kip279")
"""Which module's Next relation: KafkaTruncateToHighWatermark, Kip101, Kip279,
Kip320FirstTry, Kip320, and Kip320 with its fenced truncation replaced by Kip279's (the
experiment Kip320's own comment describes)."""

TLA_ALIASES = {"epoch": "kip320"}


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
        if not 1 <= self.replicas <= MAX_REPLICAS:
            raise ConfigError("--replicas", f"--replicas must be between 1 and {MAX_REPLICAS}, "
                                            f"got {self.replicas}")
        for option, value in (("--log-size", self.log_size), ("--max-records", self.max_records),
                              ("--max-epoch", self.max_epoch)):
            if value < 0:
                raise ConfigError(option, f"{option} must be 0 or more, got {value}")
        truncation = TLA_ALIASES.get(self.truncation, self.truncation)
        if truncation not in TLA_VARIANTS:
            allowed = ", ".join(TLA_VARIANTS + tuple(TLA_ALIASES))
            raise ConfigError("--truncation", f"--truncation must be one of {allowed} with "
                                              f"--model tla, got {self.truncation!r}")
        return replace(self, truncation=truncation)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return asdict(self)
