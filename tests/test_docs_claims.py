"""Every claim marked in README.md and docs/**/*.md holds in a run of hwcheck.

The marks, and what each can say, are described in ``tests/docs_claims.py``. Claims are
grouped by the runs they need, so each command runs once: one test per group, named by its
commands. A group fails with every claim whose text and run disagree, each with its page and
line.
"""

from __future__ import annotations

import pytest
from docs_claims import ROOT, Claim, collect, flat, page_claims, run, unmarked

CLAIMS = collect()


def groups(claims: list[Claim]) -> list[tuple[tuple[tuple[str, ...], ...], list[Claim]]]:
    """Claims grouped so that claims sharing a command are in one group."""
    found: list[tuple[set[tuple[str, ...]], list[Claim]]] = []
    for claim in claims:
        commands, members = set(claim.commands), [claim]
        for group in [g for g in found if g[0] & commands]:
            found.remove(group)
            commands |= group[0]
            members = group[1] + members
        found.append((commands, members))
    return sorted(((tuple(sorted(c)), m) for c, m in found), key=lambda g: g[0])


def param(commands: tuple[tuple[str, ...], ...], claims: list[Claim]) -> object:
    name = " + ".join(" ".join(argv) for argv in commands) or "trace files"
    return pytest.param(commands, claims, id=name)


@pytest.mark.parametrize(("commands", "claims"), [param(*g) for g in groups(CLAIMS)])
def test_the_docs_say_what_the_runs_say(commands, claims, tmp_path):
    runs = {argv: run(argv, tmp_path / str(n)) for n, argv in enumerate(commands)}
    problems = [f"{c.where}: {p}" for c in claims for p in c.check(runs)]
    assert not problems, "\n".join(problems)


LEFT_UNMARKED = {
    "README.md": {},  # its measurements are in docs/benchmarks.md
    "docs/tutorials/hw-truncation.md": {},
    "docs/getting-started/first-explore.md": {},
}
"""The pages issue 42 names, and what in them looks like a claim but is left unmarked, why."""


def test_the_issue_pages_mark_every_claim_but_the_measurements():
    """In README, the HW-truncation tutorial and the first explore, every exit code, length
    and count is a marked claim, except the few runs too large for a test (a new unmarked one
    fails here: mark it, or say here why no test repeats it)."""
    for page, left in LEFT_UNMARKED.items():
        found = [entry.split(": ", 1)[1] for entry in unmarked(ROOT / page)]
        assert sorted(found) == sorted(left), page
    readme = [c for c in CLAIMS if c.where.startswith("README.md")]
    assert any(
        c.kind == "table" and c.commands == (("compare", "--replicas", "3"),) for c in readme
    )


def test_a_claim_that_the_run_contradicts_fails(tmp_path):
    """The checker itself: a wrong count, a wrong verdict and a wrong exit code are caught."""
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- claim: hwcheck explore --replicas 2 --truncation hw\n"
        '"({NoCommittedLoss.length} states)"\n'
        "NoDivergence: holds\n"
        "-->\n\n"
        "NoCommittedLoss fails (12 states); NoDivergence holds.\n\n"
        "```sh\nhwcheck explore --replicas 2 --truncation hw   # exit 0\n```\n"
    )
    claims = page_claims(page, tmp_path)
    runs = {claims[0].commands[0]: run(claims[0].commands[0], tmp_path / "out")}
    said = [flat(p) for c in claims for p in c.check(runs)]
    assert said == [
        "the text does not say '(11 states)'",
        "NoDivergence: violated, not holds",
        "exit 12, not 0",
    ]
