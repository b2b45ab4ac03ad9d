"""The read-only accessors a model provides so that each invariant is stated once.

Both hwcheck models have logs, HWs, leaders and ISRs; an invariant reads them through this
protocol rather than through a model's tuple layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from checker.model import Label

Record = tuple  # (record id, epoch); compared as a whole


class Replication(Protocol):
    """What the invariants read off a state.

    - ``logs(s)``: per replica (index = replica id), its log as a tuple of records.
    - ``hws(s)``: per replica, its HW (offset, exclusive).
    - ``presumed_leaders(s)``: ``(replica, cached ISR)`` for every live replica that believes
      it leads, stale ones included.
    - ``quorum(s)``: the controller's ``(leader or None, epoch, isr)``.
    - ``committed(s)``: ghost ``(offset, record id)`` pairs ever committed, or None when the
      model keeps no such history (then NoCommittedLoss is not offered).
    - ``replica_epochs(s)``: per replica, its leader epoch, or None while it is down.
    - ``event(label)``: ``"crash"``, ``"restart"``, ``"election"`` or None.
    - ``log(s, r)``, ``replica_epoch(s, r)``: one replica's log, and its epoch (None while
      down).
    - ``changed_replicas(before, after)``: ids of the replicas whose state differs between the
      two states (may over-approximate; it runs on every transition, so it should be cheap).
    """

    def logs(self, s) -> Sequence[Sequence[Record]]: ...

    def hws(self, s) -> Sequence[int]: ...

    def presumed_leaders(self, s) -> Sequence[tuple[int, Sequence[int]]]: ...

    def quorum(self, s) -> tuple[int | None, int, Sequence[int]]: ...

    def committed(self, s) -> Sequence[tuple[int, int]] | None: ...

    def replica_epochs(self, s) -> Sequence[int | None]: ...

    def event(self, label: Label) -> str | None: ...

    def changed_replicas(self, before, after) -> Sequence[int]: ...

    def log(self, s, r: int) -> Sequence[Record]: ...

    def replica_epoch(self, s, r: int) -> int | None: ...
