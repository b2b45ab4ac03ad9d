"""Well-formedness invariants: HwLeLeo, LeaderInIsr."""

from __future__ import annotations

from typing import Any

from checker.properties import INVARIANT, Property
from invariants.access import Replication

STRICT_ONLY_WHEN_NAMED = (
    "as written it is false in the spec's Init (no leader yet), so it would fail every run; "
    "LeaderInIsrOrNone is the form that holds"
)
"""Why the TLA+ spec's strict LeaderInIsr is left out of a run that names no property
(``Property.named_only``): its Kip320 theorem ``Spec => []LeaderInIsr`` fails in the
1-state trace, which would fail every default ``--model tla`` run."""


def properties(acc: Replication, strict_leader_in_isr: bool = False) -> list[Property]:
    """HwLeLeo and LeaderInIsr over the accessors ``acc``.

    ``strict_leader_in_isr`` states LeaderInIsr as the public TLA+ spec writes it (the quorum
    leader is in the quorum ISR, which is false in its initial state, where there is no
    leader) and adds LeaderInIsrOrNone, the form that holds while no leader exists. Without
    it, LeaderInIsr is that second form.
    """

    def hw_le_leo(s: tuple[Any, ...]) -> bool:
        """Every replica's HW is at most its LEO."""
        for hw, log in zip(acc.hws(s), acc.logs(s)):  # a loop: this runs on every state
            if hw > len(log):
                return False
        return True

    def explain_hw(s: tuple[Any, ...]) -> str:
        bad = [
            f"replica {r} has HW {hw} > LEO {len(log)}"
            for r, (hw, log) in enumerate(zip(acc.hws(s), acc.logs(s), strict=True))
            if hw > len(log)
        ]
        return "; ".join(bad)

    def leader_in_isr_or_none(s: tuple[Any, ...]) -> bool:
        """The controller's leader, when there is one, is in the controller's ISR."""
        leader, _, isr = acc.quorum(s)
        return leader is None or leader in isr

    def leader_in_isr(s: tuple[Any, ...]) -> bool:
        """The quorum leader is in the quorum ISR (as the TLA+ spec states it: false while
        there is no leader)."""
        leader, _, isr = acc.quorum(s)
        return leader in isr

    def explain_leader(s: tuple[Any, ...]) -> str:
        leader, epoch, isr = acc.quorum(s)
        return f"controller names leader {leader} in epoch {epoch} but its ISR is {list(isr)}"

    props = [Property("HwLeLeo", hw_le_leo.__doc__ or "", INVARIANT, hw_le_leo, explain_hw)]
    if strict_leader_in_isr:
        props += [
            Property(
                "LeaderInIsr",
                leader_in_isr.__doc__ or "",
                INVARIANT,
                leader_in_isr,
                explain_leader,
                named_only=STRICT_ONLY_WHEN_NAMED,
            ),
            Property(
                "LeaderInIsrOrNone",
                leader_in_isr_or_none.__doc__ or "",
                INVARIANT,
                leader_in_isr_or_none,
                explain_leader,
            ),
        ]
    else:
        props.append(
            Property(
                "LeaderInIsr",
                leader_in_isr_or_none.__doc__ or "",
                INVARIANT,
                leader_in_isr_or_none,
                explain_leader,
            )
        )
    return props
