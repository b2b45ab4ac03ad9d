"""``hwcheck explore``: every interleaving of the model within its bounds, each property
judged, the counterexamples drawn and written (``summary.json``, ``trace.json``, ``trace.html``).

Exit codes are README's: 0 every property holds, 12 a violation, 13 a vacuity guard never
reached, 3 interrupted or a limit hit (partial results marked partial), 2 a usage error, 4 a
checkpoint that cannot be resumed, 5 Spark cannot run, 75 the spec raised.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import click

from checker.commands import batch, checkpoints, cluster, cores, liveness, url_plan
from checker.commands import resuming as resuming_options
from checker.commands.checkpoint_flags import CHECKPOINT_FLAGS
from checker.commands.engines import engine_from, engine_options, run
from checker.commands.options import (
    SHOW_OPTION,
    bounds,
    model_options,
    protocol_from,
    with_options,
)
from checker.commands.values import Integer, Seconds
from checker.formats import report
from checker.limits import Limits, interrupted, signal_name
from checker.liveness.run import describe as live_line
from checker.model import Spec
from checker.renderers import progress as progress_view
from checker.renderers import terminal


@click.command(name="explore")
@model_options
@with_options(cluster.CLUSTER_FLAGS)
@click.option(
    "--max-depth",
    type=Integer(min=1),
    default=None,
    help="Stop after this many BFS levels (initial state = 1): INCOMPLETE, exit 3.",
)
@click.option(
    "--time-limit",
    type=Seconds(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Stop after this many seconds: INCOMPLETE, exit 3.",
)
@click.option(
    "--stop-on-first",
    is_flag=True,
    help="End at the first violation (default: find every violated property).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON on stdout.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for summary.json and traces [default: reports/<run-id>].",
)
@click.option("--no-progress", is_flag=True, help="No progress display on stderr.")
@SHOW_OPTION
@with_options(liveness.LIVENESS_FLAGS)
@engine_options
@with_options(CHECKPOINT_FLAGS)
@click.pass_context
def explore_cmd(
    ctx: click.Context,
    /,
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
    cluster_files: tuple[Any, ...],
    kafka_version: str | None,
    max_depth: int | None,
    time_limit: float | None,
    stop_on_first: bool,
    as_json: bool,
    out: Any,
    no_progress: bool,
    show: str,
    liveness_all: bool,
    fair: tuple[str, ...],
    unfair: tuple[str, ...],
    liveness_max_states: int | None,
    **flags: Any,
) -> None:
    """Explore every interleaving and check the invariants."""
    given = bounds(
        replicas,
        truncation,
        max_records,
        max_epoch,
        max_crashes,
        min_isr,
        unclean,
        log_size,
        **protocol_from(flags),
    )
    given, mapping = cluster.from_flags(model, cluster_files, kafka_version, given, as_json)
    limits = Limits(max_depth=max_depth, time_limit=time_limit, stop_on_first=stop_on_first)
    engine = engine_from(flags)
    plan = url_plan.plan_from(flags, engine.spark)
    resuming = None
    where = plan.url or plan.base
    if plan.resuming and where is not None:
        default = ctx.get_parameter_source("model") == click.core.ParameterSource.DEFAULT
        saved = resuming_options.saved_options(where, engine.spark)
        model, given, names, limits, symmetry = resuming_options.resumed(
            saved, None if default else model, given, names, limits, engine.symmetry
        )
        engine = dataclasses.replace(engine, symmetry=symmetry)
        resuming = progress_view.Resuming(
            saved["search"]["depth"], saved["search"]["distinct"], saved["frontier_size"]
        )
    names, alive, rules = liveness.split(model, given, names, liveness_all, fair, unfair)
    cores.warn_if_stale(engine.core)  # before the progress display starts
    folders: list[Path] = []

    def checkpoint_at(spec: Spec) -> tuple[Path, bool]:
        folders.append(out or plan.earlier() or Path("reports") / report.run_id(spec))
        work_dir = engine.spark.work_dir if engine.spark is not None else None
        return plan.folder(folders[0], "", work_dir), False

    with progress_view.for_search(not no_progress, resuming) as on_progress:
        shown = progress_view.Watched(on_progress)  # the last line, for an interrupt's summary
        spec, result = run(model, given, names, limits, shown.hook, engine, plan, checkpoint_at)
    found = liveness.check(
        spec,
        alive,
        rules,
        result,
        liveness_max_states,
        engine.core,
        show=not no_progress,
        memory=engine.memory,
    )
    if interrupted(result.reason):
        click.echo(
            progress_view.interrupted_line(
                signal_name(), result.stats, shown.last, searched=result.exhausted
            ),
            err=True,
        )
    folder = (
        folders[0] if folders else out or plan.earlier() or Path("reports") / report.run_id(spec)
    )
    summary = batch.write_reports(folder, spec, result)
    terminal.print_run(spec, result, summary, folder, as_json, show, hint=mapping is None)
    if found is not None:
        click.echo(live_line(found), err=True)
    cluster.print_answer(mapping, spec, result, as_json)
    checkpoints.finish(plan, checkpoints.partial(result), "explore", reports=folder)
    sys.exit(result.exit_code)
