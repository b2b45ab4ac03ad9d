"""What ``hwcheck scenario`` prints: every state of a played schedule (the file's line on each
panel, the properties that fail there under it), then each property's verdict along it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table
from rich.text import Text

from checker.composition.compose import SPELLING, variant_of
from checker.model import Refusal, Spec
from checker.renderers.steps import LEGEND, config_text, counted, trace_panels
from checker.simulate.scenario import Disabled, Played


@dataclass(frozen=True)
class Source:
    """Where a schedule came from, for the heading and the rows: its ``path`` (as given),
    each label's ``lines`` in the file (1-based, in schedule order), ``why``, each failing
    property's own words on why it fails where it first does ('' when it has none), and
    ``command_line``, the config fields the command line set over the header's, and
    ``header``, whether the file has a ``# hwcheck:`` header line."""

    path: str
    lines: Sequence[int]
    why: dict[str, str]
    command_line: frozenset[str] = frozenset()
    header: bool = True


def print_played(console: Console, spec: Spec, source: Source, played: Played) -> None:
    """The heading (file, model, variant, bounds), one panel per state (titled with the
    action and its line; the properties that first fail there as the panel's subtitle, its
    border red), the legend and the verdict table."""
    n = len(played.steps) - 1
    cut = "" if played.disabled is None else f" of {len(source.lines)} (stopped: see below)"
    console.print(
        Text(
            f"Scenario {source.path}: {counted(n, 'action')}{cut} on {spec.name} "
            f"{variant_of(spec)} [{config_text(spec.config_dict())}]",
            style="bold",
        )
    )
    actions = [None] + [str(step.label) for step in played.steps[1:]]
    views = [spec.view(step.state) for step in played.steps]
    failing: dict[int, list[str]] = {}
    for name, index in played.first.items():
        failing.setdefault(index, []).append(name)
    for index, panel in enumerate(trace_panels(actions, views)):
        if index:
            panel.title = f"{panel.title}   (line {source.lines[index - 1]})"
        if index in failing:
            panel.subtitle = f"fails here: {', '.join(sorted(failing[index]))}"
            panel.subtitle_align = "left"
            panel.border_style = "red"
        console.print(panel)
    console.print(Text(LEGEND, style="dim"))
    console.print(verdict_table(source, played))


def verdict_table(source: Source, played: Played) -> Table:
    """One row per judged property: holds along the schedule, or where it first fails (the
    state, the file's line, the action) and why."""
    states = len(played.steps)
    table = Table(title="Properties along the schedule", title_justify="left")
    table.add_column("property", no_wrap=True)
    table.add_column("kind")
    table.add_column("along the schedule")
    for prop in played.judged:
        index = played.first.get(prop.name)
        if index is None:
            span = (
                counted(states, "state")
                if prop.kind == "invariant"
                else counted(states - 1, "step")
            )
            verdict = Text(f"holds in all {span}", style="green")
        else:
            verdict = Text(_where(source, played, prop.name, index), style="red")
        table.add_row(prop.name, prop.kind, verdict)
    return table


def _where(source: Source, played: Played, name: str, index: int) -> str:
    if index == 0:
        at = "the initial state"
    else:
        at = f"state {index + 1}, after line {source.lines[index - 1]}: {played.steps[index].label}"
    why = source.why.get(name, "")
    return f"fails at {at}" + (f": {why}" if why else "")


def disabled_message(source: Source, disabled: Disabled) -> str:
    """Why the schedule stopped: the line and step whose action is not enabled, the state it
    was to leave, the guard that is false there when the model can tell (a bound reached
    says which option raises it, in the header or on the command line, as it was given), and
    every action enabled there."""
    line = source.lines[disabled.index - 1]
    enabled = ", ".join(str(label) for label in disabled.enabled) or "none (a deadlock)"
    return (
        f"{source.path} line {line}: step {disabled.index}, {disabled.label}, is not enabled "
        f"in state {disabled.index}{_why(source, disabled.refusal)}. Enabled there: {enabled}"
    )


def _why(source: Source, refusal: Refusal | None) -> str:
    """``: <the false guard>``, with a bound's option: "(max_records=2; raise --max-records
    in the header)"."""
    if refusal is None:
        return ""
    reason, bound = refusal.reason, refusal.bound
    if bound is None:
        return f": {reason}"
    if bound in source.command_line:
        where = "on the command line"
    elif source.header:
        where = "in the header"
    else:
        where = "in a '# hwcheck:' header line or on the command line"
    hint = f"raise {SPELLING.get(bound, '--' + bound.replace('_', '-'))} {where}"
    if reason.endswith(")"):
        return f": {reason[:-1]}; {hint})"
    return f": {reason}; {hint}"
