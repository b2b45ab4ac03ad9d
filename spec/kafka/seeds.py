"""protocol.md's two canonical schedules (the seed articles' HW-truncation stories) as action
labels of the kafka model.

Two replicas: A = 0, B = 1; min.insync.replicas = 1; bounds ``SEED_BOUNDS``. Under ``hw``
``LOSS`` loses committed record m1 and ``DIVERGENCE`` forks the committed log; under
``kip320`` the same schedules are enabled step by step and every invariant holds
(``tests/test_scenarios.py``). The gallery's flagship entry, ``hw-truncation-loss``, is
``LOSS`` up to the state where NoCommittedLoss first fails.
"""

COMMON = (
    "Elect(leader=0)",
    "BecomeLeader(replica=0, epoch=0)",
    "BecomeFollower(replica=1, epoch=0)",
    "Produce(leader=0)",  # m0 at offset 0
    "Fetch(follower=1, leader=0)",  # B copies m0
    "Produce(leader=0)",  # m1 at offset 1
    "Fetch(follower=1, leader=0)",  # B copies m1; A's HW becomes 1
    "Fetch(follower=1, leader=0)",  # A's HW becomes 2; B learns only HW 1
    "Crash(replica=1)",
    "Restart(replica=1)",
    "BecomeFollower(replica=1, epoch=0)",  # hw: B truncates to its HW 1, deleting m1
    "Crash(replica=0)",
    "Elect(leader=1)",  # B, the only live ISR member, leads epoch 1
)
"""The shared prefix: B restarts with a lagging HW, truncates to it, and is elected."""

LOSS = COMMON + (
    "BecomeLeader(replica=1, epoch=1)",
    "Restart(replica=0)",
    "BecomeFollower(replica=0, epoch=1)",  # hw: A truncates to its HW 2: nothing
    "Fetch(follower=0, leader=1)",  # offset 2 > B's LEO 1: OFFSET_OUT_OF_RANGE
)
"""A comes back and loses m1 too: the committed record is on no replica."""

DIVERGENCE = COMMON + (
    "BecomeLeader(replica=1, epoch=1)",
    "Produce(leader=1)",  # m2 at offset 1 on B
    "Restart(replica=0)",
    "BecomeFollower(replica=0, epoch=1)",
    "Fetch(follower=0, leader=1)",  # offset 2 = B's LEO: nothing out of range
)
"""B writes m2 at offset 1 as the new leader; A keeps m1 there below its HW: a fork."""

SEED_BOUNDS = {"replicas": 2, "max_records": 3, "max_epoch": 1, "max_crashes": 2, "min_isr": 1}
"""The bounds both schedules fit in (``Config`` fields)."""
