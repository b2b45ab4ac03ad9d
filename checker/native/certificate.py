"""The compiled core's certificate: which reference sources it was last proven equal to.

The compiled core (C) is a second implementation of the Python models. The differential tests
(``checker.commands.certify.TESTS``: tests/test_compiled*.py) prove the two give the same
states, counts, verdicts and traces; ``certificate.json`` records the digest of the sources
they proved it on: the models and invariants (``spec/``, ``invariants/``), the engine's
folders (``FOLDERS``), the contract at ``checker/``'s top and the C sources. An edit to the
code of any of them (a protocol rule changed in Python only, say) makes the certificate
stale, and every command then runs the reference core instead, saying why, so that no run
answers for a model other than the one in the Python source. The digest is of the code, not
the text (``code``): a docstring, a comment or a blank line edited leaves it as it was, so
that a wording fix does not demote the core. A checkpoint's identity is the digest of the
model's own code (``model_digest``), and this one only where it holds the core's rows.
``python -m checker.commands.certify`` runs the differential tests and, when they pass, writes
the certificate again.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from checker.native.build import cache_dir

ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``checker``, ``spec`` and ``invariants`` packages."""
CERTIFICATE = Path(__file__).with_name("certificate.json")
EXPLANATION_ONLY = (
    "invariants/aftermath.py",
    "invariants/story.py",
    "invariants/truncation.py",
    "invariants/crux.py",
    "invariants/fork.py",
    "invariants/removal.py",
    "invariants/tickets.py",
)
"""Covered folders' files that only put traces into words: no search depends on them."""
FOLDERS = (
    "spec",
    "invariants",
    "checker/native",
    "checker/search",
    "checker/checkpoint",
    "checker/simulate",
    "checker/liveness",
)
"""The folders the certificate covers whole: the models and invariants, the compiled core, and
the engine's rooms it answers for (with what they save and restore: a checkpoint names this
digest as its model's code). A new module in any of them is covered without a list to keep."""
CONTRACT_EXCEPT = ("__init__.py", "cli.py")
"""The modules at ``checker/``'s top that are not the engine's contract (the version, the
command line); every other one there (model, properties, result, limits, …) is covered."""
UNCERTIFIED = "HWCHECK_UNCERTIFIED_CORE"
"""Set to 1, this environment variable lets the compiled core run with a stale certificate:
for the test suite (``tests/conftest.py``), whose differential tests must reach the compiled
core to prove it, and for whoever is mirroring a change in C. Child processes and Spark
workers inherit it, so they decide as the driver does."""


def enforced() -> bool:
    """Whether a stale certificate keeps the compiled core from running (``UNCERTIFIED``
    not set to 1)."""
    return os.environ.get(UNCERTIFIED) != "1"


STALE = "the Python model changed since the compiled core was certified"
"""Why a stale certificate keeps the compiled core from running (``checker.search.choose_core``)."""


def sources(root: Path = ROOT) -> list[Path]:
    """Every file the certificate covers, sorted by its path relative to ``root``: ``*.py``,
    ``*.c`` and ``*.h`` under ``FOLDERS`` (this module and ``EXPLANATION_ONLY`` aside), and
    the contract modules at ``checker/``'s top (all but ``CONTRACT_EXCEPT``)."""
    found = _under(root, FOLDERS, ("*.py", "*.c", "*.h"))
    found += [path for path in (root / "checker").glob("*.py") if path.name not in CONTRACT_EXCEPT]
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def _under(root: Path, folders: Sequence[str], patterns: Sequence[str]) -> list[Path]:
    """The files matching ``patterns`` under ``folders`` of ``root`` that a digest covers: not
    a cache, not this module, not ``EXPLANATION_ONLY``."""
    return [
        path
        for folder in folders
        for pattern in patterns
        for path in (root / folder).rglob(pattern)
        if "__pycache__" not in path.parts
        and path.name != "certificate.py"
        and path.relative_to(root).as_posix() not in EXPLANATION_ONLY
    ]


_C_TEXT = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|/\*.*?\*/|//[^\n]*', re.DOTALL)
"""A C string or character literal (group 1, kept), or a comment (dropped)."""


def code(path: Path) -> bytes:
    """A covered file's code without its prose: for Python, the syntax tree with every
    docstring taken out (``ast.dump``, no line numbers); for C, the lines with comments
    removed, trailing spaces cut and blank lines dropped. Raises ``OSError`` when the file
    cannot be read and ``SyntaxError`` or ``UnicodeDecodeError`` when it is not code."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        bare = _C_TEXT.sub(lambda m: m.group(1) or " ", text)
        return "\n".join(line.rstrip() for line in bare.splitlines() if line.strip()).encode()
    tree = ast.parse(text, str(path))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, annotate_fields=False, include_attributes=False).encode()


MODEL_CONTRACT = ("model.py", "properties.py", "fingerprint.py", "symmetry.py")
"""The modules at ``checker/``'s top that shape a model's states and answers: its interface,
its properties, the fingerprint (marshal format and xxh3) and the canonical form."""


def model_sources(root: Path = ROOT) -> list[Path]:
    """The Python files that define a model's states, fingerprints and answers, sorted as
    ``sources`` sorts: ``*.py`` under ``spec/`` and ``invariants/`` (``EXPLANATION_ONLY``
    aside) and ``MODEL_CONTRACT``. A checkpoint's identity holds their digest
    (``model_digest``), so that an edit of an engine or of the compiled core, which the
    certificate proves equal to these, does not orphan a checkpoint of the reference's
    states."""
    found = _under(root, ("spec", "invariants"), ("*.py",))
    found += [root / "checker" / name for name in MODEL_CONTRACT]
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def model_digest(root: Path = ROOT) -> str:
    """SHA-256 (hex) of ``model_sources``' code, as ``digest`` computes it. Raises as
    ``digest`` does."""
    return _digest_of(model_sources(root), root)


def digest(root: Path = ROOT) -> str:
    """SHA-256 over each covered file's relative path and ``code`` (hex). Each file's code
    digest is kept in the cache folder (``code-digests.json``) under its size and
    modification time, so a process digests only what changed: about 0.4 s for all of
    them, a few milliseconds from the cache. Raises ``OSError`` when a covered file cannot
    be read, ``SyntaxError`` when one is not code."""
    return _digest_of(sources(root), root)


def _digest_of(paths: list[Path], root: Path) -> str:
    """``digest``'s work for the files ``paths`` under ``root``."""
    kept_at = cache_dir() / "code-digests.json"
    try:
        kept = json.loads(kept_at.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = {}
    if not isinstance(kept, dict):
        kept = {}
    sha, changed = hashlib.sha256(), False
    for path in paths:
        stat = path.stat()
        key = str(path.resolve())
        stamp = [stat.st_size, stat.st_mtime_ns]
        entry = kept.get(key)
        if not (isinstance(entry, list) and entry[:2] == stamp):
            entry = [*stamp, hashlib.sha256(code(path)).hexdigest()]
            kept[key], changed = entry, True
        sha.update(path.relative_to(root).as_posix().encode() + b"\0" + str(entry[2]).encode())
    if changed:
        kept = {k: v for k, v in kept.items() if Path(k).exists()}  # copies since removed
        try:
            kept_at.parent.mkdir(parents=True, exist_ok=True)
            scratch = kept_at.with_name(f"{kept_at.name}.{os.getpid()}")
            scratch.write_text(json.dumps(kept), encoding="utf-8")
            os.replace(scratch, kept_at)
        except OSError:
            pass  # the cache only saves time
    return sha.hexdigest()


def recorded() -> str:
    """The digest in ``certificate.json`` ("" when it is missing or unreadable)."""
    try:
        digest: str = json.loads(CERTIFICATE.read_text(encoding="utf-8")).get("digest", "")
        return digest
    except (OSError, ValueError, AttributeError):
        return ""


@cache
def current() -> bool:
    """Whether the certificate matches the sources as they are (computed once a process:
    about 120 files, a few milliseconds)."""
    try:
        return recorded() == digest()
    except OSError:
        return False


def write(proven_by: Sequence[str]) -> str:
    """Record the current digest in ``certificate.json``, with the test files ``proven_by``
    that passed on it; return the digest. Raises ``OSError`` when the file cannot be
    written."""
    value = digest()
    CERTIFICATE.write_text(
        json.dumps(
            {
                "digest": value,
                "files": len(sources()),
                "proven_by": list(proven_by),
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    current.cache_clear()
    return value
