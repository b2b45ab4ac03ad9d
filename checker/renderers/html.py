"""A counterexample as one self-contained HTML page: no network, no CDN, no external file.

Each state is drawn as the Kafka docs draw logs, on one grid whose columns are the offsets
(0-based, with a header): every replica a row of boxes (``m<id>`` with its leader epoch),
then its HW and LEO as numbers. The HW (exclusive: the first offset not yet committed on that
replica) is a red bar on the left edge of the box at that offset, the LEO (the next offset to
be written) a dashed box; a record removed in this step is struck through at its own offset.
What changed since the previous state is highlighted: boxes, fields, a moved HW (an orange
bar) and the HW / LEO numbers (``old→new``). A slider, Previous / Next buttons and the left /
right arrow keys step through the states; the explanation, the tickets behind a release's
violation and the story are on top.
Every text that comes from the trace is escaped with ``html.escape``; the script holds no data.
"""

from __future__ import annotations

import html
import re
from typing import Any

from checker.renderers import lasso
from checker.renderers.fields import fetcher_text, in_flight_text, pending_text
from checker.renderers.page import LOOP_SCRIPT, LOOP_STYLE, SCRIPT, STYLE
from checker.renderers.steps import config_text, controller_line

e = html.escape


def tickets_list(lines: list[str]) -> str:
    """The ``tickets`` of a trace document (``checker.composition.fixes``) as an HTML list,
    each line escaped; '' when there are none. ``serve`` draws a violation's the same way."""
    if not lines:
        return ""
    items = "".join(f"<li>Ticket: {e(line)}.</li>" for line in lines)
    return f'<ul class="tickets" id="tickets">{items}</ul>'


def _who(replica: dict[str, Any], old: dict[str, Any] | None) -> str:
    fields = [
        (
            "role",
            replica["role"] + (f" of {replica['leader']}" if replica["role"] == "follower" else ""),
        ),
        ("epoch", f"epoch {replica['epoch']}"),
        ("alive", "up" if replica["alive"] else "DOWN"),
        ("isr", "ISR {" + ",".join(map(str, replica["isr"])) + "}" + pending_text(replica)),
    ]
    parts = []
    for key, text in fields:
        changed = old is not None and old.get(key) != replica.get(key)
        parts.append(f'<span class="{key}{" changed" if changed else ""}">{e(text)}</span>')
    return (
        f'<div class="who"><b>replica {e(str(replica["replica"]))}</b> · '
        + " · ".join(parts)
        + "</div>"
    )


def _record(rid: Any, epoch: Any) -> str:
    return f'<span>m{e(str(rid))}</span><span class="epoch">e{e(str(epoch))}</span>'


def _cells(replica: dict[str, Any], old: dict[str, Any] | None, width: int) -> list[str]:
    """One grid cell per offset 0..width-1: a record (green below the HW, outlined when new),
    the dashed LEO box, a record removed in this step struck through at its own offset, or
    an empty slot. The cell at offset HW carries the red HW bar on its left edge (orange and
    thicker when the HW moved in this step)."""
    hw, log = replica["hw"], replica["log"]
    before = old["log"] if old is not None else []
    hw_moved = old is not None and old["hw"] != hw
    cells = []
    for offset in range(width):
        classes, inner, title = ["cell"], "", f"offset {offset}"
        if offset < len(log):
            rid, epoch = log[offset]
            inner = _record(rid, epoch)
            if offset < hw:
                classes.append("committed")
            if old is not None and (offset >= len(before) or before[offset] != [rid, epoch]):
                classes.append("changed")
        else:
            if offset == len(log):
                classes.append("leo")
                title += f": the LEO ({len(log)})"
            if offset < len(before):  # truncated away in this step
                classes.append("removed")
                inner = _record(*before[offset])
                title += ": removed in this step"
            elif offset == len(log):
                inner = "LEO"
            else:
                classes.append("empty")
        if offset == hw:
            classes.append("hw-here" + (" hw-moved" if hw_moved else ""))
            title += f"; the HW ({hw}) is on this box's left edge"
        cells.append(f'<span class="{" ".join(classes)}" title="{e(title)}">{inner}</span>')
    return cells


def _marks(replica: dict[str, Any], old: dict[str, Any] | None) -> str:
    """The replica's HW and LEO as numbers, each highlighted when it changed."""
    parts = []
    shown = [("hw", replica["hw"]), ("leo", len(replica["log"]))]
    if "flushed" in replica:  # with unclean shutdowns: how far the log is on disk
        shown.append(("flushed", replica["flushed"]))
    if "in_flight" in replica:  # split-fetch: the fetch response on its way to the replica
        shown.append(("in flight", in_flight_text(replica["in_flight"])))
    if "fetcher" in replica:  # truncation on fetch with a historical ordering
        shown.append(("fetcher", fetcher_text(replica["fetcher"])))
    for key, value in shown:
        field = key.replace(" ", "_")
        before: Any = None if old is None else (len(old["log"]) if key == "leo" else old.get(field))
        if field in ("in_flight", "fetcher") and old is not None:
            before = (in_flight_text if field == "in_flight" else fetcher_text)(old.get(field))
        moved = before is not None and before != value
        arrow = f"{before}→" if moved and field not in ("in_flight", "fetcher") else ""
        parts.append(
            f'<span class="{field.replace("_", "-")}-value{" changed" if moved else ""}">'
            f"{key.upper() if key in ('hw', 'leo') else key} {e(str(arrow))}{e(str(value))}</span>"
        )
    return '<div class="marks">' + " ".join(parts) + "</div>"


def state_section(
    number: int,
    action: str | None,
    view: dict[str, Any],
    previous: dict[str, Any] | None,
    width: int,
    hidden: bool = True,
    extra: str = "",
    aftermath: bool = False,
    loop: str | None = None,
) -> str:
    """One state as a ``<section class="step">``: ``number`` (1 = the initial state), the
    ``action`` that led to it (None: the initial state), the grid of ``width`` offset columns
    with changes against the ``previous`` view highlighted, then the controller line.
    ``extra`` is trusted HTML appended to the section (``hwcheck serve``'s "branch here" link);
    every text from the view is escaped. The section's id is ``state-<number>`` (the page's
    ``#state-N`` links); an ``aftermath`` state says it is not part of the counterexample.
    ``loop`` (a lasso's state in its loop) is the mark after the title ('' for none).
    Used by the trace page and ``hwcheck serve``."""
    caption = "initial state" if action is None else action
    if aftermath:
        caption += " (aftermath: not part of the counterexample)"
    header = ['<div class="head who">offset</div>']
    header += [f'<div class="head">{offset}</div>' for offset in range(width)]
    header.append('<div class="head marks">HW · LEO</div>')
    rows = []
    for index, replica in enumerate(view["replicas"]):
        old = previous["replicas"][index] if previous else None
        down = "" if replica["alive"] else " down"
        rows.append(
            f'<div class="replica{down}">{_who(replica, old)}'
            + "".join(_cells(replica, old, width))
            + _marks(replica, old)
            + "</div>"
        )
    line = controller_line(view)
    changed = previous is not None and controller_line(previous) != line
    kind = "step aftermath" if aftermath else "step" + ("" if loop is None else " in-loop")
    marked = f'<span class="loop-mark">{e(loop)}</span>' if loop else ""
    return (
        f'<section class="{kind}" id="state-{number}" data-step="{number}"'
        f"{' hidden' if hidden else ''}>"
        f'<div class="action">state {number}: {e(caption)}{marked}</div>'
        f'<div class="grid" style="--offsets:{width}">'
        '<div class="replica header">' + "".join(header) + "</div>" + "".join(rows) + "</div>"
        f'<div class="controller{" changed" if changed else ""}">{e(line)}</div>'
        f"{extra}</section>"
    )


def _branch_link(branch: Any, index: int) -> str:
    if branch is None:
        return ""
    return (
        f'<p class="branch"><a href="{e(branch(index))}">Branch here: explore on from '
        f"state {index + 1} in the explorer</a></p>"
    )


def width_of(steps: list[dict[str, Any]]) -> int:
    """Offset columns for every state of a trace: one past the longest log or HW, so each
    state has room for the LEO box and the HW bar, and columns line up across states."""
    return 1 + max(
        (max(len(r["log"]), r["hw"]) for step in steps for r in step["view"]["replicas"]), default=0
    )


def story_items(lines: list[str]) -> str:
    """The story's sentences as ``<li>`` items, escaped, each "State N" a link to ``#state-N``."""
    return "".join(
        "<li>" + re.sub(r"\bState (\d+)\b", r'<a href="#state-\1">State \1</a>', e(line)) + "</li>"
        for line in lines
    )


def render(document: dict[str, Any], branch: Any = None, unchecked: str = "") -> str:
    """The page for a trace document (the content of a ``trace.json``, format version 1 or 2).

    It opens at the violating state (the last of the counterexample), or at the state a
    ``#state-N`` link names; every "State N" in the story links there. A loss's aftermath
    (``invariants.aftermath``) follows the counterexample, its states marked as such.
    ``branch``, when given (``hwcheck serve``), maps a state's index (0 = the initial state)
    to the explorer's URL of that state, and every state gets a "branch here" link to it.
    A lasso (version 2) shows its loop (``checker.renderers.lasso``): a summary, a timeline
    whose loop states sit on a band, each loop state marked, and → on a cycle's last state
    goes back to the loop's first. ``unchecked``, when given, is a warning shown under the
    title (``hwcheck show --no-check``: the page draws a trace no model replayed)."""
    prop, steps = document["property"], document["steps"]
    after = document.get("aftermath") or {"steps": [], "story": []}
    every = steps + after["steps"]
    config = config_text(document["config"])
    width = width_of(every)
    length, loop = len(steps), document.get("loop")
    sections = [
        state_section(
            i + 1,
            step["action"],
            step["view"],
            every[i - 1]["view"] if i else None,
            width,
            hidden=i != length - 1,
            extra=lasso.after_last(loop, i, length) + _branch_link(branch, i),
            aftermath=i >= length,
            loop=lasso.mark(loop, i) if loop is not None and loop["back_to"] <= i else None,
        )
        for i, step in enumerate(every)
    ]
    title = f"{prop['name']} violated ({document['length']} states)"
    explanation = document.get("explanation") or ""
    found = document.get("found_by")
    origin = (
        f"<br>found by hwcheck simulate: walk {found['walk']:,} of seed {found['seed']}, "
        f"shrunk from {found['lengths']['walk']} to {document['length']} states"
        if found
        else ""
    )
    note = document.get("expected")
    aftermath = ""
    if after["steps"]:
        aftermath = (
            '<h2 id="aftermath">Aftermath</h2><p class="meta">States '
            f"{length + 1}–{len(every)} are not part of the counterexample (not "
            f"counted in its {length} states): the shortest continuation that makes "
            'the loss visible.</p><ol class="story">' + story_items(after["story"]) + "</ol>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title)}</title><style>{STYLE}{LOOP_STYLE if loop else ''}</style></head>"
        f'<body data-length="{length}"{lasso.attributes(loop)}>'
        f"<h1>{e(title)}</h1>"
        + (f'<p class="expected" id="unchecked">{e(unchecked)}</p>' if unchecked else "")
        + f'<p class="meta">{e(prop["description"])}<br>model {e(document["model"])}, '
        f"{e(str(document['variant']))}; {e(config)}; hwcheck "
        f"{e(document['hwcheck_version'])}{origin}</p>"
        + (f'<p class="why" id="why">{e(explanation)}</p>' if explanation else "")
        + (f'<p class="expected" id="expected">{e(note)}</p>' if note else "")
        + tickets_list(document.get("tickets") or [])
        + (
            '<ol class="story" id="story">' + story_items(document.get("story", [])) + "</ol>"
            if document.get("story")
            else ""
        )
        + lasso.summary(document)
        + aftermath
        + '<div class="nav"><button id="prev" type="button">◀ Previous</button>'
        f'<input id="slider" type="range" min="1" max="{len(every)}" value="{length}" '
        'aria-label="state">'
        '<button id="next" type="button">Next ▶</button><span id="caption"></span>'
        + ('<span id="loop-caption"></span>' if loop else "")
        + "</div>"
        + lasso.timeline(loop, length)
        + "".join(sections)
        + '<p class="legend">Columns are log offsets (0-based); a box holds m&lt;id&gt; '
        "written in leader epoch e&lt;epoch&gt;; green boxes are below the replica's HW; the "
        "red bar is the HW and the dashed box the LEO (both exclusive: the first offset not "
        "yet committed, the next offset to write); an orange bar and a highlighted number: "
        "the HW or LEO moved in this step; outlined: new since the previous state; "
        "struck-through red boxes were removed from the log in this step, at their own "
        "offsets. The page opens at the violating state; #state-N in the address opens "
        "state N. Keys: ← →.</p>"
        f"<script>{SCRIPT}</script>"
        + (f"<script>{LOOP_SCRIPT}</script>" if loop else "")
        + "</body></html>\n"
    )
