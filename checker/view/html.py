"""A counterexample as one self-contained HTML page: no network, no CDN, no external file.

Each state is drawn as the Kafka docs draw logs: every replica a row of boxes, one per offset
(``m<id>`` with its leader epoch), a thick line at the HW (exclusive: the first offset not yet
committed on that replica) and a dashed box at the LEO (the next offset to be written). Boxes
and fields that changed since the previous state are highlighted. A slider, Previous / Next
buttons and the left / right arrow keys step through the states; the explanation is on top.
Every text that comes from the trace is escaped with ``html.escape``; the script holds no data.
"""

from __future__ import annotations

import html
from typing import Any

from checker.view.steps import controller_line

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;max-width:70em}
h1{font-size:1.3em;margin:0 0 .2em} .meta{color:#555;margin:0 0 .8em}
.why{background:#fdecea;border-left:4px solid #c62828;padding:.6em .8em;margin:0 0 1em}
.nav{display:flex;gap:.6em;align-items:center;margin:0 0 1em} .nav input{flex:1}
.step{border:1px solid #ccc;border-radius:6px;padding:.6em .9em}
.action{font-weight:600;margin:0 0 .6em} .replica{display:flex;align-items:center;margin:.45em 0}
.who{width:23em;font-size:.9em} .who .changed{background:#ffe082}
.log{display:flex;align-items:center;min-height:2.6em}
.cell{width:3.6em;height:2.2em;border:1px solid #555;display:flex;flex-direction:column;
 align-items:center;justify-content:center;font-size:.8em;margin-right:2px;background:#fff}
.cell .epoch{color:#666;font-size:.85em} .cell.committed{background:#c8e6c9}
.cell.changed{outline:3px solid #f9a825} .cell.leo{border:2px dashed #888;color:#888}
.cell.removed{text-decoration:line-through;border-color:#c62828;color:#c62828;opacity:.7}
.hw{width:4px;height:2.8em;background:#c62828;margin:0 3px 0 1px}
.down .cell{opacity:.45} .controller{margin-top:.6em;color:#444;font-size:.9em}
.controller.changed{background:#ffe082} .legend{color:#666;font-size:.85em;margin-top:1em}
"""

SCRIPT = """
(function(){
  var steps=document.querySelectorAll('section.step'), slider=document.getElementById('slider'),
      caption=document.getElementById('caption'), current=0;
  function show(i){
    current=Math.max(0,Math.min(steps.length-1,i));
    for(var k=0;k<steps.length;k++){steps[k].hidden=(k!==current);}
    slider.value=current+1;
    caption.textContent='state '+(current+1)+' of '+steps.length;
  }
  slider.addEventListener('input',function(){show(slider.valueAsNumber-1);});
  document.getElementById('prev').addEventListener('click',function(){show(current-1);});
  document.getElementById('next').addEventListener('click',function(){show(current+1);});
  document.addEventListener('keydown',function(e){
    if(e.key==='ArrowLeft'){show(current-1);e.preventDefault();}
    if(e.key==='ArrowRight'){show(current+1);e.preventDefault();}
  });
  show(0);
})();
"""

e = html.escape


def _who(replica: dict[str, Any], old: dict[str, Any] | None) -> str:
    fields = [("role", replica["role"] + (f" of {replica['leader']}"
                                          if replica["role"] == "follower" else "")),
              ("epoch", f"epoch {replica['epoch']}"),
              ("alive", "up" if replica["alive"] else "DOWN"),
              ("isr", "ISR {" + ",".join(map(str, replica["isr"])) + "}")]
    parts = []
    for key, text in fields:
        changed = old is not None and old.get(key) != replica.get(key)
        parts.append(f'<span class="{key}{" changed" if changed else ""}">{e(text)}</span>')
    return f'<div class="who"><b>replica {e(str(replica["replica"]))}</b> · ' + \
        " · ".join(parts) + "</div>"


def _log(replica: dict[str, Any], old: dict[str, Any] | None) -> str:
    hw, log = replica["hw"], replica["log"]
    before = old["log"] if old is not None else None
    boxes = []
    for offset, (rid, epoch) in enumerate(log):
        if offset == hw:
            boxes.append(f'<span class="hw" title="HW {hw}"></span>')
        classes = ["cell"]
        if offset < hw:
            classes.append("committed")
        if before is not None and (offset >= len(before) or before[offset] != [rid, epoch]):
            classes.append("changed")
        boxes.append(f'<span class="{" ".join(classes)}" title="offset {offset}">'
                     f'<span>m{e(str(rid))}</span><span class="epoch">e{e(str(epoch))}</span>'
                     "</span>")
    if hw >= len(log):
        boxes.append(f'<span class="hw" title="HW {hw}"></span>')
    boxes.append(f'<span class="cell leo" title="LEO {len(log)}">LEO {len(log)}</span>')
    for offset in range(len(log), len(before or ())):  # truncated away in this step
        rid, epoch = before[offset]
        boxes.append(f'<span class="cell removed" title="offset {offset}: removed">'
                     f'<span>m{e(str(rid))}</span><span class="epoch">e{e(str(epoch))}</span>'
                     "</span>")
    return '<div class="log">' + "".join(boxes) + "</div>"


def _step(number: int, step: dict[str, Any], previous: dict[str, Any] | None) -> str:
    view = step["view"]
    action = "initial state" if step["action"] is None else step["action"]
    rows = []
    for index, replica in enumerate(view["replicas"]):
        old = previous["replicas"][index] if previous else None
        down = "" if replica["alive"] else " down"
        rows.append(f'<div class="replica{down}">{_who(replica, old)}{_log(replica, old)}</div>')
    line = controller_line(view)
    changed = previous is not None and controller_line(previous) != line
    return (f'<section class="step" data-step="{number}" hidden>'
            f'<div class="action">state {number}: {e(action)}</div>' + "".join(rows) +
            f'<div class="controller{" changed" if changed else ""}">{e(line)}</div></section>')


def render(document: dict[str, Any]) -> str:
    """The page for a trace document (the content of a ``trace.json``, format version 1)."""
    prop, steps = document["property"], document["steps"]
    config = ", ".join(f"{k}={v}" for k, v in document["config"].items())
    sections = [_step(i + 1, step, steps[i - 1]["view"] if i else None)
                for i, step in enumerate(steps)]
    title = f"{prop['name']} violated ({document['length']} states)"
    explanation = document.get("explanation") or ""
    found = document.get("found_by")
    origin = (f'<br>found by hwcheck simulate: walk {found["walk"]:,} of seed {found["seed"]}, '
              f'shrunk from {found["lengths"]["walk"]} to {document["length"]} states'
              if found else "")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{e(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{e(title)}</h1>"
        f'<p class="meta">{e(prop["description"])}<br>model {e(document["model"])}, '
        f'{e(str(document["variant"]))}; {e(config)}; hwcheck '
        f'{e(document["hwcheck_version"])}{origin}</p>'
        + (f'<p class="why" id="why">{e(explanation)}</p>' if explanation else "")
        + ('<ol class="story" id="story">' + "".join(f"<li>{e(line)}</li>" for line in
                                                    document.get("story", [])) + "</ol>"
           if document.get("story") else "")
        + '<div class="nav"><button id="prev" type="button">◀ Previous</button>'
        f'<input id="slider" type="range" min="1" max="{len(steps)}" value="1" '
        'aria-label="state">'
        '<button id="next" type="button">Next ▶</button><span id="caption"></span></div>'
        + "".join(sections)
        + '<p class="legend">Boxes are log offsets (0-based) holding m&lt;id&gt; written in '
        "leader epoch e&lt;epoch&gt;; green boxes are below the replica's HW; the red line is "
        "the HW and the dashed box the LEO (both exclusive); highlighted: changed since the "
        "previous state; struck-through red boxes were removed from the log in this step. "
        "Keys: ← →.</p>"
        f"<script>{SCRIPT}</script></body></html>\n")
