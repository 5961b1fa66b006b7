"""The live views on a 390 px phone (scripts/browser_check.py's phone look, headless Chromium).

Chapter 2's sticky note and chapter 4's gates view, shown on a page as wide as a phone's screen, fit it: the
picture narrows to the column (the gates view puts its belt panel below the heatmaps), and what is still wider
(a long sentence) scrolls sideways inside the view's picture strip. The check finds a part that runs past the
screen outside such a strip, as the views did before (a 26 em text box, a 900 px gates picture).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from seqviz.data import Vocab
from seqviz.models import LSTM, RNN, SequenceClassifier
from seqviz.web import gates_view, sticky_note_view
from web_page import browser, needs_chromium, numbers, type_into  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import browser_check  # noqa: E402

pytestmark = needs_chromium
WORDS = "the keys key near old cabinet cabinets that my friend left on table".split()
FIRST = "the keys that my friend left on the old table"


def classifier(cell, hidden):
    torch.manual_seed(0)
    vocab = Vocab(WORDS)
    encoder = {"rnn": RNN, "lstm": LSTM}[cell](8, hidden)
    return SequenceClassifier(len(vocab), 8, encoder, num_classes=2).eval(), vocab


def on_a_phone(browser, html: str):
    page = browser.new_page(viewport=browser_check.PHONE)
    page.route("**/*", lambda route: route.abort())
    page.set_content("<html><head><meta name='viewport' content='width=device-width'><style>input { font: inherit; }"
                     f"</style></head><body style='margin: 0 16px'>{html}</body></html>")   # the book's theme: inherit
    return page


def test_the_sticky_note_and_the_gates_fit_a_phone(browser):
    note = sticky_note_view(*classifier("rnn", 6), FIRST, class_names=["is", "are"])
    gates = gates_view(*classifier("lstm", 32), FIRST, units=[0, 1, 2])
    page = on_a_phone(browser, note.html() + gates.html())
    assert browser_check.phone_problems(page) == []
    widths = page.evaluate("() => [...document.querySelectorAll('.seqviz-web-picture svg')].map((s) => "
                           "s.getBoundingClientRect().width)")
    assert len(widths) == 2 and max(widths) <= browser_check.PHONE["width"] - 32, widths   # no scrolling needed
    assert numbers(page, 1)["tokens"] == FIRST.split()   # the narrow layout draws the same numbers
    page.close()


def test_a_long_sentence_scrolls_inside_the_picture_strip(browser):
    model, vocab = classifier("rnn", 6)
    long = " ".join(FIRST.split() * 4)   # 36 tokens: more columns than a phone has room for
    page = on_a_phone(browser, sticky_note_view(model, vocab, long, class_names=["is", "are"]).html())
    strip = page.evaluate("() => { const p = document.querySelector('.seqviz-web-picture'); "
                          "return [p.scrollWidth, p.clientWidth]; }")
    assert strip[0] > strip[1] and browser_check.phone_problems(page) == []
    page.close()


@pytest.mark.parametrize("html, part", [
    # the text box before: 26 em wide, in a label that could not shrink
    ("<div class='seqviz-web' data-view='sticky_note'><label>sentence "
     "<input type='text' style='width:26em; font-size:16px'></label></div>", "label"),
    # a 900 px picture in a box that hides what overflows
    ("<div class='seqviz-web' data-view='gates'><div style='overflow: hidden'><svg width='900' height='40'></svg>"
     "</div></div>", "svg"),
])
def test_the_phone_check_finds_a_part_past_the_screen(browser, html, part):
    page = on_a_phone(browser, html)
    problems = browser_check.phone_problems(page)
    assert len(problems) == 1 and f"its {part}" in problems[0] and "past the view's column" in problems[0], problems
    page.close()
    scrolled = html.replace("overflow: hidden", "overflow-x: auto")
    if scrolled != html:   # the same picture in a strip that scrolls sideways: the reader can reach all of it
        page = on_a_phone(browser, scrolled)
        assert browser_check.phone_problems(page) == []
        page.close()


def test_chapter_7s_alignment_fits_a_phone(browser):
    """The alignment heatmap of an eight-word sentence ran past a 390 px phone's right edge (660 px of cells)."""
    from test_web_seq2seq import FIRST as SENTENCE, SRC, TGT, make_translator

    from seqviz.web import alignment_view

    page = on_a_phone(browser, alignment_view(make_translator(), SRC, TGT, SENTENCE).html())
    assert browser_check.phone_problems(page) == []
    width = page.evaluate("() => document.querySelector('.seqviz-web-picture svg').getBoundingClientRect().width")
    assert width <= browser_check.PHONE["width"] - 32, width   # the cells narrowed: nothing to scroll
    page.close()


OUTSIDE = """() => {
    const svg = document.querySelector('.seqviz-web-picture svg'), width = svg.width.baseVal.value;
    return [...svg.querySelectorAll('text')].map((t) => [t.textContent, t.getBBox()])
      .filter(([, b]) => b.x < -1 || b.x + b.width > width + 1).map(([text]) => text); }"""


def test_chapter_6s_beam_tree_fits_a_phone_and_keeps_its_desktop_width(browser):
    """The beam-search tree was 660 px wide on every screen: on a 390 px phone its right part (the last steps, the
    legend) lay outside the screen. On a phone it narrows to the column, its text keeping its size; on a desktop
    page it is drawn as before, 660 px wide."""
    from test_web_seq2seq import FIRST as SENTENCE, OVERPRINTS, SRC, TGT, make_translator

    from seqviz.web import beam_view

    html = beam_view(make_translator(seed=3), SRC, TGT, SENTENCE, max_beam=8).html()
    page = on_a_phone(browser, html)
    for k in (3, 8):
        type_into(page, 0, "beam_size", k)
        assert browser_check.phone_problems(page) == []
        width = page.evaluate("() => document.querySelector('.seqviz-web-picture svg').getBoundingClientRect().width")
        assert width <= browser_check.PHONE["width"] - 32, (k, width)   # the whole tree, without scrolling
        assert page.evaluate(OVERPRINTS, 0) == [] and page.evaluate(OUTSIDE) == [], k
    assert numbers(page)["beam_size"] == 8   # the narrow layout draws the same search
    page.close()
    desktop = browser.new_page(viewport={"width": 1280, "height": 800})
    desktop.route("**/*", lambda route: route.abort())
    desktop.set_content(f"<html><body style='margin: 0 16px'>{html}</body></html>")
    assert desktop.evaluate("() => document.querySelector('.seqviz-web-picture svg').getBoundingClientRect()"
                            ".width") == 660
    # the legend on one line used to run 6 px past the right edge ("pruned (best runners-up)")
    assert desktop.evaluate(OUTSIDE) == [] and desktop.evaluate(OVERPRINTS, 0) == []
    desktop.close()
