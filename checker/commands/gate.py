"""``hwcheck gate``: run a gate configuration's checks, judge their verdicts, compare every run
with its pins in the lock file, replay the trace corpus, and report for CI.

Exit codes are README's: 0 every check passed; 1 a verdict or a pin differs (or an error);
3 a check incomplete or Ctrl-C; 4 a malformed configuration or lock file, found before any
check runs; 5 the JUnit file, a report or the lock file cannot be written.
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from checker.commands import batch, checkpoints, cores, gate_conform, liveness
from checker.commands import gate_corpus as corpus
from checker.commands import simulate as simulate_view
from checker.commands.checkpoint_flags import CHECKPOINT_FLAGS
from checker.commands.engines import engine_from, engine_options, run
from checker.commands.gate_checks import (
    config_error,
    defaults,
    definition,
    given_of,
    validate,
    with_cluster,
)
from checker.commands.gate_files import UPDATE_HINT, say, update_lock, write_outputs
from checker.commands.options import with_options
from checker.formats import pins, report
from checker.gate import config as gate_config
from checker.gate import policy as gate
from checker.limits import Limits, interruption
from checker.renderers import matrix, terminal
from checker.result import EXIT_INCOMPLETE, Status
from checker.search import CoreName


@click.command(name="gate")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("pyproject.toml"),
    show_default=True,
    help="TOML file with [[tool.hwcheck.gate]] checks.",
)
@click.option(
    "--lock",
    "lock_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"The pins [default: {pins.LOCK_NAME} beside --config].",
)
@click.option(
    "--update",
    is_flag=True,
    help="Pin this run: rewrite the lock file from every check whose verdict passes "
    "and print what changed (a failing verdict still fails).",
)
@click.option(
    "--junit-xml",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write a JUnit XML report here (parent folders are created).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for reports of failing checks [default: reports/gate-<time>].",
)
@click.option(
    "--fail-fast",
    is_flag=True,
    help="Stop at the first check that does not pass (the rest are not run).",
)
@click.option("--no-progress", is_flag=True, help="No progress display on stderr.")
@engine_options
@with_options(CHECKPOINT_FLAGS)
def gate_cmd(
    config_path: Any,
    lock_path: Any,
    update: Any,
    junit_xml: Any,
    out: Any,
    fail_fast: Any,
    no_progress: bool,
    **engine_flags: Any,
) -> None:
    """Run the checks of a gate configuration, judge them against their expectations and
    compare each run with its pins (states, depth, coverage, guards, shortest traces)."""
    plan = checkpoints.plan_from(engine_flags)
    engine = engine_from(engine_flags)
    try:
        checks = gate_config.load_checks(config_path)
        files, traces_line = gate_config.load_traces(config_path)
        lock = pins.read_lock(lock_path or config_path.with_name(pins.LOCK_NAME))
    except (gate_config.GateConfigError, pins.LockError) as exc:
        config_error(str(exc))
    checks = [with_cluster(config_path, i, check) for i, check in enumerate(checks)]
    plans = [(check, given_of(check, config_path.parent)) for check in checks]
    traces = [(Path(os.path.relpath(path, config_path.parent)).as_posix(), path) for path in files]
    for index, (check, given) in enumerate(plans):
        validate(config_path, index, check, given)
    folder = out or plan.earlier() or Path("reports") / f"gate-{report.stamp()}"
    fresh = pins.Lock(lock.path, dict(lock.checks), dict(lock.traces), lock.found)
    cores.warn_if_stale(engine.core)
    outcomes, stop = [], batch.Interrupt()
    total = len(plans) + len(traces)
    with batch.progress(total, "check", not no_progress) as board:
        try:
            for check, given in plans:
                board.begin(check.name)
                if check.mode == "conform":
                    outcomes.append(
                        gate_conform.run(check, given, config_path, folder / check.folder, board)
                    )
                    board.done()
                    if fail_fast and outcomes[-1].status != gate.PASS:
                        break
                    continue
                spec, result = _run_check(check, given, engine, fail_fast, board, (plan, folder))
                outcome = gate.judge(check, result)
                outcome.details = {
                    v.prop.name: report.counterexample_text(v) for v in result.violations
                }
                _pin(outcome, lock, fresh, definition(check, spec, engine), update)
                if outcome.status != gate.PASS:
                    where = folder / check.folder
                    batch.write_reports(where, spec, result)
                    outcome.report = str(where)
                outcomes.append(outcome)
                board.done()
                if stop.cut(result) or (fail_fast and outcome.status != gate.PASS):
                    break
            else:
                for key, path in traces:
                    board.begin(f"trace {key}")
                    outcome = _replay(key, path, traces_line, lock, fresh, engine.core, update)
                    outcomes.append(outcome)
                    board.done()
                    if fail_fast and outcome.status != gate.PASS:
                        break
        except KeyboardInterrupt:
            stop.caught()
    try:
        _finish(outcomes, plans, traces, stop, board, fresh, lock, update, config_path)
        write_outputs(outcomes, junit_xml, config_path)
    finally:  # (also when a file cannot be written: exit 5)
        checkpoints.finish(plan, stop.hit, "gate", same_flags=True, reports=folder)
    sys.exit(EXIT_INCOMPLETE if stop.hit else gate.exit_code(outcomes))


def _run_check(
    check: gate.Check, given: dict[Any, Any], engine: Any, fail_fast: bool, board: Any, saving: Any
) -> Any:
    """``(spec, result)`` of one check, explored or simulated; ``saving``: ``(checkpoint
    plan, run folder)``, a checkpoint folder per explored check, named by the check."""
    if check.mode == "simulate":
        return simulate_view.for_gate(check, given, engine, board.walks)
    chosen = engine if check.symmetry is None else replace(engine, symmetry=check.symmetry)
    # with --fail-fast a "holds" check ends at its first violation, as TLC does
    limits = Limits(time_limit=check.time_limit, stop_on_first=fail_fast and check.violates is None)
    plan, folder = saving
    key = check.folder
    names, alive, rules = liveness.split(
        check.model, given, check.invariants, check.liveness, instead=check.fairness
    )
    spec, result = run(
        check.model,
        given,
        names,
        limits,
        board.search,
        chosen,
        plan,
        lambda spec: (plan.folder(folder, key), True),
    )
    liveness.check(spec, alive, rules, result, core=chosen.core)
    return spec, result


def _pin(
    outcome: gate.Outcome, lock: pins.Lock, fresh: pins.Lock, defined: dict[Any, Any], update: bool
) -> None:
    """Compare a passing check's run with its pins (and pin it under ``--update``)."""
    result = outcome.result
    if result is None or outcome.status != gate.PASS:
        return
    if result.status in (Status.INCOMPLETE, Status.ERROR):
        return
    name = outcome.check.name
    now = pins.check_pins(defined, result)
    differences = functools.partial(pins.check_differences, defaults=defaults(outcome.check))
    _settle(outcome, lock.checks.get(name), now, differences, update)
    if update:
        fresh.checks[name] = now


def _replay(
    key: str,
    path: Path,
    line: int,
    lock: pins.Lock,
    fresh: pins.Lock,
    core: CoreName,
    update: bool,
) -> gate.Outcome:
    """Replay the corpus trace at ``path`` (``key``: relative to the gate file's folder) and
    judge it against its pins."""
    done = corpus.replay(path, core)
    check = _trace_check(key, line)
    if not done.states:
        return gate.Outcome(check, gate.FAIL, done.problem)
    outcome = gate.Outcome(check, gate.PASS, f"replays {done.states} states")
    now = done.pins()
    _settle(outcome, lock.traces.get(key), now, pins.trace_differences, update)
    if done.problem:
        outcome.status = gate.FAIL
        if outcome.pins != "differ":
            outcome.pins, outcome.message = "", done.problem
    elif update:
        fresh.traces[key] = now
    return outcome


def _trace_check(key: str, line: int = 0) -> gate.Check:
    """A corpus trace as a row of the gate: named ``trace`` and its path without
    ``/trace.json``, at the config's ``gate_traces`` line."""
    return gate.Check(
        "trace " + key.removesuffix("/trace.json"), "", "", {}, line=line, mode="replay"
    )


def _settle(outcome: gate.Outcome, old: Any, now: Any, differences: Any, update: bool) -> None:
    """Set ``outcome``'s pin state and message from pins ``old`` (None: none yet) and ``now``."""
    if old is None:
        outcome.pins = "new" if update else "none"
        outcome.message += "; pinned now" if update else f"; no pins: {UPDATE_HINT}"
        return
    outcome.differences = differences(old, now)
    if not outcome.differences:
        outcome.pins = "match"
        outcome.message += "; pins match"
    elif update:
        outcome.pins = "updated"
        outcome.message += "; pins updated: " + pins.summary(outcome.differences)
    else:
        outcome.pins = "differ"
        outcome.status = gate.FAIL
        outcome.message = "pins differ: " + pins.summary(outcome.differences)


def _finish(
    outcomes: Any,
    plans: Any,
    traces: Any,
    stop: Any,
    board: Any,
    fresh: pins.Lock,
    lock: pins.Lock,
    update: bool,
    config: Path,
) -> None:
    """Print the table, every changed pin, and under ``--update`` write the lock file."""
    ran, total = len(outcomes), len(plans) + len(traces)
    if stop.hit:
        left = [check for check, _ in plans[ran:]] + [
            _trace_check(key) for key, _ in traces[max(0, ran - len(plans)) :]
        ]
        outcomes += [
            gate.Outcome(check, gate.INCOMPLETE, f"not run: {interruption()}") for check in left
        ]
    terminal.stdout_console().print(matrix.gate_table(outcomes))
    changed = [o for o in outcomes if o.differences and o.pins in ("differ", "updated")]
    for o in changed:
        _section("Pins updated" if update else "Pins differ", o, config, o.differences)
    for o in outcomes:
        if o.check.mode == "replay" and o.status == gate.FAIL and o.pins != "differ":
            _section("No longer replays", o, config, [o.message])
    if stop.hit:
        click.echo(stop.line(board.index, total, "check"), err=True)
        if update:
            click.echo(f"{lock.path} not updated: interrupted.", err=True)
        return
    if ran < total:
        click.echo(f"--fail-fast: stopped after {ran} of {total} checks")
    if update:
        update_lock(fresh, {c.name for c, _ in plans}, {key for key, _ in traces}, ran == total)
    elif changed:
        say(f"\nIf these changes are intended, review them and {UPDATE_HINT}.")
    elif not lock.found and (traces or any(c.mode != "conform" for c, _ in plans)):
        say(f"\nNo pins yet ({lock.path} not found): {UPDATE_HINT} to pin these runs.")


def _section(title: str, o: gate.Outcome, config: Path, lines: list[str]) -> None:
    """A titled list below the table, naming the check and its line in the config."""
    say(f"\n{title}: {o.check.name}" + (f" ({config}:{o.check.line})" if o.check.line else ""))
    for line in lines:
        say(line, "  ")
