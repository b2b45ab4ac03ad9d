"""``python -m checker.commands.certify``: prove the compiled core equal to the Python model
again, and record the sources it was proven on (``checker.native.certificate``).

Run from a source checkout after changing a model, an invariant, the reference engine or the C
sources. It runs the differential tests (their walks over 20,000 states a configuration, four
times the suite's); only when they pass does it write ``checker/native/certificate.json`` and
the reference answers the tests computed to ``tests/data/reference_answers.json``
(``tests/pins.py``: the suite reads them while the sources are the certified ones); commit
both with the change. Exit codes: 0 certified, 1 the differential tests failed (nothing
written), 3 Ctrl-C or SIGTERM (nothing written, the tests stopped), 4 no ``tests/`` folder
beside the packages, 5 the certificate cannot be written.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import click

from checker.native import certificate

TESTS = (
    "tests/test_compiled.py",
    "tests/test_compiled_fetch.py",
    "tests/test_compiled_tla.py",
    "tests/test_compiled_walks.py",
)

WALK_STATES = "20000"
"""States each configuration's walks compare when certifying (``HWCHECK_DIFF_STATES``, unless
it is set): ten times the test suite's 2,000, as the certificate is the proof the compiled
core runs on."""


@click.command()
def main() -> None:
    """Run the differential tests and, when they pass, write the certificate."""
    if not all((certificate.ROOT / test).exists() for test in TESTS):
        click.echo(
            f"Error: certify runs from a source checkout: {', '.join(TESTS)} not found "
            f"under {certificate.ROOT}",
            err=True,
        )
        sys.exit(4)
    if certificate.current() and _pins_module().recorded() == certificate.recorded():
        click.echo(f"{certificate.CERTIFICATE} is current: nothing changed since the last proof.")
        return
    click.echo(f"Running the differential tests: {' '.join(TESTS)}")
    with tempfile.TemporaryDirectory(prefix="hwcheck-pins-") as answers:
        if _run_tests(answers) != 0:
            click.echo(
                "Error: the compiled core and the Python model differ (above); the "
                "certificate is not written.",
                err=True,
            )
            sys.exit(1)
        pins = _pins_module()
        try:
            value = certificate.write(TESTS)
            count = pins.collect(Path(answers), value)
        except OSError as exc:
            click.echo(f"Error: cannot write the certificate: {exc.strerror or exc}", err=True)
            sys.exit(5)
    click.echo(
        f"Wrote {certificate.CERTIFICATE} ({value[:12]}…, {len(certificate.sources())} "
        f"files) and {count} reference answers to {pins.PINS}: commit both with your change."
    )


def _pins_module() -> Any:
    """``tests/pins.py`` (the pin file's format is written there once): the differential
    tests' reference answers, which this run recorded, go to its pin file."""
    spec = importlib.util.spec_from_file_location("pins", certificate.ROOT / "tests" / "pins.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_tests(answers: str) -> int:
    """The differential tests' exit code, each reference answer they compute written to the
    folder ``answers`` (``tests/pins.py``). One Ctrl-C or SIGTERM stops them (the pytest child
    too) and exits 3 with the certificate unwritten."""

    def stop(signum: Any, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    env = {"HWCHECK_DIFF_STATES": WALK_STATES, **os.environ, "HWCHECK_PIN_REFERENCE": answers}
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-m", "", *TESTS],  # every tier
        cwd=certificate.ROOT,
        env=env,
    )
    try:
        return child.wait()
    except KeyboardInterrupt:
        child.terminate()
        child.wait()
        click.echo(
            "Interrupted: the differential tests did not finish; the certificate is not written.",
            err=True,
        )
        sys.exit(3)
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    main()
