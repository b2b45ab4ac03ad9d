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

from checker.liveness.fairness import FairnessError, parse_list

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


def split(loop: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """``(fair, unfair)``: the loop's ``enabled`` entries whose action is under a fairness
    constraint, and the labels of those under none (perturbations such as ``Crash``: the
    lasso never owes them a step). A file without ``enabled`` gives its ``never_taken``,
    sorted by the ``fairness`` text."""
    if "enabled" in loop:
        entries = loop["enabled"]
        return [e for e in entries if e["fairness"]], [
            e["action"] for e in entries if not e["fairness"]
        ]
    try:
        fair = {c.action: str(c) for c in parse_list(loop["fairness"])}
    except FairnessError:
        fair = {}
    entries = [
        {"action": text, "fairness": fair.get(text.split("(")[0], ""), "note": NEVER}
        for text in loop["never_taken"]
    ]
    return [e for e in entries if e["fairness"]], [
        e["action"] for e in entries if not e["fairness"]
    ]


NEVER = "enabled in every loop state and never taken"
"""The note of a fair action in a file written before ``loop.enabled`` existed."""


def fair_lines(fair: Sequence[dict[str, Any]]) -> list[str]:
    """One line per fair action the loop never takes (up to ``SHOWN``): why fairness does
    not force it."""
    if not fair:
        return ["fair actions the loop never takes: none"]
    out = ["fair actions the loop never takes (each offered in some loop state):"]
    out += [f"  {e['action']} [{e['fairness']}]: {e['note']}" for e in fair[:SHOWN]]
    if len(fair) > SHOWN:
        out.append(f"  +{len(fair) - SHOWN} more")
    return out


def unfair_line(unfair: Sequence[str]) -> str:
    """The actions the loop never takes that no fairness covers, up to ``SHOWN``."""
    named = ", ".join(unfair[:SHOWN]) or "none"
    more = f", +{len(unfair) - SHOWN} more" if len(unfair) > SHOWN else ""
    return f"not assumed fair (enabled, never taken, owed nothing): {named}{more}"


def fairness_line(fairness: str) -> str:
    return f"fairness: {fairness or 'none'}"


def shape_line(loop: dict[str, Any], length: int) -> str:
    """Where the stem ends and the loop runs: ``stem: states 1-7; loop: states 8-10 (state
    10 is state 8 again)`` or ``stem: states 1-13; then state 14 for ever``."""
    back = int(loop["back_to"]) + 1
    stem = f"states 1-{back - 1}" if back > 2 else ("state 1" if back == 2 else "none")
    if loop["stutter"]:
        return f"stem: {stem}; then state {length} for ever (a stutter)"
    return f"stem: {stem}; loop: states {back}-{length} (state {length} is state {back} again)"


def lines(loop: dict[str, Any], length: int) -> list[str]:
    """The loop line, the stem and the loop, the fair actions the loop never takes (and why
    fairness does not force them), those no fairness covers, and the fairness assumed."""
    fair, unfair = split(loop)
    return [
        loop_line(loop, length),
        shape_line(loop, length),
        *fair_lines(fair),
        unfair_line(unfair),
        fairness_line(loop["fairness"]),
    ]


def property_line(document: dict[str, Any]) -> str:
    """``Property: HwReachesLeo (leads-to): <formula>``: what the lasso breaks."""
    prop = document["property"]
    formula = prop.get("formula") or prop["description"]
    return f"Property: {prop['name']} ({prop['kind']}): {formula}"


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


def mark_panels(panels: Sequence[Panel], loop: dict[str, Any] | None, length: int = 0) -> None:
    """Add the loop's mark to the title of the panel of its first state and, for a cycle of
    ``length`` states, ``↺ back to state K`` to its last state's (the back edge), when drawn."""
    if loop is None:
        return
    first = f"state {loop['back_to'] + 1}:"
    last = f"state {length}:"
    for panel in panels:
        if not isinstance(panel.title, str):
            continue
        if panel.title.startswith(first):
            panel.title = f"{panel.title}  {mark(loop, loop['back_to'])}"
        elif not loop["stutter"] and length and panel.title.startswith(last):
            panel.title = f"{panel.title}  {BACK.format(loop['back_to'] + 1)}"


BACK = "↺ back to state {}"
"""The mark on the title of a cycle's last state: it is the loop's first state again."""


def print_loop(console: Console, loop: dict[str, Any], length: int) -> None:
    """The lines after a lasso's last panel."""
    first, *rest = lines(loop, length)
    console.print(Text(first, style="bold magenta"))
    for line in rest:
        console.print(Text(f"  {line}", style="dim" if line.startswith("not assumed") else ""))


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
    """The page's paragraphs on the loop: the property, its kind and formula (and the
    obligation left unanswered), the loop line, the stem and the loop, the fair actions the
    loop never takes with why fairness does not force them, those no fairness covers, and the
    fairness assumed. Empty without a loop."""
    loop = document.get("loop")
    if loop is None:
        return ""
    prop = document["property"]
    fair, unfair = split(loop)
    first, shape = loop_line(loop, document["length"]), shape_line(loop, document["length"])
    items = "".join(
        f"<li><code>{e(x['action'])}</code> [{e(x['fairness'])}]: {e(x['note'])}</li>" for x in fair
    )
    never = f'<p class="never">{e(fair_lines(fair)[0])}</p>' + (
        f'<ul class="never" id="never">{items}</ul>' if items else ""
    )
    return (
        f'<p class="loop" id="loop"><b id="property">Property: {e(prop["name"])} '
        f"({e(prop['kind'])})</b>: <code>{e(why(document))}</code><br>"
        f'<b class="loop-line">{e(first)}</b><br><span id="shape">{e(shape)}</span></p>'
        + never
        + f'<p class="never">{e(unfair_line(unfair))}<br>{e(fairness_line(loop["fairness"]))}</p>'
    )


def after_last(loop: dict[str, Any] | None, index: int, length: int) -> str:
    """HTML after the last state's grid: where the behaviour goes next (empty elsewhere)."""
    if loop is None or index != length - 1:
        return ""
    return f'<p class="loop-line next">{e(loop_line(loop, length))}</p>'
