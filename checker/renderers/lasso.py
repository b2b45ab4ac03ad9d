"""A liveness counterexample's loop, drawn wherever a trace is: in the terminal, on the trace
page (``checker.renderers.html``, also served by ``hwcheck serve``) and by ``hwcheck replay``.

A lasso is a trace document (``trace.json`` version 2) with a ``loop``: for a cycle the last
state is the state at index ``back_to`` again, so the steps from there repeat for ever; with
``stutter`` the behaviour stays in the last state for ever. States are numbered from 1 on
screen, as every trace is (``state 1`` is the initial state, index 0). Every text that comes
from the trace is escaped with ``html.escape``, as the rest of the page is.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

START = "↺ loop starts"
"""The mark on the title of a cycle's first state."""

STAYS = "◼ stays here for ever"
"""The mark on the title of the state a lasso stutters in."""

SHOWN = 6
"""How many never-taken actions are named before "+N more"."""

e = html.escape


def loop_line(loop: dict[str, Any], length: int) -> str:
    """How the behaviour goes on after the trace's ``length`` states, in one line."""
    if loop["stutter"]:
        return f"◼ stutters in state {length} for ever: no fair action is enabled"
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


def attributes(loop: dict[str, Any] | None) -> str:
    """The page body's data attributes its script steps a loop with (none without one)."""
    if loop is None:
        return ""
    stutter = "true" if loop["stutter"] else "false"
    return f' data-back="{int(loop["back_to"])}" data-stutter="{stutter}"'


def timeline(loop: dict[str, Any] | None, length: int) -> str:
    """The lasso's states as a row of links, the loop's on a tinted band labelled "loop",
    then the way it goes on: ``↺ back to state K`` (a link there) or ``◼ stutters for
    ever``. Empty without a loop."""
    if loop is None:
        return ""
    back = int(loop["back_to"])

    def tick(n: int) -> str:
        return f'<a class="tick" href="#state-{n}" data-state="{n}">{n}</a>'

    before = "".join(tick(n) for n in range(1, back + 1))
    band = "".join(tick(n) for n in range(back + 1, length + 1))
    if loop["stutter"]:
        end = '<span class="loop-end">◼ stutters for ever</span>'
    else:
        end = f'<a class="loop-end" href="#state-{back + 1}">↺ back to state {back + 1}</a>'
    return (
        '<nav class="timeline" id="timeline" aria-label="states">'
        f'{before}<span class="loop-band" title="{e(loop_line(loop, length))}">'
        f'<span class="loop-label">loop</span>{band}</span>{end}</nav>'
    )


def summary(document: dict[str, Any]) -> str:
    """The page's paragraph on the loop: the formula, the loop line, what never happens in it
    and the fairness assumed. Empty without a loop."""
    loop = document.get("loop")
    if loop is None:
        return ""
    first, *rest = lines(loop, document["length"])
    return (
        f'<p class="loop" id="loop"><code>{e(why(document))}</code><br>'
        f'<b class="loop-line">{e(first)}</b><br>' + "<br>".join(e(line) for line in rest) + "</p>"
    )


def after_last(loop: dict[str, Any] | None, index: int, length: int) -> str:
    """HTML after the last state's grid: where the behaviour goes next (empty elsewhere)."""
    if loop is None or index != length - 1:
        return ""
    return f'<p class="loop-line next">{e(loop_line(loop, length))}</p>'
