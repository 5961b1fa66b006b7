"""The bertviz bridge: bertviz's own HTML, every script served locally, shapes checked."""

import base64
import re
import sys

import pytest
import torch

from seqviz import config
from seqviz.viz import bertviz_head_view, bertviz_model_view
from seqviz.viz.bertviz_bridge import ASSETS, INSTALL_HINT, Message, localise, script_sources
from web_page import CHROMIUM

pytest.importorskip("bertviz")
TOKENS = ["the", "cat", "sat", "on", "mats"]


def _attn(layers=2, heads=3, T=5):
    torch.manual_seed(0)
    return [torch.rand(1, heads, T, T).softmax(-1) for _ in range(layers)]


def _data_urls(page: str) -> dict:
    return {name: base64.b64decode(data) for name, data in
            re.findall(r"""\b(d3|jquery)\s*:\s*'data:text/javascript;base64,([A-Za-z0-9+/=]+)'""", page)}


def test_head_view_keeps_bertviz_html_and_loads_nothing_from_the_network():
    page = bertviz_head_view(_attn(), TOKENS, mode="inline")._repr_html_()
    assert "cdnjs" not in page and not re.search(r"""(src=|:\s*)['"]https?://""", page)
    urls = _data_urls(page)  # d3 and jQuery travel inside the output, byte for byte the shipped copies
    assert urls == {"d3": (ASSETS / "d3.min.js").read_bytes(), "jquery": (ASSETS / "jquery.min.js").read_bytes()}
    assert (ASSETS / "require.js").read_text()[:200] in page  # require.js inline, not fetched
    assert "requirejs(['jquery', 'd3']" in page and 'id="bertviz-' in page  # bertviz's own script and markup
    for token in TOKENS:
        assert f'"{token}"' in page


def test_in_the_book_the_views_point_at_the_books_own_copies(tmp_path, monkeypatch):
    for name in ("_config.yml", "_toc.yml"):
        (tmp_path / name).write_text("")
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")  # the book executes a chapter in its own folder
    monkeypatch.setattr(config, "BOOK", True)
    page = bertviz_model_view(_attn(), TOKENS)._repr_html_()
    assert '<script src="../_static/bertviz/require.js"></script>' in page
    assert "d3: '../_static/bertviz/d3.min'" in page and "jquery: '../_static/bertviz/jquery.min'" in page
    assert "data:" not in page and "cdnjs" not in page
    monkeypatch.chdir(tmp_path.parent)
    with pytest.raises(ValueError, match="inside the book"):
        script_sources("book")


def test_wrong_shapes_raise_value_errors_that_name_the_shapes():
    layers = _attn()
    with pytest.raises(ValueError, match=r"\(5, 5\).*4 tokens"):
        bertviz_head_view(layers, TOKENS[:4])
    with pytest.raises(ValueError, match=r"attentions\[1\] is \(1, 2, 5, 5\) but attentions\[0\] is \(1, 3, 5, 5\)"):
        bertviz_head_view([layers[0], torch.rand(1, 2, 5, 5)], TOKENS)
    with pytest.raises(ValueError, match=r"\(5, 5\)"):
        bertviz_model_view([torch.rand(5, 5)], TOKENS)
    with pytest.raises(ValueError, match="non-empty list"):
        bertviz_head_view([], [])
    with pytest.raises(ValueError, match="sentence_b_start"):
        bertviz_head_view(layers, TOKENS, sentence_b_start=5)
    with pytest.raises(ValueError, match="NaN"):
        bertviz_head_view([torch.full((1, 3, 5, 5), float("nan"))], TOKENS)


def test_sentence_pairs_and_rounded_weights():
    layers = _attn()
    page = bertviz_model_view(layers, TOKENS, sentence_b_start=2, mode="inline").html
    assert "Sentence A -&gt; Sentence B" in page or "Sentence A -> Sentence B" in page
    first = layers[0][0, 0, 0, 0].item()
    assert f"{round(first, 3)}" in page and f"{first!r}" not in page  # three decimals, not float32 noise
    assert page.count('"attn"') == 5  # All and the four sentence-pair blocks, once each (not again in a comment)
    assert bertviz_head_view(layers, TOKENS, mode="inline").html.count('"attn"') == 1


def test_without_bertviz_the_cell_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "bertviz", None)  # import bertviz now raises ImportError
    shown = bertviz_head_view(_attn(), TOKENS)
    assert isinstance(shown, Message) and "pip install bertviz" in shown._repr_html_() and INSTALL_HINT == repr(shown)


def test_an_unknown_bertviz_html_is_refused_not_silently_left_online():
    with pytest.raises(ValueError, match="3 CDN sources"):
        localise('<script src="https://example.org/require.min.js"></script><div></div>', mode="inline")


@pytest.mark.browser
def test_the_inline_views_draw_in_chromium_with_the_network_cut_off(tmp_path):
    from playwright.sync_api import sync_playwright

    head = bertviz_head_view(_attn(), TOKENS, mode="inline").html
    model = bertviz_model_view(_attn(), TOKENS, sentence_b_start=2, mode="inline").html
    (tmp_path / "page.html").write_text(f"<html><body>{head}{model}</body></html>")
    requests, errors = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                   else (requests.append(route.request.url), route.abort()))
        page.goto((tmp_path / "page.html").as_uri())
        page.wait_for_function("() => [...document.querySelectorAll('[id^=\"bertviz\"]')]"
                               ".every((v) => v.querySelectorAll('svg line').length > 0)", timeout=20_000)
        lines = page.evaluate("() => [...document.querySelectorAll('[id^=\"bertviz\"]')]"
                              ".map((v) => v.querySelectorAll('svg line').length)")
        browser.close()
    assert len(lines) == 2 and min(lines) >= len(TOKENS) ** 2  # every head's token-to-token lines
    assert requests == [] and errors == []


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's /usr/bin/chromium")
def test_the_model_view_fits_every_head_in_a_narrow_column(tmp_path):
    """bertviz draws its model view 970 px wide; in a 700 px text column a third of the heads fell off the edge."""
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    torch.manual_seed(0)
    layers = [torch.rand(1, 12, 5, 5).softmax(-1) for _ in range(2)]      # 12 heads, as BERT's
    model = bertviz_model_view(layers, TOKENS, mode="inline").html
    (tmp_path / "page.html").write_text(f"<html><body><div style='width: 700px'>{model}</div></body></html>")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((tmp_path / "page.html").as_uri())
        page.wait_for_function("() => document.querySelectorAll('[id^=\"bertviz\"] svg line').length > 0",
                               timeout=20_000)
        width, right_edge = page.evaluate("""() => {
            const svg = document.querySelector('[id^="bertviz"] svg');
            const edges = [...svg.querySelectorAll('rect, line')].map((e) => e.getBoundingClientRect().right);
            return [svg.getBoundingClientRect().width, Math.max(...edges)]; }""")
        browser.close()
    assert width <= 700 and right_edge <= 700 + 8  # the grid, every head's thumbnail included, inside the column
