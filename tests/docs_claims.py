"""The claims of README.md and docs/**/*.md, and the hwcheck runs they are checked against
(``tests/test_docs_claims.py``).

A claim is a verdict, a count, an exit code or a trace length the documentation states. It is
marked in the markdown, where a reader does not see it, in one of these forms:

1. A command line in a code block whose comment names an exit code:
   ``hwcheck scenario examples/scenarios/textbook-loss.txt   # exit 12``. The line is run as
   written and must exit with that code.
2. ``<!-- claim: hwcheck ARGS`` on a line, then one item a line, then ``-->``, written before
   the block it vouches for (the paragraph, list, table or code block after it):

   - ``"text with {placeholders}"``: the placeholders are filled in from the run, and the
     text must then appear in the block (line breaks and runs of spaces count as one space):
     ``"NoCommittedLoss ✗ violated ({NoCommittedLoss.length} states)"``.
   - ``Name, Name: verdict [n]``: each property's verdict in the run (``holds``,
     ``violated``, ``reached``, ``not reached``, ``unknown``) and, after ``violated``, its
     counterexample's length in states; each name must appear in the block. ``exit: N``
     is the exit code. In a ``compare`` claim, ``variant/Name`` names a cell.

3. ``<!-- claim-table: hwcheck compare ARGS -->`` before a verdict table: rows are
   properties (a first cell such as ``NoCommittedLoss, NoAckedLoss``) or ``states`` (the
   count, as written, or in millions rounded as written when the row says ``millions``),
   columns are the compare's variants (``0.10`` is ``kafka-0.10``), and a cell is ``✓``
   (holds, or a guard reached), ``✓ n states`` (holds, in n states), ``✗ n`` or
   ``✗ state n`` (violated, the counterexample n states long), ``?`` (unknown: a bound cut
  the liveness check), anything after a ``:`` being
   commentary (``✗`` alone: violated, whatever the length). With other commands, one line per
   column, ``header: hwcheck ARGS`` (``header: -`` for a column that is not a run); a line
   ``others: holds`` says every property the rows do not name holds in every column.
   ``<!-- claim-table: traces -->`` before a table whose rows link to gallery trace files
   (``../gallery/NAME/trace.json``): each row's ``states`` and ``configuration`` (flags, then
   the property) must be its trace's, read from ``reports/gallery/`` (which
   ``tests/test_gallery.py`` keeps current), with no run.

Placeholders: ``{exit}``; ``{states}`` (distinct states, one per orbit with symmetry:
``{states:,}`` prints ``11,026``) and ``{millions}`` (``{millions:.2f}``); ``{depth}``;
``{plain_states}`` (the liveness pass's plain graph), ``{liveness_orbits}`` (its orbit graph); a property by name, with ``.verdict``,
``.length``, ``.mark`` (``✓``, ``✗ 11``) and ``.state[k]`` (the action that reached state k of
its counterexample, the aftermath's states included); for ``scenario``, ``.first`` (the state
where it first fails) and ``{steps}`` (the schedule's states, the initial one included); for
``compare``, ``{row[kip101]...}`` is one variant's run. ``hwcheck show FILE`` claims read the
trace file (``tests/test_gallery.py`` keeps the gallery's current): ``{length}``,
``{state[k]}`` and the property.

``python tests/docs_claims.py`` lists what still looks like a claim outside the marked blocks
(``unmarked``): exit codes, lengths and counts that no claim vouches for yet, and measurements
(times, memory, runs too large for a test) that none will.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from checker.cli import cli
from checker.formats import schedule

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
HOLDS = ("holds", "reached")
EXIT_LINE = re.compile(r"^(?:\$ )?hwcheck\s+(.+?)\s+#.*?\bexit (\d+)\b")
COMMENT = re.compile(r"<!--\s*(claim-table|claim)\b:?(.*?)-->", re.DOTALL)


def flat(text: str) -> str:
    """``text`` with every run of whitespace one space."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Claim:
    """One marked claim: where it is, the runs it needs (``commands``, each an argv without
    ``hwcheck``), its ``items`` and the ``block`` it vouches for."""

    where: str
    kind: str  # "exit", "claim" or "table"
    commands: tuple[tuple[str, ...], ...]
    items: tuple[str, ...] = ()
    block: str = ""
    columns: tuple[str, ...] = ()
    span: tuple[int, int] = (0, 0)
    """The block's lines in the page (0-based, the end excluded)."""

    @property
    def skipped(self) -> set[str]:
        """A table's columns that are not runs (``header: -``)."""
        return {
            i.partition(":")[0].strip() for i in self.items if i.partition(":")[2].strip() == "-"
        }

    def check(self, runs: dict[tuple[str, ...], Run]) -> list[str]:
        """What the text says that the runs do not (empty: the claim holds)."""
        if self.kind == "exit":
            run = runs[self.commands[0]]
            return (
                [] if run.exit == int(self.items[0]) else [f"exit {run.exit}, not {self.items[0]}"]
            )
        if self.kind == "table":
            return check_table(self, runs)
        if self.kind == "traces":
            return check_traces(self)
        run, block = runs[self.commands[0]], flat(self.block)
        problems = []
        for item in self.items:
            if item.startswith('"'):
                problems += check_template(item.strip('"'), run, block)
            else:
                problems += check_assertion(item, run, block)
        return problems


@dataclass
class Prop:
    """A property's verdict in a run, and its counterexample's trace file."""

    name: str
    verdict: str
    length: int | None = None
    trace: Path | None = None

    @property
    def first(self) -> int | None:
        return self.length

    @property
    def mark(self) -> str:
        if self.verdict in HOLDS:
            return "✓"
        return f"✗ {self.length}" if self.verdict == "violated" else "?"

    @property
    def state(self) -> dict[int, str]:
        return trace_states(self.trace) if self.trace else {}


@dataclass
class Run:
    """What a run gave that a claim can name."""

    exit: int
    props: dict[str, Prop] = field(default_factory=dict)
    states: int | None = None
    depth: int | None = None
    plain_states: int | None = None
    liveness_orbits: int | None = None
    steps: int | None = None
    rows: dict[str, Run] = field(default_factory=dict)
    length: int | None = None
    state: dict[int, str] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Prop:
        """A property by name: ``{row[kip101].NoCommittedLoss.length}``."""
        props = self.__dict__.get("props", {})
        if name in props:
            return props[name]  # type: ignore[no-any-return]
        raise AttributeError(name)

    def values(self) -> dict[str, Any]:
        millions = None if self.states is None else self.states / 1e6
        fixed = {"exit": self.exit, "states": self.states, "millions": millions}
        fixed |= {
            "depth": self.depth,
            "plain_states": self.plain_states,
            "liveness_orbits": self.liveness_orbits,
            "steps": self.steps,
        }
        fixed |= {"row": self.rows, "length": self.length, "state": self.state}
        return {**self.props, **{k: v for k, v in fixed.items() if v not in (None, {})}}


def trace_states(path: Path) -> dict[int, str]:
    """State number (1 = the initial state) → the action that reached it, aftermath included."""
    document = json.loads(path.read_text())
    steps = [*document["steps"], *(document.get("aftermath") or {}).get("steps", [])]
    return {step["index"] + 1: step["action"] or "initial state" for step in steps}


# --- reading the pages ------------------------------------------------------------------------


def collect(pages: list[Path] = PAGES) -> list[Claim]:
    """Every claim marked in ``pages``."""
    return [claim for page in pages for claim in page_claims(page)]


def page_claims(page: Path, root: Path = ROOT) -> list[Claim]:
    """The claims marked in ``page``, named by its path under ``root`` and line."""
    lines = page.read_text().splitlines()
    name = page.relative_to(root).as_posix()
    claims: list[Claim] = []
    pending: list[tuple[int, str, str]] = []
    fence, n = "", 0
    while n < len(lines):
        line = lines[n]
        if fence:
            fence = "" if line.strip().startswith(fence) else fence
            match = EXIT_LINE.match(line.strip())
            if fence and match:
                argv = tuple(shlex.split(match[1], comments=True))
                exit_claim = Claim(f"{name}:{n + 1}", "exit", (argv,), (match[2],), line)
                claims.append(replace(exit_claim, span=(n, n + 1)))
            n += 1
            continue
        if line.strip().startswith("<!--") and "claim" in line:
            start = n
            while "-->" not in lines[n]:
                n += 1
            text = "\n".join(lines[start : n + 1])
            for kind, body in COMMENT.findall(text):
                pending.append((start + 1, kind, body))
            n += 1
            continue
        if line.strip() and pending:
            end = block_end(lines, n)
            block = "\n".join(lines[n:end])
            claims += [
                replace(marked(f"{name}:{at}", kind, body, block), span=(n, end))
                for at, kind, body in pending
            ]
            pending = []
        if line.strip().startswith(("```", "~~~")):
            fence = line.strip()[:3]
        n += 1
    assert not pending, f"{name}: a claim comment with no block after it"
    return claims


def block_end(lines: list[str], n: int) -> int:
    """The line after the block that starts at line ``n``: a fenced block to its closing
    fence, anything else to the next blank line."""
    if lines[n].strip().startswith(("```", "~~~")):
        fence = lines[n].strip()[:3]
        end = n + 1
        while not lines[end].strip().startswith(fence):
            end += 1
        return end + 1
    end = n
    while end < len(lines) and lines[end].strip():
        end += 1
    return end


def marked(where: str, kind: str, body: str, block: str) -> Claim:
    """The claim of one ``claim`` or ``claim-table`` comment over ``block``."""
    first, *rest = body.rstrip().split("\n")
    items = tuple(line.strip() for line in rest if line.strip())
    if kind == "claim":
        return Claim(where, "claim", (argv_of(first),), items, block)
    if first.strip() == "traces":  # claim-table: traces
        return Claim(where, "traces", (), items, block)
    if first.strip():  # claim-table: hwcheck compare ...
        return Claim(where, "table", (argv_of(first),), items, block)
    columns = tuple(item for item in items if item.partition(":")[2].strip().startswith("hwcheck"))
    commands = tuple(argv_of(column.split(":", 1)[1]) for column in columns)
    return Claim(where, "table", commands, items, block, columns)


def argv_of(command: str) -> tuple[str, ...]:
    words = shlex.split(command)
    assert words and words[0] == "hwcheck", f"a claim's command starts with hwcheck: {command!r}"
    return tuple(words[1:])


CANDIDATE = re.compile(
    r"\bexit(?:s| code)? \d+\b|✗ (?:state )?\d+|\b\d[\d,.]* (?:million )?(?:states|orbits)\b"
    r"|\b\d{1,3}(?:,\d{3})+\b"
)
"""What looks like a claim: an exit code, a ✗ with a length, a count of states or orbits, a
number of four digits or more."""


def unmarked(page: Path, root: Path = ROOT) -> list[str]:
    """``page:line: text`` of every candidate claim (``CANDIDATE``) outside the blocks that
    claims vouch for and the command lines that name their exit code: what is left to mark,
    or to leave as a measurement (times, memory) that no test repeats."""
    lines = page.read_text().splitlines()
    covered = {n for claim in page_claims(page, root) for n in range(*claim.span)}
    inside = False
    for n, line in enumerate(lines):  # the claim comments themselves
        inside = inside or line.lstrip().startswith("<!--")
        if inside:
            covered.add(n)
            inside = "-->" not in line
    name = page.relative_to(root).as_posix()
    found = []
    for n, line in enumerate(lines):
        if n not in covered:
            found += [f"{name}:{n + 1}: {m[0]}" for m in CANDIDATE.finditer(line)]
    return found


# --- checking ---------------------------------------------------------------------------------


def check_template(template: str, run: Run, block: str) -> list[str]:
    if "{" not in template:
        return [f"{template!r} names nothing from the run (no placeholder)"]
    try:
        text = flat(template.format_map(run.values()))
    except (KeyError, AttributeError, IndexError) as exc:
        return [f"{template!r}: the run has no {exc}"]
    return [] if text in block else [f"the text does not say {text!r}"]


def check_assertion(item: str, run: Run, block: str) -> list[str]:
    names, _, said = (part.strip() for part in item.partition(":"))
    if names == "exit":
        return [] if str(run.exit) == said else [f"exit {run.exit}, not {said}"]
    problems = []
    for name in (part.strip() for part in names.split(",")):
        row, _, prop = name.rpartition("/")
        target = run.rows[row] if row else run
        if prop not in block:
            problems.append(f"{prop} is not in the text the claim vouches for")
        problems += verdict_problems(target.props.get(prop), said, name)
    return problems


def verdict_problems(prop: Prop | None, said: str, name: str) -> list[str]:
    """``said``: ``holds``, ``reached``, ``not reached``, ``unknown``, ``violated`` or
    ``violated N`` (N: the counterexample's states)."""
    if prop is None:
        return [f"the run judged no property {name}"]
    verdict, _, length = said.partition(" ") if said.startswith("violated") else (said, "", "")
    actual = f"{prop.verdict} {prop.length}" if length and prop.length else prop.verdict
    return [] if actual == said and prop.verdict == verdict else [f"{name}: {actual}, not {said}"]


CELL = re.compile(r"^(✓|✗|\?)(?:\s+(?:state\s+)?([\d,]+)(\s+states)?)?\s*(?::.*)?$")


def table_rows(block: str) -> list[list[str]]:
    rows = []
    for line in block.splitlines():
        if line.strip().startswith("|") and not re.fullmatch(r"[|\s:-]+", line.strip()):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            rows.append([cell.strip() for cell in cells])
    return rows


def check_table(claim: Claim, runs: dict[tuple[str, ...], Run]) -> list[str]:
    header, *body = table_rows(claim.block)
    columns = header[1:]
    if claim.columns:
        named = {c.split(":", 1)[0].strip(): runs[a] for c, a in zip(claim.columns, claim.commands)}
        cells = {column: named.get(column) for column in columns if column not in claim.skipped}
    else:
        rows = runs[claim.commands[0]].rows
        cells = {column: rows.get(column, rows.get(f"kafka-{column}")) for column in columns}
    problems = [f"column {c!r}: no run" for c, run in cells.items() if run is None]
    if problems:
        return problems
    named_props: set[str] = set()
    for label, *marks in body:
        for column, mark in zip(columns, marks):
            if column not in cells:
                continue
            run = cells[column]
            assert run is not None
            problems += cell_problems(label, column, mark, run, named_props)
    if "others: holds" in claim.items:
        for column, run in cells.items():
            assert run is not None
            for prop in run.props.values():
                if prop.name not in named_props and prop.verdict not in HOLDS:
                    problems.append(f"{prop.name} in {column}: {prop.verdict}, not in the table")
    return problems


def cell_problems(label: str, column: str, mark: str, run: Run, named: set[str]) -> list[str]:
    where = f"{label} / {column}: {mark!r}"
    if label.startswith(("states", "orbits")):
        count = run.steps if run.steps is not None else run.states
        written = mark.replace(",", "")
        if "millions" in label:
            places = len(written.partition(".")[2])
            ok = count is not None and round(count / 1e6, places) == float(written)
        else:
            ok = str(count) == written
        return [] if ok else [f"{where}, the run says {count:,}" if count else where]
    cell = CELL.match(mark)
    if cell is None:
        return [f"{where} is not ✓, ✓ n states, ✗ n, ✗ state n or ?"]
    problems = []
    if cell[1] == "✓" and cell[2] and str(run.steps or run.states) != cell[2].replace(",", ""):
        problems.append(f"{where}, the run has {run.steps or run.states} states")
    names = re.sub(r"\s*\(.*\)\s*$", "", label)  # "ReplicasConverge (`<>[]`)": a note
    for name in (part.strip(" `") for part in names.split(",")):
        named.add(name)
        prop = run.props.get(name)
        if prop is None:
            problems.append(f"{where}: the run judged no property {name}")
        elif cell[1] == "✓" and prop.verdict not in HOLDS:
            problems.append(f"{where}: {name} is {prop.verdict}, {prop.length} states")
        elif cell[1] == "✗" and (
            prop.verdict != "violated" or (cell[2] and str(prop.length) != cell[2])
        ):
            problems.append(f"{where}: {name} is {prop.verdict} ({prop.length} states)")
        elif cell[1] == "?" and prop.verdict != "unknown":
            problems.append(f"{where}: {name} is {prop.verdict}, not unknown")
    return problems


def check_traces(claim: Claim) -> list[str]:
    """A table of trace files (the gallery's): in each row, the ``trace.json`` it links to has
    the states the ``states`` column gives (and the aftermath's, when it says ``14 (+4
    aftermath)``), the property the configuration ends with, and each of its flags."""
    header, *body = table_rows(claim.block)
    at = {name: n for n, name in enumerate(header)}
    problems = []
    for row in body:
        link = re.search(r"\(\.\./gallery/([\w.-]+)/trace\.json\)", " ".join(row))
        if link is None:
            problems.append(f"{row[0]!r}: no link to a gallery trace.json")
            continue
        trace = json.loads((ROOT / "reports" / "gallery" / link[1] / "trace.json").read_text())
        said = re.fullmatch(r"(\d+)(?: \(\+(\d+) aftermath\))?", row[at["states"]])
        after = len((trace.get("aftermath") or {}).get("steps", []))
        if said is None or int(said[1]) != trace["length"] or int(said[2] or after) != after:
            problems.append(
                f"{link[1]}: {row[at['states']]!r}, the trace has {trace['length']}"
                f" states (+{after} aftermath)"
            )
        flags, _, name = row[at["configuration"]].rpartition(", ")
        if name != trace["property"]["name"]:
            problems.append(f"{link[1]}: {name}, the trace is {trace['property']['name']}'s")
        problems += [f"{link[1]}: {p}" for p in flag_problems(flags.strip("`"), trace)]
    return problems


def flag_problems(flags: str, trace: dict[str, Any]) -> list[str]:
    """The command-line ``flags`` that ``trace``'s model and configuration contradict."""
    words, config, problems = shlex.split(flags), trace["config"], []
    lists = {"--with": "with_mechanisms", "--without": "without_mechanisms"}
    n = 0
    while n < len(words):
        flag = words[n]
        value = words[n + 1] if n + 1 < len(words) and not words[n + 1].startswith("--") else None
        n += 2 if value is not None else 1
        if flag == "--model":
            ok = trace["model"] == value
        elif flag in lists:
            ok = value in config.get(lists[flag], [])
        elif flag in ("--unclean", "--liveness"):
            ok = flag == "--liveness" or config.get("unclean_election") is True
        else:
            ok = str(config.get(flag[2:].replace("-", "_"))) == value
        if not ok:
            problems.append(f"{flag} {value or ''} is not the trace's configuration".strip())
    return problems


# --- running ----------------------------------------------------------------------------------


def run(argv: tuple[str, ...], out: Path) -> Run:
    """Run ``hwcheck argv`` in this process (from the repository's root), its reports in
    ``out``; a ``show`` claim reads its trace file."""
    with contextlib.chdir(ROOT):
        if argv[0] == "show":
            return shown(ROOT / argv[1])
        extra = {"compare": ["--json"], "explore": ["--no-progress"]}.get(argv[0], [])
        result = CliRunner().invoke(cli, [*argv, *extra, "--out", str(out)])
        if argv[0] == "explore":
            return explored(result, out)
        if argv[0] == "compare":
            assert result.exit_code == 0, result.output
            return compared(result)
        if argv[0] == "scenario":
            return played(argv, result, out)
    raise AssertionError(f"no claims about hwcheck {argv[0]} yet: add its reader here")


def explored(result: Any, out: Path) -> Run:
    summary = json.loads((out / "summary.json").read_text())
    plain = re.search(r"plain graph \(([\d,]+) states", flat(result.output))
    found = summary_run(summary, result.exit_code)
    found.depth = summary["stats"]["depth"]
    found.plain_states = int(plain[1].replace(",", "")) if plain else None
    orbits = re.search(r"orbit graph \(([\d,]+) orbits", flat(result.output))
    found.liveness_orbits = int(orbits[1].replace(",", "")) if orbits else None
    return found


def summary_run(summary: dict[str, Any], exit_code: int) -> Run:
    props = {
        name: Prop(
            name, p["verdict"], p.get("length"), Path(p["trace"]) if p.get("trace") else None
        )
        for name, p in summary["properties"].items()
    }
    states = summary["stats"]["distinct"] if "stats" in summary else summary["states"]
    return Run(exit_code, props, states)


def compared(result: Any) -> Run:
    rows = json.loads(result.stdout)["rows"]
    return Run(0, rows={row["variant"]: summary_run(row, 0) for row in rows})


def played(argv: tuple[str, ...], result: Any, out: Path) -> Run:
    listed = json.loads(CliRunner().invoke(cli, ["list", "--json"]).stdout)
    model = argv[argv.index("--model") + 1] if "--model" in argv else "kafka"
    kinds = next(m["properties"] for m in listed["models"] if m["name"] == model)
    props = {}
    for entry in kinds:
        if entry["kind"] in ("invariant", "transition"):
            trace = out / entry["name"] / "trace.json"
            if trace.exists():
                length = json.loads(trace.read_text())["length"]
                props[entry["name"]] = Prop(entry["name"], "violated", length, trace)
            else:
                props[entry["name"]] = Prop(entry["name"], "holds")
    steps = len(schedule.load(Path(argv[1])).steps) + 1
    return Run(result.exit_code, props, steps=steps)


def shown(path: Path) -> Run:
    document = json.loads(path.read_text())
    name = document["property"]["name"]
    prop = Prop(name, "violated", document["length"], path)
    return Run(0, {name: prop}, length=document["length"], state=trace_states(path))


def unmarked_toml(reasons: dict[str, str]) -> str:
    """``tests/data/docs_unmarked.toml`` for the pages as they are: per page with unmarked
    candidates, its reason (from ``reasons``, "" for a new page: write one) and the list."""
    out = [HEADER]
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        found = sorted(entry.split(": ", 1)[1] for entry in unmarked(page))
        if found:
            items = "".join(f"    {json.dumps(item, ensure_ascii=False)},\n" for item in found)
            reason = json.dumps(reasons.get(name, ""), ensure_ascii=False)
            out.append(f'[pages."{name}"]\nreason = {reason}\nleft = [\n{items}]\n')
    return "\n".join(out)


HEADER = """# What each page of README.md and docs/ states that looks like a claim (an exit code, a count, a
# length) and is not a marked claim (tests/docs_claims.py), and why no run vouches for it.
# tests/test_docs_claims.py holds every page to this list: a new number on any page fails until
# it is marked as a claim, or listed here with the page's reason. A page not named here states
# nothing unmarked. `python tests/docs_claims.py --write` rewrites the lists, keeping reasons.
"""


if __name__ == "__main__":  # python tests/docs_claims.py [--write]: what is left to mark
    import sys
    import tomllib

    left = [found for page in PAGES for found in unmarked(page)]
    print("\n".join(left))
    print(f"{len(left)} candidate claims outside marked blocks; {len(collect())} claims marked")
    if "--write" in sys.argv[1:]:
        listed = ROOT / "tests" / "data" / "docs_unmarked.toml"
        pages = tomllib.loads(listed.read_text())["pages"]
        listed.write_text(unmarked_toml({k: v["reason"] for k, v in pages.items()}))
        print(f"wrote {listed.relative_to(ROOT)}")
