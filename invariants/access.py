"""The read-only accessors a model provides so that each invariant is stated once.

Both hwcheck models have logs, HWs, leaders and ISRs; an invariant reads them through this
protocol rather than through a model's tuple layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from checker.model import Label

Record = tuple[int, int]  # (record id, epoch); compared as a whole


class Replication(Protocol):
    """What the invariants read off a state.

    - ``logs(s)``: per replica (index = replica id), its log as a tuple of records.
    - ``hws(s)``: per replica, its HW (offset, exclusive).
    - ``presumed_leaders(s)``: ``(replica, cached ISR)`` for every live replica that believes
      it leads, stale ones included.
    - ``quorum(s)``: the controller's ``(leader or None, epoch, isr)``.
    - ``committed(s)``: ghost ``(offset, record id)`` pairs ever committed, or None when the
      model keeps no such history (then NoCommittedLoss is not offered).
    - ``epochs(s)``: the controller's epoch followed by each replica's leader epoch (None
      while it is down), as one tuple. It runs on every transition, so it should be cheap.
    - ``event(label)``: ``"crash"``, ``"restart"``, ``"election"`` or None.
    """

    def logs(self, s: tuple[Any, ...]) -> Sequence[Sequence[Record]]: ...

    def hws(self, s: tuple[Any, ...]) -> Sequence[int]: ...

    def presumed_leaders(self, s: tuple[Any, ...]) -> Sequence[tuple[int, Sequence[int]]]: ...

    def quorum(self, s: tuple[Any, ...]) -> tuple[int | None, int, Sequence[int]]: ...

    def committed(self, s: tuple[Any, ...]) -> Sequence[tuple[int, int]] | None: ...

    def epochs(self, s: tuple[Any, ...]) -> tuple[int | None, ...]: ...

    def event(self, label: Label) -> str | None: ...


class Acknowledged(Replication, Protocol):
    """A ``Replication`` that also records acknowledgements (the Kafka model does; the TLA+
    port does not).

    - ``acked(s)``: ghost ids of every record the producer was told was written (a model
      with ``committed`` history has it; NoAckedLoss reads it).
    """

    def acked(self, s: tuple[Any, ...]) -> Sequence[int]: ...
