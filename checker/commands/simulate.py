"""``hwcheck simulate``: seeded random walks beyond exhaustive reach (``checker.simulate.simulation``),
with the shrunk counterexamples drawn and written as ``explore`` writes them.

Bounds default larger than ``explore``'s (``SIMULATE_BOUNDS``): walks do not pay for every
interleaving, so more records, epochs and crashes cost little. Exit codes are ``explore``'s:
12 a violation, 0 none found (which proves nothing), 13 a vacuity guard never reached, 3 Ctrl-C
before any violation, 2 a usage error, 5 Spark cannot run, 75 the spec raised.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import click

from checker.checkpoint.format import CheckpointError
from checker.commands import checkpoints, cores, engines, liveness
from checker.commands import simulate_output as output
from checker.commands.checkpoint_flags import CHECKPOINT_FLAGS
from checker.commands.cores import CORE_OPTION
from checker.commands.options import (
    SHOW_OPTION,
    bounds,
    build,
    choose,
    model_options,
    protocol_from,
    with_options,
)
from checker.commands.values import MAX_WALK_DEPTH, Integer, Seconds
from checker.composition.compose import Recipe, applies
from checker.formats import report, walk_checkpoints
from checker.gate.schema import GATE_WALKS
from checker.limits import Limits, signal_name
from checker.liveness import simulated
from checker.result import EXIT_ENVIRONMENT
from checker.simulate import simulation
from checker.simulate.walks import WalkPlan

SIMULATE_BOUNDS = {
    "kafka": {"max_records": 4, "max_epoch": 6, "max_crashes": 3},
    "tla": {"log_size": 3, "max_records": 3, "max_epoch": 4},
}
"""Bounds ``simulate`` uses where the user gives none (per model; the rest are the model's)."""

DEFAULT_WALKS = 50_000
"""Walks when neither ``--walks`` nor ``--time-limit`` is given: about a minute for
``--replicas 5`` on 2 cores (README, Benchmarks)."""


def _weights(ctx: Any, param: Any, values: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    pairs = []
    for value in values:
        name, sep, number = value.partition("=")
        try:
            weight = float(number)
        except ValueError:
            weight = -1.0
        if not sep or not name.strip() or not 0 <= weight < math.inf or not number.isascii():
            raise click.BadParameter(
                f"{value!r} is not ACTION=WEIGHT with a finite weight of 0 or more",
                ctx=ctx,
                param=param,
            )
        pairs.append((name.strip(), weight))
    return tuple(pairs)


@click.command(name="simulate")
@model_options
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Walk i draws from a generator seeded by (SEED, i).",
)
@click.option(
    "--walks",
    type=Integer(min=1),
    default=None,
    help=f"Walks to run [{DEFAULT_WALKS:,} unless --time-limit is given].",
)
@click.option(
    "--time-limit",
    type=Seconds(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop starting walks after this many seconds.",
)
@click.option(
    "--depth",
    type=Integer(min=1, max=MAX_WALK_DEPTH),
    default=50,
    show_default=True,
    help="Most states on a walk (the initial state counts).",
)
@click.option(
    "--weight",
    "weights",
    multiple=True,
    metavar="ACTION=WEIGHT",
    callback=_weights,
    help="Relative weight of an action's instances (default 1; 0 never takes it). Repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for summary.json and traces [reports/simulate-<model>-...].",
)
@click.option("--no-progress", is_flag=True, help="No progress display on stderr.")
@SHOW_OPTION
@click.option(
    "--liveness",
    "liveness_all",
    is_flag=True,
    help="Also judge every liveness property on the walks: each walk goes on with fair steps "
    "only (at most --liveness-bound); a stutter or a fair cycle that never answers is a "
    "violation, a walk that runs out of steps a suspected one (not a proof).",
)
@click.option(
    "--liveness-bound",
    type=Integer(min=1),
    default=simulated.BOUND,
    show_default=True,
    metavar="STEPS",
    help="Fair steps after each walk for --liveness.",
)
@with_options(liveness.LIVENESS_FLAGS[1:2] + liveness.LIVENESS_FLAGS[3:])
@CORE_OPTION
@with_options(engines.JOB_OPTIONS)
@with_options(CHECKPOINT_FLAGS)
def simulate_cmd(
    model: str,
    replicas: int | None,
    truncation: str | None,
    max_records: int | None,
    max_epoch: int | None,
    max_crashes: int | None,
    min_isr: int | None,
    unclean: bool | None,
    log_size: int | None,
    names: tuple[str, ...],
    seed: Any,
    walks: Any,
    time_limit: float | None,
    depth: Any,
    weights: Any,
    as_json: bool,
    out: Any,
    no_progress: bool,
    show: str,
    liveness_all: bool,
    liveness_bound: int,
    fair: tuple[str, ...],
    unfair: tuple[str, ...],
    **engine_flags: Any,
) -> None:
    """Run seeded random walks, check every property on each step, shrink what fails."""
    given = bounds(
        replicas,
        truncation,
        max_records,
        max_epoch,
        max_crashes,
        min_isr,
        unclean,
        log_size,
        **protocol_from(engine_flags),
    )
    names, alive, rules = liveness.split(model, given, names, liveness_all, fair, unfair)
    cfg, spec = _build(model, given, names)
    known = set(spec.action_names())
    for name, _ in weights:
        if name not in known:
            raise click.BadParameter(
                f"no action {name!r}; actions: {', '.join(sorted(known))}", param_hint="'--weight'"
            )
    saves = checkpoints.plan_from(engine_flags)
    engine = engines.engine_from(engine_flags)
    if walks is None and time_limit is None:
        walks = DEFAULT_WALKS
    plan = WalkPlan(seed=seed, depth=depth, weights=weights)
    folder = out or saves.earlier() or Path("reports") / ("simulate-" + report.run_id(spec))
    identity = {
        **checkpoints.identity(model, cfg, tuple(names), [], False, Limits()),
        "seed": seed,
        "depth": depth,
        "weights": [list(w) for w in weights],
    }
    try:
        writer, resume = walk_checkpoints.saving(saves, folder, identity, checkpoints.warn)
    except CheckpointError as exc:
        checkpoints.refuse(exc)
    cores.warn_if_stale(engine.core)  # before the progress display starts
    with output.progress(not no_progress, time_limit if walks is None else None) as on_progress:
        result = engines.simulate(
            Recipe(model, cfg, tuple(names)),
            plan,
            walks,
            time_limit,
            engine,
            on_progress,
            resume,
            writer.wave if writer else None,
        )
    if writer is not None:
        writer.save(result.batch.walks, result.batch)
    suspected = simulated.judge(spec, alive, rules, result, liveness_bound) if alive else {}
    if result.interrupted:
        click.echo(
            f"Interrupted ({signal_name()}): the results below are partial: "
            f"{result.batch.walks:,} walks ran.",
            err=True,
        )
    try:
        summary = output.write(folder, spec, result, walks, time_limit)
    except OSError as exc:
        click.echo(f"Error: cannot write the reports to {folder}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    output.print_simulation(spec, result, summary, folder, as_json, show)
    for name, why in suspected.items():
        click.echo(f"{name}: suspected violation: {why}", err=True)
    cut = result.interrupted or walks is None
    checkpoints.finish(saves, cut, "simulate", same_flags=True, reports=folder)
    sys.exit(result.exit_code)


def simulate_bounds(model: str, given: dict[str, Any]) -> dict[str, Any]:
    """The options ``given``, with ``SIMULATE_BOUNDS`` where they are None and apply to the
    chosen module (``compose.applies``: none for the tla model's AsyncIsr)."""
    chosen = {k: v for k, v in given.items() if v is not None}
    truncation = chosen.get("truncation")
    defaults = {k: v for k, v in SIMULATE_BOUNDS[model].items() if applies(model, k, truncation)}
    return {**defaults, **chosen}


def _build(model: str, given: dict[str, Any], names: Any) -> tuple[Any, Any]:
    """``(config, spec)`` as ``run.build`` makes them, with ``SIMULATE_BOUNDS`` where
    ``given`` has None; an unknown property name is a usage error too."""
    cfg, spec, props = build(model, simulate_bounds(model, given))
    choose(props, names)
    return cfg, spec


def for_gate(
    check: Any, given: dict[str, Any], engine: Any, on_progress: Any = None
) -> tuple[Any, Any]:
    """Run a gate check of ``mode = "simulate"`` (``check.plan``: ``seed``, ``walks``,
    ``depth``) on ``engine``'s workers or Spark, ``on_progress`` getting its ticks;
    ``(spec, CheckResult)``. Bounds the check does
    not give are ``SIMULATE_BOUNDS``'. Raises ``click.BadParameter`` for a bad bound or
    property name; exits 5 when Spark cannot run."""
    cfg, spec = _build(check.model, given, check.invariants)
    plan = WalkPlan(seed=check.plan.get("seed", 0), depth=check.plan.get("depth", 50))
    result = engines.simulate(
        Recipe(check.model, cfg, tuple(check.invariants)),
        plan,
        check.plan.get("walks", GATE_WALKS),
        check.time_limit,
        engine,
        on_progress,
    )
    return spec, simulation.as_check_result(result)
