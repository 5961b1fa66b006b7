"""Headless Chromium for the tests of the page's views (seqviz.web): one browser per test module.

``open_views(browser, *views)`` puts WebViews on a blank page with the network cut off and returns the
page; ``numbers(page, i)`` is what view ``i`` shows now, as plain lists; ``type_into(page, i, control,
value)`` changes one control as a reader would (a text box: change; a slider or menu: input and change).
"""

from __future__ import annotations

import pytest
from conftest import CHROMIUM

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]
needs_chromium = pytest.mark.browser   # skipped (or, in CI, failed) where Chromium is missing: conftest.py


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield chromium
        chromium.close()


def open_views(browser, *views):
    page = browser.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.route("**/*", lambda route: route.abort())   # nothing may be fetched: the page is self-contained
    page.set_content("<html><body>" + "".join(v.html() for v in views) + "</body></html>")
    page.errors = errors
    return page


def numbers(page, index: int = 0):
    return page.evaluate("(i) => seqviz.nn.toLists(document.querySelectorAll('.seqviz-web')[i].seqvizView.numbers())",
                         index)


def type_into(page, index: int, control: str, value) -> float:
    """Set a control of view ``index`` and fire its events; returns the view's update time (ms)."""
    return page.evaluate("""([i, name, value]) => {
        const view = document.querySelectorAll('.seqviz-web')[i].seqvizView, input = view.controls[name];
        input.value = String(value);
        input.dispatchEvent(new Event('input'));
        input.dispatchEvent(new Event('change'));
        return view.lastMs; }""", [index, control, value])


def message(page, index: int = 0) -> str:
    return page.evaluate("(i) => document.querySelectorAll('.seqviz-web')[i].querySelector('.seqviz-web-message')"
                         ".textContent", index)
