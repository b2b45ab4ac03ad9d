"""What the liveness graph may cost before it is built: the states (or orbits) it may hold on
each core (``--liveness-max-states``), and the memory it would take against ``--memory``,
both judged from the safety search's count (``checker.commands.liveness``). The pass holds
its graph in memory and has no disk tier: a graph past either is refused, its properties
unknown, with the reason these functions give.
"""

from __future__ import annotations

import math

from checker.model import Spec
from checker.result import CheckResult

MAX_STATES = 2_000_000
"""The default budget of the liveness graph (states) on the reference core: about 2 GiB of
Python objects and a minute of graph building."""
COMPILED_MAX_STATES = 100_000_000
"""The default budget on the compiled core: rows, edges and arrays in C and numpy, about
150 bytes a state (18,329,597 states, the kafka model's at 3 replicas, fit in a few GiB)."""


ORBIT_BYTES = 160
"""What the compiled liveness pass holds at its peak per orbit of the orbit graph, beyond the
process (bytes): the estimate ``--memory`` is held to. Measured (2026-11-30), the whole run's
peak over its orbits: 127 at 3 replicas beyond a 90 MiB process (641 MiB, 4,338,867 orbits),
136 at ``--max-epoch 3`` (5.2 GiB, 40,263,439 orbits; 148 with the build before), 143 at 4
replicas, 2 records, epoch 1 (11.7 GiB, 87,883,526 orbits)."""
PLAIN_BYTES = 330
"""The same for the compiled core's whole plain graph, per state: 8,232 MiB for 26,027,896
states at 3 replicas (2026-11-30)."""


def _plain_states(result: CheckResult, spec: Spec) -> int:
    """The whole plain graph's states, at most: the search's count, times ``replicas!`` when it
    counted orbits."""
    symmetric = result.stats.symmetry
    return result.stats.distinct * (
        math.factorial(getattr(spec, "symmetric_ids", 1)) if symmetric else 1
    )


def over_memory(
    result: CheckResult, spec: Spec, memory: int | None, core: str, orbits: bool
) -> str:
    """Why the liveness graph of a finished safety search would not fit ``--memory``
    (``memory`` bytes, None for no budget), or "": the compiled core's orbit graph at
    ``ORBIT_BYTES`` an orbit (the search's count), or its whole plain graph at
    ``PLAIN_BYTES`` a state (up to ``replicas!`` states an orbit). The liveness pass holds
    its graph in memory and has no disk tier, so past the budget it is refused, not run."""
    if memory is None or core != "compiled":
        return ""
    count = result.stats.distinct
    if orbits:
        need, size = count * ORBIT_BYTES, f"orbit graph's {count:,} orbits"
    else:
        states = _plain_states(result, spec)
        need, size = states * PLAIN_BYTES, f"whole plain graph's {states:,} states"
    if need <= memory:
        return ""
    each = ORBIT_BYTES if orbits else PLAIN_BYTES
    return (
        f"the {size} need about {need / 2**20:,.0f} MiB ({each} bytes each), past --memory "
        f"{memory / 2**20:,.0f} MiB; the liveness pass holds its graph in memory (it has no "
        "disk tier): raise --memory or lower the bounds"
    )


def budget(core: str) -> int:
    """The default liveness budget of ``core`` (``compiled`` or ``reference``)."""
    return COMPILED_MAX_STATES if core == "compiled" else MAX_STATES


def too_large(
    result: CheckResult, spec: Spec, max_states: int, core: str = "reference", orbits: bool = False
) -> str:
    """Why the liveness graph of a finished safety search cannot fit ``max_states`` (the
    budget of ``core``, the core liveness will run on), or "": with ``orbits``, the orbit
    graph (the search's count), else the plain graph.

    With symmetry the search counted orbits; each holds at most ``replicas!`` states, so the
    plain graph has between ``orbits`` and ``orbits * replicas!`` states (the upper bound is
    nearly exact for the Kafka model: 3,055,224 orbits, 18,329,597 states at 3 replicas)."""
    count = result.stats.distinct
    if orbits:
        if count <= max_states:
            return ""
        return (
            f"the orbit graph has {count:,} orbits, past the liveness budget of "
            f"{max_states:,} (--liveness-max-states): lower the bounds or raise the budget"
        )
    states = _plain_states(result, spec)
    if states <= max_states:
        return ""
    size = f"{count:,} states" if states == count else f"up to {states:,} states"
    return (
        f"the whole plain graph has {size}, past the liveness budget of {max_states:,} "
        f"(--liveness-max-states); liveness holds it in memory on the {core} core: lower "
        "the bounds (e.g. --replicas 2) or raise the budget"
    )
