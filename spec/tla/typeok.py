"""TypeOk of KafkaReplication, evaluated in Python.

The spec's TypeOk cannot be evaluated by TLC as written: checking that a log's slots lie in
``LogRecords \\union {Nil}`` makes TLC compare the integer Nil (-1) with a record, an error
(TLC exits with code 76 right after the first LeaderWrite). This is the same set of
conjuncts, stated directly: counters in range, every log's end offset in ``0..LogSize`` with
well-typed records below it, replica states, the quorum state and every request well typed.
"""

from __future__ import annotations

from typing import Any

from checker.properties import INVARIANT, Property
from spec.tla.state import LOGS, NEXT_EPOCH, NEXT_ID, NIL, QUORUM, REQUESTS, RSTATES


def type_ok_property(config: Any) -> Property:
    """TypeOk for the constants of ``config`` (a validated ``TlaConfig``)."""
    replicas = set(range(config.replicas))
    epochs = set(range(config.max_epoch + 1))

    def quorum_ok(q: Any) -> bool:
        epoch, leader, isr = q
        return (
            (epoch in epochs or epoch == NIL)
            and (leader is None or leader in replicas)
            and set(isr) <= replicas
        )

    def type_ok(s: tuple[Any, ...]) -> bool:
        """Every variable has the type KafkaReplication's TypeOk gives it."""
        if not (
            0 <= s[NEXT_EPOCH] <= config.max_epoch + 1 and 0 <= s[NEXT_ID] <= config.max_records
        ):
            return False
        for log in s[LOGS]:
            if len(log) > config.log_size or any(
                not (0 <= rid < config.max_records and epoch in epochs) for rid, epoch in log
            ):
                return False
        for hw, epoch, leader, isr in s[RSTATES]:
            if not (0 <= hw <= config.log_size and quorum_ok((epoch, leader, isr))):
                return False
        return quorum_ok(s[QUORUM]) and all(quorum_ok(q) for q in s[REQUESTS])

    return Property("TypeOk", type_ok.__doc__ or "", INVARIANT, type_ok)
