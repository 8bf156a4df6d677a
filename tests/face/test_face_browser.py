"""The face in a real browser: Debian's chromium driven by Playwright.

One browser and one served project for the module. The tests click through
what a person does: no token, no page; create a task (its objective
hostile markup) and see it appear without a reload, as text; open an
execution and step back through its rows; answer close-month's `post` case
and watch the execution settle. Each saves a screenshot at 1280x800 in its
temporary folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from face_helpers import Served
from waiting import wait_for

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
HOSTILE = '<script>window.pwned=1</script>"><img src=x onerror="window.pwned=2">'
SLOW = 60_000  # ms: what a loaded machine may take


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: `apt-get install chromium` (scripts/test does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, served: Served, tmp_path: Path) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(SLOW)
    opened = context.new_page()
    yield opened
    opened.screenshot(path=str(tmp_path / "face.png"))
    context.close()


def _in(page, served: Served, path: str = "/") -> None:
    page.goto(f"{served.face.address}{path}?token={served.face.token}")


def test_no_token_no_page(page, served: Served) -> None:
    answer = page.goto(served.face.address + "/x/t1")
    assert answer.status == 401
    assert "admits only whoever started it" in page.inner_text("body")
    assert "close-month" not in page.content()


def test_create_a_task_and_see_it_appear_without_a_reload_as_text(page, served: Served) -> None:
    _in(page, served)
    assert page.url == served.face.address + "/"  # the token left the address for a cookie
    (cookie,) = page.context.cookies()
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    page.evaluate("window.stayed = true")  # gone if the page reloads
    assert page.locator("#executions tbody tr").count() == 2
    page.fill("#objective", HOSTILE)
    page.click("#create")
    page.locator("#said.done", has_text="is in the record").wait_for()
    assert served.org.admit_asks() == ["t3"]  # the organization admits the ask
    row = page.locator('#executions tr[data-root="t3"]')
    row.wait_for()
    assert row.locator(".objective").inner_text() == HOSTILE
    assert page.evaluate("window.stayed === true && window.pwned === undefined")

    page.click('a[href="/x/t3"]')
    page.locator("#outcome").wait_for()
    assert page.locator("p.objective").inner_text() == HOSTILE
    assert page.evaluate("window.pwned === undefined")


def test_open_an_execution_and_step_back_through_its_rows(page, served: Served) -> None:
    _in(page, served, "/x/t1")
    assert page.locator("#rows li.later").count() == 0
    assert "t1  close-month@1  running" in page.inner_text("#tree")
    assert "post the journal entries" in page.inner_text("#tree")
    page.locator("#at").focus()
    page.keyboard.press("Home")  # the slider's first row: the admission alone
    # rows may still land live while the page is open: count both at once
    wait_for(
        lambda: page.locator("#rows li.later").count() == page.locator("#rows li").count() - 1,
        60,
        "the first row",
    )
    tree = page.inner_text("#tree")
    assert "step t1/wf1/s0" in tree and "step t1/wf1/s1" in tree and "not active" in tree
    assert page.inner_text("#at-n") == "1" and "at=1" in page.url
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    wait_for(lambda: page.inner_text("#at-n") == "3", 60, "two rows on")
    wait_for(lambda: page.locator("#rows li.current").get_attribute("data-n") == "3", 60, "row 3")


def test_answer_a_persons_case_and_watch_the_execution_settle(page, served: Served) -> None:
    _in(page, served, "/waiting")
    case = page.locator('section.case[data-attempt="t1/wf1/s1/post/a0"]')
    case.locator('input[name="note"]').fill("posted by hand")
    case.locator('button[value="succeeded"]').click()
    page.locator("#said.done").wait_for()
    said = page.inner_text("#said")
    assert said.startswith("attempt:t1/wf1/s1/post/a0 succeeded asked")

    page.goto(served.face.address + "/x/t1")
    assert page.inner_text("#outcome") == "open"
    assert served.org.settle_resolves() == ["settled succeeded"]
    page.locator("#outcome", has_text="succeeded").wait_for()  # live: no reload
    tree = page.inner_text("#tree")
    assert "succeeded: posted by hand (resolved by " in tree
    rows = page.inner_text("#rows")
    assert "attempt.outcome.requested" in rows and "workflow.settled" in rows
