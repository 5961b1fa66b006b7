"""What every test shares: one thread, a fixed seed, and the test tiers (pyproject.toml's markers).

- ``integration``: the grading and student-edition tests (whole notebooks through nbgrader and kernels). Their
  modules may carry the marker themselves; :data:`INTEGRATION_MODULES` tags them here too, so the tiers hold
  either way.
- ``browser``: every test that drives headless Chromium (it takes the ``browser`` fixture of ``web_page.py``
  or carries the marker). Where Chromium (or playwright) is missing such a test skips, and the run ends with
  one line saying how many were skipped and how to install it; with ``SEQVIZ_REQUIRE_BROWSER=1`` (set by
  ``.ci/run`` and the publishing workflow) it fails instead, so CI never passes without its browser tests.
- The ``node`` fixture: the golden-vector tests of the page's JavaScript (``test_js_twins.py``) run it in the
  unit tier; where node is missing they skip with the same kind of line, or fail under
  ``SEQVIZ_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest
import torch

import seqviz as sv

# Unit tests use tiny tensors, for which one thread is fastest and immune to a busy machine.
torch.set_num_threads(1)

CHROMIUM = Path("/usr/bin/chromium")
INSTALL = "install it with `sudo apt-get install chromium` (Debian, Ubuntu) and rerun"
NODE_INSTALL = "install node (Debian, Ubuntu: `sudo apt-get install nodejs`) and rerun"
INTEGRATION_MODULES = ("test_grading", "test_student")
_skipped_browser_tests = []
_skipped_node_tests = []


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return f"Chromium is not installed ({CHROMIUM} is missing)"
    if importlib.util.find_spec("playwright") is None:
        return "the Python package playwright is not installed (make install)"
    return None


def browser_required() -> bool:
    return os.environ.get("SEQVIZ_REQUIRE_BROWSER", "").strip().lower() in ("1", "true", "yes", "on")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        module = getattr(item, "module", None)   # a notebook (nbmake) has none: it is the notebooks tier
        if module is not None and module.__name__ in INTEGRATION_MODULES:
            item.add_marker(pytest.mark.integration)


def pytest_runtest_setup(item):
    if item.get_closest_marker("browser") is None:
        return
    missing = browser_missing()
    if missing is None:
        return
    if browser_required():
        pytest.fail(f"SEQVIZ_REQUIRE_BROWSER=1 and {missing}: {INSTALL}", pytrace=False)
    _skipped_browser_tests.append(item.nodeid)
    pytest.skip(f"browser test: {missing}")


@pytest.fixture(scope="session")
def node(request) -> str:
    """The path of ``node``, which runs the page's JavaScript without a browser (``tests/js_twins.js``)."""
    path = shutil.which("node")
    if path is None:
        if browser_required():
            pytest.fail(f"SEQVIZ_REQUIRE_BROWSER=1 and node is missing: {NODE_INSTALL}", pytrace=False)
        _skipped_node_tests.append(request.node.nodeid)
        pytest.skip("needs node to run the page's JavaScript")
    return path


def pytest_terminal_summary(terminalreporter):
    if _skipped_browser_tests:
        n = len(_skipped_browser_tests)
        terminalreporter.write_line(
            f"seqviz: {n} browser test{'s' if n > 1 else ''} skipped: {browser_missing()}, so the page views' "
            f"controls and drawing went untested; {INSTALL}.", yellow=True, bold=True)
    if _skipped_node_tests:
        terminalreporter.write_line(
            f"seqviz: the golden-vector tests of the page's JavaScript were skipped (node is missing): "
            f"{NODE_INSTALL}.", yellow=True, bold=True)


@pytest.fixture(autouse=True)
def _seed():
    sv.seed_everything(0)
    yield


@pytest.fixture
def zh():
    """The book's language set to Chinese for one test (``sv.book.set_language``), English again afterwards."""
    sv.book.set_language("zh")
    try:
        yield
    finally:
        sv.book.set_language("en")
