"""``hwcheck serve`` in a real browser: a server process driven by Playwright in chromium.

Steps through the canonical HW-truncation loss by clicking actions (the violation and its
story appear at state 11 and not before), goes back, reloads the URL, branches from a gallery
trace and jumps to a violation. A screenshot per scenario goes to ``reports/test-artifacts/``.
Skips, saying what to run, without chromium (``.ci/chromium`` installs it).
"""

from __future__ import annotations

import json

import pytest
from chromium import ARTIFACTS, require
from serving import GALLERY, LOSS, LOSS_PATH, LOSS_STORY, start_server, stop_server

require()


@pytest.fixture(scope="module")
def hw_server():
    proc, url = start_server("--replicas", "2", "--truncation", "hw", "--max-epoch", "1")
    yield url
    code, err = stop_server(proc)
    assert code == 0 and "Traceback" not in err


def new_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(url)
    return page, requests


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"serve-{name}.png"), full_page=True)


def at(page, n: int) -> None:
    """Wait until the page shows state ``n`` (after a click or key that navigates) and has
    loaded its script: a key pressed before ``explorer.js`` runs has no listener yet."""
    page.wait_for_function(
        f"document.body && document.body.dataset.number === '{n}'"
        " && document.readyState === 'complete'"
    )


def number(page) -> int:
    return int(page.locator("body").get_attribute("data-number"))


def violations(page) -> list[str]:
    return [v.get_attribute("data-property") for v in page.locator(".violation").all()]


def test_click_through_the_hw_truncation_loss(browser, hw_server):
    page, requests = new_page(browser, hw_server + "/")
    for k, label in enumerate(LOSS_PATH):
        assert number(page) == k + 1
        assert violations(page) == [], f"state {k + 1} shows a violation"
        page.locator(f'a.act[data-label="{label}"]').click()
        at(page, k + 2)
    assert number(page) == 11
    assert violations(page) == ["NoCommittedLoss", "NoAckedLoss", "WeakIsr", "StrongIsr"]
    loss = page.locator('.violation[data-property="NoCommittedLoss"]')
    assert (
        loss.locator(".why")
        .inner_text()
        .startswith("NoCommittedLoss violated: record m0 was committed at offset 0")
    )
    story = loss.locator("details.story li").all_inner_texts()
    assert story == LOSS_STORY
    assert (
        page.locator("body").get_attribute("data-fingerprint") == LOSS["steps"][-1]["fingerprint"]
    )
    # the state is drawn as the trace page draws it: m0 struck through in replica 0's LEO box
    removed = page.locator(".replica").nth(1).locator(".cell.removed")
    assert removed.count() == 1 and "m0" in removed.inner_text()
    assert page.locator("#verdicts .violated").all_inner_texts() == [
        "✗ NoCommittedLoss",
        "✗ NoAckedLoss",
        "✗ WeakIsr",
        "✗ StrongIsr",
    ]
    shot(page, "loss")
    assert all(url.startswith(hw_server) for url in requests), "fetched outside the server"
    page.close()


def test_back_reload_and_the_path(browser, hw_server):
    url = hw_server + "/?" + "&".join("step=" + t.replace(" ", "") for t in LOSS_PATH)
    page, _ = new_page(browser, url)
    fingerprint = page.locator("body").get_attribute("data-fingerprint")
    page.reload()
    assert number(page) == 11
    assert page.locator("body").get_attribute("data-fingerprint") == fingerprint
    page.locator("#back").click()
    at(page, 10)
    assert violations(page) == []
    page.keyboard.press("ArrowLeft")
    at(page, 9)
    page.locator("#path li", has_text="Produce(leader=1)").locator("a").click()
    at(page, 4)
    assert page.locator("#path li.current").inner_text() == "Produce(leader=1)"
    # a different branch from state 4: the keys 1-9 take the listed actions
    first = page.locator("a.act").first.get_attribute("data-label")
    page.keyboard.press("1")
    at(page, 5)
    assert page.locator("#path li.current").inner_text() == first
    shot(page, "back-and-branch")
    page.close()


def test_an_unknown_label_in_the_url(browser, hw_server):
    page, _ = new_page(browser, hw_server + "/?step=Elect(leader=1)&step=Produce(leader=5)")
    assert page.locator("#error").inner_text() == (
        "step 2: Produce(leader=5) is not enabled in state 2 of this kafka model (hw): there is "
        "no replica 5 (replicas=2: 0 to 1); the path stops there"
    )
    assert number(page) == 2
    page.close()


def test_jump_to_a_violation(browser, hw_server):
    page, _ = new_page(browser, hw_server + "/")
    page.select_option("#jump-invariant", "NoCommittedLoss")
    page.locator("#jump-start").click()
    page.wait_for_function("document.body.dataset.number !== '1'", timeout=60_000)
    page.wait_for_load_state()
    assert number(page) == 11  # explore's shortest NoCommittedLoss counterexample
    assert "NoCommittedLoss" in violations(page)
    shot(page, "jump")
    page.close()


def test_branch_from_a_gallery_trace(browser):
    trace = GALLERY / "kip101-hole" / "trace.json"
    document = json.loads(trace.read_text())
    proc, url = start_server("--trace", str(trace))
    try:
        page, _ = new_page(browser, url + "/trace#state-1")  # it opens at the violation
        for _ in range(5):
            page.locator("#next").click()
        page.locator("section.step:not([hidden]) .branch a").click()
        at(page, 6)
        labels = page.locator("#path li a").all_inner_texts()[1:]
        assert labels == [s["action"] for s in document["steps"][1:6]]
        assert page.locator("#trace-link").count() == 1
        # step off the trace: an action the trace did not take next
        taken = document["steps"][6]["action"]
        other = next(
            a for a in page.locator("a.act").all() if a.get_attribute("data-label") != taken
        )
        label = other.get_attribute("data-label")
        other.click()
        at(page, 7)
        assert page.locator("#path li.current").inner_text() == label
        shot(page, "branch-from-trace")
        page.close()
    finally:
        stop_server(proc)
