"""A liveness counterexample's loop, drawn wherever a trace is: in the terminal (``hwcheck
show``, the counterexamples a run draws) and by ``hwcheck replay``.

A lasso is a trace document (``trace.json`` version 2) with a ``loop``: for a cycle the last
state is the state at index ``back_to`` again, so the steps from there repeat for ever; with
``stutter`` the behaviour stays in the last state for ever. States are numbered from 1 on
screen, as every trace is (``state 1`` is the initial state, index 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

START = "↺ loop starts"
"""The mark on the title of a cycle's first state."""

STAYS = "⏸ stays here for ever"
"""The mark on the title of the state a lasso stutters in."""

SHOWN = 6
"""How many never-taken actions are named before "+N more"."""


def loop_line(loop: dict[str, Any], length: int) -> str:
    """How the behaviour goes on after the trace's ``length`` states, in one line."""
    if loop["stutter"]:
        return f"⏸ stutters in state {length} for ever: no fair action is enabled"
    start = loop["back_to"] + 1
    return f"↺ back to state {start}: the steps from state {start} repeat for ever"


def never_line(never: Sequence[str]) -> str:
    """The actions always enabled in the loop that never happen, up to ``SHOWN`` of them."""
    named = ", ".join(never[:SHOWN]) or "none"
    more = f", +{len(never) - SHOWN} more" if len(never) > SHOWN else ""
    return f"never happens though always enabled: {named}{more}"


def fairness_line(fairness: str) -> str:
    return f"fairness: {fairness or 'none'}"


def lines(loop: dict[str, Any], length: int) -> list[str]:
    """The loop line, what never happens in it and the fairness assumed."""
    return [
        loop_line(loop, length),
        never_line(loop["never_taken"]),
        fairness_line(loop["fairness"]),
    ]


def why(document: dict[str, Any]) -> str:
    """A lasso's "why" line: its formula and the obligation it leaves unanswered."""
    loop, prop = document["loop"], document["property"]
    unanswered = f" (never answered {loop['obligation']})" if loop["obligation"] else ""
    return f"{prop.get('formula') or prop['name']}{unanswered}"


def closes(back_to: int, stutter: bool, length: int) -> str:
    """What ``hwcheck replay`` says of a lasso's loop once every fingerprint matched."""
    if stutter:
        return f"it stutters in state {length} for ever"
    return (
        f"the loop closes: state {length} is state {back_to + 1} again, so the steps from "
        f"state {back_to + 1} repeat for ever"
    )


def mark(loop: dict[str, Any] | None, index: int) -> str:
    """The mark on the title of the state at ``index`` (0-based): where the loop starts."""
    if loop is None or index != loop["back_to"]:
        return ""
    return STAYS if loop["stutter"] else START


def mark_panels(panels: Sequence[Panel], loop: dict[str, Any] | None) -> None:
    """Add the loop's mark to the title of the panel of its first state, when drawn."""
    if loop is None:
        return
    first = f"state {loop['back_to'] + 1}"
    for panel in panels:
        if isinstance(panel.title, str) and panel.title.startswith(f"{first}:"):
            panel.title = f"{panel.title}  {mark(loop, loop['back_to'])}"


def print_loop(console: Console, loop: dict[str, Any], length: int) -> None:
    """The lines after a lasso's last panel."""
    first, *rest = lines(loop, length)
    console.print(Text(first, style="bold magenta"))
    for line in rest:
        console.print(Text(f"  {line}"))
