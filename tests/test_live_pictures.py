"""The live views' fast pictures (seqviz.viz: PredictionBarsPicture, HeatmapPicture, DecayPicture, BeamTreePicture).

Each keeps one figure and redraws part of it per call, so the risk is a stale picture: a
bar, a curve or a node left over from the previous call. Each test draws A then B on one
picture and B on a fresh one: the two PNGs must be pixel-identical. The bars are also
compared with the static ``prediction_bars_plot`` figure they stand in for.
"""

import io

import numpy as np
import pytest
import torch
from PIL import Image

from seqviz.decode import beam_search
from seqviz.viz import BeamTreePicture, DecayPicture, HeatmapPicture, PredictionBarsPicture, prediction_bars_plot


def pixels(image) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(image.data)).convert("RGB"), dtype=np.int16)


def figure_pixels(figure) -> np.ndarray:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=figure.dpi)
    return np.asarray(Image.open(buffer).convert("RGB"), dtype=np.int16)


def test_bars_after_another_sentence_equal_a_fresh_picture():
    a = {"bag of words": [0.7, 0.2, 0.1], "RNN": [0.1, 0.1, 0.8]}
    b = {"bag of words": [0.2, 0.5, 0.3], "RNN": [0.6, 0.3, 0.1]}
    reused = PredictionBarsPicture()
    reused.show(a, ["x", "y", "z"], title="first")
    np.testing.assert_array_equal(pixels(reused.show(b, ["x", "y", "z"], title="second")),
                                  pixels(PredictionBarsPicture().show(b, ["x", "y", "z"], title="second")))


def test_bars_show_what_the_static_figure_draws():
    probs = {"bag of words": [0.7, 0.2, 0.1], "RNN": [0.1, 0.1, 0.8]}
    other = {"bag of words": [0.1, 0.2, 0.7], "RNN": [0.8, 0.1, 0.1]}
    live = pixels(PredictionBarsPicture().show(probs, ["x", "y", "z"], title="t"))
    same = np.abs(live - figure_pixels(prediction_bars_plot(probs, ["x", "y", "z"], title="t"))).mean()
    different = np.abs(live - figure_pixels(prediction_bars_plot(other, ["x", "y", "z"], title="t"))).mean()
    assert same < different / 10, (same, different)  # only the drawing order of bars and grid lines differs


def test_bars_reject_a_wrong_number_of_probabilities():
    with pytest.raises(ValueError, match="3 entries for 2 classes"):
        PredictionBarsPicture().show({"RNN": [0.2, 0.3, 0.5]}, ["x", "y"])


def test_heatmap_after_a_longer_sentence_equals_a_fresh_picture():
    long, short = torch.rand(9, 8), torch.rand(5, 4)
    kwargs = dict(vmin=0, vmax=1, xlabel="source word", ylabel="output token")
    reused = HeatmapPicture(**kwargs)
    reused.show(long, [f"w{i}" for i in range(8)], [f"y{i}" for i in range(9)], title="long")
    np.testing.assert_array_equal(
        pixels(reused.show(short, list("abcd"), list("pqrst"), title="short")),
        pixels(HeatmapPicture(**kwargs).show(short, list("abcd"), list("pqrst"), title="short")))


def test_heatmap_picture_names_the_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\) matrix needs 3 x labels and 2 y labels, got 2 and 2"):
        HeatmapPicture(vmin=0, vmax=1).show(torch.rand(2, 3), ["a", "b"], ["p", "q"])


def test_decay_after_other_curves_equals_a_fresh_picture():
    t = torch.arange(1, 61)
    reused = DecayPicture(xlabel="step", ylabel="norm")
    reused.show({"measured": (t[:30], 0.5 ** t[:30])}, {"predicted": (t[:30], 0.4 ** t[:30])}, title="a")
    later = ({"measured": (t, 1.1 ** t), "clipped": (t, 1.05 ** t)}, {"predicted": (t, 1.2 ** t)})
    np.testing.assert_array_equal(pixels(reused.show(*later, title="b")),
                                  pixels(DecayPicture(xlabel="step", ylabel="norm").show(*later, title="b")))


def _search(beam_size):
    torch.manual_seed(0)
    table = torch.randn(6, 5).log_softmax(-1)  # next-token log-probabilities given the last token

    def log_prob_fn(prefixes):
        return table[prefixes[:, -1]]

    _, record = beam_search(log_prob_fn, 0, 1, beam_size, max_len=6, return_record=True, pruned_per_step=2)
    return record


def test_beam_tree_after_a_wider_beam_equals_a_fresh_picture():
    labels = ["<bos>", "<eos>", "a", "b", "c"]
    wide, narrow = _search(4), _search(2)
    reused = BeamTreePicture()
    reused.show(wide.nodes, labels, wide.best, title="k = 4", steps=6)
    (_, axes, _), = reused._drawn.values()
    children = len(axes.get_children())
    np.testing.assert_array_equal(pixels(reused.show(narrow.nodes, labels, narrow.best, title="k = 2", steps=6)),
                                  pixels(BeamTreePicture().show(narrow.nodes, labels, narrow.best, title="k = 2",
                                                                steps=6)))
    assert len(axes.get_children()) == children  # each call's tree is removed after drawing: no growth
