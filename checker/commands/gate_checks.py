"""A gate check as the commands see it: its model options, its validation before any check
runs, and the definition its pins are recorded under (``checker.formats.pins``)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import click

from checker.commands import cluster, spelling
from checker.commands import simulate as simulate_view
from checker.commands.options import build, choose
from checker.composition import compose
from checker.composition.cluster import ClusterError
from checker.formats.cluster import ClusterFileError
from checker.gate import policy as gate
from checker.gate.schema import GATE_WALKS
from checker.liveness import run as live
from checker.liveness.fairness import FairnessError
from checker.result import EXIT_BAD_INPUT
from spec.kafka import plugins


def definition(check: gate.Check, spec: Any, engine: Any) -> dict[str, Any]:
    """What the check's pins depend on, as the lock file records it: model, truncation, the
    bounds as the config gives them, the properties named, the mode (with a simulation's
    ``seed``, ``walks`` and ``depth``) and, for a search, whether symmetry reduction was on
    (the check's ``symmetry``, else the engine's ``--symmetry``, else the model's default).
    The engine, worker count and core are left out: pins are the same on all of them."""
    defined: dict[str, Any] = {
        "model": check.model,
        "truncation": check.truncation,
        **{
            k: list(v) if isinstance(v, (list, tuple)) else v
            for k, v in sorted(check.bounds.items())
        },
        "mode": check.mode,
    }
    if check.invariants:
        defined["invariants"] = sorted(check.invariants)
    if check.liveness:
        defined["liveness"] = True
    if check.fairness is not None:
        defined["fairness"] = check.fairness
    if check.mode == "simulate":
        defined.update(check.plan)
    else:
        chosen = check.symmetry if check.symmetry is not None else engine.symmetry
        defined["symmetry"] = spec.default_symmetry if chosen is None else chosen
    return defined


_KEYS = {"unclean_election": "unclean", "with_mechanisms": "with", "without_mechanisms": "without"}
"""Config fields whose gate key is another word (the one table both ways: ``given_of``,
``defaults`` and ``validate``'s hints)."""


def defaults(check: gate.Check) -> dict[str, Any]:
    """What the check runs with where it gives no value, keyed as ``definition`` keys it:
    the model's bounds (a simulation's: ``simulate``'s) and a simulation's walks. The pins'
    differences say it for a key given on one side only (``max_records 2 (default) → 3``)."""
    given: dict[str, Any] = {"truncation": check.truncation}
    extra: dict[str, Any] = {}
    if check.mode == "simulate":
        given, extra = simulate_view.simulate_bounds(check.model, given), {"walks": GATE_WALKS}
    try:
        config = compose.make_config(check.model, given)
    except ValueError:
        return extra
    fields = dataclasses.asdict(config).items()
    return {_KEYS.get(k, k): list(v) if isinstance(v, tuple) else v for k, v in fields} | extra


def config_error(message: str) -> None:
    """One line on stderr and exit 4: a bad gate configuration or lock file."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def given_of(check: gate.Check, folder: Path) -> dict[Any, Any]:
    """A check's model options as ``make_config`` takes them; ``variant_file`` is relative
    to ``folder``, the gate file's, and trusted (``plugins.trust``): the gate config is the
    team's own file, as the command line is."""
    given = {"truncation": check.truncation, **check.bounds}
    given.pop("cluster", None), given.pop("kafka_version", None)  # already mapped
    if given.get("variant_file"):
        given["variant_file"] = plugins.trust(folder / given["variant_file"])
    for field, key in _KEYS.items():
        given[field] = given.pop(key, None)
    return given


def with_cluster(path: Path, index: int, check: gate.Check) -> gate.Check:
    """The check with its ``cluster`` file mapped (``cluster.gate_check``); a file that cannot
    be read, a value the model cannot take or a bad ``kafka_version`` is exit 4, naming the
    file, line and key."""
    try:
        mapped: gate.Check = cluster.gate_check(check, path.parent)
        return mapped
    except (ClusterFileError, ClusterError) as exc:
        key = getattr(exc, "option", "cluster") if not getattr(exc, "where", "") else "cluster"
        config_error(
            f"{path}:{check.lines.get(key, check.line)}: gate check {index + 1}, key '{key}': {exc}"
        )
        raise  # config_error exits


def validate(path: Path, index: int, check: gate.Check, given: dict[Any, Any]) -> None:
    """Build the check's model and look up every property it names, before any check runs:
    a bad bound, an unknown ``invariants`` or ``violates`` name, or a ``violates`` name that
    ``invariants`` leaves out is exit 4, naming the file, line and key."""

    def fail(key: str, message: str) -> None:
        config_error(
            f"{path}:{check.lines.get(key, check.line)}: gate check {index + 1}, "
            f"key '{key}': {message}"
        )

    if check.mode == "simulate":
        given = simulate_view.simulate_bounds(check.model, given)
    try:
        _, spec, props = build(check.model, given)
        alive = [p.name for p in getattr(spec, "liveness", list)()]
        choose(props, tuple(n for n in check.invariants if n not in alive))
        if check.liveness or check.fairness is not None or set(alive) & set(check.invariants):
            live.fairness_of(spec, (), (), check.fairness)
    except click.BadParameter as exc:
        hint = str(exc.param_hint or "").strip("'-").replace("-", "_")
        key = {"invariant": "invariants", **_KEYS}.get(hint, hint)
        fail(key, exc.format_message())
    except FairnessError as exc:
        fail("fairness", str(exc))
    checked = {p.name for p in props if p.kind != "sometimes"} | set(alive)
    unknown = sorted((check.violates or frozenset()) - checked)
    if unknown:
        fail(
            "violates",
            f"the {check.model} model has no property {', '.join(unknown)}"
            f"{spelling.suggestion(unknown[0], checked)}; known: {', '.join(sorted(checked))}",
        )
    default = {p.name for p in choose(props, ())} | set(alive)
    left_out = sorted((check.violates or frozenset()) - set(check.invariants or default))
    if left_out:
        named_only = (
            "; it is checked only when named in invariants"
            if left_out[0] in checked - default
            else ""
        )
        fail("violates", f"{', '.join(left_out)} is not among the checked invariants{named_only}")
