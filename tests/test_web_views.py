"""The page's live views compute what seqviz computes (headless Chromium, network cut off).

Each test builds a model with random weights, shows its view on a blank page and compares the numbers
the picture is drawn from with seqviz's own forward pass. Tolerance: 2e-5 absolute, float32 rounding
(the page accumulates in doubles and stores float32; PyTorch accumulates in float32).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from seqviz.data import Vocab
from seqviz.models import GRU, LSTM, RNN, SequenceClassifier
from seqviz.web import WebView, sticky_note_view, tensor
from seqviz.web.export import classifier, vocabulary
from web_page import browser, message, needs_chromium, numbers, open_views, type_into  # noqa: F401

TOL = 2e-5
WORDS = "the keys key near old cabinet cabinets that my friend left on table".split()


def make_classifier(cell, layers=1, seed=0):
    torch.manual_seed(seed)
    vocab = Vocab(WORDS)
    encoder = {"rnn": RNN, "lstm": LSTM, "gru": GRU}[cell](8, 6, num_layers=layers)
    return SequenceClassifier(len(vocab), 8, encoder, num_classes=2).eval(), vocab


def seqviz_reading(model, vocab, sentence):
    ids = torch.tensor([vocab.encode(sentence.split())])
    with torch.no_grad():
        _, trace = model.features(ids, return_trace=True)
        states = trace["h"][-1, 0]   # the top layer, sentence 0: (T, H)
        probs = model.head(states).softmax(-1)
    return trace, states.numpy(), probs.numpy()


def test_tensor_round_trips_float32():
    x = torch.randn(3, 4)
    t = tensor(x)
    import base64

    back = np.frombuffer(base64.b64decode(t["data"]), dtype="<f4").reshape(t["shape"])
    assert t["shape"] == [3, 4] and np.array_equal(back, x.numpy())


def test_export_explains_what_the_page_cannot_run():
    vocab = Vocab(WORDS)
    model = SequenceClassifier(len(vocab), 8, LSTM(8, 6, bidirectional=True), num_classes=2)
    with pytest.raises(ValueError, match="bidirectional=False"):
        classifier(model)
    with pytest.raises(ValueError, match="SequenceClassifier"):
        classifier(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Vocab"):
        vocabulary(["a"])
    model, vocab = make_classifier("rnn")
    with pytest.raises(ValueError, match="2 class names"):
        sticky_note_view(model, vocab, "the keys", class_names=["is"])
    with pytest.raises(ValueError, match="view must be"):
        WebView("", {}, None, {})


@needs_chromium
@pytest.mark.parametrize("cell,layers", [("rnn", 1), ("lstm", 1), ("gru", 1), ("gru", 2), ("lstm", 2)])
def test_sticky_note_view_shows_seqviz_numbers(browser, cell, layers):
    model, vocab = make_classifier(cell, layers)
    first, second = "the keys near the old cabinet", "the key that my friend left on the table"
    page = open_views(browser, sticky_note_view(model, vocab, first, class_names=["is", "are"], track=1))
    for sentence in (first, second):
        if sentence != first:
            type_into(page, 0, "sentence", sentence.upper())   # the page lower-cases, as the chapter's read does
        shown = numbers(page)
        _, states, probs = seqviz_reading(model, vocab, sentence)
        assert shown["tokens"] == sentence.split()
        assert shown["step"] == len(shown["tokens"])
        assert np.abs(np.array(shown["states"]) - states).max() < TOL
        assert np.abs(np.array(shown["probs"]) - probs).max() < TOL
    type_into(page, 0, "step", 3)
    assert numbers(page)["step"] == 3
    assert page.errors == []
    page.close()


@needs_chromium
def test_a_title_or_word_with_html_in_it_mounts_and_is_shown_as_text(browser):
    """The spec's JSON escapes every '<': a '</script>' or '<!--' in a title or a word can neither end nor hide the
    script element that holds it (before, '<!--<script>' stopped the view from mounting, silently)."""
    torch.manual_seed(0)
    odd = "<!--<script>"
    vocab = Vocab([*WORDS, odd])
    model = SequenceClassifier(len(vocab), 8, RNN(8, 6), num_classes=2).eval()
    title = "keys </script><!--<script>alert(1)</script> & more"
    view = sticky_note_view(model, vocab, f"the keys {odd}", class_names=["is", "are"], pattern=r"\S+", title=title)
    spec = view.html().split("class='seqviz-web-spec'>")[1].split("</script>")[0]
    assert "<" not in spec
    page = open_views(browser, view, view)   # twice: the second copy on the page mounts too
    assert page.evaluate("document.querySelectorAll('.seqviz-web-mounted').length") == 2
    assert page.evaluate("document.querySelector('.seqviz-web-title').textContent") == title
    assert numbers(page)["tokens"] == ["the", "keys", odd]
    assert page.errors == []
    page.close()


@needs_chromium
def test_sticky_note_view_answers_bad_input_with_a_message(browser):
    model, vocab = make_classifier("rnn")
    page = open_views(browser, sticky_note_view(model, vocab, "the keys", class_names=["is", "are"]))
    type_into(page, 0, "sentence", "the keys near teh cabinet")
    assert "never seen 'teh'" in message(page) and "knows 13 words" in message(page)
    assert numbers(page) == {"error": message(page).removeprefix("⚠ ")}
    type_into(page, 0, "sentence", "   ")
    assert "type a sentence" in message(page)
    type_into(page, 0, "sentence", " ".join(["the"] * 101))
    assert "at most 100" in message(page)
    type_into(page, 0, "sentence", "the old table")      # back to a good sentence: the message goes
    assert message(page) == "" and numbers(page)["tokens"] == ["the", "old", "table"]
    assert page.errors == []
    page.close()


@needs_chromium
def test_browser_check_compares_each_view_with_seqviz_and_drives_its_controls(browser):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import browser_check

    model, vocab = make_classifier("gru")
    sentence = "the keys near the old cabinet"
    good = sticky_note_view(model, vocab, sentence, class_names=["is", "are"])
    bad = sticky_note_view(model, vocab, sentence, class_names=["is", "are"])
    bad.spec["expected"]["states"][2][1] += 0.01          # a page that drew other numbers than seqviz's
    short = sticky_note_view(model, vocab, sentence, class_names=["is", "are"])
    short.spec["expected"]["probs"] = short.spec["expected"]["probs"][:-1]
    page = open_views(browser, good, bad, short)
    drive = [page.evaluate(browser_check.DRIVE, [i, browser_check.UNKNOWN_WORDS]) for i in range(3)]
    assert drive[0]["compared"] == 6 * 6 + 6 * 2 and drive[0]["difference"] < TOL
    assert abs(drive[1]["difference"] - 0.01) < 1e-4
    assert "numbers.probs: 6 values, seqviz has 5" in drive[2]["problem"]
    assert drive[0]["messages"] == [] and "never seen 'zqxv'" in drive[0]["unknownMessage"]
    assert len(drive[0]["ms"]) == 3 + 4                    # the box: 3 good sentences; the step slider: 4 moves
    assert numbers(page)["tokens"] == sentence.split()      # every control is left where it started
    assert page.errors == []
    page.close()


@needs_chromium
def test_the_keyboard_drives_the_view_as_a_reader_would(browser):
    model, vocab = make_classifier("lstm")
    page = open_views(browser, sticky_note_view(model, vocab, "the keys near the old cabinet", class_names=["is", "are"]))
    box, slider = page.locator(".seqviz-web input[type=text]"), page.locator(".seqviz-web input[type=range]")
    box.fill("the key that my friend left")
    box.press("Enter")                                   # Enter re-reads (a front end may swallow change)
    assert numbers(page)["tokens"] == "the key that my friend left".split() and numbers(page)["step"] == 6
    for key, step in (("ArrowLeft", 5), ("ArrowLeft", 4), ("Home", 1), ("ArrowRight", 2), ("End", 6), ("PageUp", 6)):
        slider.press(key)
        assert numbers(page)["step"] == step, key
    count = page.evaluate("() => document.querySelector('.seqviz-web').seqvizView.timings.length")
    box.press("Enter")                                   # the same sentence again: nothing to redo
    assert page.evaluate("() => document.querySelector('.seqviz-web').seqvizView.timings.length") == count
    assert page.errors == []
    page.close()


@needs_chromium
def test_the_still_stays_without_javascript_and_in_print(browser):
    from seqviz.viz import NoteCanvas

    model, vocab = make_classifier("rnn")
    sentence = "the keys near the old cabinet"
    _, states, probs = seqviz_reading(model, vocab, sentence)
    still = NoteCanvas(sentence.split(), states, probs, class_names=["is", "are"]).show(6)
    html = "<html><body>" + sticky_note_view(model, vocab, sentence, class_names=["is", "are"], still=still).html()
    shown = "(s) => { const e = document.querySelector(s); return !!e && e.getBoundingClientRect().height > 0; }"
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_content(html)
    assert page.evaluate(shown, ".seqviz-web-still img") and not page.evaluate(shown, ".seqviz-web-live")
    context.close()
    page = open_views(browser, sticky_note_view(model, vocab, sentence, class_names=["is", "are"], still=still))
    assert page.evaluate(shown, ".seqviz-web-live svg") and not page.evaluate(shown, ".seqviz-web-still img")
    page.emulate_media(media="print")
    assert page.evaluate(shown, ".seqviz-web-still img") and not page.evaluate(shown, ".seqviz-web-live")
    page.close()
