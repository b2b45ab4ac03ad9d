"""A concrete lasso from a violation found on the orbit graph (``checker.liveness.orbit_find``).

The stem is the breadth-first orbit path to the obligation's orbit, walked from a real
initial state: each step's label and target renamed by the renamings composed so far (an
orbit edge ``A -> B`` with renaming ``g`` taken from the concrete state ``t . r_A`` leads to
``(t . g^-1) . r_B``). The way into the ending follows the pairs' graph the same way. A fair
loop is then built on the concrete component: the states reachable from the stem's last state
whose pair lies in the fair orbit component, with all their steps, judged by
``checker.liveness.fair`` and looped by ``checker.liveness.lasso.loop_in``. The returned
``StateGraph`` holds only the lasso's states and that component; the lasso's indices name it.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from checker.liveness.fair import Constraints, fair_components
from checker.liveness.graph import StateGraph
from checker.liveness.lasso import Lasso, Path, loop_in
from checker.liveness.orbit_find import Ending, Found, Setting, smallest_key
from checker.liveness.orbits import rename_key, rename_label
from checker.model import Label, State
from checker.properties import Property


class Witness:
    """The concrete states and steps a lasso names, numbered as they are added."""

    def __init__(self) -> None:
        self.graph = StateGraph()
        self.index: dict[State, int] = {}
        self.label_ids: dict[Label, int] = {}

    def state(self, state: State) -> int:
        found = self.index.get(state)
        if found is None:
            found = self.index[state] = len(self.graph.states)
            self.graph.states.append(state)
            self.graph.succ.append([])
            self.graph.parent.append(None)
            self.graph.depth.append(0)
        return found

    def label(self, label: Label) -> int:
        found = self.label_ids.get(label)
        if found is None:
            found = self.label_ids[label] = len(self.graph.labels)
            self.graph.labels.append(label)
        return found

    def expand(self, spec: Any, node: int) -> None:
        """Give ``node`` all its steps (stutters dropped), once."""
        if self.graph.succ[node]:
            return
        here = self.graph.states[node]
        for label, state in spec.successors(here):
            if state != here:
                self.graph.succ[node].append((self.label(label), self.state(state)))


def shortest(setting: Setting, prop: Property, found: Found) -> tuple[Lasso, StateGraph, Any]:
    """``build`` from each of ``found.starts``, and the shortest lasso (the earliest loop,
    then the fewest states; ties to the earlier start), as ``check._leads_to`` chooses."""
    best = None
    for start in found.starts:
        made = build(setting, prop, found, start)
        if best is None or (made[0].back_to, len(made[0].path)) < (
            best[0].back_to,
            len(best[0].path),
        ):
            best = made
    assert best is not None, "a violation has a start"
    return best


def build(
    setting: Setting, prop: Property, found: Found, start: int
) -> tuple[Lasso, StateGraph, Any]:
    """``(lasso, the graph its indices name, the obligation's concrete key or None)`` from
    the pair node ``start``."""
    g, pairs = setting.graph, found.pairs
    group, perms, names = g.group, g.group.perms, setting.names
    spec = setting.spec
    ending = found.ending
    out = Witness()
    path: Path = []
    steps = g.path_to(pairs.orbit[start])
    tau = group.inv[steps[0][2]]
    for label, orbit, r in steps:
        named = None
        if label is not None:  # the label in the source's names, then the renaming moves on
            named = out.label(rename_label(g.labels[label], perms[tau], names))
            tau = group.mul[tau][group.inv[r]]
        path.append((named, out.state(g.symmetry.permute(g.states[orbit], perms[tau]))))
    key = pairs.key[start]
    concrete_key = None if key is None else rename_key(key, perms[tau], prop.key_ids or ())
    for label, target, r in _into(pairs, start, ending):
        renamed = rename_label(g.labels[label], perms[tau], names)
        tau = group.mul[tau][group.inv[r]]
        state = g.symmetry.permute(g.states[pairs.orbit[target]], perms[tau])
        path.append((out.label(renamed), out.state(state)))
    end = path[-1][1]
    node = _pair_node(setting, prop, pairs, out.graph.states[end], concrete_key)
    if node in ending.stops:
        out.expand(spec, end)
        return Lasso(path, len(path) - 1, True), out.graph, concrete_key
    comp = ending.owner.get(node)
    assert comp is not None, "the lasso ends in a fair component"
    members = [end]
    seen = {end}
    for member in members:  # the concrete component: everything reachable inside comp
        out.expand(spec, member)
        for _, target in out.graph.succ[member]:
            if target in seen:
                continue
            there = _pair_node(setting, prop, pairs, out.graph.states[target], concrete_key)
            if there in comp:
                seen.add(target)
                members.append(target)
    conditions: dict[str, Any] = getattr(spec, "conditions", dict)()
    rules = Constraints.over(out.graph, setting.fairness, conditions)
    must = None
    if found.must is not None:
        must = {m for m in members if not prop.predicate(out.graph.states[m])}
    fair = [c for c in fair_components(out.graph, members, rules, must) if end in c]
    assert fair, "the orbit component's concrete component is fair"
    loop = loop_in(out.graph, end, fair[0], rules, must)
    return Lasso(path + loop, len(path) - 1, False), out.graph, concrete_key


def _into(pairs: Any, start: int, ending: Ending) -> list[tuple[int, int, int]]:
    """The shortest way (pair edges ``(label, target, g)``) from ``start`` through doomed
    nodes to an ending node; ``[]`` when ``start`` is one."""
    if ending.ends(start):
        return []
    came: dict[int, tuple[int, tuple[int, int, int]] | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for edge in pairs.succ[node]:
            target = edge[1]
            if target in came or target not in ending.doomed:
                continue
            came[target] = (node, edge)
            if ending.ends(target):
                way = []
                at = target
                while came[at] is not None:
                    before, step = came[at]  # type: ignore[misc]
                    way.append(step)
                    at = before
                return way[::-1]
            queue.append(target)
    raise AssertionError("a doomed node reaches an ending")


def _pair_node(setting: Setting, prop: Property, pairs: Any, state: State, key: Any) -> int:
    """The node of the concrete pair ``(state, key)`` (-1 when the pairs do not hold it)."""
    orbit, r = setting.graph.locate(state)
    if key is None:
        return orbit
    renamed = rename_key(key, setting.graph.group.perms[r], prop.key_ids or ())
    best, _ = smallest_key(setting.graph, prop, orbit, renamed)
    return int(pairs.index.get((orbit, best), -1))
