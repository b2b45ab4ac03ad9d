"""The CI invariant gate: checks with expectations (read from TOML by
``checker.gate.config``), judged against results.

A check names a model, a truncation variant, replicas, bounds, an engine, an optional time
limit, a ``mode`` (``explore``, the default, or ``simulate`` with ``seed``, ``walks`` and
``depth``: random walks, where "holds" means no walk found a violation, or ``conform``: real
Kafka brokers through seeded schedules, where "holds" means every cut is safe and explained
by the model) and its expectation: ``expect = "holds"`` (every property holds and every vacuity guard
is reached) or ``violates = [names]`` (exactly these properties are violated: a known-buggy
variant stays pinned as buggy, and a change that silently makes it stop failing fails too).
Beside its verdict, every check's run is compared with its pins in the lock file
(``checker.formats.pins``), and the trace files named by ``gate_traces`` are replayed (the corpus).
This module knows no model: ``checker.commands.gate`` runs each check and hands back the
result; ``checker.formats.gate_output`` writes JUnit, annotations and the markdown summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from checker.gate.schema import GATE_WALKS
from checker.result import CheckResult, Status

PASS, FAIL, INCOMPLETE, ERROR = "PASS", "FAIL", "INCOMPLETE", "ERROR"
EXIT_UNMET = 1


@dataclass(frozen=True)
class Check:
    """One gate check. ``bounds`` maps option names (``replicas``, ``max_epoch``, ...) to
    values; ``violates`` is None for ``expect = "holds"``."""

    name: str
    model: str
    truncation: str
    bounds: dict[str, Any]
    engine: str = "local"
    time_limit: float | None = None
    violates: frozenset[str] | None = None
    invariants: tuple[str, ...] = ()
    line: int = 0
    symmetry: bool | None = None
    mode: str = "explore"
    plan: dict[str, Any] = field(default_factory=dict)
    """For ``mode = "simulate"``: ``seed``, ``walks`` and ``depth`` as given; for ``mode =
    "conform"``: ``kafka``, ``kafka_libs``, ``schedules``, ``steps``, ``seed``, ``depth``."""
    lines: dict[str, int] = field(default_factory=dict)
    """The line (1-based) of each key the check gives, for messages."""
    liveness: bool = False
    """Also check every liveness property (``explore --liveness``)."""
    fairness: str | None = None
    """The liveness check's fairness, in ``--fair``'s text form, comma-separated; replaces
    the model's declared fairness (``"none"`` or ``""``: no fairness). None: the model's."""

    @property
    def folder(self) -> str:
        """The name of the check's folder under ``--out`` (reports, checkpoints): its name
        with every run of characters but ``A-Za-z0-9_.-`` made ``-``, and leading dots made
        ``-`` too, so that no name (``..``) reaches outside ``--out``."""
        key = re.sub(r"[^A-Za-z0-9_.-]+", "-", self.name)
        return re.sub(r"^\.+", lambda dots: "-" * len(dots.group()), key)

    @property
    def expectation(self) -> str:
        """``holds`` or ``violates A, B`` (with ``, in N walks`` for a simulation); for a
        corpus trace (``mode = "replay"``), ``replays as pinned``."""
        if self.mode == "replay":
            return "replays as pinned"
        if self.mode == "conform":
            n = self.plan.get("schedules", 3)
            return f"real Kafka conforms, in {n} schedule{'' if n == 1 else 's'}"
        said = "holds" if self.violates is None else "violates " + ", ".join(sorted(self.violates))
        return said + (
            f", in {self.plan.get('walks', GATE_WALKS):,} walks" if self.mode == "simulate" else ""
        )


@dataclass
class Outcome:
    """A check, its result and the verdict: PASS, FAIL, INCOMPLETE or ERROR, with why."""

    check: Check
    status: str
    message: str
    result: CheckResult | None = None
    report: str | None = None
    details: dict[str, str] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    """What changed against the check's pins (``checker.formats.pins``), most telling first."""
    pins: str = ""
    """How the pins went: ``match``, ``differ``, ``none`` (not pinned yet), ``updated``,
    ``new`` (pinned by this ``--update``) or "" (not compared: the verdict failed or the
    run was cut short)."""


def judge(check: Check, result: CheckResult) -> Outcome:
    """Compare a result with the check's expectation (see the module docstring)."""
    violated = {v.prop.name for v in result.violations}
    if result.status == Status.ERROR:
        return Outcome(check, ERROR, result.reason, result)
    if check.violates is None:
        if result.status == Status.OK:
            said = (
                f"no violation in {result.sampled:,} walks (simulation: not a proof)"
                if result.sampled
                else "every property holds"
            )
            return Outcome(check, PASS, said, result)
        if violated:
            return Outcome(
                check, FAIL, "expected to hold, but violates " + ", ".join(sorted(violated)), result
            )
        if result.status == Status.VACUOUS:
            return Outcome(
                check, FAIL, "vacuous: never reached " + ", ".join(result.unreached), result
            )
        return Outcome(check, INCOMPLETE, result.reason or "search cut short", result)
    unexpected, missing = violated - check.violates, check.violates - violated
    if unexpected:
        return Outcome(
            check, FAIL, "unexpected violation of " + ", ".join(sorted(unexpected)), result
        )
    if not missing:
        return Outcome(
            check, PASS, "violates " + ", ".join(sorted(violated)) + " as expected", result
        )
    if result.exhausted:
        return Outcome(
            check,
            FAIL,
            "expected violation not found (the model may have been "
            "weakened): " + ", ".join(sorted(missing)),
            result,
        )
    if result.sampled and result.status != Status.INCOMPLETE:
        return Outcome(
            check,
            FAIL,
            f"expected violation not found in {result.sampled:,} walks "
            "(the model may have been weakened): " + ", ".join(sorted(missing)),
            result,
        )
    return Outcome(
        check,
        INCOMPLETE,
        (result.reason or "search cut short") + "; not yet violated: " + ", ".join(sorted(missing)),
        result,
    )


def exit_code(outcomes: list[Outcome]) -> int:
    """0 when every check passed; 1 when any failed or errored; 3 when some were only
    incomplete."""
    statuses = {o.status for o in outcomes}
    if statuses & {FAIL, ERROR}:
        return EXIT_UNMET
    return 3 if INCOMPLETE in statuses else 0
