"""The HTML trace page in a real headless browser: Debian's chromium driven by Playwright.

Loads a ``trace.html`` that ``hwcheck explore`` wrote, steps through it with the keyboard,
checks what the DOM shows after the script ran, that nothing is fetched from the network, and
that text from the trace is escaped. A screenshot of the violating state is saved as a test
artefact in ``reports/test-artifacts/``. ``.ci/chromium`` (which the README's test command and
``.ci/run`` call) installs chromium when it is missing; without it these tests skip, saying
what to run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chromium import ARTIFACTS, require
from click.testing import CliRunner

from checker.cli import cli
from checker.commands import gallery
from checker.renderers import html

require()


@pytest.fixture(scope="module")
def loss_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    result = CliRunner().invoke(
        cli,
        [
            "explore",
            "--replicas",
            "2",
            "--truncation",
            "hw",
            "--max-epoch",
            "1",
            "--no-symmetry",
            "--no-progress",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 12
    return out / "NoCommittedLoss" / "trace.html"


def open_page(browser, path: Path):
    page = browser.new_page(viewport={"width": 1100, "height": 700})
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    return page, requests


def visible(page) -> str:
    return page.locator("section.step:not([hidden]) .action").inner_text()


def test_keyboard_steps_through_the_counterexample(browser, loss_page):
    page, requests = open_page(browser, loss_page)
    # the page opens at the violating state, and says so in the address
    assert page.inner_text("#caption") == "state 11 of 11"
    assert page.locator("section.step:not([hidden])").count() == 1
    assert visible(page) == "state 11: BecomeFollower(replica=0, epoch=0)"
    for _ in range(12):  # two more than needed: it stops at the initial state
        page.keyboard.press("ArrowLeft")
    assert visible(page) == "state 1: initial state"
    assert page.url.endswith("#state-1")
    for _ in range(10):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#caption") == "state 11 of 11"
    assert visible(page) == "state 11: BecomeFollower(replica=0, epoch=0)"
    last = page.locator("section.step:not([hidden])")
    header, follower, leader = last.locator(".replica").all()
    assert header.locator(".head").all_inner_texts() == ["offset", "0", "1", "HW · LEO"]
    # m0 was truncated away at offset 0, which is now the follower's LEO: drawn there, struck
    removed = follower.locator(".cell.removed")
    assert removed.inner_text().split() == ["m0", "e0"]
    assert "leo" in removed.get_attribute("class").split()
    assert "removed in this step" in removed.get_attribute("title")
    assert follower.locator(".marks").inner_text().split() == ["HW", "0", "LEO", "1→0"]
    assert follower.locator(".marks .changed").inner_text() == "LEO 1→0"
    assert leader.locator(".cell.committed").count() == 1  # m0 below the leader's HW 1
    assert last.locator(".who .changed").count() >= 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "NoCommittedLoss-state-11.png"), full_page=True)
    page.keyboard.press("ArrowLeft")
    assert visible(page) == "state 10: Elect(leader=0)"
    page.locator("#slider").fill("7")
    assert visible(page) == "state 7: Fetch(follower=0, leader=1)"
    # the key event of the loss: the leader's HW passes m0
    moved = page.locator("section.step:not([hidden]) .cell.hw-moved")
    assert moved.count() == 1 and "the HW (1)" in moved.get_attribute("title")
    page.locator("#slider").fill("8")
    assert visible(page) == "state 8: Crash(replica=0)"
    assert page.locator("#why").inner_text().startswith("record m0 was committed at offset 0")
    story = page.locator("#story li").all_inner_texts()
    assert len(story) == 5 and "truncated its log to its own HW 0" in story[-1]
    assert story[1] == "State 4 (Produce(leader=1)): replica 1 wrote m0 (epoch 0) at offset 0."
    assert all(url.startswith("file://") for url in requests) and len(requests) == 1


def test_aftermath_and_deep_links(browser, loss_page):
    """After the violating state come the aftermath's states, marked as not part of the
    counterexample; a "State N" of the story is a link that opens state N, and so does
    #state-N in the address."""
    page, _ = open_page(browser, loss_page)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    assert page.inner_text("#caption") == "state 14: aftermath 3 of 3"
    assert visible(page) == (
        "state 14: Fetch(follower=1, leader=0) (aftermath: not part of the counterexample)"
    )
    last = page.locator("section.step:not([hidden])")
    assert "aftermath" in last.get_attribute("class").split()
    assert last.locator(".cell.removed").inner_text().split() == ["m0", "e0"]
    page.locator('#story a[href="#state-7"]').click()
    # the page shows the state on the hashchange event, which a loaded machine delivers late
    page.locator("section.step:not([hidden]) .action", has_text="state 7:").wait_for(timeout=10_000)
    assert visible(page) == "state 7: Fetch(follower=0, leader=1)"
    assert page.url.endswith("#state-7")
    assert "the committed record is lost" in page.locator("ol.story").nth(1).inner_text()
    page.goto(loss_page.as_uri() + "#state-3")
    page.locator("section.step:not([hidden]) .action", has_text="state 3:").wait_for(timeout=10_000)
    assert visible(page) == "state 3: BecomeLeader(replica=1, epoch=0)"
    page.close()


def test_gallery_pages_align_offsets_and_keep_labels_on_one_line(browser):
    """Every gallery case at 1400 px, at its last state: the box of each offset starts at
    the same x on every replica row, each replica label is one line, and a screenshot is
    kept per case."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for entry in gallery.ENTRIES:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto((gallery.ROOT / entry.folder / "trace.html").as_uri())
        page.keyboard.press("End")
        page.locator("#slider").fill(page.locator("#slider").get_attribute("max"))
        state = page.locator("section.step:not([hidden])")
        rows = state.locator(".replica:not(.header)").all()
        lefts = [
            [round(cell.bounding_box()["x"]) for cell in row.locator(".cell").all()] for row in rows
        ]
        assert all(row == lefts[0] for row in lefts), (entry.folder, lefts)
        heads = [round(h.bounding_box()["x"]) for h in state.locator(".head").all()[1:-1]]
        assert len(heads) == len(lefts[0])
        line = state.locator(".action").bounding_box()["height"]
        for who in state.locator(".replica:not(.header) .who").all():
            assert who.bounding_box()["height"] <= line * 1.2, (entry.folder, who.inner_text())
        page.screenshot(path=str(ARTIFACTS / f"gallery-{entry.folder}.png"), full_page=True)
        page.close()


def test_text_from_the_trace_is_escaped(browser, loss_page, tmp_path):
    document = json.loads(loss_page.with_name("trace.json").read_text())
    attack = '<script>window.pwned = 1</script><img src="http://example.invalid/x" onerror="window.pwned = 2">'
    document["explanation"] = attack
    document["property"]["description"] = attack
    document["steps"][1]["action"] = "Elect(leader='<b>0</b>')"
    page_file = tmp_path / "attack.html"
    page_file.write_text(html.render(document))
    page, requests = open_page(browser, page_file)
    assert page.evaluate("window.pwned === undefined")
    assert page.inner_text("#why") == attack
    page.locator("#slider").fill("2")
    assert visible(page) == "state 2: Elect(leader='<b>0</b>')"
    assert len(requests) == 1
