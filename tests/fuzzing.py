"""What the fuzz tests of the readers (``tests/test_fuzz_*.py``, a module a reader; issue
63's contract) share: the values a reader must survive, the mutations of a seed, the contract.

Each test mutates a valid seed (``make_seeds``, made once per test process by the ``seeds``
fixture of ``tests/conftest.py``, or taken from ``tests/data``): a field dropped, replaced or
retyped, a boolean or a huge number where an integer goes, a lone surrogate, a control
character or a terminal escape in a string, JSON nested thousands deep, an action label whose
argument is nested thousands deep, a cut or non-UTF-8 file. The property is the documented one
(docs/reference/exit-codes.md): a documented exit code, a command that ends by ``sys.exit``
(never an uncaught exception, exit 1), at most one ``Error:`` line and nothing unreadable (no
escape or NUL byte from the file) on the terminal, no stray file (a ``.tmp``, a report outside
``--out``) beside the expected outputs, and ``serve`` answering a malformed request 400 with a
one-line JSON error, never 500.

The default tier runs a few examples per reader; the ``slow`` copies run many more.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import shutil
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from checker.checkpoint.format import SEAL
from checker.cli import cli

ROOT = Path(__file__).resolve().parent.parent
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


# -- gate configs as TOML ---------------------------------------------------------------------------
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


# -- seeds ------------------------------------------------------------------------------------------
class Seeds(dict):
    """The seeds, shown short in a falsifying example."""

    def __repr__(self) -> str:
        return "seeds"


def make_seeds(tmp_path_factory: Any) -> Seeds:
    """Traces, checkpoints and a lock file made once: the hw model at 2 replicas (the
    ``seeds`` fixture of ``tests/conftest.py``, one per test process)."""
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
