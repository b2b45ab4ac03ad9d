"""Well-formedness invariants: HwLeLeo, LeaderInIsr."""

from __future__ import annotations

from checker.properties import INVARIANT, Property
from invariants.access import Replication


def properties(acc: Replication) -> list[Property]:
    """HwLeLeo and LeaderInIsr over the accessors ``acc``."""

    def hw_le_leo(s) -> bool:
        """Every replica's HW is at most its LEO."""
        return all(hw <= len(log) for hw, log in zip(acc.hws(s), acc.logs(s)))

    def explain_hw(s) -> str:
        bad = [f"replica {r} has HW {hw} > LEO {len(log)}"
               for r, (hw, log) in enumerate(zip(acc.hws(s), acc.logs(s))) if hw > len(log)]
        return "; ".join(bad)

    def leader_in_isr(s) -> bool:
        """The controller's leader, when there is one, is in the controller's ISR."""
        leader, _, isr = acc.quorum(s)
        return leader is None or leader in isr

    def explain_leader(s) -> str:
        leader, epoch, isr = acc.quorum(s)
        return f"controller names leader {leader} in epoch {epoch} but its ISR is {list(isr)}"

    return [
        Property("HwLeLeo", hw_le_leo.__doc__, INVARIANT, hw_le_leo, explain_hw),
        Property("LeaderInIsr", leader_in_isr.__doc__, INVARIANT, leader_in_isr,
                 explain_leader),
    ]
