"""``hwcheck compare`` and ``hwcheck gate``: many runs, one table, one Ctrl-C.

Both show progress on stderr (``checker.view.batch``); one Ctrl-C ends the whole command,
prints what was done marked as partial, and exits 3. Exit codes are README's: compare 0 (or
75 when a variant's spec raised), gate 0 / 1 (a check failed) / 3 / 4 (a bad configuration,
found before any check runs) / 5 (the JUnit file or reports cannot be written).
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

import click

from checker import gate
from checker.bfs import Limits
from checker.result import (
    EXIT_BAD_INPUT,
    EXIT_ENVIRONMENT,
    EXIT_INCOMPLETE,
    EXIT_OK,
    EXIT_SPEC_ERROR,
    Status,
)
from checker.view import batch, matrix, report
from checker.view import simulate as simulate_view
from checker.view.compose import MODEL_OPTIONS
from checker.view.run import (
    PROTOCOL_FLAGS,
    bounds,
    build,
    choose,
    engine_from,
    engine_options,
    protocol_from,
    run,
    with_options,
)
from spec.kafka.config import MAX_REPLICAS, Config, ConfigError
from spec.kafka.variants import PRESETS
from spec.tla.config import TLA_VARIANTS


@click.command(name="compare")
@click.option("--model", type=click.Choice(sorted(MODEL_OPTIONS)), default="kafka",
              show_default=True, help="Which model's variants to compare.")
@click.option("--replicas", type=click.IntRange(1, MAX_REPLICAS), default=None,
              help="Replication factor.")
@click.option("--max-records", type=click.IntRange(min=0), default=None)
@click.option("--max-epoch", type=click.IntRange(min=0), default=None)
@click.option("--max-crashes", type=click.IntRange(min=0), default=None, help="(kafka)")
@click.option("--min-isr", "min_isrs", type=click.IntRange(min=1), multiple=True,
              help="min.insync.replicas (kafka); repeat to cross the matrix with each value.")
@click.option("--log-size", type=click.IntRange(min=0), default=None, help="(tla)")
@click.option("--unclean/--no-unclean", default=None,
              help="unclean.leader.election.enable for every run (kafka) [off].")
@click.option("--cross-unclean", is_flag=True,
              help="Run every variant with unclean leader election off and on (kafka).")
@with_options(PROTOCOL_FLAGS)
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="Per variant.")
@click.option("--json", "as_json", is_flag=True, help="Print the matrix as JSON.")
@click.option("--markdown", is_flag=True, help="Print the matrix as a markdown table.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the reports [default: reports/compare-<model>-<time>].")
@click.option("--no-progress", is_flag=True, help="No progress display on stderr.")
@engine_options
def compare_cmd(model, replicas, max_records, max_epoch, max_crashes, min_isrs, log_size,
                unclean, cross_unclean, time_limit, as_json, markdown, out, no_progress,
                **engine_flags) -> None:
    """Run every truncation variant and print a variant × property matrix.

    --with / --without change every preset alike (a column per preset, named by the
    result: ``kip101 +fenced-fetch``)."""
    protocol = protocol_from(engine_flags)
    engine = engine_from(engine_flags)
    variants = _kafka_presets(protocol.get("variant_file")) if model == "kafka" else TLA_VARIANTS
    folder = out or Path("reports") / f"compare-{model}-{report.stamp()}"
    runs = []
    for min_isr in min_isrs or (None,):
        for switch in ((False, True) if cross_unclean else (unclean,)):
            for variant in variants:
                shown = switch if cross_unclean else None
                switches = {k: v for k, v in (("unclean", shown), ("min_isr", min_isr))
                            if v is not None}
                given = bounds(replicas, variant, max_records, max_epoch, max_crashes,
                               min_isr, switch, log_size, **protocol)
                _, spec, _ = build(model, given)  # a bad bound fails before any run starts
                runs.append((report.variant_of(spec), switches, given))
    cells, stop = [], batch.Interrupt()
    with batch.progress(len(runs), "variant", not no_progress) as board:
        try:
            for variant, switches, given in runs:
                board.begin(matrix.Cell(variant, switches, None, "").title)
                spec, result = run(model, given, (), Limits(time_limit=time_limit),
                                   board.search, engine)
                where = folder / "-".join([report.slug(variant)]
                                          + [f"{k}{v}" for k, v in switches.items()])
                batch.write_reports(where, spec, result)
                cells.append(matrix.Cell(variant, switches, result, str(where)))
                board.done()
                if stop.cut(result):
                    break
        except KeyboardInterrupt:
            stop.caught()
    if as_json:
        document = matrix.compare_json(cells)
        document["partial"] = stop.hit
        click.echo(json.dumps(document, indent=1))
    elif markdown:
        click.echo(matrix.compare_markdown(cells), nl=False)
        if stop.hit:
            click.echo(f"\n_Partial: interrupted (Ctrl-C) during variant {board.index} of "
                       f"{len(runs)}._")
    else:
        batch.stdout_console().print(matrix.compare_table(cells))
        click.echo(f"Reports and traces: {folder}/")
    if stop.hit:
        click.echo(stop.line(board.index, len(runs), "variant"), err=True)
        sys.exit(EXIT_INCOMPLETE)
    errors = [c for c in cells if c.result.status == Status.ERROR]
    sys.exit(EXIT_SPEC_ERROR if errors else EXIT_OK)


@click.command(name="gate")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("pyproject.toml"), show_default=True,
              help="TOML file with [[tool.hwcheck.gate]] checks.")
@click.option("--junit-xml", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write a JUnit XML report here (parent folders are created).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for reports of failing checks [default: reports/gate-<time>].")
@click.option("--fail-fast", is_flag=True,
              help="Stop at the first check that does not pass (the rest are not run).")
@click.option("--no-progress", is_flag=True, help="No progress display on stderr.")
@engine_options
def gate_cmd(config_path, junit_xml, out, fail_fast, no_progress, **engine_flags) -> None:
    """Run the checks of a gate configuration and judge them against their expectations."""
    engine = engine_from(engine_flags)
    try:
        checks = gate.load_checks(config_path)
    except gate.GateConfigError as exc:
        _config_error(str(exc))
    plans = [(check, _given(check, config_path.parent)) for check in checks]
    for index, (check, given) in enumerate(plans):
        _validate(config_path, index, check, given)
    folder = out or Path("reports") / f"gate-{report.stamp()}"
    outcomes, stop = [], batch.Interrupt()
    with batch.progress(len(plans), "check", not no_progress) as board:
        try:
            for check, given in plans:
                board.begin(check.name)
                spec, result = _run_check(check, given, engine, fail_fast, board)
                outcome = gate.judge(check, result)
                outcome.details = {v.prop.name: report.counterexample_text(v)
                                   for v in result.violations}
                if outcome.status != gate.PASS:
                    where = folder / re.sub(r"[^A-Za-z0-9_.-]+", "-", check.name)
                    batch.write_reports(where, spec, result)
                    outcome.report = str(where)
                outcomes.append(outcome)
                board.done()
                if stop.cut(result) or (fail_fast and outcome.status != gate.PASS):
                    break
        except KeyboardInterrupt:
            stop.caught()
    ran = len(outcomes)
    if stop.hit:
        outcomes += [gate.Outcome(check, gate.INCOMPLETE, "not run: interrupted (Ctrl-C)")
                     for check, _ in plans[ran:]]
    batch.stdout_console().print(matrix.gate_table(outcomes))
    if stop.hit:
        click.echo(stop.line(board.index, len(plans), "check"), err=True)
    elif ran < len(plans):
        click.echo(f"--fail-fast: stopped after {ran} of {len(plans)} checks")
    if junit_xml is not None:
        _write_junit(junit_xml, outcomes)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in gate.github_annotations(outcomes):
            click.echo(line)
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(gate.markdown_summary(outcomes))
    sys.exit(EXIT_INCOMPLETE if stop.hit else gate.exit_code(outcomes))


def _config_error(message: str) -> None:
    click.echo(f"Error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def _given(check: gate.Check, folder: Path) -> dict:
    """A check's model options as ``make_config`` takes them; ``variant_file`` is relative
    to ``folder``, the gate file's."""
    given = {"truncation": check.truncation, **check.bounds}
    if given.get("variant_file"):
        given["variant_file"] = str((folder / given["variant_file"]).resolve())
    given["unclean_election"] = given.pop("unclean", None)
    given["with_mechanisms"] = given.pop("with", None)
    given["without_mechanisms"] = given.pop("without", None)
    return given


def _validate(path: Path, index: int, check: gate.Check, given: dict) -> None:
    """Build the check's model and look up every property it names, before any check runs:
    a bad bound, an unknown ``invariants`` or ``violates`` name, or a ``violates`` name that
    ``invariants`` leaves out is exit 4, naming the file, line and key."""

    def fail(key: str, message: str) -> None:
        _config_error(f"{path}:{check.lines.get(key, check.line)}: gate check {index + 1}, "
                      f"key '{key}': {message}")

    if check.mode == "simulate":
        given = simulate_view.simulate_bounds(check.model, given)
    try:
        _, _, props = build(check.model, given)
        choose(props, check.invariants)
    except click.BadParameter as exc:
        hint = (exc.param_hint or "").strip("'-").replace("-", "_")
        key = {"invariant": "invariants", "unclean_election": "unclean"}.get(hint, hint)
        fail(key, exc.format_message())
    checked = {p.name for p in props if p.kind != "sometimes"}
    unknown = sorted((check.violates or frozenset()) - checked)
    if unknown:
        fail("violates", f"the {check.model} model has no property {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(checked))}")
    left_out = sorted((check.violates or frozenset()) - set(check.invariants or checked))
    if left_out:
        fail("violates", f"{', '.join(left_out)} is not among the checked invariants")


def _run_check(check: gate.Check, given: dict, engine, fail_fast: bool, board):
    """``(spec, result)`` of one check, explored or simulated."""
    if check.mode == "simulate":
        return simulate_view.for_gate(check, given, engine, board.walks)
    chosen = engine if check.symmetry is None else replace(engine, symmetry=check.symmetry)
    # with --fail-fast a "holds" check ends at its first violation, as TLC does
    limits = Limits(time_limit=check.time_limit,
                    stop_on_first=fail_fast and check.violates is None)
    return run(check.model, given, check.invariants, limits, board.search, chosen)


def _write_junit(path: Path, outcomes: list) -> None:
    """Write the JUnit report, creating its parent folders; exit 5 with one line when it
    cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(gate.junit_xml(outcomes), encoding="utf-8")
    except OSError as exc:
        click.echo(f"Error: cannot write the JUnit report to {path}: "
                   f"{exc.strerror or exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)


def _kafka_presets(variant_file: str | None) -> tuple[str, ...]:
    """Every kafka preset, the team's own (entry points, ``variant_file``) after the built-in
    ones. Raises ``click.BadParameter`` when one fails to load."""
    try:
        Config(variant_file=variant_file).load_variants()
    except ConfigError as error:
        raise click.BadParameter(str(error), param_hint="--variant-file") from None
    return tuple(PRESETS)
