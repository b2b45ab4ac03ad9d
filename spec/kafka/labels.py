"""Every label the Kafka model can produce, built once per model (labels are compared and
hashed often)."""

from __future__ import annotations

from checker.model import Label


class Labels:
    """Every label the model can produce, built once (labels are compared and hashed often)."""

    def __init__(self, n: int, max_epoch: int) -> None:
        def one(action: str, key: str) -> list[Label]:
            return [Label(action, ((key, r),)) for r in range(n)]

        def two(action: str, k1: str, k2: str, second: range) -> list[list[Label]]:
            return [[Label(action, ((k1, a), (k2, b))) for b in second] for a in range(n)]

        epochs = range(max_epoch + 1)
        self.produce = one("Produce", "leader")
        self.fetch = two("Fetch", "follower", "leader", range(n))
        self.fetch_request = two("FetchRequest", "follower", "leader", range(n))
        self.fetch_response = one("FetchResponse", "follower")
        self.lose_response = one("LoseResponse", "follower")
        self.truncate_on_fetch_response = one("TruncateOnFetchResponse", "follower")
        self.alter_partition = one("AlterPartition", "leader")
        self.shrink = two("ShrinkIsr", "leader", "follower", range(n))
        self.expand = two("ExpandIsr", "leader", "follower", range(n))
        self.controller_shrink = one("ControllerShrinkIsr", "replica")
        self.elect = one("Elect", "leader")
        self.unclean_elect = one("UncleanElect", "leader")
        self.unclean_recovery = one("UncleanRecovery", "leader")
        self.crash = one("Crash", "replica")
        self.restart = one("Restart", "replica")
        self.become_leader = two("BecomeLeader", "replica", "epoch", epochs)
        self.become_follower = two("BecomeFollower", "replica", "epoch", epochs)
        self.flush = one("Flush", "replica")
        self.unclean_shutdown = one("UncleanShutdown", "replica")
