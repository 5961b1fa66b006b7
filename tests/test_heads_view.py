"""Chapter 8's views: head view, bertviz bridge, positional encodings, cost (the measurements: test_measure.py,
test_experiments_*.py)."""

import numpy as np
import pytest
import torch

from seqviz.measure import crossover, fit_power_law
from seqviz.models import MultiHeadAttention, positional_encoding
from seqviz.viz import (cost_figure, head_view_figure, position_similarity_figure, positional_encoding_figure,
                        to_bertviz)


def _attn(layers=2, heads=3, T=4):
    return [torch.rand(1, heads, T, T).softmax(-1) for _ in range(layers)]


def test_head_view_has_composable_layer_and_head_sliders():
    att = _attn()
    fig = head_view_figure(att, ["a", "b", "a", "c"])
    assert len(fig.data) == 4  # 3 heads + mean
    assert [t.visible for t in fig.data] == [True, False, False, False]
    layer_slider, head_slider = fig.layout.sliders
    assert len(layer_slider.steps) == 2 and len(head_slider.steps) == 4
    step = layer_slider.steps[1]
    assert step.method == "restyle" and list(step.args[1]) == [0, 1, 2, 3]
    np.testing.assert_allclose(step.args[0]["z"][2], att[1][0, 2].numpy(), atol=1e-4)
    np.testing.assert_allclose(step.args[0]["z"][3], att[1][0].mean(0).numpy(), atol=1e-4)
    assert head_slider.steps[2].args[0]["visible"] == [False, False, True, False]
    assert list(fig.layout.xaxis.ticktext) == ["a", "b", "a", "c"]  # repeated tokens keep their label


def test_head_view_accepts_cross_attention_and_checks_labels():
    cross = [torch.rand(2, 3, 5)]  # (heads, Tq, Tk)
    fig = head_view_figure(cross, list("vwxyz"), list("abc"), average=False)
    assert len(fig.data) == 2 and np.asarray(fig.data[0].z).shape == (3, 5)
    with pytest.raises(ValueError, match="query tokens"):
        head_view_figure(cross, list("vwxyz"))
    with pytest.raises(ValueError, match="agree"):
        head_view_figure([torch.rand(2, 3, 3), torch.rand(2, 4, 4)], list("abc"))
    with pytest.raises(ValueError):
        head_view_figure(torch.rand(3, 3), list("abc"))


def test_to_bertviz_shapes_and_checks():
    _, w = MultiHeadAttention(8, 2)(*(torch.randn(3, 5, 8),) * 3)
    out = to_bertviz([w, w], list("abcde"), batch_index=2)
    assert len(out) == 2 and out[0].shape == (1, 2, 5, 5)
    torch.testing.assert_close(out[1][0], w[2].detach())
    with pytest.raises(ValueError, match="tokens"):
        to_bertviz([w], list("abc"))
    with pytest.raises(ValueError):
        to_bertviz([], [])


def test_bertviz_head_view_accepts_our_tensors():
    bertviz = pytest.importorskip("bertviz")
    html = bertviz.head_view(to_bertviz(_attn(T=3), list("xyz")), list("xyz"), html_action="return")
    assert "xyz"[0] in html.data


def test_positional_figures():
    pe = positional_encoding(20, 8)
    fig = positional_encoding_figure(pe)
    assert np.asarray(fig.data[0].z).shape == (20, 8)
    sim = np.asarray(position_similarity_figure(pe).data[0].z)
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-3)
    assert sim[5, 6] > sim[5, 15]  # nearby positions look alike
    with pytest.raises(ValueError):
        positional_encoding_figure(torch.rand(3))


def test_cost_figure():
    n = [16, 32, 64, 128]
    quad = [3e-7 * x ** 2 for x in n]
    lin = [2e-5 * x for x in n]
    p, c = fit_power_law(n, quad)
    cross = crossover(fit_power_law(n, quad), fit_power_law(n, lin))
    fig = cost_figure(n, {"attention": quad, "gru": lin}, {"attention": (p, c)}, cross)
    assert fig.layout.xaxis.type == "log" and len(fig.data) == 3
    assert fig.data[0].hovertemplate.endswith(" s<extra></extra>")  # times, in seconds
    # chapter 8's memory figure: hovering names MiB, not seconds
    memory = cost_figure(n, {"attention": quad}, ylabel="MiB saved for backward", unit="MiB")
    assert memory.data[0].hovertemplate.endswith(" MiB<extra></extra>")
    assert " s<" not in memory.data[0].hovertemplate
    with pytest.raises(ValueError, match="unit"):
        cost_figure(n, {"attention": quad}, unit="")


def test_heads_canvas_draws_the_layer_and_head_it_is_asked_for():
    """The still of chapters 8 and 9's live head view (seqviz.web.head_view): a layer's head, or their mean."""
    from seqviz.viz import HeadsCanvas

    attentions = _attn(layers=2, heads=3, T=4)
    canvas = HeadsCanvas(attentions, ["a", "b", "a", "c"])
    first = canvas.show(1, 2)
    assert first.data.startswith(b"\x89PNG")
    np.testing.assert_allclose(canvas.image.get_array(), attentions[1][0, 2].numpy(), atol=1e-6)
    assert canvas.title.get_text() == "layer 2, head 3"
    canvas.show(0, None)
    np.testing.assert_allclose(canvas.image.get_array(), attentions[0][0].mean(0).numpy(), atol=1e-6)
    assert canvas.title.get_text() == "layer 1, head mean"
    with pytest.raises(ValueError, match="self-attention"):
        HeadsCanvas([torch.rand(2, 3, 4)], list("abc"))
    with pytest.raises(ValueError, match="layer must be"):
        HeadsCanvas([torch.rand(2, 3, 3)], list("abc")).show(1, 0)
