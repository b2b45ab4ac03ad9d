"""The TLA+ port's compiled core: its C sources and the codec between the port's states
(``spec.tla.state``) and the compiled core's rows.

``state.c`` (row, marshal encoding, canonical form), ``actions.c`` (every operator of every
variant's Next, in the module's order) and ``properties.c`` (HwLeLeo, both LeaderInIsr forms,
WeakIsr, StrongIsr, TypeOk, the guards) restate the Python port; ``tests/test_compiled_tla.py``
proves them equal state by state. A row is per replica its end offset, HW, leader epoch (-1:
Nil), leader (-1: NONE), ISR bit mask and ``LogSize`` records; then the two counters, the
requests (request e has epoch e) and the quorum state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from checker.model import Label
from spec.rows import LabelLayout, mask, members
from spec.tla import actions as a
from spec.tla import fenced as f
from spec.tla.config import TLA_VARIANTS

HERE = Path(__file__).parent
SOURCES = (
    HERE / "state.c",
    HERE / "actions.c",
    HERE / "fenced.c",
    HERE / "properties.c",
    HERE / "liveness.c",
)
HEADERS = (HERE / "tla.h", HERE / "actions.h")

PROPERTY_BITS = {
    "HwLeLeo": 0,
    "LeaderInIsr": 1,
    "LeaderInIsrOrNone": 2,
    "WeakIsr": 3,
    "StrongIsr": 4,
    "TypeOk": 5,
    "HwAdvances": 6,
    "TruncationRemovesRecord": 7,
    "SecondElection": 8,
}
"""Property name to its bit in the compiled core (``tla.h``)."""

MAX_LOG_SIZE = 8
MAX_EPOCH = 14

_FAMILY = {
    a.controller_elect_leader: "elect",
    a.controller_shrink_isr: "controller_shrink",
    a.become_leader: "become_leader",
    a.leader_write: "write",
    a.leader_expand_isr: "expand",
    a.leader_shrink_isr: "shrink",
    a.leader_inc_high_watermark: "inc_hw",
    a.follower_replicate: "replicate",
    a.truncate_to_high_watermark: "follow",
    a.truncate_kip101: "follow",
    a.truncate_kip279: "follow",
    f.fenced_expand_isr: "expand",
    f.fenced_shrink_isr: "shrink",
    f.fenced_inc_high_watermark: "inc_hw",
    f.fenced_become_follower: "follow",
    f.fenced_follower_fetch: "replicate",
    f.first_try_expand_isr: "expand",
    f.first_try_shrink_isr: "shrink",
    f.first_try_inc_high_watermark: "inc_hw",
    f.first_try_become_follower: "follow",
    f.first_try_fetch: "replicate",
    f.first_try_truncate: "truncate",
}
"""Which of ``spec.tla.labels.Labels``' label families each operator's labels come from."""


def unsupported(spec: Any) -> str | None:
    """Why ``spec`` (a ``TlaSpec``) has no compiled core, in a few words, or None."""
    if spec.config.log_size > MAX_LOG_SIZE:
        return f"--log-size above {MAX_LOG_SIZE}"
    if spec.config.max_epoch > MAX_EPOCH:
        return f"--max-epoch above {MAX_EPOCH}"
    if spec.config.max_records > 100:
        return "--max-records above 100"
    return None


@dataclass(frozen=True)
class Codec:
    """The compiled core of one ``TlaSpec``: ``params`` for ``model_new`` (by name), label codes,
    ``encode`` / ``decode`` between the port's states and rows (``width`` bytes)."""

    n: int
    log_size: int
    max_epoch: int
    params: dict[str, int]
    labels: dict[int, Label]
    action_names: tuple[str, ...]
    name: str = "tla"
    sources: tuple[Path, ...] = SOURCES
    headers: tuple[Path, ...] = HEADERS
    property_bits: dict[Any, Any] = field(default_factory=lambda: dict(PROPERTY_BITS))
    liveness_names: tuple[str, ...] = ("NamedLeaderTakesOver", "CommitProgress")
    """The liveness properties ``model_liveness`` evaluates (``liveness.c``), in its order."""
    condition_names: tuple[str, ...] = ()

    def liveness_key(self, prop: int, bit: int) -> Any:
        """The Python obligation key of key number ``bit`` of liveness property ``prop``
        (``liveness.c``): ``(epoch, replica)``, or a replica."""
        return (bit // self.n, bit % self.n) if prop == 0 else bit

    def liveness_unfit(self) -> str | None:
        """Why the key numbers do not fit 64 bits at these bounds, or None."""
        return "liveness keys past 64" if (self.max_epoch + 1) * self.n > 64 else None

    @property
    def width(self) -> int:
        """Bytes per row (``model_width`` in ``state.c``)."""
        return self.n * (5 + 2 * self.log_size) + 3 + 2 * (self.max_epoch + 1) + 3

    def encode(self, state: tuple[Any, ...]) -> bytes:
        """The row of a port state. Raises ``ValueError`` if it does not fit the row."""
        logs, rstates, next_id, next_epoch, requests, quorum = state
        out: list[int] = []
        for log, (hw, epoch, leader, isr) in zip(logs, rstates, strict=True):
            out += [len(log), hw, epoch, -1 if leader is None else leader, mask(isr)]
            for i in range(self.log_size):
                out += list(log[i]) if i < len(log) else [0, 0]
        out += [next_id, next_epoch, len(requests)]
        for e in range(self.max_epoch + 1):
            if e < len(requests):
                epoch, leader, isr = requests[e]
                if epoch != e:
                    raise ValueError(f"request {e} has epoch {epoch}")
                out += [-1 if leader is None else leader, mask(isr)]
            else:
                out += [0, 0]
        q_epoch, q_leader, q_isr = quorum
        out += [q_epoch, -1 if q_leader is None else q_leader, mask(q_isr)]
        if len(out) != self.width or min(out) < -128 or max(out) > 127:
            raise ValueError("the state does not fit the compiled core's row")
        return (np.array(out, dtype=np.int64) & 0xFF).astype(np.uint8).tobytes()

    def decode(self, row: bytes) -> tuple[Any, ...]:
        """The port state of a row (equal to the state ``encode`` was given)."""
        v = np.frombuffer(row, dtype=np.int8).tolist()
        at, logs, rstates = 0, [], []
        for _ in range(self.n):
            length, hw, epoch, leader, isr = v[at : at + 5]
            at += 5
            logs.append(tuple((v[at + 2 * i], v[at + 2 * i + 1]) for i in range(length)))
            at += 2 * self.log_size
            rstates.append((hw, epoch, None if leader < 0 else leader, members(isr)))
        next_id, next_epoch, count = v[at : at + 3]
        at += 3
        requests = tuple(
            (e, None if v[at + 2 * e] < 0 else v[at + 2 * e], members(v[at + 2 * e + 1]))
            for e in range(count)
        )
        at += 2 * (self.max_epoch + 1)
        quorum = (v[at], None if v[at + 1] < 0 else v[at + 1], members(v[at + 2]))
        return (tuple(logs), tuple(rstates), next_id, next_epoch, requests, quorum)


def codec(spec: Any, layout: LabelLayout) -> Codec | None:
    """The compiled core's codec for ``spec`` (a ``TlaSpec``) with label codes in ``layout``,
    or None when it has none."""
    if unsupported(spec) is not None:
        return None
    config, labels = spec.config, spec.labels
    n, epochs = config.replicas, config.max_epoch + 1
    table: dict[int, Label] = {}
    for index, (_, function) in enumerate(spec.next_actions):
        family = _FAMILY[function]
        for x in range(n):
            if family in ("elect", "controller_shrink", "write", "inc_hw"):
                table[layout.code(index, x)] = getattr(labels, family)[x]
            for y in range(max(n, epochs)):
                if family in ("expand", "shrink", "replicate", "truncate") and y < n:
                    table[layout.code(index, x, y)] = getattr(labels, family)[x][y]
                if family == "become_leader" and y < epochs:
                    table[layout.code(index, x, y)] = labels.become_leader[x][y]
                if family == "follow" and y < n:
                    for e in range(epochs):
                        table[layout.code(index, x, y, e)] = labels.follow[x][y][e]
    params = {
        "replicas": n,
        "log_size": config.log_size,
        "max_records": config.max_records,
        "max_epoch": config.max_epoch,
        "variant": TLA_VARIANTS.index(config.truncation),
    }
    return Codec(n, config.log_size, config.max_epoch, params, table, tuple(spec.action_names()))
