"""Bounds and switches of the Kafka model, and their validation."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from spec.bounds import ConfigError, require_non_negative, require_replicas, resolve_variant

TRUNCATION_VARIANTS = ("hw", "kip101", "kip279", "kip320")
"""The truncation rules, oldest first (see ``spec.kafka.variants``)."""

ALIASES = {"epoch": "kip320"}
"""``epoch`` names the fenced protocol Kafka runs today (KIP-320)."""

MAX_REPLICAS = 7
"""The kafka model's largest replication factor (exhaustive search is practical to 3 or 4;
``hwcheck simulate`` reaches 7)."""


@dataclass(frozen=True)
class Config:
    """Bounds of one exploration.

    - ``replicas``: replication factor N (replica ids 0..N-1), 1..7.
    - ``max_records``: producer writes over the whole run (record ids 0..max_records-1).
    - ``max_epoch``: the largest leader epoch. Every controller decision (election or ISR
      shrink after a failure) takes the next epoch, starting at 0, so there are at most
      ``max_epoch + 1`` of them.
    - ``max_crashes``: broker crashes over the whole run.
    - ``min_isr``: ``min.insync.replicas``; with ``acks=all`` a leader accepts a write only
      while its ISR has at least this many members (1..replicas).
    - ``unclean_election``: ``unclean.leader.election.enable``.
    - ``truncation``: the follower truncation rule, one of ``TRUNCATION_VARIANTS``
      (``epoch`` is accepted as an alias of ``kip320``).

    The defaults are the ones ``hwcheck explore`` uses; README.md says how they were chosen.
    """

    replicas: int = 3
    max_records: int = 2
    max_epoch: int = 2
    max_crashes: int = 1
    min_isr: int = 1
    unclean_election: bool = False
    truncation: str = "kip320"

    def validate(self) -> Config:
        """Return the config with the truncation alias resolved.

        Raises ``ConfigError`` naming the option and its allowed range when a bound is
        impossible (e.g. ``replicas`` 0, ``min_isr`` above ``replicas``, a negative bound or an
        unknown truncation variant).
        """
        require_replicas(self.replicas, MAX_REPLICAS)
        require_non_negative((("--max-records", self.max_records),
                              ("--max-epoch", self.max_epoch),
                              ("--max-crashes", self.max_crashes)))
        if not 1 <= self.min_isr <= self.replicas:
            raise ConfigError("--min-isr", f"--min-isr must be between 1 and --replicas "
                                           f"({self.replicas}), got {self.min_isr}")
        truncation = resolve_variant(self.truncation, TRUNCATION_VARIANTS, ALIASES)
        return replace(self, truncation=truncation)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form, as written into reports."""
        return asdict(self)
