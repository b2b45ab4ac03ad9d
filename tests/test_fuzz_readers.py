"""Structure-aware fuzzing of every reader of a file or request (issue 63's contract): trace
files (``replay``, ``show`` with and without ``--no-check`` and ``--html``, ``graph
--trace``), schedules (``scenario``), gate configs and lock files (``gate``), search and
simulation checkpoints (``explore --resume``, ``simulate --resume``), command-line values,
and ``serve``'s pages and JSON API.

Each test mutates a valid seed (made once per module, or taken from ``tests/data``): a field
dropped, replaced or retyped, a boolean or a huge number where an integer goes, a lone
surrogate, a control character or a terminal escape in a string, JSON nested thousands deep,
an action label whose argument is nested thousands deep, a cut or non-UTF-8 file. The
property is the documented one (docs/reference/exit-codes.md): a documented exit code, a
command that ends by ``sys.exit`` (never an uncaught exception, exit 1), at most one
``Error:`` line and nothing unreadable (no escape or NUL byte from the file) on the terminal,
no stray file (a ``.tmp``, a report outside ``--out``) beside the expected outputs, and
``serve`` answering a malformed request 400 with a one-line JSON error, never 500.

The default tier runs a few examples per reader; the ``slow`` copies run many more.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import shlex
import shutil
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.checkpoint.format import SEAL, sealed
from checker.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "tests" / "data" / "scenarios").glob("*.txt"))
LASSO = ROOT / "reports" / "gallery" / "hw-follower-never-repaired" / "trace.json"

FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    report_multiple_bugs=False,
)
"""The edit loop's tier: the first failure found, shrunk (each class of failure raises its
own ``AssertionError`` subclass, ``fail``; the ``slow`` tier reports every class apart)."""
CHEAP = settings(FAST, max_examples=100)
"""For the readers whose every example takes milliseconds (schedules, values, requests)."""
MANY = settings(FAST, max_examples=120, report_multiple_bugs=True)
SECONDS = 30.0
"""The longest a tiny input may take: longer is a hang (or a blow-up: ``show --no-check
--html`` once grew a page a column per HW offset)."""
PAGE_BYTES = 5 << 20
"""The largest page ``show --html`` may write for a seed-sized trace (the seeds' are ~30 KB)."""

SMALL = ["--replicas", "2", "--truncation", "hw", "--max-epoch", "1"]
SIM = [*SMALL, "--walks", "40", "--depth", "10", "--seed", "1"]
GATE = {
    "gate": [
        {
            "name": "hw forks, 2 replicas",
            "truncation": "hw",
            "replicas": 2,
            "max_epoch": 1,
            "max_records": 2,
            "max_crashes": 1,
            "invariants": ["NoDivergence"],
            "violates": ["NoDivergence"],
        },
        {
            "name": "kip320 holds, 2 replicas",
            "truncation": "kip320",
            "replicas": 2,
            "max_epoch": 1,
            "max_records": 2,
            "max_crashes": 1,
            "invariants": ["NoDivergence"],
            "expect": "holds",
        },
    ]
}
BOUNDED = {"replicas", "max_epoch", "max_records", "max_crashes", "gate"}
"""Gate keys a mutation never drops: without them a check runs the default (large) model."""


# -- values a reader must survive -----------------------------------------------------------------
class Deep:
    """A list nested ``n`` deep, written into the file's text as ``[[[...]]]``."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"Deep({self.n})"


NASTY_TEXT = [
    "",
    "\ud800",
    "a\udfffb",
    "\x00",
    "\x1b[2J\x1b]0;pwned\x07",
    "\x01\x0b\x7f",
    "..",
    ".",
    "a/../../b",
    "\u202eevil",
    "x" * 5000,
]
NASTY_INTS = [-1, 0, 1, 7, 10**4, 2**31, 2**63, 10**30, -(10**30)]
"""Integers around every limit; 10**4 (a wide view) instead of 10**6 or more, which makes
``show --no-check --html`` allocate gigabytes (the fuzz campaign of issue 63 saw 24 GB)."""

nasty_text = st.one_of(
    st.sampled_from(NASTY_TEXT),
    st.text(st.characters(exclude_categories=()), max_size=6),
)
nasty = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(NASTY_INTS),
    st.sampled_from([0.5, 1.0, -0.0, 1e308, float("nan"), float("inf")]),
    nasty_text,
    st.sampled_from([[], {}, [None], {"": None}]).map(copy.deepcopy),  # fresh: edits change them
    st.sampled_from([20, 900, 3000, 20000]).map(Deep),
)

LABEL_ARGS = [
    "True",
    "None",
    "-1",
    "1.0",
    "1e999",
    "[1]",
    "{1: []}",
    "'x'",
    "'\\ud800'",
    "'\\x1b[2J'",
    "0x" + "f" * 400,
    "9" * 5000,
    "10**3",
]
DEEP_ARGS = [
    "-" * 3000 + "1",
    "-" * 30000 + "1",
    "+".join(["1"] * 30000),
    "(" * 150 + "1" + ")" * 150,
    "[" * 150 + "]" * 150,
    "not " * 30000 + "1",
]
"""Arguments nested deep: label parsing is ``ast``'s, which recurses on them (3,000 deep
already fails in ``hwcheck``; Hypothesis raises the recursion limit while a test runs, so the
tests also go 30,000 deep)."""


def labels(seed_labels: list[str]) -> st.SearchStrategy[str]:
    """Action labels near ``seed_labels``: an argument replaced by a strange literal, the
    arguments dropped or doubled, another action name, or no label at all."""

    def mutate(text: str, how: str, arg: str, junk: str) -> str:
        name, _, inner = text.partition("(")
        inner = inner.rstrip(")")
        keys = [part.split("=")[0].strip() for part in inner.split(",") if "=" in part]
        if how == "arg" and keys:
            return f"{name}({keys[0]}={arg}" + "".join(f", {k}=0" for k in keys[1:]) + ")"
        if how == "none":
            return f"{name}()"
        if how == "twice":
            return f"{name}({inner}, {inner})"
        if how == "extra":
            return f"{name}({inner}, zz={arg})"
        if how == "rename":
            return f"Nope{name}({inner})"
        return junk

    return st.builds(
        mutate,
        st.sampled_from(seed_labels),
        st.sampled_from(["arg", "arg", "arg", "none", "twice", "extra", "rename", "junk"]),
        st.one_of(st.sampled_from(LABEL_ARGS), st.sampled_from(DEEP_ARGS)),
        nasty_text,
    )


# -- mutating JSON documents -----------------------------------------------------------------------
def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON value (keys and indexes), the value itself first."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:12]):
            out += paths(item, (*prefix, index))
    return out


def _at(document: Any, path: tuple) -> Any:
    for key in path:
        document = document[key]
    return document


def mutate_json(
    data: Any, document: Any, keep: set[str] = frozenset(), label_texts: list[str] = ()
) -> Any:
    """``document`` after one to three edits drawn from ``data``: a value replaced by a nasty
    one (or, for an action, by a nasty label), a key dropped (never one in ``keep``), a value
    retyped (wrapped in a list, turned into text, into an object), a list item doubled."""
    document = copy.deepcopy(document)
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        where = [p for p in paths(document) if p and p[-1] != SEAL]
        if not where:
            return data.draw(nasty, label="whole")
        path = data.draw(st.sampled_from(where), label="path")
        parent, key, old = _at(document, path[:-1]), path[-1], _at(document, path)
        how = data.draw(st.sampled_from(["replace", "replace", "drop", "retype", "double"]))
        if how == "drop" and key not in keep:
            del parent[key]
        elif how == "retype":
            parent[key] = data.draw(st.sampled_from([[old], str(old), {"value": old}]))
        elif how == "double" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(old))
        elif key == "action" and label_texts and data.draw(st.booleans()):
            parent[key] = data.draw(labels(label_texts), label="label")
        else:
            parent[key] = data.draw(nasty, label="value")
    return document


def with_deep(document: Any, dump: Any = None) -> bytes:
    """``dump(document)`` (default: indented JSON) as bytes, every ``Deep`` written as nested
    brackets into the text (a manifest's seal is then over a marker: the deep file must be
    refused before its seal is looked at)."""
    deep: dict[str, int] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, Deep):
            mark = f"@@deep{len(deep)}@@"
            deep[mark] = value.n
            return mark
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    text = (dump or (lambda d: json.dumps(d, indent=1).encode()))(walk(document)).decode()
    for mark, n in deep.items():
        text = text.replace(f'"{mark}"', "[" * n + "]" * n)
    return text.encode("utf-8")


json_bytes = with_deep


def damaged(data: Any, content: bytes) -> bytes:
    """Mostly ``content``; sometimes cut short, with a byte that is not UTF-8, or huge."""
    how = data.draw(st.sampled_from(["keep"] * 6 + ["cut", "bytes", "bigint", "bom"]))
    if how == "cut":
        return content[: data.draw(st.integers(0, max(0, len(content) - 1)))]
    if how == "bytes":
        at = data.draw(st.integers(0, len(content)))
        return content[:at] + b"\xff\xc0" + content[at:]
    if how == "bigint":
        return re.sub(rb": (\d+)", lambda m: b": " + b"9" * 5000, content, count=1)
    if how == "bom":
        return b"\xef\xbb\xbf" + content
    return content


# -- running a command ------------------------------------------------------------------------------
@contextlib.contextmanager
def folder(root: Path):
    """A fresh folder under ``root``, the working directory while the command runs (so a
    report written beside ``--out`` shows up in it), removed afterwards."""
    path = Path(tempfile.mkdtemp(dir=root))
    try:
        with contextlib.chdir(path):
            yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def invoke(args: list[Any]) -> Any:
    start = time.monotonic()
    result = CliRunner().invoke(cli, [str(a) for a in args])
    result.seconds = time.monotonic() - start
    return result


_KINDS: dict[str, type] = {}


def fail(kind: str, message: str) -> None:
    """Raise an ``AssertionError`` of a class named after ``kind`` (the exception and where
    it was raised, or the broken rule), so Hypothesis reports each class of failure apart."""
    name = re.sub(r"\W", "_", kind)
    raise _KINDS.setdefault(name, type(name, (AssertionError,), {}))(message)


def holds(result: Any, codes: set[int], where: Path, expected: set[str]) -> None:
    """The documented contract for one command's ``result`` in folder ``where``."""
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        frames = [f for f in traceback.extract_tb(result.exc_info[2]) if "/checker/" in f.filename]
        at = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in reversed(frames[-4:]))
        fail(
            f"{type(exc).__name__} at {at.split(' ')[0]}",
            f"uncaught {type(exc).__name__} at {at}: {str(exc)[:300]}",
        )
    output = result.output
    if result.exit_code not in codes:
        fail(f"exit {result.exit_code}", f"exit {result.exit_code}: {output[-1500:]}")
    errors = [line for line in output.splitlines() if line.startswith("Error:")]
    if len(errors) > 1 or (result.exit_code in (2, 4) and len(errors) != 1):
        fail("error lines", f"{len(errors)} error lines: {output[-1500:]}")
    if "\x1b" in output or "\x00" in output:
        fail("escape on the terminal", "the file's escape or NUL reaches the terminal")
    if result.seconds > SECONDS:
        fail("slow", f"took {result.seconds:.0f} s")
    left = sorted(p.relative_to(where).as_posix() for p in where.rglob("*"))
    stray = [p for p in left if p.split("/")[0] not in expected or p.endswith(".tmp")]
    if stray:
        fail("stray file", f"files left: {stray}")


# -- seeds ------------------------------------------------------------------------------------------
class Seeds(dict):
    """The seeds, shown short in a falsifying example."""

    def __repr__(self) -> str:
        return "seeds"


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    """Traces, checkpoints and a lock file made once: the hw model at 2 replicas."""
    root = tmp_path_factory.mktemp("fuzz-seeds")
    made = invoke(["explore", *SMALL, "--no-progress", "--show", "none", "--out", root / "run"])
    assert made.exit_code == 12, made.output
    traces = {
        name: json.loads((root / "run" / name / "trace.json").read_text())
        for name in ("NoCommittedLoss", "StrongIsr")  # with an aftermath, and without
    }
    if LASSO.exists():
        traces["lasso"] = json.loads(LASSO.read_text())
    cut = invoke(
        [
            "explore",
            *SMALL,
            "--max-depth",
            "5",
            "--checkpoint",
            root / "ck",
            "--no-progress",
            "--show",
            "none",
            "--out",
            root / "cut",
        ]
    )
    assert cut.exit_code == 3, cut.output
    walked = invoke(
        [
            "simulate",
            *SIM,
            "--checkpoint",
            root / "sck",
            "--checkpoint-every",
            "0.001",
            "--no-progress",
            "--out",
            root / "sim",
        ]
    )
    assert walked.exit_code in (0, 12, 13), walked.output
    (root / "gate").mkdir()
    (root / "gate" / "gate.toml").write_text(toml(GATE))
    pinned = invoke(
        [
            "gate",
            "--config",
            root / "gate" / "gate.toml",
            "--update",
            "--no-progress",
            "--out",
            root / "gate" / "out",
        ]
    )
    assert pinned.exit_code == 0, pinned.output
    return Seeds(
        root=root,
        traces=traces,
        labels=sorted({s["action"] for t in traces.values() for s in t["steps"] if s["action"]}),
        checkpoint=root / "ck",
        simulation=root / "sck",
        lock=json.loads((root / "gate" / "hwcheck-gate.lock").read_text()),
    )


# -- trace files ------------------------------------------------------------------------------------
TRACE_COMMANDS = {
    "replay": lambda t, d: ["replay", t],
    "show": lambda t, d: ["show", t],
    "show --no-check": lambda t, d: ["show", "--no-check", t],
    "show --changes-only --step": lambda t, d: [
        "show",
        "--no-check",
        "--changes-only",
        "--step",
        "3",
        t,
    ],
    "show --html": lambda t, d: ["show", "--html", d / "page.html", t],
    "show --no-check --html": lambda t, d: ["show", "--no-check", "--html", d / "page.html", t],
    "graph --trace": lambda t, d: ["graph", "--trace", t, "--out", d / "g.dot"],
}


def _trace_case(seeds: dict, data: Any) -> None:
    name = data.draw(st.sampled_from(sorted(seeds["traces"])), label="seed")
    document = mutate_json(data, seeds["traces"][name], label_texts=seeds["labels"])
    command = data.draw(st.sampled_from(sorted(TRACE_COMMANDS)), label="command")
    with folder(seeds["root"]) as here:
        trace = here / "trace.json"
        trace.write_bytes(damaged(data, json_bytes(document)))
        result = invoke(TRACE_COMMANDS[command](trace, here))
        holds(result, {0, 2, 4}, here, {"trace.json", "page.html", "g.dot"})
        page = here / "page.html"
        if page.exists() and page.stat().st_size > PAGE_BYTES:
            fail("page blown up", f"a {page.stat().st_size:,}-byte page")


@FAST
@given(data=st.data())
def test_a_damaged_trace_file_is_one_message(seeds, data):
    _trace_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_trace_file_is_one_message_many(seeds, data):
    _trace_case(seeds, data)


# -- schedules --------------------------------------------------------------------------------------
HEADER_FLAGS = [
    "--replicas",
    "--max-epoch",
    "--max-records",
    "--truncation",
    "--with",
    "--invariant",
    "--model",
    "--min-isr",
    "--unclean",
    "--variant-file",
]
HEADER_VALUES = [
    "2",
    "True",
    "-1",
    "1.5",
    "٣",
    "9" * 400,
    "",
    "hw",
    "nope",
    "\x00",
    "'",
    "--help",
    "../../x.py",
]


def _schedule_case(seeds: dict, data: Any) -> None:
    seed = data.draw(st.sampled_from(SCENARIOS), label="seed")
    lines = seed.read_text().splitlines()
    texts = [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        how = data.draw(st.sampled_from(["label"] * 4 + ["header", "junk", "drop", "double"]))
        at = data.draw(st.integers(0, max(0, len(lines) - 1)), label="line")
        if how == "label":
            lines.insert(at, data.draw(labels(texts), label="new label"))
        elif how == "header":
            flag = data.draw(st.sampled_from(HEADER_FLAGS))
            value = data.draw(st.sampled_from(HEADER_VALUES))
            lines.insert(at, f"# hwcheck: {flag} {shlex.quote(value)}")
        elif how == "junk":
            lines.insert(at, data.draw(nasty_text, label="junk"))
        elif how == "drop" and lines:
            del lines[at]
        elif lines:
            lines.insert(at, lines[at])
    text = "\n".join(lines) + data.draw(st.sampled_from(["\n", "\r\n", ""]))
    content = damaged(data, text.encode("utf-8", "surrogatepass"))
    with folder(seeds["root"]) as here:
        (here / "s.txt").write_bytes(content)
        result = invoke(["scenario", here / "s.txt", "--out", here / "out"])
        holds(result, {0, 4, 12}, here, {"s.txt", "out"})


@CHEAP
@given(data=st.data())
def test_a_damaged_schedule_is_one_message(seeds, data):
    _schedule_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_schedule_is_one_message_many(seeds, data):
    _schedule_case(seeds, data)


# -- gate configs and lock files --------------------------------------------------------------------
def _toml_text(value: str) -> str:
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}")  # a surrogate's escape: not valid TOML
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, Deep):
        return "[" * value.n + "]" * value.n
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(str(value), repr(value))
    if isinstance(value, str):
        return _toml_text(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        pairs = [f"{_toml_text(k)} = {_toml_value(v)}" for k, v in value.items() if v is not None]
        return "{" + ", ".join(pairs) + "}"
    return '"None"'  # TOML has no null


def toml(document: Any) -> str:
    """``document`` as TOML: ``[[gate]]`` tables for a list of objects under ``gate``, every
    other key as ``key = value`` (objects inline)."""
    if not isinstance(document, dict):
        return f"gate = {_toml_value(document)}\n"
    head, tables = [], []
    for key, value in document.items():
        if value is None:
            continue
        if (
            key == "gate"
            and isinstance(value, list)
            and value
            and all(isinstance(v, dict) for v in value)
        ):
            for check in value:
                tables.append("[[gate]]")
                tables += [
                    f"{_toml_text(k)} = {_toml_value(v)}" for k, v in check.items() if v is not None
                ]
        else:
            head.append(f"{_toml_text(key)} = {_toml_value(value)}")
    return "\n".join(head + tables) + "\n"


def junit(path: Path) -> None:
    """A JUnit report, when written, is well-formed XML whatever the names and pins say."""
    if path.exists():
        try:
            ElementTree.parse(path)
        except ElementTree.ParseError as exc:
            fail("junit not XML", str(exc))


GATE_NAMES = ["..", ".", "", "a/b", "bad\x01\x1bname", "hw forks, 2 replicas", "x" * 300]


def _small(checks: Any) -> None:
    """Bounds from 3 to 15 made 2: in range, they only make a check a longer run (7
    replicas took two minutes), which is no finding."""
    for check in checks if isinstance(checks, list) else []:
        for key in BOUNDED & set(check if isinstance(check, dict) else ()):
            value = check[key]
            if isinstance(value, int) and not isinstance(value, bool) and 3 <= value <= 15:
                check[key] = 2


def _gate_case(seeds: dict, data: Any) -> None:
    document = mutate_json(data, GATE, keep=BOUNDED)
    how = data.draw(st.sampled_from(["plain"] * 4 + ["duplicate", "name", "tool"]))
    checks = document.get("gate") if isinstance(document, dict) else None
    _small(checks)
    if how == "duplicate" and isinstance(checks, list) and checks:
        checks.append(copy.deepcopy(checks[0]))
    elif how == "name" and isinstance(checks, list) and checks and isinstance(checks[0], dict):
        checks[0]["name"] = data.draw(st.sampled_from(GATE_NAMES))
    elif how == "tool":
        document = {
            "tool": data.draw(st.sampled_from([5, "x", {"hwcheck": 5}, {"hwcheck": document}]))
        }
    content = damaged(data, toml(document).encode("utf-8", "surrogatepass"))
    with folder(seeds["root"]) as here:
        (here / "gate.toml").write_bytes(content)
        result = invoke(
            [
                "gate",
                "--config",
                here / "gate.toml",
                "--out",
                here / "out",
                "--junit-xml",
                here / "junit.xml",
                "--no-progress",
            ]
        )
        holds(result, {0, 1, 3, 4}, here, {"gate.toml", "out", "junit.xml"})
        junit(here / "junit.xml")


@FAST
@given(data=st.data())
def test_a_damaged_gate_config_is_one_message(seeds, data):
    _gate_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_gate_config_is_one_message_many(seeds, data):
    _gate_case(seeds, data)


def _lock_case(seeds: dict, data: Any) -> None:
    lock = mutate_json(data, seeds["lock"])
    update = data.draw(st.booleans(), label="--update")
    with folder(seeds["root"]) as here:
        (here / "gate.toml").write_text(toml(GATE))
        (here / "hwcheck-gate.lock").write_bytes(damaged(data, json_bytes(lock)))
        result = invoke(
            [
                "gate",
                "--config",
                here / "gate.toml",
                "--out",
                here / "out",
                "--junit-xml",
                here / "junit.xml",
                "--no-progress",
                *(["--update"] if update else []),
            ]
        )
        holds(result, {0, 1, 3, 4}, here, {"gate.toml", "hwcheck-gate.lock", "out", "junit.xml"})
        junit(here / "junit.xml")


@FAST
@given(data=st.data())
def test_a_damaged_lock_file_is_one_message(seeds, data):
    _lock_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_lock_file_is_one_message_many(seeds, data):
    _lock_case(seeds, data)


# -- checkpoints ------------------------------------------------------------------------------------
def _checkpoint_case(seeds: dict, data: Any) -> None:
    kind = data.draw(st.sampled_from(["checkpoint", "simulation"]), label="kind")
    source = seeds[kind]
    manifest = json.loads((source / "checkpoint.json").read_text())
    manifest.pop(SEAL)
    edited = mutate_json(data, manifest)
    # a crafted manifest can carry a valid seal (tests/test_untrusted_files.py): mostly re-seal
    reseal = isinstance(edited, dict) and data.draw(st.sampled_from([True, True, True, False]))
    content = damaged(data, with_deep(edited, sealed if reseal else None))
    with folder(seeds["root"]) as here:
        shutil.copytree(source, here / "ck")
        (here / "ck" / "checkpoint.json").write_bytes(content)
        if kind == "checkpoint":
            # a manifest sealed again with larger bounds is a larger search, not an error
            args = ["explore", "--resume", here / "ck", "--show", "none", "--time-limit", "5"]
        else:
            args = ["simulate", *SIM[:-4], "--walks", "80", "--seed", "1", "--resume", here / "ck"]
        result = invoke([*args, "--no-progress", "--out", here / "out"])
        # 2 is for a flag the user typed and 75 for a model that raised: neither is a manifest's
        holds(result, {0, 3, 4, 12, 13}, here, {"ck", "out"})


@FAST
@given(data=st.data())
def test_a_damaged_checkpoint_manifest_is_one_message(seeds, data):
    _checkpoint_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_damaged_checkpoint_manifest_is_one_message_many(seeds, data):
    _checkpoint_case(seeds, data)


# -- command-line values ----------------------------------------------------------------------------
TINY = ["--replicas", "2", "--max-epoch", "0", "--max-records", "1", "--max-crashes", "0"]
VALUE_COMMANDS = {
    "explore": [*TINY, "--no-progress", "--show", "none"],
    "simulate": [*TINY, "--no-progress", "--walks", "3", "--depth", "5"],
    "graph": TINY,
    "compare": [*TINY, "--no-progress", "--truncation", "hw", "--truncation", "kip320"],
}
SKIPPED = re.compile(r"spark|master|conf|engine|resume|checkpoint$|variant|out|connect")


def _options(command: str) -> list[str]:
    params = cli.commands[command].params
    return sorted(
        p.opts[0]
        for p in params
        if isinstance(p, click.Option)
        and not p.is_flag
        and not isinstance(p.type, click.Path)
        and not SKIPPED.search(p.name or "")
    )


VALUES = [
    "",
    " ",
    "-1",
    "-0",
    "+1",
    " 1 ",
    "1_000",
    "0x10",
    "1e999",
    "nan",
    "inf",
    "٣",
    "３",
    "9" * 400,
    "9" * 5000,
    "a\x00b",
    "\udcff",
    "True",
    "1.5",
    "Fetch=1e999",
    "NoDivergence",
    "kip320",
]


def _long_run(command: str, option: str, value: str) -> bool:
    """Whether ``value`` is a number of 3 or more that ``option`` accepts (``--walks 10**400``
    is a run of ten to the 400 walks, which is what it asks for)."""
    try:
        number = int(value) if value.strip().isascii() else None
    except ValueError:
        return False
    if number is None or number < 3:
        return False
    kind = next(p.type for p in cli.commands[command].params if option in p.opts)
    top = getattr(kind, "max", None)
    return top is None or number <= top


def _value_case(seeds: dict, data: Any) -> None:
    command = data.draw(st.sampled_from(sorted(VALUE_COMMANDS)), label="command")
    option = data.draw(st.sampled_from(_options(command)), label="option")
    value = data.draw(st.one_of(st.sampled_from(VALUES), nasty_text), label="value")
    if _long_run(command, option, value):
        value = "2"  # in range, a larger bound or more walks is a longer run, not a finding
    with folder(seeds["root"]) as here:
        out = ["--out", here / "g.dot"] if command == "graph" else ["--out", here / "out"]
        result = invoke([command, *VALUE_COMMANDS[command], option, value, *out])
        holds(result, {0, 2, 3, 12, 13}, here, {"out", "g.dot"})


@CHEAP
@given(data=st.data())
def test_a_strange_command_line_value_is_one_message(seeds, data):
    _value_case(seeds, data)


@MANY
@given(data=st.data())
def test_a_strange_command_line_value_is_one_message_many(seeds, data):
    _value_case(seeds, data)


# -- serve ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def client(seeds):
    from checker.web.app import create_app
    from checker.web.explorer import Explorer
    from checker.web.jump import Jumps
    from spec.kafka import Config

    explorer = Explorer("kafka", Config(replicas=2, truncation="hw", max_epoch=1))
    return create_app(explorer, Jumps(1)).test_client()


def _answers(response: Any, api: bool) -> None:
    if response.status_code >= 500:
        fail(f"status {response.status_code}", str(response.get_data()[:500]))
    if api and response.status_code >= 400:
        said = json.loads(response.get_data())
        if not isinstance(said.get("error"), str) or "\n" in said["error"]:
            fail("error not one line", str(said)[:500])


def _request_case(seeds: dict, client: Any, data: Any) -> None:
    path = list(seeds["traces"]["NoCommittedLoss"]["steps"][1:])
    prefix = [s["action"] for s in path[: data.draw(st.integers(0, 4), label="prefix")]]
    steps = data.draw(st.lists(labels(seeds["labels"]), max_size=2), label="steps")
    endpoint = data.draw(
        st.sampled_from(["/", "/api/state", "/api/actions", "/api/check", "/api/step", "/api/jump"])
    )
    if endpoint in ("/api/step", "/api/jump"):
        body = {"path": prefix + steps[:-1], "action": (steps or ["Elect(leader=0)"])[-1]}
        if endpoint == "/api/jump":
            body = {"path": prefix + steps, "invariant": "NoDivergence"}
        raw = json_bytes(mutate_json(data, body, label_texts=seeds["labels"]))
        raw = damaged(data, raw)
        response = client.post(endpoint, data=raw, content_type="application/json")
    else:
        query = [
            ("step", s.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))
            for s in prefix + steps
        ]
        response = client.get(endpoint, query_string=query)
    _answers(response, endpoint.startswith("/api/"))


@CHEAP
@given(data=st.data())
def test_serve_answers_a_malformed_request_400(seeds, client, data):
    _request_case(seeds, client, data)


@MANY
@given(data=st.data())
def test_serve_answers_a_malformed_request_400_many(seeds, client, data):
    _request_case(seeds, client, data)


def _served_trace_case(seeds: dict, data: Any) -> None:
    """``serve --trace FILE``: a file refused is exit 4; a file accepted serves its pages."""
    from checker.commands import serve
    from checker.web.app import create_app
    from checker.web.jump import Jumps

    name = data.draw(st.sampled_from(sorted(seeds["traces"])), label="seed")
    document = mutate_json(data, seeds["traces"][name], label_texts=seeds["labels"])
    with folder(seeds["root"]) as here:
        (here / "trace.json").write_bytes(json_bytes(document))
        try:
            loaded, explorer = serve._from_trace(here / "trace.json", (), None)
        except SystemExit as exc:
            if exc.code != 4:
                fail(f"exit {exc.code}", "serve --trace")
            return
        except Exception as exc:  # noqa: BLE001 -- the finding itself
            fail(f"{type(exc).__name__} in serve --trace", repr(exc)[:300])
        app = create_app(explorer, Jumps(1), loaded).test_client()
        for page in ("/trace", "/trace/last", "/api/trace"):
            _answers(app.get(page), page.startswith("/api/"))


@FAST
@given(data=st.data())
def test_serve_draws_an_accepted_trace_or_refuses_it(seeds, data):
    _served_trace_case(seeds, data)


@MANY
@given(data=st.data())
def test_serve_draws_an_accepted_trace_or_refuses_it_many(seeds, data):
    _served_trace_case(seeds, data)
