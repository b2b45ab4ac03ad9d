"""The compiled core runs only on the sources it was proven on (``checker.native.certificate``).

A protocol rule edited in the Python model alone must not be answered for by the unchanged C:
with a stale certificate every command runs the reference core and says so, and the gate sees
the edit with the default ``--core``. The suite's own processes set ``HWCHECK_UNCERTIFIED_CORE``
(``conftest.py``); these tests take it away where they need the real behaviour.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from checker.cli import cli
from checker.commands import cores
from checker.native import certificate

ROOT = Path(__file__).resolve().parents[1]


def test_the_certificate_matches_the_sources():
    """The committed certificate is the digest of these sources; the differential tests of
    this same suite are its proof. On failure: python -m checker.commands.certify."""
    assert certificate.recorded() == certificate.digest(), (
        "the sources changed since the compiled core was certified: python -m checker.commands.certify"
    )


def test_the_digest_covers_the_models_and_not_the_explanations():
    covered = {path.relative_to(certificate.ROOT).as_posix() for path in certificate.sources()}
    assert {
        "spec/kafka/actions.py",
        "invariants/safety.py",
        "spec/kafka/native/actions.c",
        "checker/native/engine.c",
        "checker/search/reference/bfs.py",
        "checker/fingerprint.py",
    } <= covered
    assert not covered & {
        "invariants/story.py",
        "checker/composition/compose.py",
        "checker/native/certificate.py",
        "checker/gate/policy.py",
    }


def test_a_stale_certificate_runs_the_reference_core_and_says_so(monkeypatch, tmp_path):
    monkeypatch.delenv(certificate.UNCERTIFIED, raising=False)
    monkeypatch.setattr(certificate, "current", lambda: False)
    monkeypatch.setattr(cores, "_said", [])
    result = CliRunner().invoke(
        cli,
        [
            "explore",
            "--replicas",
            "2",
            "--max-epoch",
            "1",
            "--json",
            "--no-progress",
            "--out",
            str(tmp_path),
        ],
    )
    summary = json.loads(result.stdout)
    assert summary["stats"]["core"] == f"reference ({certificate.STALE})"
    assert "python -m checker.commands.certify" in result.stderr


def _copy_sources(folder: Path) -> Path:
    """The packages copied under ``folder`` (no caches), for a child to import from."""
    for package in ("checker", "spec", "invariants"):
        shutil.copytree(
            ROOT / package, folder / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return folder


def _gate(code: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != certificate.UNCERTIFIED}
    env["PYTHONPATH"] = str(code)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "checker.cli",
            "gate",
            "--config",
            str(ROOT / "tests" / "data" / "pins" / "gate.toml"),
            "--no-progress",
            "--out",
            str(tmp_path / "reports"),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )


def test_a_wording_edit_keeps_the_compiled_core_and_a_code_edit_does_not(tmp_path):
    """The digest is of the code: a copy of the sources with a docstring rewritten, a
    comment and blank lines added in Python and a comment in C still has the committed
    digest, and ``hwcheck explore`` run from it takes the compiled core; one changed
    number in the C does not."""
    code = _copy_sources(tmp_path / "code")
    actions = code / "spec" / "kafka" / "actions.py"
    text = actions.read_text()
    first = text.index('"""', text.index("def ")) + 3
    actions.write_text(text[:first] + "Reworded. " + text[first:] + "\n\n# a comment\n")
    c = code / "spec" / "kafka" / "native" / "actions.c"
    c.write_text(
        "/* a comment\n   over two lines */\n" + c.read_text().replace("{", "{ // note", 1)
    )
    assert certificate.digest(code) == certificate.recorded()
    env = {k: v for k, v in os.environ.items() if k != certificate.UNCERTIFIED}
    env["PYTHONPATH"] = str(code)
    done = subprocess.run(
        [sys.executable, "-m", "checker.cli", "explore", "--replicas", "2", "--max-epoch", "1"]
        + ["--json", "--no-progress", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert json.loads(done.stdout)["stats"]["core"] == "compiled", done.stderr
    rule = code / "spec" / "kafka" / "native" / "membership.h"
    edited = rule.read_text().replace("s->cepoch + 1", "s->cepoch + 2", 1)
    assert edited != rule.read_text()
    rule.write_text(edited)
    assert certificate.digest(code) != certificate.recorded()


def test_a_checkpoints_identity_follows_the_model_not_the_engines(tmp_path):
    """A checkpoint's ``code`` is the model's digest: an edit of the C core or of an engine
    changes the certificate's digest and not the model's; an edit of a protocol rule in
    ``spec/`` changes both."""
    code = _copy_sources(tmp_path / "code")
    model, whole = certificate.model_digest(code), certificate.digest(code)
    assert model == certificate.model_digest() and whole == certificate.recorded()
    rule = code / "spec" / "kafka" / "native" / "membership.h"
    rule.write_text(rule.read_text().replace("s->cepoch + 1", "s->cepoch + 2", 1))
    assert certificate.digest(code) != whole and certificate.model_digest(code) == model
    whole = certificate.digest(code)
    bfs = code / "checker" / "search" / "reference" / "bfs.py"
    bfs.write_text(bfs.read_text() + "\nEDITED = 1\n")
    assert certificate.digest(code) != whole and certificate.model_digest(code) == model
    actions = code / "spec" / "kafka" / "actions.py"
    actions.write_text(actions.read_text() + "\nEDITED = 1\n")
    assert certificate.model_digest(code) != model


def test_the_default_gate_sees_an_edit_of_the_python_model_on_disk(tmp_path):
    """A copy of the sources with one Python-only edit (KIP-320's OffsetsForLeaderEpoch
    fence dropped from kip320, every verdict unchanged at these bounds): the gate, on its
    default core, runs the reference, notices, and fails on the pins. The unedited copy
    passes on the compiled core."""
    code = _copy_sources(tmp_path / "code")
    clean = _gate(code, tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "certify" not in clean.stderr
    variants = code / "spec" / "kafka" / "variants.py"
    text = variants.read_text()
    fence = '"kip320",\n        "last-match-truncation",\n        KIP320_FENCES,'
    assert text.count(fence) == 1
    fences = '("fenced-fetch", "fenced-expand")'
    variants.write_text(text.replace(fence, fence.replace("KIP320_FENCES", fences)))
    edited = _gate(code, tmp_path)
    assert edited.returncode == 1, edited.stdout + edited.stderr
    assert "the Python model changed since the compiled core was certified" in edited.stderr
    assert "states 6,016 → 6,165 (+2.5 %)" in edited.stdout


def test_an_executor_running_from_the_shipped_zip_follows_the_driver(tmp_path):
    """A Spark executor imports hwcheck from the driver's zip, where the sources cannot be
    digested: the driver checked the certificate when it chose the compiled core, so the
    executor's probe and level functions load it without checking again."""
    from checker.spark.session import _bundle

    bundle = _bundle(tmp_path)
    script = f"""
import sys
sys.path.insert(0, {str(bundle)!r})
import checker.search.partitioned.compiled_level as native_level
assert native_level.__file__.startswith({str(bundle)!r}), native_level.__file__
from checker.composition.compose import Recipe, make_config
print(repr(native_level.cannot_run(Recipe("kafka", make_config("kafka", {{"replicas": 2}})))))
"""
    env = {"HWCHECK_CACHE": str(tmp_path / "cache"), "PATH": os.environ["PATH"]}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "''", done.stdout
