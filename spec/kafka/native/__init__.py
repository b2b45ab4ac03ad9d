"""The kafka model's compiled core: its C sources and the codec between the reference
model's states (``spec.kafka.state``) and the compiled core's rows.

The C files restate the reference model rule by rule (``state.c``: the row and the marshal
encoding; ``canonical.c``: the canonical form; ``actions.c``: the actions; ``properties.c``:
the properties); ``tests/test_compiled.py`` proves the two equal state by state. A row is a fixed
number of signed bytes (``Codec.width``): per replica its LEO, HW, alive flag, view (leader
or -1, epoch, ISR as a bit mask), whether it keeps remote LEOs, ``max_records`` records
``(id, epoch)`` and ``replicas`` remote LEOs; then the controller, the LeaderAndIsr requests,
the ghost (committed pairs as bits ``offset * max_records + id``), the durable component,
(async-isr) per replica its AlterPartition request in flight, (``Variant.fetcher_state``) per
replica its fetcher value (-3 for None, else the value: ``spec.kafka.diverging``) and
(split-fetch) per follower the response in flight (record count, -2 for none, -1 for
OFFSET_OUT_OF_RANGE or -3 for a DivergingEpoch; leader, epoch, fetch offset, HW;
``max_records`` records; with truncation on fetch the DivergingEpoch's epoch and end offset)
and the lost responses. Unused bytes are zero, so equal states have equal rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from checker.model import Label
from spec.kafka.native.labels import ACTION_NAMES, action_names, label_table
from spec.kafka.native.params import RULES, params
from spec.rows import LabelLayout, mask, members

HERE = Path(__file__).parent
SOURCES = (
    HERE / "state.c",
    HERE / "marshal.c",
    HERE / "canonical.c",
    HERE / "actions.c",
    HERE / "alter.c",
    HERE / "flight.c",
    HERE / "diverging.c",
    HERE / "properties.c",
    HERE / "liveness.c",
)
HEADERS = (HERE / "kafka.h", HERE / "membership.h")

PROPERTY_BITS = {
    "HwLeLeo": 0,
    "LeaderInIsr": 1,
    "NoCommittedLoss": 2,
    "NoAckedLoss": 3,
    "NoDivergence": 4,
    "WeakIsr": 5,
    "StrongIsr": 6,
    "RecordEpochsMonotonic": 7,
    "EpochMonotonic": 8,
    "HwAdvances": 9,
    "CrashHappens": 10,
    "RestartHappens": 11,
    "TruncationRemovesRecord": 12,
    "SecondElection": 13,
    "NoUncommittedRead": 14,
}
"""Property name to its bit in the compiled core (``kafka.h``)."""

LIVENESS = (
    "AckedReachesIsr",
    "HwReachesLeo",
    "LeaderElected",
    "FollowerCatchesUp",
    "ReplicasConverge",
)
"""The liveness properties ``model_liveness`` evaluates (``liveness.c``), in its order."""

MAX_RECORDS = 7
MAX_EPOCH = 15

FETCHER_NONE = -3
"""The row byte of a ``fetcher`` value of None (``kafka.h``: ``FE_NONE``)."""


def unsupported(spec: Any) -> str | None:
    """Why ``spec`` (a ``KafkaSpec``) has no compiled core, in a few words, or None."""
    config, variant = spec.config, spec.variant
    if variant.rule.name not in RULES:
        return f"user variant rule {variant.rule.name}"
    if config.max_records > MAX_RECORDS:
        return f"--max-records above {MAX_RECORDS}"
    if config.max_epoch > MAX_EPOCH:
        return f"--max-epoch above {MAX_EPOCH}"
    return None


@dataclass(frozen=True)
class Codec:
    """The compiled core of one ``KafkaSpec``: ``params`` for ``model_new`` (by name), label
    codes, and ``encode`` / ``decode`` between reference states and rows (``width`` bytes).
    ``fetcher``: the state has the ``fetcher`` component; ``diverging``: the variant truncates
    on fetch (a response in flight has room for a DivergingEpoch)."""

    n: int
    records: int
    max_epoch: int
    elr: bool
    durable: bool
    flush_always: bool
    split_fetch: bool
    async_isr: bool
    fetcher: bool
    diverging: bool
    params: dict[str, int]
    labels: dict[int, Label]
    name: str = "kafka"
    sources: tuple[Path, ...] = SOURCES
    headers: tuple[Path, ...] = HEADERS
    action_names: tuple[str, ...] = ACTION_NAMES
    property_bits: Any = None
    liveness_names: tuple[str, ...] = LIVENESS
    condition_names: tuple[str, ...] = ("LeaderOffline",)

    def liveness_key(self, prop: int, bit: int) -> Any:
        """The Python obligation key of key number ``bit`` of liveness property ``prop``
        (``liveness.c``)."""
        if prop == 0:
            return (bit // self.records, bit % self.records)
        if prop in (2, 4):
            return ()
        return (bit // (self.max_epoch + 1), bit % (self.max_epoch + 1))

    def liveness_unfit(self) -> str | None:
        """Why the key numbers do not fit 64 bits at these bounds, or None."""
        if self.records * self.records > 64 or self.n * (self.max_epoch + 1) > 64:
            return "liveness keys past 64 at these bounds"
        return None

    @property
    def width(self) -> int:
        """Bytes per row (``model_width`` in ``state.c``)."""
        n, r = self.n, self.records
        return (
            n * (7 + 2 * r + n)
            + 3
            + 2 * self.elr
            + 1
            + 2 * (self.max_epoch + 1)
            + 2
            + (r * r + 7) // 8
            + ((1 + (0 if self.flush_always else n)) if self.durable else 0)
            + (4 * n if self.async_isr else 0)
            + (n if self.fetcher else 0)
            + (n * self.flight_width + 1 if self.split_fetch else 0)
        )

    @property
    def flight_width(self) -> int:
        """Bytes per response in flight (``flight_width`` in ``state.c``)."""
        return 5 + 2 * self.records + (2 if self.diverging else 0)

    def encode(self, state: tuple[Any, ...]) -> bytes:
        """The row of a reference state. Raises ``ValueError`` if it does not fit the row."""
        n, r = self.n, self.records
        out: list[int] = []
        replicas, ctrl, requests, ghost = state[:4]
        for log, hw, alive, (leader, epoch, isr), remote in replicas:
            out += [
                len(log),
                hw,
                int(alive),
                -1 if leader is None else leader,
                epoch,
                mask(isr),
                1 if remote else 0,
            ]
            for i in range(r):
                out += list(log[i]) if i < len(log) else [0, 0]
            out += list(remote) if remote else [0] * n
        out += [ctrl[0], -1 if ctrl[1] is None else ctrl[1], mask(ctrl[2])]
        if self.elr:
            out += [mask(ctrl[3]), -1 if ctrl[4] is None else ctrl[4]]
        out.append(len(requests))
        for e in range(self.max_epoch + 1):
            if e < len(requests):
                epoch, leader, isr = requests[e]
                if epoch != e:
                    raise ValueError(f"request {e} has epoch {epoch}")
                out += [-1 if leader is None else leader, mask(isr)]
            else:
                out += [0, 0]
        committed = 0
        for offset, rid in ghost[2]:
            committed |= 1 << (offset * r + rid)
        out += [ghost[0], ghost[1]]
        out += [(committed >> (8 * b)) & 0xFF for b in range((r * r + 7) // 8)]
        if self.durable:
            flushed, unclean = state[4]
            if not self.flush_always:
                out += list(flushed)
            out.append(unclean)
        if self.async_isr:
            for request in state[4 + self.durable]:
                out += (
                    [0, 0, 0, 0]
                    if request is None
                    else [1, request[0], mask(request[1]), mask(request[2])]
                )
        if self.fetcher:
            fetcher = state[4 + self.durable + self.async_isr]
            out += [FETCHER_NONE if value is None else value for value in fetcher]
        if self.split_fetch:
            responses, lost = state[-1]
            for response in responses:
                out += _response_row(response, r, self.diverging)
            out.append(lost)
        if len(out) != self.width or min(out) < -128 or max(out) > 255:
            raise ValueError("the state does not fit the compiled core's row")
        return (np.array(out, dtype=np.int64) & 0xFF).astype(np.uint8).tobytes()

    def decode(self, row: bytes) -> tuple[Any, ...]:
        """The reference state of a row (equal to the state ``encode`` was given)."""
        n, r = self.n, self.records
        v = np.frombuffer(row, dtype=np.int8).tolist()
        at = 0
        replicas = []
        for _ in range(n):
            length, hw, alive, leader, epoch, isr, has_remote = v[at : at + 7]
            at += 7
            log = tuple((v[at + 2 * i], v[at + 2 * i + 1]) for i in range(length))
            at += 2 * r
            remote = tuple(v[at : at + n]) if has_remote else ()
            at += n
            view = (None if leader < 0 else leader, epoch, members(isr))
            replicas.append((log, hw, bool(alive), view, remote))
        ctrl: tuple[Any, ...] = (v[at], None if v[at + 1] < 0 else v[at + 1], members(v[at + 2]))
        at += 3
        if self.elr:
            ctrl += (members(v[at]), None if v[at + 1] < 0 else v[at + 1])
            at += 2
        count = v[at]
        at += 1
        requests = tuple(
            (e, None if v[at + 2 * e] < 0 else v[at + 2 * e], members(v[at + 2 * e + 1]))
            for e in range(count)
        )
        at += 2 * (self.max_epoch + 1)
        next_id, crashes = v[at], v[at + 1]
        at += 2
        bits = 0
        for b in range((r * r + 7) // 8):
            bits |= (v[at + b] & 0xFF) << (8 * b)
        at += (r * r + 7) // 8
        committed = tuple((bit // r, bit % r) for bit in range(r * r) if bits >> bit & 1)
        state: tuple[Any, ...] = (tuple(replicas), ctrl, requests, (next_id, crashes, committed))
        if self.durable:
            flushed = () if self.flush_always else tuple(v[at : at + n])
            at += 0 if self.flush_always else n
            state += ((flushed, v[at]),)
            at += 1
        if self.async_isr:
            alters = []
            for _ in range(n):
                present, epoch, base, isr = v[at : at + 4]
                alters.append((epoch, members(base), members(isr)) if present else None)
                at += 4
            state += (tuple(alters),)
        if self.fetcher:
            state += (tuple(None if x == FETCHER_NONE else x for x in v[at : at + n]),)
            at += n
        if self.split_fetch:
            responses: list[tuple[Any, ...] | None] = []
            for _ in range(n):
                count, leader, epoch, offset, hw = v[at : at + 5]
                records = tuple((v[at + 5 + 2 * i], v[at + 6 + 2 * i]) for i in range(count))
                diverging = (v[at + 5 + 2 * r], v[at + 6 + 2 * r]) if self.diverging else None
                at += self.flight_width
                if count == -2:
                    responses.append(None)
                elif count == -3:
                    responses.append((leader, epoch, offset, None, hw, diverging))
                else:
                    responses.append((leader, epoch, offset, None if count == -1 else records, hw))
            state += ((tuple(responses), v[at]),)
        return state


def _response_row(response: tuple[Any, ...] | None, r: int, diverging: bool) -> list[int]:
    """The row bytes of one response in flight (``spec.kafka.state``: flight); with
    ``diverging`` (truncation on fetch) two more, a DivergingEpoch's epoch and end offset."""
    extra = [0, 0] if diverging else []
    if response is None:
        return [-2] + [0] * (4 + 2 * r) + extra
    leader, epoch, offset, records, hw = response[:5]
    count = -3 if len(response) > 5 else -1 if records is None else len(records)
    row = [count, leader, epoch, offset, hw]
    for i in range(r):
        row += list(records[i]) if records is not None and i < len(records) else [0, 0]
    return row + (list(response[5]) if len(response) > 5 else extra)


def codec(spec: Any, layout: LabelLayout) -> Codec | None:
    """The compiled core's codec for ``spec`` (a ``KafkaSpec``) with label codes in ``layout``,
    or None when it has none (``unsupported`` says why)."""
    if unsupported(spec) is not None:
        return None
    config, variant = spec.config, spec.variant
    return Codec(
        n=config.replicas,
        records=config.max_records,
        max_epoch=config.max_epoch,
        elr=variant.elr,
        durable=config.durability,
        flush_always=config.flush == "always",
        split_fetch=variant.split_fetch,
        async_isr=variant.async_isr,
        fetcher=variant.fetcher_state,
        diverging=variant.truncate_on_fetch,
        params=params(spec),
        labels=label_table(spec, layout),
        action_names=action_names(variant.split_fetch, variant.async_isr, variant.elr),
        property_bits=PROPERTY_BITS,
    )
