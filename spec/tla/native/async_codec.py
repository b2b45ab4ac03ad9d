"""The compiled core of the public spec's AsyncIsr module (``async_isr.c``) and the codec
between ``spec.tla.async_isr`` states and its rows.

A row is the controller's ISR (bit mask) and version, the leader's ISR, version, pending ISR
and pending version, one offset per replica, then the requests and the updates, each a bit set
over every ``(isr, version)`` message (bit ``version * 2**replicas + isr mask``).
``tests/test_compiled_tla.py`` proves the core equal to the Python module state by state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from checker.model import Label
from spec.rows import LabelLayout, mask, members

HERE = Path(__file__).parent
SOURCES = (HERE / "async_isr.c",)
HEADERS: tuple[Path, ...] = ()
PROPERTY_BITS = {"ValidHighWatermark": 0}
MAX_MESSAGES = 512
ACTIONS = (
    "ControllerShrinkIsr",
    "ControllerHandleRequest",
    "LeaderRequestShrinkIsr",
    "LeaderRequestExpandIsr",
    "LeaderWrite",
    "LeaderHandleUpdate",
    "FollowerReplicate",
)
"""Action index (the label code's action) to name: ``Next``'s order."""


def unsupported(spec: Any) -> str | None:
    """Why ``spec`` (an ``AsyncIsrSpec``) has no compiled core, in a few words, or None."""
    config = spec.config
    if config.max_offset > 100:
        return "--max-offset above 100"
    if config.max_version > 14 or (config.max_version + 1) * 2**config.replicas > MAX_MESSAGES:
        return "--max-version too large for the compiled core's message sets"
    return None


@dataclass(frozen=True)
class Codec:
    """The compiled core of one ``AsyncIsrSpec``: ``params`` for ``model_new`` (by name), label
    codes and ``encode`` / ``decode`` between states and rows (``width`` bytes)."""

    n: int
    max_version: int
    params: dict[str, int]
    labels: dict[int, Label]
    action_names: tuple[str, ...] = ACTIONS
    name: str = "tla-async-isr"
    sources: tuple[Path, ...] = SOURCES
    headers: tuple[Path, ...] = HEADERS
    property_bits: dict[Any, Any] = field(default_factory=lambda: dict(PROPERTY_BITS))
    liveness_names: tuple[str, ...] = ()
    """The module has no liveness property (``model_liveness`` gives nothing)."""
    condition_names: tuple[str, ...] = ()

    @property
    def messages(self) -> int:
        """How many ``(isr, version)`` messages there are: the size of each bit set."""
        count: int = (self.max_version + 1) * 2**self.n
        return count

    @property
    def width(self) -> int:
        """Bytes per row (``model_width`` in ``async_isr.c``)."""
        return 6 + self.n + 2 * ((self.messages + 7) // 8)

    def _bits(self, messages: tuple[Any, ...]) -> list[int]:
        bits = 0
        for isr, version in messages:
            bits |= 1 << (version * 2**self.n + mask(isr))
        return [(bits >> (8 * b)) & 0xFF for b in range((self.messages + 7) // 8)]

    def encode(self, state: tuple[Any, ...]) -> bytes:
        """The row of a state. Raises ``ValueError`` if it does not fit the row."""
        c_isr, c_version, isr, version, pending, p_version, offsets, requests, updates = state
        out = [mask(c_isr), c_version, mask(isr), version, mask(pending), p_version]
        out += list(offsets) + self._bits(requests) + self._bits(updates)
        if len(out) != self.width or min(out) < -128 or max(out) > 255:
            raise ValueError("the state does not fit the compiled core's row")
        return (np.array(out, dtype=np.int64) & 0xFF).astype(np.uint8).tobytes()

    def _messages(self, raw: bytes) -> tuple[Any, ...]:
        bits = int.from_bytes(raw, "little")
        found = [
            (members(k % 2**self.n), k // 2**self.n) for k in range(self.messages) if bits >> k & 1
        ]
        return tuple(sorted(found))

    def decode(self, row: bytes) -> tuple[Any, ...]:
        """The state of a row (equal to the state ``encode`` was given)."""
        v = np.frombuffer(row, dtype=np.int8).tolist()
        n, size = self.n, (self.messages + 7) // 8
        head = (members(v[0] & 0xFF), v[1], members(v[2] & 0xFF), v[3], members(v[4] & 0xFF), v[5])
        requests = self._messages(row[6 + n : 6 + n + size])
        updates = self._messages(row[6 + n + size : 6 + n + 2 * size])
        return head + (tuple(v[6 : 6 + n]), requests, updates)


def codec(spec: Any, layout: LabelLayout) -> Codec | None:
    """The compiled core's codec for ``spec`` (an ``AsyncIsrSpec``) with label codes in
    ``layout``, or None when it has none."""
    if unsupported(spec) is not None:
        return None
    config, labels = spec.config, spec.labels
    n = config.replicas
    table: dict[int, Label] = {}
    code = layout.code
    for r in range(n):
        table[code(0, r)] = labels.controller_shrink[r]
        table[code(2, r)] = labels.leader_shrink[r]
        table[code(3, r)] = labels.leader_expand[r]
        table[code(6, r)] = labels.replicate[r]
    table[code(4)] = labels.write
    for isr_mask in range(2**n):
        for version in range(config.max_version + 1):
            args = (("isr", members(isr_mask)), ("version", version))
            wide = isr_mask << layout.arg_bits  # five bits, over the first argument's (LABEL_M)
            table[code(1, 0, 0, version) | wide] = Label("ControllerHandleRequest", args)
            table[code(5, 0, 0, version) | wide] = Label("LeaderHandleUpdate", args)
    params = {"replicas": n, "max_offset": config.max_offset, "max_version": config.max_version}
    return Codec(n, config.max_version, params, table)
