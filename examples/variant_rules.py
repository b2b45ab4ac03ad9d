"""An example of a team's own truncation rule and variant for hwcheck (``--variant-file``).

    hwcheck list --variant-file examples/variant_rules.py
    hwcheck explore --replicas 2 --variant-file examples/variant_rules.py --truncation leo-fenced
    hwcheck compare --replicas 2 --variant-file examples/variant_rules.py

Every module-level ``TruncationRule`` and ``Variant`` of this file is registered: a rule becomes
a mechanism (``--with to-leader-leo`` swaps it into any preset), a variant becomes a preset
(``--truncation leo-fenced``). To ship the same from a package, name them in an entry point of
the group ``hwcheck.variants`` instead (``pyproject.toml``)::

    [project.entry-points."hwcheck.variants"]
    ours = "our_package.rules:VARIANTS"     # a TruncationRule, a Variant or a list of them

A rule is ``rule(log, hw, leader_log) -> offset | None``:

- ``log``: the follower's log, a tuple of records ``(record id, leader epoch)``, offset 0
  first (its LEO is ``len(log)``);
- ``hw``: the follower's HW, an offset (exclusive, 0-based);
- ``leader_log``: the new leader's log, as OffsetsForLeaderEpoch would let the follower learn
  it, when the rule ``asks_leader``; None for a rule that asks nobody;
- returns the offset to truncate to (exclusive: keep ``log[:offset]``; clamped to
  ``[0, len(log)]``), or None for "no answer yet" (becoming follower waits and is retried).

The idea below is one a team might try: "truncate only what the leader does not have",
comparing lengths but not epochs. hwcheck finds the fork it allows (NoDivergence) at 2
replicas: the follower keeps a record from an older epoch that the leader replaced.
"""

from spec.kafka.variants import KIP320_FENCES, TruncationRule, Variant


def to_leader_leo(log, hw, leader_log):
    """Keep the follower's log up to the leader's LEO: offsets only, no epochs compared."""
    return len(leader_log)


TO_LEADER_LEO = TruncationRule(
    "to-leader-leo",
    to_leader_leo,
    asks_leader=True,
    description="truncate to the leader's LEO (lengths only, no epochs)",
)

LEO_FENCED = Variant(
    "leo-fenced",
    TO_LEADER_LEO,
    frozenset(KIP320_FENCES),
    kafka="(an idea)",
    description="to-leader-leo truncation with KIP-320's fences",
)
