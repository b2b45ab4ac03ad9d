"""Liveness counterexamples (lassos) for the tests of their files and drawings.

``stutter()``: the tla port's CommitProgress lasso that ``checker.liveness`` finds (6 states,
then stuttering in the last for ever). ``cycle()``: a lasso built by hand on the same model
whose last state is its state 6 again (``back_to`` 5), so states 6 to 8 repeat for ever.
"""

from __future__ import annotations

from checker.composition import compose
from checker.fingerprint import fingerprint
from checker.liveness import run as live
from checker.model import Label
from checker.result import CheckResult, Loop, Stats, Status, Violation
from checker.trace import replay

CYCLE = (
    "ControllerElectLeader(newLeader=0)",
    "ControllerShrinkIsr(replica=1)",
    "BecomeLeader(leader=0, epoch=1)",
    "LeaderWrite(replica=0)",
    "FencedBecomeFollowerAndTruncate(leader=0, replica=1, epoch=1)",
    "FencedLeaderExpandIsr(leader=0, replica=1)",
    "FencedLeaderShrinkIsr(leader=0, replica=1)",
)
"""Seven actions of the tla port (2 replicas) whose last returns to the state after the
fifth: the follower rejoins the ISR and leaves it again, for ever."""

NEVER = tuple(f"Action{i}(x={i})" for i in range(8))
"""Eight made-up action instances, to see the list cut after six."""


def tla():
    return compose.build_model("tla", compose.make_config("tla", {"replicas": 2}))


def stutter():
    spec, props = tla()
    found = live.check(spec, spec.liveness(), live.fairness_of(spec))
    result = CheckResult(Status.OK, Stats(), tuple(props), exhausted=True)
    live.merge(result, found, spec.liveness())
    return spec, next(v for v in result.violations if v.loop)


def cycle():
    spec, _ = tla()
    init = spec.init_states()[0]
    steps = replay(spec, fingerprint(init), [Label.parse(text) for text in CYCLE])
    assert steps[-1].state == steps[5].state
    prop = next(p for p in spec.liveness() if p.name == "CommitProgress")
    loop = Loop(5, False, NEVER, "WF(BecomeLeader), SF(LeaderWrite)", "for leader 0")
    return spec, Violation(prop, tuple(steps), loop)
