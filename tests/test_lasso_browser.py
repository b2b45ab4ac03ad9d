"""A lasso's trace page in headless chromium (Playwright): the loop is visible, the timeline
follows the shown state, and → on a cycle's last state goes back to the loop's first."""

from __future__ import annotations

import lassos
import pytest
from chromium import ARTIFACTS, require

from checker.formats import report

expect = require().expect


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    out = tmp_path_factory.mktemp("lassos")
    written = {}
    for name, (spec, violation) in (("stutter", lassos.stutter()), ("cycle", lassos.cycle())):
        written[name] = report.write_violation(out / name, spec, violation).with_name("trace.html")
    return written


def open_page(browser, path, anchor=""):
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    page.goto(path.as_uri() + anchor)
    return page


def visible(page) -> str:
    return page.locator("section.step:not([hidden]) .action").inner_text()


def caption(page) -> str:
    said = page.inner_text("#loop-caption")  # inner_text drops its leading space
    return page.inner_text("#caption") + (f" {said}" if said else "")


def test_a_cycle_goes_round_its_loop(browser, pages):
    page = open_page(browser, pages["cycle"])
    assert visible(page).startswith("state 8: FencedLeaderShrinkIsr(leader=0, replica=1)")
    assert caption(page) == "state 8 of 8 · in the loop (states 6–8)"
    assert page.locator("#timeline .loop-band").is_visible()
    assert page.locator("#timeline .loop-label").inner_text().lower() == "loop"
    assert page.locator("#timeline .tick.current").inner_text() == "8"
    assert page.locator("section.step:not([hidden]) .loop-line").inner_text() == (
        "↺ back to state 6: the steps from state 6 repeat for ever"
    )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "CommitProgress-cycle-state-8.png"), full_page=True)
    page.keyboard.press("ArrowRight")  # from the last state, back to the loop's first
    assert visible(page) == (
        "state 6: FencedBecomeFollowerAndTruncate(leader=0, replica=1, epoch=1)↺ loop starts"
    )
    assert page.locator("section.step:not([hidden]) .loop-mark").is_visible()
    assert page.url.endswith("#state-6")
    assert page.locator("#timeline .tick.current").inner_text() == "6"
    page.keyboard.press("ArrowLeft")
    assert caption(page) == "state 5 of 8"
    for _ in range(3):
        page.locator("#next").click()
    assert caption(page) == "state 8 of 8 · in the loop (states 6–8)"
    page.locator("#next").click()  # Next goes round too
    assert caption(page) == "state 6 of 8 · in the loop (states 6–8)"
    page.locator('#timeline .tick[data-state="2"]').click()  # the page follows the address
    expect(page.locator("#caption")).to_have_text("state 2 of 8")
    assert visible(page) == "state 2: ControllerElectLeader(newLeader=0)"
    assert page.locator("#timeline .tick.current").inner_text() == "2"
    page.locator("#timeline .loop-end").click()
    expect(page.locator("#caption")).to_have_text("state 6 of 8")


def test_a_stutter_stays(browser, pages):
    page = open_page(browser, pages["stutter"])
    assert caption(page) == "state 6 of 6 · it stutters here for ever"
    page.keyboard.press("ArrowRight")
    assert caption(page) == "state 6 of 6 · it stutters here for ever"
    assert page.locator("#timeline .loop-end").inner_text() == "◼ stutters for ever"
    assert page.locator("section.step:not([hidden]) .loop-mark").inner_text() == (
        "◼ stays here for ever"
    )
