"""The compiled core as it is built and loaded (``checker.native.build``,
``checker.native.layout``): the label layout Python reads from labels.h is the library's, and a
header that lost a number is refused; the first build says so once and a broken cache entry is
rebuilt; an executor builds the core from the zip a Spark driver ships; and where the core
cannot run (no C compiler, bounds it refuses, ``--core reference``, a user variant) the
reference core runs, saying why in one line. That the two cores give the same answers is
``tests/test_compiled.py``'s subject."""

from __future__ import annotations

import os

import numpy as np
import pytest

from checker.composition.compose import build_model
from checker.native.core import Core
from checker.native.layout import compiled_model
from spec.kafka import Config
from spec.kafka import native as kafka_native


def test_the_label_layout_is_labels_h_and_the_librarys():
    """Python reads the layout from labels.h, the library built from it says the same, codes
    put the action and arguments where LABEL_OF does, and a header that lost a number is
    refused."""
    from checker.native.build import NativeUnavailable
    from checker.native.layout import HEADER, LAYOUT, read

    spec, _ = build_model("kafka", Config(replicas=2))
    core = Core(compiled_model(spec)[0])
    numbers = np.zeros(5, dtype=np.int32)
    core.lib.eng_label_layout(numbers.ctypes.data)
    assert tuple(numbers.tolist()) == LAYOUT.numbers() == (16, 12, 4, 16, 32)
    assert LAYOUT.code(14, 2, 1) == 0xE210 and LAYOUT.code(3, 1, 2, 3) == 0x3123
    with pytest.raises(ValueError):
        LAYOUT.code(2, 16)
    text = HEADER.read_text().replace("#define LABEL_SHIFT 12\n", "")
    with pytest.raises(NativeUnavailable, match="LABEL_SHIFT"):
        read(text)


def _explore_cli(*args):
    from click.testing import CliRunner

    from checker.cli import cli

    return CliRunner().invoke(cli, ["explore", "--replicas", "2", "--no-progress", *args])


def test_no_compiler_falls_back_to_the_reference_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("HWCHECK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("CC", "hwcheck-no-such-compiler")
    result = _explore_cli("--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("Note:")]
    assert notes == [
        (
            "Note: the compiled core cannot run here (no C compiler "
            "(hwcheck-no-such-compiler not found)); using the reference core."
        )
    ]
    assert "reference (no C compiler" in result.output and "Traceback" not in result.output


def test_bounds_the_core_refuses_fall_back_in_one_line(tmp_path, monkeypatch):
    """Bounds past what the compiled core holds (here 8 records, let past the Python side's
    own checks: ``LIMITS`` widened, ``unsupported`` silenced) are refused by ``model_new``
    with its reason, in one line, and the reference core runs."""
    from spec.kafka import config as kafka_config

    monkeypatch.setattr(kafka_native, "unsupported", lambda spec: None)
    monkeypatch.setitem(kafka_config.LIMITS, "max_records", (0, 8))
    result = _explore_cli(
        "--replicas", "1", "--max-records", "8", "--max-epoch", "1", "--out", str(tmp_path)
    )
    assert result.exit_code == 13, result.output  # a guard unreached at these bounds
    notes = [line for line in result.output.splitlines() if line.startswith("Note:")]
    assert notes == [
        (
            "Note: the compiled core cannot run here (the compiled kafka core does not take "
            "this run: max_records 8 outside 0..7); using the reference core."
        )
    ]
    assert "Traceback" not in result.output


def test_a_broken_cache_is_rebuilt_and_the_first_build_says_so(tmp_path):
    """In fresh processes: the first run builds the core and says so once; a cache entry
    that is not a library is rebuilt (saying so, as every build does), with no fallback."""
    import subprocess
    import sys

    def explore(out: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-c",
                "from checker.cli import main; main()",
                "explore",
                "--replicas",
                "2",
                "--no-progress",
                "--out",
                str(tmp_path / out),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "HWCHECK_CACHE": str(tmp_path), "COLUMNS": "120"},
            check=False,
        )

    first = explore("a")
    assert first.returncode == 0 and first.stderr.startswith("compiling the model (once):")
    (library,) = tmp_path.glob("kafka-*.so")
    library.write_bytes(b"not a shared library")
    again = explore("b")
    assert again.returncode == 0 and "Note:" not in again.stderr, again.stderr
    assert "│ core                  │ compiled" in again.stdout
    third = explore("c")
    assert third.stderr == "" and "compiled" in third.stdout


def test_core_reference_and_user_variants_say_why(tmp_path, variant_registry):
    from pathlib import Path

    result = _explore_cli("--core", "reference", "--out", str(tmp_path / "a"))
    assert "reference (--core reference)" in result.output
    rules = Path(__file__).resolve().parents[1] / "examples" / "variant_rules.py"
    result = _explore_cli(
        "--variant-file", str(rules), "--truncation", "leo-fenced", "--out", str(tmp_path / "b")
    )
    assert "reference (user variant variant_rules.py)" in result.output


def test_an_executor_running_from_the_shipped_zip_builds_the_core(tmp_path):
    """On a Spark cluster the executors import hwcheck from the zip the driver ships
    (``checker.spark.session._bundle``): it carries the C sources, and the core builds from
    inside the zip, in a process that sees no other copy of hwcheck."""
    import subprocess
    import sys

    from checker.spark.session import _bundle

    bundle = _bundle(tmp_path)
    script = f"""
import sys
sys.path.insert(0, {str(bundle)!r})
from pathlib import Path
import checker.native.build as build
assert build.__file__.startswith({str(bundle)!r}), build.__file__
native = Path({str(bundle)!r}) / "spec" / "kafka" / "native"
lib = build.load("kafka", [native / n for n in {[p.name for p in kafka_native.SOURCES]!r}],
                 [native / n for n in {[p.name for p in kafka_native.HEADERS]!r}],
                 lambda seconds: print("built"))
print(bool(lib.eng_new))
"""
    env = {"HWCHECK_CACHE": str(tmp_path / "cache"), "PATH": os.environ["PATH"]}
    done = subprocess.run(
        [sys.executable, "-S", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["built", "True"]
