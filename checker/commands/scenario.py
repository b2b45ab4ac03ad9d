"""``hwcheck scenario FILE``: play a hand-written schedule (``checker.formats.schedule``) on the
model its header names and judge every property at every step (``checker.simulate.scenario``).

It draws every state of the schedule, then a table of the properties: each holds along it, or
fails first at a state (the line of the action that got there, and the property's own words on
why). Each property that fails gets a counterexample written as ``explore`` writes them
(``<out>/<property>/trace.json`` and ``trace.html``): the schedule up to the state where it
first fails, so ``hwcheck show``, ``replay``, ``serve --trace`` and the gate read it.

Exit codes are explore's: 0 every property holds along the schedule, 12 one fails, 2 a usage
mistake on the command line (a flag, a bound the model rejects), 4 a schedule that cannot be
read or played (no such file, a header whose flags or values are wrong, a line that is not an
action label, an action the model does not have, or one that is not enabled where the
schedule takes it: then the guard that is false, when the model can tell), 75 the model
raised.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import click
from click.core import ParameterSource

from checker.commands.options import (
    bounds,
    build,
    choose,
    model_options,
    protocol_from,
)
from checker.commands.trusted import untrusted
from checker.composition.compose import SPELLING
from checker.formats import report, schedule
from checker.model import Spec
from checker.renderers import listing
from checker.renderers import scenario as scenario_view
from checker.renderers.terminal import stdout_console
from checker.result import (
    EXIT_BAD_INPUT,
    EXIT_ENVIRONMENT,
    EXIT_OK,
    EXIT_SPEC_ERROR,
    EXIT_VIOLATED,
)
from checker.simulate import scenario

FILE = click.argument("file", type=click.Path(dir_okay=False, path_type=Path))


@dataclass(frozen=True)
class Prepared:
    """A schedule ready to play: the ``schedule`` as read, the ``model`` name and its
    ``config``, the built ``spec``, the properties ``chosen`` to judge, and the config fields
    the ``command_line`` set over the header's."""

    schedule: schedule.Schedule
    model: str
    config: Any
    spec: Spec
    chosen: list[Any]
    command_line: frozenset[str] = frozenset()

    def source(self, path: Path, why: dict[str, str] | None = None) -> scenario_view.Source:
        """What the renderer needs to name lines and options (``why``: as ``Source``'s)."""
        lines = [step.line for step in self.schedule.steps]
        return scenario_view.Source(
            str(path), lines, why or {}, self.command_line, bool(self.schedule.header_line)
        )


@untrusted
@click.command(name="hwcheck: header", add_help_option=False)
@model_options
def _header(**flags: Any) -> dict[str, Any]:
    return flags


def _given(flags: dict[str, Any]) -> tuple[str, tuple[str, ...], dict[str, Any]]:
    """``(model, property names, model options)`` from ``model_options``' keyword flags."""
    flags = dict(flags)
    model, names = flags.pop("model"), tuple(flags.pop("names"))
    protocol = protocol_from(flags)
    return model, names, bounds(**flags, **protocol)


def prepare(ctx: click.Context, file: Path) -> Prepared:
    """Read ``file`` and build its model: the header's flags, then the command line's over
    them (the ``model_options`` values of ``ctx``'s command; a flag the user left at its
    default does not override the header). Ends the command with one message: exit 4 for a
    file that cannot be read, a header whose flags or values are wrong (named by its line) or
    an action the model does not have; exit 2 for a command-line flag or bound that is
    wrong."""
    flags = {param.name: ctx.params[param.name] for param in _header.params if param.name}
    try:
        read = schedule.load(file)
    except schedule.ScheduleError as exc:
        _fail(str(exc))
    try:
        header = _header.main(list(read.header), standalone_mode=False)
    except click.ClickException as exc:
        _fail(f"{read.where(read.header_line)}: header: {exc.format_message()}")
    model, names, given = _given(header)
    cli_model, cli_names, cli_given = _given(flags)
    command_line = {key for key, value in cli_given.items() if value is not None}
    typed = {SPELLING.get(key, "--" + key.replace("_", "-")) for key in command_line}
    if ctx.get_parameter_source("model") != ParameterSource.DEFAULT:
        model = cli_model
        typed.add("--model")
    if cli_names:
        typed.add("--invariant")
    names = cli_names or names
    given.update({key: value for key, value in cli_given.items() if value is not None})
    try:
        config, spec, props = build(model, given)
        chosen = scenario.judged(choose(props, names))
    except click.BadParameter as exc:  # the header's value, unless the command line gave it
        if not read.header_line or str(exc.param_hint or "").strip("'") in typed:
            raise
        _fail(f"{read.where(read.header_line)}: header: {exc.format_message()}")
    known = {name.split(" ")[0] for name, _ in listing.actions(spec)}
    for step in read.steps:
        if step.label.action not in known:
            close = difflib.get_close_matches(step.label.action, sorted(known), n=1)
            _fail(
                f"{read.where(step.line)}: {step.label.action} is not an action of the "
                f"{model} model"
                + (f" (did you mean {close[0]}?)" if close else "")
                + f"; its actions: {', '.join(sorted(known))} (see 'hwcheck list actions')"
            )
    return Prepared(read, model, config, spec, chosen, frozenset(command_line))


def _fail(message: str) -> NoReturn:
    click.echo(f"Error: {message}", err=True)
    sys.exit(EXIT_BAD_INPUT)


@click.command(name="scenario")
@FILE
@model_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the counterexamples [default: reports/<run-id>].",
)
@click.pass_context
def scenario_cmd(ctx: click.Context, /, file: Path, out: Path | None, **_: Any) -> None:
    """Play a schedule file (one action label per line, '# hwcheck: FLAGS' for the model and
    bounds) and judge every property at every step.

    Command-line model flags override the header's, e.g. --truncation kip320 to play the same
    schedule under KIP-320."""
    prepared = prepare(ctx, file)  # the model flags are read from ctx
    spec, read = prepared.spec, prepared.schedule
    try:
        played = scenario.play(spec, prepared.chosen, [step.label for step in read.steps])
    except Exception as exc:  # noqa: BLE001 -- the model raised: one message, exit 75
        click.echo(f"Error: the spec raised {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_SPEC_ERROR)
    violations = played.violations()
    source = prepared.source(file, {v.prop.name: report.explanation(v) for v in violations})
    console = stdout_console(120)
    scenario_view.print_played(console, spec, source, played)
    if played.disabled is not None:
        click.echo(f"Error: {scenario_view.disabled_message(source, played.disabled)}", err=True)
    folder = out or Path("reports") / report.run_id(spec)
    try:
        for violation in violations:
            report.write_violation(folder, spec, violation)
    except OSError as exc:
        click.echo(f"Error: cannot write {folder}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_ENVIRONMENT)
    if violations:
        console.print(f"Counterexamples written to {folder}/ (one folder per property)")
    if played.disabled is not None:
        sys.exit(EXIT_BAD_INPUT)
    sys.exit(EXIT_VIOLATED if violations else EXIT_OK)
