"""A shared file never runs code (issue 63): a trace, a schedule's header or a checkpoint
manifest may name a variant file (Python), but hwcheck imports one only when the user names it
on the command line (or in the gate config they own).

Each test writes ``evil.py``: the example variant file behind a first line that leaves a
marker file when it runs. A file that names it gets exit 4 and one line saying what to pass,
and the marker is never written; naming it on the command line is what runs it (so the
marker shows the guard, not a file that could not have run anyway).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker.checkpoint.format import sealed
from checker.cli import cli
from spec.kafka import plugins

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "variant_rules.py")
SMALL = ["--replicas", "2", "--max-epoch", "1", "--truncation", "leo-fenced"]


@pytest.fixture(autouse=True)
def _clean_registry(variant_registry):
    """No variant file trusted or loaded before each test (``conftest.variant_registry``)."""


@pytest.fixture
def evil(tmp_path):
    """``(evil.py, the marker it writes when imported)``."""
    marker = tmp_path / "RAN"
    path = tmp_path / "evil.py"
    path.write_text(
        f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n"
        + Path(EXAMPLE).read_text()
    )
    return path, marker


def _forget(monkeypatch):
    """As a fresh process that was never told to trust or load a variant file."""
    monkeypatch.setattr(plugins, "_files", {})
    monkeypatch.setenv(plugins.TRUST_ENV, "")


def _invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _refused(result, evil_path, marker):
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    assert f"names the variant file {evil_path}" in result.output
    assert f"pass --variant-file {evil_path}" in result.output
    assert not marker.exists()


@pytest.fixture
def evil_trace(tmp_path, evil, monkeypatch):
    """A NoDivergence trace of the example variant whose config names ``evil.py``."""
    out = tmp_path / "run"
    made = _invoke("explore", *SMALL, "--variant-file", EXAMPLE, "--invariant", "NoDivergence",
                   "--no-progress", "--out", out)  # fmt: skip
    assert made.exit_code == 12, made.output
    document = json.loads((out / "NoDivergence" / "trace.json").read_text())
    document["config"]["variant_file"] = str(evil[0])
    path = tmp_path / "shared-trace.json"
    path.write_text(json.dumps(document))
    _forget(monkeypatch)
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["replay"],
        ["show"],
        ["show", "--html", "{tmp}/page.html"],
        ["graph", "--out", "{tmp}/g.dot", "--trace"],
        ["serve", "--port", "0", "--trace"],
    ],
    ids=["replay", "show", "show-html", "graph", "serve"],
)
def test_a_trace_that_names_a_variant_file_runs_no_code(tmp_path, evil, evil_trace, command):
    args = [part.format(tmp=tmp_path) for part in command]
    _refused(_invoke(*args, evil_trace), *evil)
    assert not (tmp_path / "page.html").exists() and not (tmp_path / "g.dot").exists()


def test_naming_a_file_on_the_command_line_is_what_runs_it(evil, evil_trace):
    """The user's own copy replaces the one the trace names; the one it names runs only when
    the user names that one."""
    path, marker = evil
    ours = _invoke("replay", evil_trace, "--variant-file", EXAMPLE)
    assert ours.exit_code == 0, ours.output
    assert "all 10 fingerprints match" in ours.output and not marker.exists()
    theirs = _invoke("replay", evil_trace, "--variant-file", path)
    assert theirs.exit_code == 0, theirs.output
    assert marker.exists()


def test_a_schedule_header_that_names_a_variant_file_runs_no_code(tmp_path, evil):
    path, marker = evil
    schedule = tmp_path / "shared.txt"
    schedule.write_text(
        f"# hwcheck: --variant-file {path} " + " ".join(SMALL) + "\nElect(leader=0)\n"
    )
    for command in (["scenario", schedule], ["serve", "--port", "0", "--scenario", schedule]):
        _refused(_invoke(*command), path, marker)
    ours = _invoke("scenario", schedule, "--variant-file", EXAMPLE)
    assert ours.exit_code == 0, ours.output
    assert not marker.exists()


def test_a_checkpoint_that_names_a_variant_file_runs_no_code(tmp_path, evil, monkeypatch):
    path, marker = evil
    folder = tmp_path / "ck"
    made = _invoke("explore", *SMALL, "--variant-file", EXAMPLE, "--max-depth", "5",
                   "--checkpoint", folder, "--no-progress", "--out", tmp_path / "run")  # fmt: skip
    assert made.exit_code == 3, made.output  # cut by its depth bound: a checkpoint to resume
    manifest = folder / "checkpoint.json"
    saved = json.loads(manifest.read_text())
    saved["config"]["variant_file"] = str(path)
    manifest.write_bytes(sealed(saved))  # a crafted checkpoint can carry a valid seal
    _forget(monkeypatch)
    _refused(_invoke("explore", "--resume", folder, "--no-progress", "--out", tmp_path / "r"),
             path, marker)  # fmt: skip


def test_the_library_loads_only_what_it_was_told_to_trust(evil):
    path, marker = evil
    with pytest.raises(plugins.UntrustedFile, match="pass --variant-file"):
        plugins.load_file(str(path))
    assert not marker.exists()
    plugins.trust(path)
    assert plugins.load_file(str(path)) == ("to-leader-leo", "leo-fenced")
    assert marker.exists()
