"""Liveness verdicts on the orbit graph, soundly under symmetry: the plain check's verdicts
(``checker.liveness.check``) from the annotated quotient (``checker.liveness.orbit_find``).

A lasso is concrete: the orbit path walked from a real initial state with the renamings
composed along it, then a fair loop built by ``checker.liveness.lasso`` inside the concrete
component the fair orbit component stands for (``checker.liveness.orbit_lasso``).
"""

from __future__ import annotations

from checker.liveness import orbit_lasso
from checker.liveness.check import Cut, Verdict
from checker.liveness.graph import StateGraph
from checker.liveness.orbit_find import Setting, find, opened
from checker.properties import Property

__all__ = ["Setting", "judge"]


def judge(setting: Setting, prop: Property, cut: Cut | None) -> tuple[Verdict, StateGraph | None]:
    """The verdict of ``prop`` (the plain check's) and, when it has a lasso, the concrete
    graph its indices name (``checker.liveness.orbit_lasso``)."""
    g = setting.graph
    count = opened(setting, prop)
    cuts = {} if cut is None else {n: why for n, s in enumerate(g.states) if (why := cut(s))}
    found = find(setting, prop, set(cuts))
    why = ""
    if found is None and cuts:
        found = find(setting, prop, set())
        why = "cut"
    if found is None:
        return Verdict(prop, None, opened=count), None
    lasso, witness, key = orbit_lasso.shortest(setting, prop, found)
    if why:
        last = witness.states[lasso.path[-1][1]]
        why = cuts[g.index[g.symmetry.canonical(last)]]
    never = tuple(lasso.never_taken(witness))
    return Verdict(prop, lasso, key, count, never, why), witness
