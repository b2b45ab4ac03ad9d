"""What the gate writes for CI besides its table: JUnit XML, GitHub workflow annotations and
the markdown step summary. Each carries the same verdict and pin explanations as the table
(``checker.gate.policy``'s ``Outcome``)."""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree

from checker.gate.policy import ERROR, FAIL, INCOMPLETE, PASS, Outcome

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold, escaped or not (control characters, lone surrogates)."""


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold replaced by U+FFFD, so the JUnit
    file stays well-formed whatever a name or message holds (ElementTree escapes ``<`` and
    ``&`` but writes control characters as they are)."""
    return _NOT_XML.sub("\ufffd", text)


def junit_xml(outcomes: list[Outcome]) -> str:
    """JUnit XML: one testcase per check and property, one ``pins`` testcase per check whose
    pins were compared and one ``replay`` testcase per corpus trace; a failure's message is
    the outcome, its text the counterexample in words or every pin that changed. INCOMPLETE is
    an error, never a pass."""
    suite = ElementTree.Element("testsuite", name="hwcheck gate")
    counts = {"tests": 0, "failures": 0, "errors": 0}

    def case(outcome: Outcome, name: str, bad: tuple[str, str] | None, text: str = "") -> None:
        element = ElementTree.SubElement(
            suite, "testcase", classname=xml_safe(outcome.check.name), name=xml_safe(name)
        )
        counts["tests"] += 1
        if bad is not None:
            kind, message = bad
            counts["failures" if kind == "failure" else "errors"] += 1
            failure = ElementTree.SubElement(element, kind, message=xml_safe(message))
            failure.text = xml_safe(text or message)

    for outcome in outcomes:
        if outcome.check.mode == "replay":
            bad = (
                None
                if outcome.status == PASS
                else ("error" if outcome.status == INCOMPLETE else "failure", outcome.message)
            )
            case(outcome, "replay", bad, "\n".join(outcome.differences))
            continue
        result = outcome.result
        props = result.checked if result is not None else ()
        for prop in props or [None]:
            name = prop.name if prop is not None else "run"
            bad = _property_problem(outcome, prop)
            case(outcome, name, bad, outcome.details.get(name, bad[1] if bad else ""))
        if outcome.pins in ("match", "differ", "updated"):  # compared with pins
            bad = ("failure", outcome.message) if outcome.pins == "differ" else None
            case(outcome, "pins", bad, "\n".join(outcome.differences))
    for key, value in counts.items():
        suite.set(key, str(value))
    return ElementTree.tostring(suite, encoding="unicode", xml_declaration=True)


def _property_problem(outcome: Outcome, prop: Any) -> tuple[str, str] | None:
    """``(failure|error, message)`` when this property goes against the expectation."""
    if outcome.status == ERROR or prop is None:
        return ("error", outcome.message) if outcome.status != PASS else None
    assert outcome.result is not None  # only an ERROR outcome has no result
    verdict = outcome.result.verdict(prop)
    expected_bad = outcome.check.violates or frozenset()
    if prop.kind == "sometimes":
        if outcome.check.violates is None and verdict == "not reached":
            return "failure", f"{prop.name} never reached: the verdict is vacuous"
        return None
    if verdict == "violated" and prop.name not in expected_bad:
        return "failure", f"{prop.name} violated unexpectedly"
    if verdict == "holds" and prop.name in expected_bad:
        return "failure", f"{prop.name} expected to be violated but holds"
    if verdict == "not found" and prop.name in expected_bad:
        return "failure", (
            f"{prop.name} expected to be violated, but no walk of "
            f"{outcome.result.sampled:,} violated it"
        )
    if verdict == "unknown" and outcome.status == INCOMPLETE:
        return "error", f"INCOMPLETE: {outcome.message}"
    return None


def _escape(text: str) -> str:
    """A workflow command's value: ``%``, CR and LF escaped as GitHub requires."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    """A workflow command's property value: also ``:`` and ``,`` escaped."""
    return _escape(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(outcomes: list[Outcome], config: str) -> list[str]:
    """``::error`` workflow commands for every check that did not pass, each pointing at the
    check's line in ``config`` (the gate file, as given), with every changed pin."""
    lines = []
    for o in outcomes:
        if o.status != PASS:
            message = f"{o.status}: {o.message}"
            if o.pins == "differ":  # every changed pin, one per line
                message = f"{o.status}: pins differ:\n" + "\n".join(o.differences)
            where = f"file={_property(config)},line={o.check.line}," if o.check.line else ""
            title = _property(f"hwcheck gate: {o.check.name}")
            lines.append(f"::error {where}title={title}::{_escape(message)}")
    return lines


def markdown_summary(outcomes: list[Outcome]) -> str:
    """A markdown table of the outcomes, for $GITHUB_STEP_SUMMARY."""
    icon = {PASS: "✅", FAIL: "❌", INCOMPLETE: "⚠️", ERROR: "💥"}
    rows = [
        "| check | expectation | outcome | states | seconds | detail |",
        "|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        stats = o.result.stats if o.result is not None else None
        detail = o.message.replace("|", "\\|")
        rows.append(
            f"| {o.check.name} | {o.check.expectation} | {icon[o.status]} {o.status} "
            f"| {stats.distinct if stats else '-'} "
            f"| {f'{stats.seconds:.1f}' if stats else '-'} | {detail} |"
        )
    return "## hwcheck gate\n\n" + "\n".join(rows) + "\n"
