"""Unflushed data: the Flush and UncleanShutdown actions (only with ``--max-unclean-shutdowns``).

Kafka does not fsync on append by default (``log.flush.interval.messages`` and
``log.flush.interval.ms`` are unbounded): the OS page cache writes the log to disk when it
likes, and the broker's ``recovery-point-offset-checkpoint`` (``LogManager``) records how far
the log is known to be on disk. A broker that stops cleanly flushes everything first (its
``Crash`` here keeps the log); a broker that loses power comes back with its log recovered
only to what was flushed (``LogLoader`` recovery from the recovery point). The HW checkpoint
is written from memory (``replica.high.watermark.checkpoint.interval.ms``), so after an
unclean shutdown it is also at most the flushed offset.
Sources: Kafka's ``UnifiedLog.flush`` and ``LogManager``; KIP-966 ("unclean shutdown" and
"last replica standing"); the public TLA+ model of KIP-966 (Vanlightly/kafka-tlaplus,
``kip-966/description/5_recovery.md``).

Same conventions as ``spec.kafka.actions``: ``action(ctx, state, out)`` appends ``(Label, next
state)`` to ``out``, guards first. These actions are only in the model when
``Config.durability`` is on; the state then has its ``durable`` component (``state.DURABLE``).
Their guards are in ``spec.kafka.guards_broker``.
"""

from __future__ import annotations

from typing import Any

from checker.model import Label
from spec.kafka.context import ModelContext
from spec.kafka.guards import up
from spec.kafka.guards_broker import background_flush, unclean_left, unflushed
from spec.kafka.state import (
    CONTROLLER,
    D_FLUSHED,
    D_UNCLEAN,
    DURABLE,
    GHOST,
    HW,
    LOG,
    NO_VIEW,
    REMOTE,
    REPLICAS,
    put,
    put_at,
    without_flights,
)


def flush(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """Flush(replica): the OS (or log.flush.*) writes the replica's whole log to disk.

    Flush(replica): a live replica's log becomes durable up to its LEO: its flushed offset
    (Kafka's recovery point) moves to its LEO. Enabled with ``--flush background`` when
    something is unflushed. Source: ``UnifiedLog.flush``; Kafka's default flush settings."""
    durable = s[DURABLE]
    flushed = durable[D_FLUSHED]
    # enabled when (guards_broker.FLUSH): --flush background, r up with an unflushed tail
    if not background_flush(ctx, s):
        return
    for r, rep in enumerate(s[REPLICAS]):
        if up(ctx, s, r) and unflushed(ctx, s, r):
            new = (put(flushed, r, len(rep[LOG])), durable[D_UNCLEAN])
            out.append((ctx.labels.flush[r], s[:DURABLE] + (new,) + s[DURABLE + 1 :]))


def unclean_shutdown(ctx: ModelContext, s: tuple[Any, ...], out: list[tuple[Label, Any]]) -> None:
    """UncleanShutdown(replica): a broker loses power and its unflushed tail.

    UncleanShutdown(replica): the broker stops without flushing: it loses its volatile state
    as in a crash, its log keeps only what was flushed (``--flush always``: all of it) and its
    HW checkpoint is at most that offset. Bounded by ``--max-unclean-shutdowns``; it does not
    count against ``--max-crashes``. With ``broker-epoch`` (KIP-903, Kafka 3.5 in KRaft) every
    leader forgets the replica's remote LEO: the log it described may be gone, and the leader
    takes a follower's fetch state into the ISR only with the broker epoch the controller
    knows, which a restarted broker renews. Without it (every release before 3.5, and
    ZooKeeper mode) the leader keeps the LEO it last saw: Kafka resets it only when a new
    leader takes over (``Replica.resetReplicaState``), so ExpandIsr may add the replica on its
    pre-shutdown LEO, the race KIP-903 closed. With ``split-fetch``, fetch responses in flight to
    or from it are dropped, and so is a pending truncation of its fetcher. The controller
    learns of it as of a crash: it fences the broker (``ControllerShrinkIsr``), and with the
    ``elr`` mechanism takes it out of ISR and ELR when it registers again (``Restart``; Kafka
    4.1.0, seen by ``hwcheck conform``). Source: KIP-966 (unclean shutdown); ``LogLoader``
    recovery from the recovery point."""
    durable = s[DURABLE]
    # enabled when (guards_broker.UNCLEAN_SHUTDOWN): unclean shutdowns left, r up
    if not unclean_left(ctx, s):
        return
    replicas, flushed = s[REPLICAS], durable[D_FLUSHED]
    for r, rep in enumerate(replicas):
        if not up(ctx, s, r):
            continue
        log = rep[LOG][: flushed[r]] if flushed else rep[LOG]
        stopped = (log, min(rep[HW], len(log)), False, NO_VIEW, ())
        forgotten = put(replicas, r, stopped)
        if ctx.variant.broker_epoch:
            forgotten = _forget_remote(forgotten, r)
        new = (flushed, durable[D_UNCLEAN] + 1)
        extra = (new,) + s[DURABLE + 1 :]
        if ctx.variant.split_fetch:
            extra = without_flights(extra, r)
        state = put_at((forgotten,) + s[CONTROLLER : GHOST + 1] + extra, ctx.fetcher_at, r, None)
        out.append((ctx.labels.unclean_shutdown[r], state))


def _forget_remote(replicas: tuple[Any, ...], r: int) -> tuple[Any, ...]:
    """``replicas`` with replica ``r``'s remote LEO unknown (-1) on every replica that keeps
    remote LEOs (a presumed leader)."""
    changed = list(replicas)
    for other, rep in enumerate(replicas):
        remote = rep[REMOTE]
        if remote and remote[r] != -1:
            changed[other] = rep[:REMOTE] + (put(remote, r, -1),)
    return tuple(changed)
