"""The labels of one variant of the TLA+ port, built once per model (``TlaSpec``): an action
name is the variant's TLA+ operator, its arguments the operator's bound variables."""

from __future__ import annotations

from typing import Any

from checker.model import Label


class Labels:
    """Every label of one variant, built once; action names are the variant's operators."""

    def __init__(self, n: int, max_epoch: int, names: dict[str, str]) -> None:
        def one(action: Any, key: Any) -> Any:
            return [Label(action, ((key, r),)) for r in range(n)]

        def two(action: Any, k1: Any, k2: Any, count: Any = n) -> Any:
            return [[Label(action, ((k1, x), (k2, y))) for y in range(count)] for x in range(n)]

        epochs = max_epoch + 1
        self.elect = one("ControllerElectLeader", "newLeader")
        self.controller_shrink = one("ControllerShrinkIsr", "replica")
        self.become_leader = two("BecomeLeader", "leader", "epoch", epochs)
        self.write = one("LeaderWrite", "replica")
        self.inc_hw = one(names["inc_hw"], "leader")
        self.shrink = two(names["shrink"], "leader", "replica")
        self.expand = two(names["expand"], "leader", "replica")
        self.replicate = two(names["fetch"], "follower", "leader")
        self.truncate = two("FollowerTruncate", "follower", "leader")
        self.follow = [
            [
                [
                    Label(names["follow"], (("leader", l), ("replica", r), ("epoch", e)))
                    for e in range(epochs)
                ]
                for r in range(n)
            ]
            for l in range(n)
        ]
