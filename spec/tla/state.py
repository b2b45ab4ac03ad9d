"""The six variables of KafkaReplication as one immutable tuple.

``(logs, replica_states, next_record_id, next_leader_epoch, requests, quorum)``:

- ``logs[r]``: replica r's log as a tuple of records ``(id, epoch)``. The spec's log is a
  function from every slot ``0..LogSize-1`` to a record or Nil together with an ``endOffset``;
  slots at or above ``endOffset`` are always Nil, so the prefix tuple is the same information.
- ``replica_states[r] = (hw, leader_epoch, leader, isr)``; ``leader_epoch`` is -1 (Nil) before
  the first LeaderAndIsr, ``leader`` None (the spec's "NONE"); ``isr`` a sorted tuple.
- ``next_record_id``, ``next_leader_epoch``: the IdSequence counters.
- ``requests``: the set ``leaderAndIsrRequests`` as a tuple of ``(leader_epoch, leader, isr)``
  in epoch order (every request has its own epoch, so this is the set, canonically ordered).
- ``quorum = (leader_epoch, leader, isr)``: the quorum ("ZooKeeper") state.
"""

from __future__ import annotations

from typing import Any

LOGS, RSTATES, NEXT_ID, NEXT_EPOCH, REQUESTS, QUORUM = range(6)
HW, EPOCH, LEADER, ISR = range(4)  # replica state and (for EPOCH, LEADER, ISR) requests
Q_EPOCH, Q_LEADER, Q_ISR = range(3)  # quorum state and requests: (epoch, leader, isr)

NIL = -1


def initial_state(replicas: int) -> tuple[Any, ...]:
    """The spec's ``Init``: empty logs, every replica at hw 0, epoch Nil, no leader, ISR {};
    the quorum with epoch Nil, no leader and every replica in the ISR; no request."""
    everyone = tuple(range(replicas))
    return (((),) * replicas, ((0, NIL, None, ()),) * replicas, 0, 0, (), (NIL, None, everyone))
