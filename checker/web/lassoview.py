"""What the explorer page says about a loaded lasso (``hwcheck serve --trace`` of a liveness
counterexample) on the states the lasso walks through.

On a state of the lasso (the path followed so far is the lasso's own, up to that state) the
page names the property the lasso breaks and its formula, says whether the state is in the
stem or in the loop (and on a cycle's last state, that it is the loop's first again: the
back edge), and labels each enabled action with what the lasso does with it: the loop's
next step, or why the loop may leave it untaken (``loop.enabled``,
``checker.formats.fairloop``): not assumed fair, not fairly enabled along the loop, or a step
that changes nothing. Elsewhere (a branch off the lasso) it says nothing.
"""

from __future__ import annotations

from typing import Any

from checker.renderers import lasso as lasso_text
from checker.web.explorer import compact


def position(trace: dict[str, Any] | None, texts: list[str]) -> int | None:
    """The 0-based index in the lasso ``trace`` of the state ``texts`` (a path's label texts)
    reaches when it is the lasso's own path so far; ``None`` off the lasso or for a trace
    without a loop."""
    if trace is None or trace.get("loop") is None:
        return None
    own = [compact(step["action"]) for step in trace["steps"][1:]]
    if len(texts) > len(own) or [compact(t) for t in texts] != own[: len(texts)]:
        return None
    return len(texts)


def banner(trace: dict[str, Any], index: int) -> dict[str, Any]:
    """The page's lasso box for the state at ``index``: ``property``, ``kind``, ``formula``,
    ``where`` (one sentence: stem, loop, back edge or stutter), ``loop_line`` and ``shape``
    (``checker.renderers.lasso``)."""
    loop, length, prop = trace["loop"], trace["length"], trace["property"]
    back, number = int(loop["back_to"]), index + 1
    if loop["stutter"] and index == length - 1:
        where = (
            f"State {number} is where the behaviour stutters for ever: no fair action is enabled."
        )
    elif index < back:
        where = f"State {number} is in the stem (states 1-{back}), before the loop."
    elif not loop["stutter"] and index == length - 1:
        where = (
            f"State {number} is state {back + 1} again: the loop's back edge; "
            f"from here the steps from state {back + 1} repeat for ever."
        )
    else:
        where = f"State {number} is in the loop (states {back + 1}-{length})."
    return {
        "property": prop["name"],
        "kind": prop["kind"],
        "formula": prop.get("formula") or prop["description"],
        "obligation": loop.get("obligation") or "",
        "where": where,
        "loop_line": lasso_text.loop_line(loop, length),
        "shape": lasso_text.shape_line(loop, length),
    }


def tags(trace: dict[str, Any], index: int, enabled: list[dict[str, Any]]) -> None:
    """Set ``fairness`` on each entry of ``enabled`` (the explorer's, for the state at
    ``index`` of the lasso): what the lasso does with that action there. A state in the
    stem tags only the lasso's next step."""
    loop, steps = trace["loop"], trace["steps"]
    back, length = int(loop["back_to"]), trace["length"]
    in_loop = index >= back
    if not loop["stutter"] and index == length - 1:
        index = back  # the last state is the loop's first again
    nxt = compact(steps[index + 1]["action"]) if index + 1 < length else None
    notes = {compact(x["action"]): x for x in loop.get("enabled", [])}
    for entry in enabled:
        entry["fairness"] = ""
        label = compact(entry["label"])
        found = notes.get(label)
        if label == nxt:
            entry["fairness"] = "the lasso's next step" + (" (in the loop)" if in_loop else "")
        elif not in_loop:
            continue
        elif found is None:
            entry["fairness"] = "" if loop["stutter"] else "taken elsewhere in the loop"
        elif index + 1 in found["stutters_in"]:
            entry["fairness"] = "changes nothing here (a stutter): not fairly enabled"
        elif not found["fairness"]:
            entry["fairness"] = f"never taken in the loop: {found['note']}"
        else:
            entry["fairness"] = f"never taken in the loop [{found['fairness']}]: {found['note']}"
