"""The immutable state of the Kafka model, and small helpers to read and rebuild it.

Only tuples, ints, bools and None are used (no sets or dicts: their iteration order would
break fingerprints and replay). ISRs are sorted tuples. LEO is derived (``len(log)``).

A state is ``(replicas, controller, requests, ghost)``:

- ``replicas[r] = (log, hw, alive, view, remote)``
  - durable (survive a crash): ``log``, a tuple of records ``(record id, leader epoch)``;
    ``hw``, the high-watermark checkpoint (an offset, exclusive).
  - volatile (lost in a crash): ``alive``; ``view = (leader, leader_epoch, isr)`` from the
    last LeaderAndIsr applied (``leader`` None when it knows of no leader); ``remote``, on a
    replica that presumes leadership, the remote LEO of every replica (index = replica id,
    -1 = unknown: no fetch seen since it became leader), else ``()``.
- ``controller = (epoch, leader, isr)``: the controller's (ZooKeeper / KRaft) truth; epoch -1
  and leader None before the first election. With the ``elr`` mechanism (KIP-966) a fourth
  field, ``elr``: the sorted eligible leader replicas, and a fifth, ``lkl``: the last known
  leader (Kafka's one-member ``LastKnownElr``, None for none), the leader the partition had
  when its ISR became empty, kept until a leader is elected (``controller_after``).
- ``requests``: every LeaderAndIsr ``(epoch, leader, isr)`` the controller issued, oldest
  first; ``requests[e]`` has epoch ``e``. Grow-only: replicas apply them late and out of order.
- ``ghost = (next_id, crashes, committed)``: records produced so far (the next record id),
  crashes so far, and the sorted tuple of ``(offset, record id)`` pairs ever committed (some
  leader's HW moved past them). Ghost variables only serve the bounds and the invariants.
- only when unclean shutdowns are possible (``Config.durability``), a fifth component
  ``durable = (flushed, unclean)``: ``flushed[r]``, the offset (exclusive) up to which replica
  ``r``'s log is on disk (``--flush background``; ``()`` with ``--flush always``, where all of
  it is), and ``unclean``, the unclean shutdowns so far. Without it the state is exactly the
  four components above, so today's states and fingerprints do not change.
- only with the ``async-isr`` mechanism, next (after ``durable`` if there is one), the
  component ``alter``: per replica its AlterPartition request in flight, ``(leader epoch,
  committed ISR it was based on, ISR asked for)`` or None (``spec.kafka.alter``).
- only when the variant truncates on fetch with ``hw-before-truncation`` or
  ``empty-clears-epoch`` (``Variant.fetcher_state``), next the component ``fetcher``: per
  replica what its fetch state holds beyond its log (``spec.kafka.diverging``): None (the
  last fetched epoch is its last record's), ``-1`` (its last fetched epoch was cleared,
  KAFKA-15510) or an offset >= 0 (a truncation to that offset is pending, KAFKA-14704).
- only with the ``split-fetch`` mechanism, a last component ``flight = (responses, lost)``:
  ``responses[f]``, the fetch response in flight to follower ``f`` (None: none), as
  ``(leader, leader epoch, fetch offset, records, HW)`` (``records`` a tuple of records, or
  None for OFFSET_OUT_OF_RANGE, whose ``HW`` field is then the leader's LEO to truncate to;
  with truncation on fetch a diverging response has no records (None) and a sixth field, the
  DivergingEpoch ``(epoch, end offset)``);
  ``lost``, the responses the network dropped so far (``spec.kafka.flight``).
"""

from __future__ import annotations

from typing import Any

from spec.tuples import put, with_member, without_member

__all__ = [
    "commit",
    "controller_after",
    "initial_state",
    "last_known",
    "last_known_leader",
    "leader_hw",
    "put",
    "with_member",
    "without_member",
]

# replica fields
LOG, HW, ALIVE, VIEW, REMOTE = range(5)
# view fields
V_LEADER, V_EPOCH, V_ISR = range(3)
# state fields
REPLICAS, CONTROLLER, REQUESTS, GHOST = range(4)
# controller / request fields (C_ELR, C_LKL: the controller only, with the elr mechanism)
C_EPOCH, C_LEADER, C_ISR, C_ELR, C_LKL = range(5)
# ghost fields
G_NEXT_ID, G_CRASHES, G_COMMITTED = range(3)
# the optional fifth state component and its fields
DURABLE = 4
D_FLUSHED, D_UNCLEAN = range(2)
# an AlterPartition request's fields in the alter component (async-isr)
AL_EPOCH, AL_BASE, AL_ISR = range(3)
# the split-fetch component (the last one) and a response's fields
F_RESPONSES, F_LOST = range(2)
R_LEADER, R_EPOCH, R_OFFSET, R_RECORDS, R_HW = range(5)

NO_VIEW = (None, -1, ())


def initial_state(
    replicas: int,
    durable: bool = False,
    flush_always: bool = False,
    elr: bool = False,
    split_fetch: bool = False,
    async_isr: bool = False,
    fetcher: bool = False,
) -> tuple[Any, ...]:
    """Every log empty, every HW 0, every replica up with no view; the controller has epoch -1,
    no leader and every replica in its ISR (and, with ``elr``, an empty ELR and no last known
    leader); no request yet;
    nothing produced or committed. With ``durable``, the ``durable`` component: nothing
    flushed, no unclean shutdown. With ``async_isr``, the ``alter`` component: no request in
    flight. With ``fetcher``, the ``fetcher`` component: nothing beyond the logs. With
    ``split_fetch``, the ``flight`` component: no response in flight, none lost."""
    replica = ((), 0, True, NO_VIEW, ())
    everyone = tuple(range(replicas))
    controller = (-1, None, everyone, (), None) if elr else (-1, None, everyone)
    state: tuple[Any, ...] = ((replica,) * replicas, controller, (), (0, 0, ()))
    if durable:
        state += ((() if flush_always else (0,) * replicas, 0),)
    if async_isr:
        state += ((None,) * replicas,)
    if fetcher:
        state += ((None,) * replicas,)
    if split_fetch:
        state += (((None,) * replicas, 0),)
    return state


def truncated(state: tuple[Any, ...], r: int, leo: int, durable: bool) -> tuple[Any, ...]:
    """The components after ``ghost`` once replica ``r``'s log was cut to ``leo`` records:
    with the ``durable`` component (``durable`` True), its flushed offset drops to at most
    ``leo`` (Kafka's truncation is durable); any other component is kept as it is."""
    extra = state[DURABLE:]
    if not durable or not extra[0][D_FLUSHED] or extra[0][D_FLUSHED][r] <= leo:
        return extra
    flushed, unclean = extra[0]
    return ((put(flushed, r, leo), unclean),) + extra[1:]


def without_flights(extra: tuple[Any, ...], r: int) -> tuple[Any, ...]:
    """``extra`` (the components after ``ghost``, the ``flight`` component last) once replica
    ``r`` stopped: the response in flight to ``r`` and every response ``r`` sent are dropped
    (their connections closed). ``extra`` itself when nothing was in flight to or from ``r``."""
    responses, lost = extra[-1]
    kept = tuple(
        None if x is None or f == r or x[R_LEADER] == r else x for f, x in enumerate(responses)
    )
    if kept == responses:
        return extra
    return extra[:-1] + ((kept, lost),)


def controller_after(
    ctrl: tuple[Any, ...], epoch: int, leader: int | None, isr: tuple[Any, ...], min_isr: int
) -> tuple[Any, ...]:
    """The controller's state once it decided ``(epoch, leader, isr)``. Without an ELR field
    (``ctrl`` of 3 fields) just that triple. With one (KIP-966): while ``isr`` is smaller than
    ``min_isr`` the members it lost join the ELR; members back in the ISR leave it; once the
    ISR has ``min_isr`` members the ELR is empty. The last known leader (``last_known``) is
    the old leader when the ISR becomes empty, None once a leader is named, else kept.
    Source: KIP-966, "Eligible Leader Replicas"; Kafka's ``PartitionChangeBuilder``
    (``maybePopulateTargetElr``, ``maybeUpdateLastKnownLeader``)."""
    if len(ctrl) <= C_ELR:
        return (epoch, leader, isr)
    lkl = last_known(ctrl, leader, isr)
    if len(isr) >= min_isr:
        return (epoch, leader, isr, (), lkl)
    lost = [m for m in ctrl[C_ISR] if m not in isr]
    elr = tuple(sorted(m for m in set(ctrl[C_ELR]).union(lost) if m not in isr))
    return (epoch, leader, isr, elr, lkl)


def last_known(ctrl: tuple[Any, ...], leader: int | None, isr: tuple[Any, ...]) -> int | None:
    """The last known leader (a replica id or None) once the controller ``ctrl`` (with the ELR
    fields) names ``leader`` and ``isr``: when the ISR empties now, its last member (one
    member leaves at a time); None once a leader is named; else the one ``ctrl`` had. Kafka
    records the leader there, which is that member in every state Kafka reaches: a leader is
    in its ISR, and a member that cannot lead is fenced out of it. They differ only before
    the model's first election (Kafka elects at topic creation), where Kafka's rule would
    leave a partition that never had a leader without one for ever. Source: Kafka 4.1's
    ``PartitionChangeBuilder.maybeUpdateLastKnownLeader`` (``LastKnownElr``, one member)."""
    if leader is not None:
        return None
    if not isr and ctrl[C_ISR]:
        last: int = ctrl[C_ISR][0]
        return last
    lkl: int | None = ctrl[C_LKL]
    return lkl


def last_known_leader(ctrl: tuple[Any, ...]) -> int | None:
    """The replica Kafka may elect as the last known leader under ``ctrl``: the ``lkl`` field
    while the ISR and the ELR are both empty, else None (and None without the ELR fields).
    Source: Kafka 4.1's ``PartitionChangeBuilder.canElectLastKnownLeader`` (which also asks
    that the broker be unfenced: the caller checks it is up)."""
    if len(ctrl) <= C_LKL or ctrl[C_ISR] or ctrl[C_ELR]:
        return None
    lkl: int | None = ctrl[C_LKL]
    return lkl


def commit(
    ghost: tuple[Any, ...], log: tuple[Any, ...], old_hw: int, new_hw: int
) -> tuple[Any, ...]:
    """The ghost after a leader's HW moved from ``old_hw`` to ``new_hw``: ``(offset, record
    id)`` is added to the committed set for every offset in ``[old_hw, new_hw)``. Returns
    ``ghost`` itself when the HW did not advance."""
    if new_hw <= old_hw:
        return ghost
    added = {(offset, log[offset][0]) for offset in range(old_hw, new_hw)}
    return put(ghost, G_COMMITTED, tuple(sorted(added.union(ghost[G_COMMITTED]))))


def leader_hw(
    log_len: int,
    hw: int,
    me: int,
    isr: tuple[Any, ...],
    remote: tuple[Any, ...],
    min_isr: int = 1,
    committed: int = -1,
) -> int:
    """A leader's new HW: ``max(hw, min(LEO, remote LEO of every other ISR member))``.

    The HW never moves back on a leader (protocol.md, Fetch step 2; Kafka's
    ``Partition.maybeIncrementLeaderHW``). An unknown remote LEO (-1) holds it where it is.
    ``min_isr`` > 1 is KIP-966's strict min ISR: while the ISR has fewer members the HW stays
    (``Partition.maybeIncrementLeaderHW`` in Kafka 4.x checks ``isUnderMinIsr``). With
    ``async-isr``, ``isr`` is the maximal ISR and ``committed`` the size of the committed one,
    which decides min ISR (-1: ``isr``'s size).
    """
    if (len(isr) if committed < 0 else committed) < min_isr:
        return hw
    low = log_len
    for member in isr:
        if member != me:
            value = remote[member]
            low = min(low, value)
    return max(hw, low)


def maximal_isr(view: tuple[Any, ...], request: tuple[Any, ...] | None) -> tuple[Any, ...]:
    """The ISR a leader counts for its HW: its committed ISR, with the replicas of its
    request in flight of the same epoch (``Partition.maximalIsr``)."""
    if request is None or request[AL_EPOCH] != view[V_EPOCH]:
        isr: tuple[Any, ...] = view[V_ISR]
        return isr
    return tuple(sorted(set(view[V_ISR]).union(request[AL_ISR])))


def put_at(s: tuple[Any, ...], at: int | None, r: int, value: Any) -> tuple[Any, ...]:
    """``s`` with replica ``r``'s entry of the per-replica component at index ``at`` (``alter``
    or ``fetcher``) set to ``value``; ``s`` itself without the component (``at`` None) or
    when the entry already holds ``value``."""
    if at is None or s[at][r] == value:
        return s
    return s[:at] + (put(s[at], r, value),) + s[at + 1 :]
