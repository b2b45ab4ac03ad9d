"""What the browser tests share: Debian's chromium driven by Playwright.

A test module calls ``require()`` at import: it skips the module, saying what to run, when
playwright or chromium is missing (``.ci/chromium`` installs chromium), and returns
Playwright's sync API. ``conftest.py``'s ``browser`` fixture launches chromium with ``FLAGS``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parents[1] / "reports" / "test-artifacts"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def require():
    """Playwright's ``sync_api``; skips the calling module without playwright or chromium."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
    )
    if CHROMIUM is None:
        pytest.skip(
            "no chromium on PATH: run .ci/chromium (Debian's package, needs root or "
            "sudo; the README's test command runs it) or install chromium yourself",
            allow_module_level=True,
        )
    return sync_api
