"""Every claim marked in README.md and docs/**/*.md holds in a run of hwcheck.

The marks, and what each can say, are described in ``tests/docs_claims.py``. Claims are
grouped by the runs they need, so each command runs once: one test per group, named by its
commands. A group fails with every claim whose text and run disagree, each with its page and
line.
"""

from __future__ import annotations

import tomllib

import pytest
from docs_claims import PAGES, ROOT, Claim, collect, flat, page_claims, run, unmarked

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


UNMARKED = ROOT / "tests" / "data" / "docs_unmarked.toml"
"""Per page, what looks like a claim and is not marked, and why no run vouches for it."""


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_page_marks_its_claims_or_says_why_not(page):
    """On every page of README.md and docs/, each exit code, length and count outside the
    marked claims is one ``tests/data/docs_unmarked.toml`` lists for that page, with the page's
    reason (a measurement, a run too large for a test, a code another test asserts). A new
    unmarked number fails here: mark it as a claim, or list it there."""
    name = page.relative_to(ROOT).as_posix()
    declared = tomllib.loads(UNMARKED.read_text())["pages"].get(name, {"left": []})
    found = sorted(entry.split(": ", 1)[1] for entry in unmarked(page))
    assert found == sorted(declared["left"]), name
    assert not declared["left"] or declared["reason"].strip(), name


def test_the_declared_pages_exist():
    """Every page the list names is a page (a renamed page leaves no stale entry)."""
    named = set(tomllib.loads(UNMARKED.read_text())["pages"])
    assert named <= {page.relative_to(ROOT).as_posix() for page in PAGES}


def test_readme_claims_the_release_matrix():
    """README's verdict table is the default-bounds compare at 3 replicas, checked by a run."""
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
