"""``hwcheck simulate --liveness``: judge liveness properties on the simulation's own walks
(``checker.liveness.walks``) and fold the answers into its ``Simulation``.

The walks are the simulation's (the same seeds and weights, replayed on the reference core),
so walk ``i`` here is walk ``i`` there, cut at a length drawn from ``(seed, i)``: a walk run
to its depth has usually spent every budget and settled, so the fair steps start where the
cut falls. A real lasso (stuttering, or a fair cycle) is a
violation like any other: shrunk, written as a trace, exit 12. A walk that only ran out of
fair steps is a suspected violation: it is reported with its walk index, and proves nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from checker.fingerprint import fingerprint
from checker.liveness import fairness as fair_text
from checker.liveness.run import obligation_text
from checker.liveness.walks import Found, Schedule, judge_walk, replay, shrink
from checker.model import Spec
from checker.properties import Fairness, Property
from checker.result import Loop, Step, Violation
from checker.simulate.shrink import Shrunk
from checker.simulate.simulation import Simulation
from checker.simulate.walks import run_walk

BOUND = 100
"""Fair steps after each walk (``--liveness-bound``'s default)."""
WALKS = 2_000
"""The most walks liveness replays (it runs on the reference core, one process)."""


def judge(
    spec: Spec,
    props: Sequence[Property],
    fairness: Sequence[Fairness],
    result: Simulation,
    bound: int = BOUND,
) -> dict[str, str]:
    """Run liveness on the first ``result.batch.walks`` walks (at most ``WALKS``), add each violated property's
    shrunk lasso to ``result`` (``checked``, ``shrunk``, ``batch.first``, ``status``) and
    return the suspected ones: property name → a sentence naming the walk."""
    schedule = Schedule(fairness, getattr(spec, "conditions", dict)())
    real: dict[str, tuple[int, Found]] = {}
    suspected: dict[str, str] = {}
    for index in range(min(result.batch.walks, WALKS)):
        if len(real) == len(props):
            break
        walk = run_walk(spec, [], result.plan, index)
        # where the walk hands over to fair steps: drawn per walk, so every length is tried
        cut = random.Random(f"{result.plan.seed}/{index}/liveness").randrange(len(walk.labels) + 1)
        prefix = replay(spec, walk.labels[:cut])
        for prop in props:
            if prop.name in real:
                continue
            found = judge_walk(spec, prop, prefix, schedule, bound)
            if found is None:
                continue
            bounded = _cut(spec, found)
            if found.suspected:
                what = "had not settled" if found.key is None else "still had it open"
                steps = f"{bound} fair step{'' if bound == 1 else 's'}"
                suspected.setdefault(
                    prop.name, f"walk {index:,} {what} after {steps} (suspected, not a proof)"
                )
            elif bounded:
                suspected.setdefault(
                    prop.name,
                    f"walk {index:,} ended in a loop where {bounded} (unknown at "
                    "these bounds, not a proof)",
                )
            else:
                real[prop.name] = (index, found)
    result.checked = tuple(result.checked) + tuple(props)
    for prop in props:
        if prop.name not in real:
            continue
        index, found = real[prop.name]
        small = shrink(spec, prop, found, schedule, bound)
        violation = _violation(prop, small, fairness)
        labels = [step.label.text for step in violation.trace[1:] if step.label is not None]
        result.batch.first[prop.name] = (index, labels)
        result.batch.violating[prop.name] = result.batch.violating.get(prop.name, 0) + 1
        length = len(found.path)
        result.shrunk.append(Shrunk(violation, length, length, violation.length, violation.length))
        suspected.pop(prop.name, None)
    if real and result.status in ("none found", "vacuous"):
        result.status = "violated"
        result.reason = f"{len(real)} liveness propert{'y' if len(real) == 1 else 'ies'} violated"
    return suspected


def _cut(spec: Spec, found: Found) -> str:
    """The model's ``cut`` sentence when every state of ``found``'s loop is one where a bound,
    not the protocol, stops progress (``check.judge``: such a lasso proves nothing); else
    ``""``."""
    cut = getattr(spec, "cut", None)
    if cut is None or found.suspected:
        return ""
    reasons = [cut(state) for _, state in found.path[found.back_to :]]
    return reasons[-1] if reasons and all(reasons) else ""


def _violation(prop: Property, found: Found, fairness: Sequence[Fairness]) -> Violation:
    steps = tuple(Step(label, state, fingerprint(state)) for label, state in found.path)
    obligation = obligation_text(prop, found.key)
    loop = Loop(found.back_to, found.stutter, (), fair_text.render(fairness), obligation)
    return Violation(prop, steps, loop)
