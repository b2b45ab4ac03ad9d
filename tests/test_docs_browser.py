"""The documentation site in a browser: built as ``.ci/run`` builds it (``mkdocs build
--strict --quiet``, which prints nothing with the pinned plugins), then every page opened in
headless chromium at 1300 and 1024 px, where no table may run past the page's content column
(the bug zoo's ran under the table of contents). Skips without mkdocs (``pip install -e
'.[docs]'``) or chromium (``.ci/chromium``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from chromium import require

require()
ROOT = Path(__file__).resolve().parents[1]

OVERFLOW = """() => {
    const column = document.querySelector('.md-content__inner').getBoundingClientRect();
    return [...document.querySelectorAll('.md-typeset table')]
        .map(table => [Math.round(table.getBoundingClientRect().right - column.right),
                       table.rows[0].innerText.slice(0, 60)])
        .filter(([past]) => past > 1);
}"""
"""Each table of the page that ends more than a pixel right of the content column: how far,
and its header."""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    assert build.stdout + build.stderr == "", (
        "mkdocs build printed something (a plugin's banner? pip install -e '.[docs]' for "
        "the pinned versions):\n" + build.stderr
    )
    return out


@pytest.mark.parametrize("width", [1300, 1024])
def test_no_table_runs_past_the_page(browser, site, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    past = {}
    for html in sorted(site.rglob("index.html")):
        page.goto(html.as_uri())
        found = page.evaluate(OVERFLOW)
        if found:
            past[html.parent.relative_to(site).as_posix()] = found
    page.close()
    assert past == {}
