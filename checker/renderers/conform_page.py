"""A conformance report as one self-contained HTML page: the timeline of each schedule's cuts
beside the model's verdict on each.

One table per schedule, one row per cut: the operation before it (and how a produce ended),
each broker's log as boxes (``k`` the produce call, ``e`` the leader epoch of its batch), its
HW as a red bar before the first offset it does not count as committed, whether it runs, is
paused or is down; the controller's leader, leader epoch, ISR and ELR; and the verdict: the
model actions of the step that explains the cut, or the variables that differ from the
nearest model state. Every text from the report is escaped with ``html.escape``; the page has
no script and loads nothing.
"""

from __future__ import annotations

import html
from typing import Any

e = html.escape

CHECKS = {
    "explained": ("ok", "explained"),
    "reachable": ("bad", "no step from the previous cut"),
    "unreachable": ("bad", "no model state"),
    "beyond": ("warn", "beyond the model's bounds"),
}

STYLE = """
body { font: 14px system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 2em; }
th, td { border: 1px solid #ccc; padding: 4px 6px; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
.log { display: flex; gap: 2px; align-items: center; min-height: 1.6em; }
.rec { border: 1px solid #667; border-radius: 3px; padding: 0 3px; background: #eef; }
.rec small { color: #666; }
.hw { border-left: 3px solid #d22; }
.down { color: #b00; font-weight: bold; } .paused { color: #a60; font-weight: bold; }
.ok { color: #070; } .bad { color: #b00; font-weight: bold; } .warn { color: #a60; }
.path { color: #444; font-size: 12px; } .diff { color: #b00; font-size: 12px; }
.summary td:first-child { font-weight: bold; }
"""


def _log(broker: dict[str, Any]) -> str:
    hw = broker["hw"] or 0
    boxes = []
    for offset, epoch, payload in broker["records"]:
        call = payload.rsplit(":", 1)[-1]
        mark = " hw" if offset == hw else ""
        boxes.append(f'<span class="rec{mark}">{e(call)}<small>e{e(str(epoch))}</small></span>')
    if hw >= len(broker["records"]):
        boxes.append('<span class="hw">&nbsp;</span>')
    state = (
        '<span class="down">down</span>'
        if not broker["alive"]
        else '<span class="paused">paused</span>'
        if broker.get("paused")
        else ""
    )
    return f'<div class="log">{"".join(boxes)}</div>HW {e(str(broker["hw"]))} {state}'


def _controller(c: dict[str, Any] | None) -> str:
    if c is None:
        return "no topic yet"
    leader = "none" if c["leader"] is None else c["leader"]
    text = f"leader {leader}, epoch {c['leader_epoch']}, ISR {c['isr']}"
    text += f", ELR {c['elr']}" if c["elr"] else ""
    known = c.get("last_known_leader")
    return e(text + ("" if known is None else f", last known leader {known}"))


def _verdict(cut: dict[str, Any]) -> str:
    css, words = CHECKS[cut["check"]]
    out = f'<span class="{css}">{e(words)}</span>'
    if cut["path"]:
        out += f'<div class="path">{e(", ".join(cut["path"]))}</div>'
    for line in cut["differences"]:
        out += f'<div class="diff">{e(line)}</div>'
    for line in cut["unsafe"]:
        out += f'<div class="diff">unsafe: {e(line)}</div>'
    return out


def _schedule(s: dict[str, Any], replicas: int) -> str:
    verdict = "conforms" if s["conforms"] else "does not conform"
    verdict += "" if s["safe"] else ", unsafe on the real cluster"
    head = "".join(f"<th>broker {r}</th>" for r in range(replicas))
    rows = []
    for cut in s["cuts"]:
        produced = f"<div class=path>{e(cut['produced'])}</div>" if cut["produced"] else ""
        brokers = "".join(f"<td>{_log(b)}</td>" for b in cut["brokers"])
        rows.append(
            f"<tr><td>{cut['index']}</td><td>{e(cut['after'])}{produced}</td>{brokers}"
            f"<td>{_controller(cut['controller'])}</td><td>{_verdict(cut)}</td></tr>"
        )
    return (
        f"<h2>Seed {e(str(s['seed']))}: {e(verdict)}</h2>"
        f"<p>{e(' '.join(s['operations']))} (topic {e(s['topic'])}, {s.get('seconds', 0):.0f} s)</p>"
        f"<table><tr><th>cut</th><th>after</th>{head}<th>controller</th><th>model</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def page(doc: dict[str, Any]) -> str:
    """The HTML page of a ``conform.json`` document (``checker/conform/conform.schema.json``)."""
    replicas = doc["bounds"]["replicas"]
    cuts = [c for s in doc["schedules"] for c in s["cuts"]]
    counts = {k: sum(c["check"] == k for c in cuts) for k in CHECKS}
    summary = "".join(
        f"<tr><td>{e(words)}</td><td>{counts[k]}</td></tr>" for k, (_, words) in CHECKS.items()
    )
    unsafe = sum(bool(c["unsafe"]) for c in cuts)
    summary += f"<tr><td>unsafe on the real cluster</td><td>{unsafe}</td></tr>"
    title = f"Kafka {doc['kafka']} against the model's {doc['preset']}"
    partial = " (partial: interrupted)" if doc["partial"] else ""
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>{e(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{e(title)}{partial}</h1>"
        f"<table class=summary><tr><td>schedules</td><td>{len(doc['schedules'])}</td></tr>"
        f"<tr><td>cuts</td><td>{len(cuts)}</td></tr>{summary}</table>"
        + "".join(_schedule(s, replicas) for s in doc["schedules"])
        + "</body></html>\n"
    )
