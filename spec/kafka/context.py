"""What an action module reads of the model that gathers it: ``spec.kafka.model.KafkaSpec``
is the one class that has these fields. The action, refusal and picture modules name this
protocol in their annotations instead of the class, so none of them imports the module that
imports them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from spec.kafka.config import Config
from spec.kafka.labels import Labels
from spec.kafka.variants import Variant


class ModelContext(Protocol):
    """The model's bounds and switches as the actions read them (``KafkaSpec.__init__`` sets
    each and says where it comes from)."""

    config: Config
    variant: Variant
    variant_name: str
    labels: Labels
    hw_min_isr: int
    """The ISR size a leader's HW needs to advance (KIP-966's strict min ISR, else 1)."""
    produce_min_isr: int
    """The ISR size a leader needs to take a write (min.insync.replicas with acks=all)."""
    durable: bool
    """The state has the ``durable`` component (unclean shutdowns are possible)."""
    alter_at: int | None
    """The index of the state's ``alter`` component (``async-isr``), or None."""
    fetcher_at: int | None
    """The index of the state's ``fetcher`` component, or None."""

    def action_names(self) -> Sequence[str]: ...

    def acked(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """The ids of the records the producer was told were written (a ghost)."""
        ...
