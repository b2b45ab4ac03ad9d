"""A counterexample drawn step by step in the terminal (rich): one panel per state.

In each panel every replica is a row: role, leader epoch, alive, ISR as it believes it, then
one cell per log offset (``id/epoch``, offsets 0-based as in Kafka), the HW and the LEO. Cells
below the replica's HW are committed on it (green); the HW boundary is drawn as ``┃`` in front
of the first offset at or past it; the empty dashed cell ``╌╌`` is the LEO (the next offset to
be written; LEO and HW are exclusive). Cells that changed since the previous state are
highlighted. Works on the model's ``view`` of each state, so it draws traces read from files
and violations just found alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from checker.renderers import lasso
from checker.renderers.fields import fetcher_text, in_flight_text, pending_text

FIELDS = (
    "role",
    "epoch",
    "alive",
    "isr",
    "log",
    "hw",
    "leo",
    "flushed",
    "in_flight",
    "fetcher",
    "controller",
)
"""What ``--hide`` can hide."""

CHANGED = "bold black on yellow"
REMOVED = "strike red"
"""A record removed from the log in this step, drawn at its own offset (as the page does)."""

LEGEND = (
    "log cells m<id>/<epoch> by offset; ┃ marks the HW; ╌╌ is the LEO; green: below the "
    "replica's HW; highlighted: changed; ✗ struck through (red): removed from the log "
    "in this step"
)
"""What the cells of a state panel mean (printed after a trace)."""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 record``, ``2 records``: ``n`` and the noun in the right number (``plural``: the
    plural when it is not ``noun + "s"``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def _cells(replica: dict[str, Any], width: int) -> list[str]:
    """The log columns of one replica: ``id/epoch`` per offset, ``╌╌`` at the LEO."""
    cells = [f"m{rid}/{epoch}" for rid, epoch in replica["log"]]
    if len(cells) < width:
        cells.append("╌╌")
    cells += [""] * (width - len(cells))
    hw = replica["hw"]
    return [("┃" if offset == hw else " ") + cell for offset, cell in enumerate(cells)]


def _row(replica: dict[str, Any], width: int, hide: set[str]) -> dict[str, str]:
    row = {"replica": str(replica["replica"])}
    if "role" not in hide:
        leader = replica.get("leader")
        role = replica["role"]
        row["role"] = f"{role} →{leader}" if role == "follower" else role
    if "epoch" not in hide:
        row["epoch"] = str(replica["epoch"])
    if "alive" not in hide:
        row["alive"] = "up" if replica["alive"] else "DOWN"
    if "isr" not in hide:
        row["isr"] = "{" + ",".join(map(str, replica["isr"])) + "}"
        row["isr"] += pending_text(replica)
    if "log" not in hide:
        for offset, cell in enumerate(_cells(replica, width)):
            row[f"{offset}"] = cell
    if "hw" not in hide:
        row["HW"] = str(replica["hw"])
    if "leo" not in hide:
        row["LEO"] = str(replica["leo"])
    if "flushed" in replica and "flushed" not in hide:
        row["flushed"] = str(replica["flushed"])
    if "in_flight" in replica and "in_flight" not in hide:
        row["in flight"] = in_flight_text(replica["in_flight"])
    if "fetcher" in replica and "fetcher" not in hide:
        row["fetcher"] = fetcher_text(replica["fetcher"])
    return row


def config_text(config: dict[str, Any]) -> str:
    """``key=value, ...`` for a run's config (``spec.config_dict()``): an empty list (no
    ``--with``) is left out and a list is written ``a,b``."""
    return ", ".join(
        f"{k}={','.join(v) if isinstance(v, (list, tuple)) else v}"
        for k, v in config.items()
        if v != [] and v != ()
    )


def controller_line(view: dict[str, Any]) -> str:
    """The controller's epoch, leader, ISR (and ELR) and the committed records, in one line (the
    terminal panels and the HTML page both show it)."""
    ctrl = view["controller"]
    committed = ", ".join(f"m{i} at offset {o}" for o, i in view.get("committed", [])) or "none"
    line = (
        f"controller: epoch {ctrl['epoch']}, leader {ctrl['leader']}, "
        f"ISR {{{','.join(map(str, ctrl['isr']))}}}"
    )
    if "elr" in ctrl:  # KIP-966
        line += f", ELR {{{','.join(map(str, ctrl['elr']))}}}"
    if ctrl.get("last_known_leader") is not None:  # KIP-966: ISR emptied, no leader since
        line += f", last known leader {ctrl['last_known_leader']}"
    if "version" in ctrl:  # AsyncIsr: the controller's ISR version
        line += f", version {ctrl['version']}"
    line += f"; committed: {committed}"
    if view.get("acks") == "1":  # acks=all acknowledges exactly the committed records
        line += "; acknowledged (acks=1): " + (", ".join(f"m{i}" for i in view["acked"]) or "none")
    return line


def step_panel(
    number: int,
    action: str | None,
    view: dict[str, Any],
    previous: dict[str, Any] | None,
    width: int,
    hide: Iterable[str] = (),
    changes_only: bool = False,
) -> Panel:
    """One state as a panel: ``number`` (1 = initial state), the ``action`` that led to it, the
    replicas' rows with changes against ``previous`` highlighted, and the controller line.
    ``width``: log columns to draw (the longest LEO in the trace, plus one)."""
    hide = set(hide)
    rows = [_row(r, width, hide) for r in view["replicas"]]
    before = [_row(r, width, hide) for r in previous["replicas"]] if previous else None
    table = Table(box=None, pad_edge=False, show_edge=False)
    columns = list(rows[0])
    for column in columns:
        table.add_column(
            column, justify="right" if column in ("HW", "LEO", "flushed") else "left", no_wrap=True
        )
    for index, row in enumerate(rows):
        old = before[index] if before else None
        if changes_only and old == row:
            continue
        gone = _removed(view["replicas"][index], previous["replicas"][index] if previous else None)
        table.add_row(
            *[
                _struck(row[column], gone[int(column)])
                if column.isdigit() and int(column) in gone
                else _styled(column, row[column], old, row)
                for column in columns
            ]
        )
    parts: list[Any] = [table]
    if "controller" not in hide:
        line = controller_line(view)
        changed = previous is not None and controller_line(previous) != line
        if not (changes_only and not changed):
            parts.append(Text(line, style=CHANGED if changed else "dim"))
    title = f"state {number}: " + ("initial state" if action is None else action)
    return Panel(Group(*parts), title=title, title_align="left")


def _removed(replica: dict[str, Any], old: dict[str, Any] | None) -> dict[int, str]:
    """``{offset: "m<id>/<epoch>"}``: the records the replica's log lost in this step (a
    truncation), at their own offsets."""
    if old is None:
        return {}
    log, before = replica["log"], old["log"]
    return {
        offset: f"m{rid}/{epoch}"
        for offset, (rid, epoch) in enumerate(before)
        if offset >= len(log)
    }


def _struck(cell: str, record: str) -> Text:
    """A removed record's cell: the HW mark the cell had, then ``✗`` and the record struck
    through (the ``✗`` says it where the terminal shows no strike-through, or no colour)."""
    mark = cell[:1] if cell[:1] in ("┃", " ") else " "
    return Text.assemble(mark, ("✗" + record, REMOVED))


def _styled(column: str, value: str, old: dict[str, str] | None, row: dict[str, str]) -> Text:
    if old is not None and old.get(column) != value:
        return Text(value, style=CHANGED)
    if column.isdigit() and value.strip() not in ("", "╌╌"):
        committed = int(column) < int(row.get("HW", "-1")) if "HW" in row else False
        return Text(value, style="green" if committed else "")
    return Text(value, style="dim" if value.strip() == "╌╌" else "")


def trace_panels(
    actions: Sequence[str | None],
    views: Sequence[dict[str, Any]],
    step: int | None = None,
    hide: Iterable[str] = (),
    changes_only: bool = False,
    start: int = 0,
) -> list[Panel]:
    """Panels for a whole trace (or only state ``step``, 1-based). With ``start`` > 0 only
    states ``start + 1`` on are drawn (an aftermath after a trace of ``start`` states), each
    titled as aftermath."""
    width = max(len(r["log"]) for v in views for r in v["replicas"]) + 1
    panels = []
    for index, (action, view) in enumerate(zip(actions, views)):
        if index < start or (step is not None and index + 1 != step):
            continue
        previous = views[index - 1] if index else None
        panel = step_panel(index + 1, action, view, previous, width, hide, changes_only)
        if start:
            panel.title = f"state {index + 1} (aftermath): {action}"
        panels.append(panel)
    return panels


def print_document(
    console: Console, document: dict[str, Any], header: str = "", **options: Any
) -> None:
    """Print a trace document (``trace.json``'s content) as ``print_trace`` does, ``header``
    after the property line; then, when the document has one and no single ``step`` is asked
    for, its aftermath: a heading saying it is not part of the counterexample, its story and
    its panels (numbered on from the trace's last state)."""
    prop = document["property"]
    title = f"{prop['name']} violated ({document['length']} states): {prop['description']}" + (
        f"  {header}" if header else ""
    )
    if document.get("loop"):
        title += "\n" + lasso.property_line(document)
    actions = [step["action"] for step in document["steps"]]
    views = [step["view"] for step in document["steps"]]
    after = document.get("aftermath") if options.get("step") is None else None
    loop = document.get("loop")
    print_trace(
        console,
        title,
        document.get("explanation") or (lasso.why(document) if loop else ""),
        actions,
        views,
        document.get("story", ()),
        expected=document.get("expected"),
        tickets=document.get("tickets", ()),
        legend=after is None,
        loop=loop,
        **options,
    )
    if after:
        n = len(after["steps"])
        console.print(
            Text(
                f"Aftermath: {counted(n, 'more step')} that make the loss visible "
                f"(not part of the counterexample, not counted in its "
                f"{document['length']} states)",
                style="bold",
            )
        )
        for line in after["story"]:
            console.print(Text(f"  - {line}"))
        for panel in trace_panels(
            actions + [s["action"] for s in after["steps"]],
            views + [s["view"] for s in after["steps"]],
            start=len(views),
            **options,
        ):
            console.print(panel)
        console.print(Text(LEGEND, style="dim"))


def print_trace(
    console: Console,
    header: str,
    explanation: str,
    actions: Sequence[str | None],
    views: Sequence[dict[str, Any]],
    story: Sequence[str] = (),
    expected: str | None = None,
    legend: bool = True,
    loop: dict[str, Any] | None = None,
    tickets: Sequence[str] = (),
    **options: Any,
) -> None:
    """Print a counterexample: the property line, the explanation, the ``expected`` hint
    (``checker.renderers.expected``), the ``tickets`` behind it
    (``checker.composition.fixes``) and its ``story``, then the state panels (``options``:
    ``step``, ``hide``, ``changes_only`` as ``trace_panels``) and, with ``legend``, what the
    cells mean. A lasso's ``loop`` (``checker.renderers.lasso``) marks its first state's
    title and, after the last panel, says how the behaviour goes on for ever."""
    console.print(Text(header, style="bold red"))
    if loop is not None and options.get("step") is None:
        console.print(Text(lasso.shape_line(loop, len(views)), style="magenta"))
    if explanation:
        console.print(Text(f"Why: {explanation}", style="red"))
    if expected:
        console.print(Text(f"Note: {expected}", style="yellow"))
    for line in tickets:
        console.print(Text(f"Ticket: {line}.", style="yellow"))
    for line in story:
        console.print(Text(f"  - {line}"))
    panels = trace_panels(actions, views, **options)
    lasso.mark_panels(panels, loop, len(views))
    for panel in panels:
        console.print(panel)
    if loop is not None and options.get("step") is None:
        lasso.print_loop(console, loop, len(views))
    if legend:
        console.print(Text(LEGEND, style="dim"))
