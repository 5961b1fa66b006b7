"""The live head view of chapters 8 and 9: one set of controls, counted from 1, and what it draws."""

import base64

import numpy as np
import pytest
import torch

from seqviz.models import MultiHeadAttention
from seqviz.viz import HeadsCanvas, head_view_widget

LAYERS, HEADS = 2, 3


def attend(sentence):
    """Self-attention weights of real MultiHeadAttention layers over random embeddings of the words."""
    words = sentence.split()
    if "teh" in words:
        raise ValueError("this model has never seen 'teh'")
    torch.manual_seed(len(words))
    x = torch.randn(1, len(words), 6)
    weights = []
    for layer in range(LAYERS):
        x, w = MultiHeadAttention(6, HEADS)(x, x, x)  # w: (1, heads, T, T)
        weights.append(w.detach())
    return words, weights


def png(view) -> bytes:
    return base64.b64decode(view.output.outputs[0]["data"]["image/png"])


def message(view) -> str:
    return view.output.outputs[0]["data"]["text/plain"]


def test_sliders_count_layers_and_heads_from_one_and_draw_what_they_say():
    view = head_view_widget(attend, num_layers=LAYERS, num_heads=HEADS, sentence="the cat sat on the mat")
    layer, head = view.controls["layer"], view.controls["head"]
    assert (layer.min, layer.max, layer.value) == (1, LAYERS, 1)
    assert list(head.options) == ["1", "2", "3", "mean"] and head.value == "1"
    tokens, weights = attend("the cat sat on the mat")
    canvas = HeadsCanvas(weights, tokens)
    layer.value, head.value = 2, "3"  # slider "layer 2, head 3" is index (1, 2), as the title says
    assert png(view) == canvas.show(1, 2).data
    np.testing.assert_allclose(canvas.image.get_array(), weights[1][0, 2].numpy(), atol=1e-6)
    assert canvas.title.get_text() == "layer 2, head 3"
    head.value = "mean"
    assert png(view) == canvas.show(1, None).data
    np.testing.assert_allclose(canvas.image.get_array(), weights[1][0].mean(0).numpy(), atol=1e-6)
    assert view.last_update_ms > 0


def test_bad_input_shows_a_short_message_never_a_traceback():
    view = head_view_widget(attend, num_layers=LAYERS, num_heads=HEADS, sentence="the cat sat")
    box = view.controls["sentence"]
    box.value = "the cat sat on teh mat"
    assert "never seen 'teh'" in message(view)
    box.value = "   "
    assert "type a sentence" in message(view)
    box.value = " ".join(["cat"] * 500)
    assert "500 words" in message(view) and "at most 64" in message(view)
    box.value = "the cat sat"
    assert "image/png" in view.output.outputs[0]["data"]
    wrong = head_view_widget(attend, num_layers=3, num_heads=HEADS, sentence="the cat sat")
    assert "2 layers of 3 heads" in message(wrong) and "built for 3 layers" in message(wrong)


def test_two_sentences_and_checks():
    def pair(sentence_a, sentence_b):
        return attend(f"{sentence_a} {sentence_b}")

    view = head_view_widget(pair, num_layers=LAYERS, num_heads=HEADS, sentence_a="the cat", sentence_b="sat down")
    assert list(view.controls) == ["sentence_a", "sentence_b", "layer", "head"]
    view.controls["sentence_b"].value = ""
    assert "'sentence_b'" in message(view)
    with pytest.raises(ValueError, match="function"):
        head_view_widget("attend", num_layers=1, num_heads=1, sentence="a")
    with pytest.raises(ValueError, match="sentences as text"):
        head_view_widget(attend, num_layers=1, num_heads=1)
    with pytest.raises(ValueError, match="at least 1"):
        head_view_widget(attend, num_layers=0, num_heads=1, sentence="a")
    with pytest.raises(ValueError, match="self-attention"):
        HeadsCanvas([torch.rand(2, 3, 4)], list("abc"))
    with pytest.raises(ValueError, match="layer must be"):
        HeadsCanvas([torch.rand(2, 3, 3)], list("abc")).show(1, 0)
