"""What ``hwcheck show`` draws for a trace file it has checked: the document as this model
writes it for the replayed counterexample, not the file's own words.

A trace file's texts (its explanation, its story, its "expected" note, its tickets, its aftermath's story, a
lasso's list of actions never taken) are not covered by the fingerprints ``replay`` checks: an
edited "Why: all good, nothing lost" would otherwise be drawn under a checked trace. ``retold``
tells them again from the model (``checker.formats.report.trace_document``) and says which of
the file's texts differed, so ``show`` can say so in one line.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from checker.formats import report
from checker.result import Violation

TEXTS = {
    "explanation": "explanation",
    "story": "story",
    "expected": "expected-violation note",
    "tickets": "tickets",
}
"""The document's texts ``retold`` compares, with the words ``show`` uses for each."""


ADDED = "[the file's words, unchecked]"
"""How a story line the file adds after the model's story is marked (the gallery adds how
each bug was fixed, ``checker.commands.gallery``)."""


def retold(
    document: dict[str, Any], spec: Any, violation: Violation
) -> tuple[dict[str, Any], list[str]]:
    """``(drawn, differed)``: the trace document this model writes for ``violation`` (rebuilt
    by ``tracefile.replay`` from ``document``, whose pictures ``check_pictures`` accepted), and
    the words for each of the file's texts that are not the model's (``TEXTS``, and the
    aftermath's story), in that order; empty when the file tells what the model tells.

    The drawn document keeps the file's ``hwcheck_version`` and ``found_by`` (where the file
    came from), and story lines the file adds after the model's story, each marked ``ADDED``;
    a lasso's ``never_taken`` is computed again from the model's successors (the
    file's fairness and obligation texts are the run's own: ``replay`` checked the property
    fails on the lasso). Raises nothing of its own."""
    if violation.loop is not None:
        loop = dataclasses.replace(violation.loop, never_taken=never_taken(spec, violation))
        violation = dataclasses.replace(violation, loop=loop)
    drawn = report.trace_document(spec, violation)
    for key in ("hwcheck_version", "found_by"):
        if key in document:
            drawn[key] = document[key]
    told, written = drawn["story"], list(document.get("story") or [])
    if written[: len(told)] == told and len(written) > len(told):  # the gallery's fix line
        drawn["story"] = told + [f"{ADDED} {line}" for line in written[len(told) :]]
        document = {**document, "story": drawn["story"]}
    if "tickets" not in document:  # written before files named tickets: nothing to differ
        document = {**document, "tickets": drawn.get("tickets")}
    differed = [words for key, words in TEXTS.items() if document.get(key) != drawn.get(key)]
    if (document.get("aftermath") or {}).get("story") != (drawn.get("aftermath") or {}).get(
        "story"
    ) and document.get("aftermath"):
        differed.append("aftermath's story")
    return drawn, differed


def never_taken(spec: Any, violation: Violation) -> tuple[str, ...]:
    """The action instances enabled in every state of ``violation``'s loop and taken in none
    of its steps, as sorted label texts (as ``checker.liveness.lasso.Lasso.never_taken``
    lists them from the state graph, which drops steps that change nothing: stutters)."""
    loop = violation.loop
    assert loop is not None
    steps = violation.trace[loop.back_to :]
    taken = set() if loop.stutter else {str(step.label) for step in steps[1:]}
    common: set[str] | None = None
    for step in steps:
        here = {str(label) for label, after in spec.successors(step.state) if after != step.state}
        common = here if common is None else common & here
    return tuple(sorted((common or set()) - taken))
