"""Chapter 2's helpers: the sticky-note figures, the live widget and the chapter's exercises."""

import math

import numpy as np
import pytest
import torch

from seqviz.exercises import run_checker
from seqviz.viz import reading_figure, sentences_figure
from seqviz.viz import NoteCanvas, loop_diagram, require_known_words, step_changes

WORDS = ["the", "keys", "key", "near", "old", "cabinet", "cabinets"]


def fake_states_fn(sentence):
    """A deterministic stand-in for a model: unit 0 is the word's index, unit 1 counts tokens."""
    tokens = sentence.split()
    require_known_words(tokens, WORDS)
    states = torch.tensor([[WORDS.index(w) / 10, (t + 1) / 10, 0.0] for t, w in enumerate(tokens)])  # (T, 3)
    plural = torch.tensor([1.0 if "keys" in tokens[: t + 1] else 0.0 for t in range(len(tokens))])
    probs = torch.stack([1 - 0.8 * plural - 0.1, 0.8 * plural + 0.1], dim=1)  # (T, 2)
    return tokens, states, probs


def test_step_changes_measures_each_rewrite_from_a_blank_note():
    states = torch.tensor([[3.0, 4.0], [3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(step_changes(states), [5.0, 0.0, 5.0])
    with pytest.raises(ValueError, match=r"\(T, H\)"):
        step_changes(torch.zeros(3))


def test_unknown_words_get_a_friendly_message():
    require_known_words(["the", "keys"], WORDS)  # known: no error
    with pytest.raises(ValueError, match="never seen 'keyz'.*knows 7 words, such as the, keys"):
        require_known_words(["the", "keyz", "near", "keyz"], WORDS)
    with pytest.raises(ValueError, match="empty"):
        require_known_words([], WORDS)


def test_reading_figure_precomputes_one_picture_per_step():
    tokens, states, probs = fake_states_fn("the keys near the old cabinet")
    fig = reading_figure(tokens, states, probs, class_names=["is", "are"], track=1)
    T = len(tokens)
    assert len(fig.data) == 3 * T  # heatmap, change bars, P(are) per step
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == tokens
    # step 2 ("keys"): only its three traces are visible, the heatmap shows 2 columns, the frame sits on column 1
    visible, layout = steps[1].args
    assert visible["visible"] == [j // 3 == 1 for j in range(3 * T)]
    z = np.array(fig.data[3].z, dtype=float)  # (H, T)
    assert np.isfinite(z[:, :2]).all() and np.isnan(z[:, 2:]).all()
    assert layout["shapes"][0]["x0"] == 0.5
    assert "'keys'" in layout["title.text"] and "are (90%)" in layout["title.text"]
    assert fig.data[5].yaxis == "y3"  # the probability line has its own axis
    # the default active step is the end of the sentence
    assert fig.layout.sliders[0].active == T - 1 and fig.data[-1].visible
    with pytest.raises(ValueError, match="one hidden state per token"):
        reading_figure(tokens, states[:-1], probs)
    with pytest.raises(ValueError, match="class names"):
        reading_figure(tokens, states, probs, class_names=["only one"])


def test_sentences_figure_switches_sentences_and_their_tick_labels():
    readings = {s: fake_states_fn(s) for s in ("the keys near the old cabinet", "the key")}
    fig = sentences_figure(readings, class_names=["is", "are"], track=1)
    assert not fig.layout.sliders  # a menu that names the sentences, not numbered slider steps
    steps = fig.layout.updatemenus[0].buttons
    assert [s.label for s in steps] == ["the keys near the old cabinet", "the key"]
    layout = steps[1].args[1]
    assert layout["xaxis.ticktext"] == ["the", "key"] and layout["title.text"].endswith("predicts is (90%)")
    assert fig.layout.title.text.endswith("predicts are (90%)")
    long = sentences_figure({"the keys that my friend left on the old table near the door": readings["the key"]})
    assert long.layout.updatemenus[0].buttons[0].label.endswith("…")  # short enough for a phone
    with pytest.raises(ValueError, match="same number of hidden units"):
        sentences_figure({"a": (["the"], torch.zeros(1, 3)), "b": (["the"], torch.zeros(1, 4))})
    with pytest.raises(ValueError, match="at least one"):
        sentences_figure({})


def test_note_canvas_masks_the_unread_tokens_and_returns_a_png():
    tokens, states, probs = fake_states_fn("the keys near the old cabinet")
    canvas = NoteCanvas(tokens, states, probs, ["is", "are"], track=1)
    image = canvas.show(2)
    assert image.data[:8] == b"\x89PNG\r\n\x1a\n"
    mask = np.ma.getmaskarray(canvas.image.get_array())  # (H, T)
    assert not mask[:, :2].any() and mask[:, 2:].all()
    assert [bar.get_height() for bar in canvas.bars][2:] == [0.0] * 4
    assert "word 2 of 6, 'keys'" in canvas.title.get_text()
    canvas.show(99)  # clamped to the last step
    assert not np.ma.getmaskarray(canvas.image.get_array()).any()


def test_canvas_rejects_a_reading_with_the_wrong_shape():
    with pytest.raises(ValueError, match="one hidden state per token"):
        NoteCanvas("the keys near".split(), torch.zeros(2, 3))


def test_loop_diagram_names_every_token():
    fig = loop_diagram(["the", "keys"])
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]   # folded and unrolled may be two panels
    assert any("'keys'" in t for t in texts) and any(t in ("$h_2$", "$h_{2}$") for t in texts)
    with pytest.raises(ValueError):
        loop_diagram([])


@pytest.mark.parametrize("key,answer,ok", [
    ("ch02.ex3", 2.125, True), ("ch02.ex3", 3.0, False),
    ("ch02.ex2", lambda i, h: h * (i + h) + 2 * h, True), ("ch02.ex2", 50, False),
    ("ch02.ex4", lambda w, xs: 0.0, False),
])
def test_chapter_two_checkers_on_hand_written_answers(key, answer, ok):
    result, message = run_checker(key, answer)
    assert result is ok, message
