"""The public spec's ``AsyncIsr`` module: KIP-497's asynchronous ISR changes with a fixed leader.

``--model tla --truncation async-isr``. Unrelated to the KafkaReplication modules: one fixed
``Leader`` (replica 0 here), no logs but an offset per replica, and ISR changes that travel
as messages. The leader asks the controller for a new ISR (an ``AlterIsr`` request carrying
its ISR version); until the controller's answer (an update with a larger version) arrives,
the leader counts the union of its ISR and every ISR it asked for (``pendingIsr``) for the
high watermark. The controller accepts a request only if its version is the controller's
current one, and may shrink the ISR on its own (a broker failed). ``ValidHighWatermark``: every
member of the controller's ISR has an offset at least the leader's HW.

The module has unbounded counters and no cfg. We bound it as we bound it for TLC: a state
constraint that every offset is at most ``MaxOffset`` (``--max-offset``) and the controller's
version at most ``MaxVersion`` (``--max-version``); a successor outside it is not explored
(TLC's CONSTRAINT). TLC 2.18 finds 168 distinct states, depth 15, for Replicas {r1, r2},
Leader r1, MaxOffset 2, version at most 3.

A state is ``(controller_isr, controller_version, isr, version, pending_isr,
pending_version, offsets, requests, updates)``: the controller's ``(isr, version)``; the
leader's ISR, version, pending ISR and pending version (-1: Nil); ``offsets[r]``; and the
grow-only sets ``requests`` and ``updates`` of ``(isr, version)`` messages as sorted tuples.
Every ISR is a sorted tuple of replica ids.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.tuples import put

LEADER = 0
NIL = -1
C_ISR, C_VERSION, ISR, VERSION, PENDING_ISR, PENDING_VERSION, OFFSETS, REQUESTS, UPDATES = range(9)

_State = tuple[Any, ...]
_Out = list[tuple[Label, Any]]


def initial_state(replicas: int) -> _State:
    """``Init``: every replica in both ISRs at version 0, nothing pending, every offset 0, no
    message."""
    everyone = tuple(range(replicas))
    return (everyone, 0, everyone, 0, (), NIL, (0,) * replicas, (), ())


def high_watermark(s: _State) -> int:
    """``HighWatermark``: the least offset over the leader's ISR and its pending ISR."""
    offsets: tuple[int, ...] = s[OFFSETS]
    hw: int = min(offsets[r] for r in set(s[ISR]).union(s[PENDING_ISR]))
    return hw


def valid_high_watermark(s: _State) -> bool:
    """``ValidHighWatermark``: every member of the controller's ISR has an offset at least the
    HW."""
    hw = high_watermark(s)
    return all(s[OFFSETS][r] >= hw for r in s[C_ISR])


def _with(messages: tuple[Any, ...], message: tuple[Any, ...]) -> tuple[Any, ...]:
    return messages if message in messages else tuple(sorted(messages + (message,)))


def _union(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(sorted(set(a).union(b)))


def _write_isr(ctx: Any, s: _State, isr: tuple[Any, ...], out: _Out, label: Label) -> None:
    """``ControllerWriteIsr`` and the update it sends, within ``MaxVersion``."""
    version = s[C_VERSION] + 1
    if version <= ctx.config.max_version:
        out.append((label, (isr, version) + s[ISR:UPDATES] + (_with(s[UPDATES], (isr, version)),)))


def controller_shrink_isr(ctx: Any, s: _State, out: _Out) -> None:
    """ControllerShrinkIsr(replica): the controller removes a follower from its ISR on its
    own, with the next version, and sends the update. Source: AsyncIsr.tla."""
    for r in s[C_ISR]:
        if r != LEADER:
            isr = tuple(m for m in s[C_ISR] if m != r)
            _write_isr(ctx, s, isr, out, ctx.labels.controller_shrink[r])


def controller_handle_request(ctx: Any, s: _State, out: _Out) -> None:
    """ControllerHandleRequest(isr, version): the controller accepts a leader's request whose
    version is its current one: the request's ISR, with the next version, and the update.
    Source: AsyncIsr.tla; KIP-497 (the controller rejects a stale version)."""
    for isr, version in s[REQUESTS]:
        if version == s[C_VERSION]:
            label = Label("ControllerHandleRequest", (("isr", isr), ("version", version)))
            _write_isr(ctx, s, isr, out, label)


def _request(s: _State, isr: tuple[Any, ...], label: Label, out: _Out) -> None:
    version = s[VERSION]
    requests = _with(s[REQUESTS], (isr, version))
    pending = _union(s[PENDING_ISR], isr)
    out.append((label, s[:PENDING_ISR] + (pending, version, s[OFFSETS], requests, s[UPDATES])))


def leader_request_shrink_isr(ctx: Any, s: _State, out: _Out) -> None:
    """LeaderRequestShrinkIsr(replica): the leader asks to remove a follower from its ISR; the
    ISR it asks for joins its pending ISR. Source: AsyncIsr.tla; ``Partition.maybeShrinkIsr``
    (``PendingShrinkIsr``)."""
    for r in s[ISR]:
        if r != LEADER:
            _request(s, tuple(m for m in s[ISR] if m != r), ctx.labels.leader_shrink[r], out)


def leader_request_expand_isr(ctx: Any, s: _State, out: _Out) -> None:
    """LeaderRequestExpandIsr(replica): the leader asks to add a replica whose offset reached
    the HW; the ISR it asks for joins its pending ISR. Source: AsyncIsr.tla;
    ``Partition.maybeExpandIsr`` (``PendingExpandIsr``)."""
    hw = high_watermark(s)
    for r, offset in enumerate(s[OFFSETS]):
        if r not in s[ISR] and offset >= hw:
            _request(s, tuple(sorted(s[ISR] + (r,))), ctx.labels.leader_expand[r], out)


def leader_write(ctx: Any, s: _State, out: _Out) -> None:
    """LeaderWrite: the leader appends a record (its offset grows by one), within
    ``MaxOffset``. Source: AsyncIsr.tla."""
    offset = s[OFFSETS][LEADER] + 1
    if offset <= ctx.config.max_offset:
        out.append(
            (ctx.labels.write, s[:OFFSETS] + (put(s[OFFSETS], LEADER, offset),) + s[REQUESTS:])
        )


def leader_handle_update(ctx: Any, s: _State, out: _Out) -> None:
    """LeaderHandleUpdate(isr, version): the leader applies an update newer than its version:
    that ISR and version, nothing pending. Source: AsyncIsr.tla."""
    for isr, version in s[UPDATES]:
        if version > s[VERSION]:
            label = Label("LeaderHandleUpdate", (("isr", isr), ("version", version)))
            out.append((label, s[:ISR] + (isr, version, (), NIL) + s[OFFSETS:]))


def follower_replicate(ctx: Any, s: _State, out: _Out) -> None:
    """FollowerReplicate(replica): a follower behind the leader fetches one record. Source:
    AsyncIsr.tla."""
    offsets = s[OFFSETS]
    for r, offset in enumerate(offsets):
        if r != LEADER and offset < offsets[LEADER]:
            out.append(
                (
                    ctx.labels.replicate[r],
                    s[:OFFSETS] + (put(offsets, r, offset + 1),) + s[REQUESTS:],
                )
            )


NEXT = [
    ("ControllerShrinkIsr", controller_shrink_isr),
    ("ControllerHandleRequest", controller_handle_request),
    ("LeaderRequestShrinkIsr", leader_request_shrink_isr),
    ("LeaderRequestExpandIsr", leader_request_expand_isr),
    ("LeaderWrite", leader_write),
    ("LeaderHandleUpdate", leader_handle_update),
    ("FollowerReplicate", follower_replicate),
]
"""``Next``'s disjuncts, in the module's order."""
