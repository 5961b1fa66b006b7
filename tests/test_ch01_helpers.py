"""Chapter 1's plot helpers (seqviz.viz) and exercise checkers (seqviz.exercises.ch01)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from seqviz.viz import (accuracy_vs_distance_figure, prediction_bars_figure, prediction_bars_plot,  # noqa: E402
                        slider_figure)

CLASSES = ["dog", "man", "cat"]


# -- prediction_bars_figure -------------------------------------------------------------------


def test_prediction_bars_figure_one_trace_per_model():
    fig = prediction_bars_figure({"bag of words": torch.tensor([0.5, 0.5, 0.0]), "RNN": np.array([0.9, 0.05, 0.05])},
                                 CLASSES, title="the dog bites the man")
    assert [t.name for t in fig.data] == ["bag of words", "RNN"]
    assert list(fig.data[0].x) == CLASSES
    np.testing.assert_allclose(fig.data[1].y, [0.9, 0.05, 0.05])
    assert fig.layout.barmode == "group"
    assert fig.layout.title.text == "the dog bites the man"


def test_prediction_bars_figure_works_in_a_slider():
    frames = {s: prediction_bars_figure({"a": [1, 0, 0], "b": [0, 1, 0]}, CLASSES, title=s) for s in ("x y", "y x")}
    fig = slider_figure(frames, slider_label="sentence")
    assert len(fig.data) == 4
    assert [step["label"] for step in fig.layout.sliders[0].steps] == ["x y", "y x"]
    # below the axis: slanted tick labels (a phone) and the axis title must fit above the slider's label
    tallest = max(f.layout.height or 380 for f in frames.values())
    assert fig.layout.sliders[0].pad.t >= 70 and fig.layout.height >= tallest + fig.layout.sliders[0].pad.t


@pytest.mark.parametrize("probs", [{}, {"a": [0.5, 0.5]}, {"a": [[0.2, 0.3, 0.5]]}])
def test_prediction_bars_figure_rejects_bad_input(probs):
    with pytest.raises(ValueError):
        prediction_bars_figure(probs, CLASSES)


# -- accuracy_vs_distance_figure ---------------------------------------------------------------


def test_accuracy_vs_distance_figure_lines_reach_and_chance():
    distances = [0, 1, 2, 3, 4]
    fig = accuracy_vs_distance_figure(distances, {"CNN": [1, 1, 1, 0.12, 0.13], "RNN": [1, 1, 1, 1, 0.9]},
                                      chance=0.125, reach={"CNN": 2})
    names = [t.name for t in fig.data]
    assert names == ["CNN", "CNN: reach", "RNN", "chance"]
    reach_line = fig.data[1]
    assert list(reach_line.x) == [2.5, 2.5]  # halfway between the last visible and the first invisible distance
    assert reach_line.line.color == fig.data[0].line.color  # same colour as its model
    assert fig.data[0].line.color != fig.data[2].line.color
    assert list(fig.data[3].y) == [0.125, 0.125]
    assert list(fig.data[3].x) == [0, 4]


def test_accuracy_vs_distance_figure_without_extras():
    fig = accuracy_vs_distance_figure(torch.arange(3), {"RNN": torch.tensor([1.0, 0.9, 0.8])})
    assert [t.name for t in fig.data] == ["RNN"]


@pytest.mark.parametrize("kwargs", [
    dict(accuracies={}),
    dict(accuracies={"CNN": [1.0, 0.5]}),  # 2 accuracies for 3 distances
    dict(accuracies={"CNN": [1.0, 0.5, 0.1]}, reach={"RNN": 2}),  # reach of an unknown model
    dict(accuracies={"CNN": [1.0, 0.5, 0.1]}, chance=1.5),
])
def test_accuracy_vs_distance_figure_rejects_bad_input(kwargs):
    with pytest.raises(ValueError):
        accuracy_vs_distance_figure([0, 1, 2], **kwargs)


# -- prediction_bars_plot (matplotlib) --------------------------------------------------------


def test_prediction_bars_highlights_each_models_answer():
    fig = prediction_bars_plot({"bag of words": [0.2, 0.7, 0.1], "RNN": torch.tensor([0.8, 0.1, 0.1])}, CLASSES)
    axes = fig.axes
    assert len(axes) == 2
    assert axes[0].get_title().startswith("bag of words: man")
    assert axes[1].get_title().startswith("RNN: dog")
    colors = [bar.get_facecolor() for bar in axes[1].patches]
    assert colors[0] != colors[1] and colors[1] == colors[2]  # only the top class is dark
    assert [t.get_text() for t in axes[0].get_yticklabels()] == CLASSES
    for ax in axes:
        bottom, top = ax.get_ylim()
        assert bottom > top  # the first class is drawn at the top, in every panel
    plt.close(fig)


@pytest.mark.parametrize("probs", [{}, {"a": [0.5, 0.5]}])
def test_prediction_bars_rejects_bad_input(probs):
    with pytest.raises(ValueError):
        prediction_bars_plot(probs, CLASSES)


# -- exercises of chapter 1 --------------------------------------------------------------------


def test_ch01_exercises_are_registered():
    from seqviz.exercises import EXERCISES

    assert {"ch01.ex1", "ch01.ex2", "ch01.ex3", "ch01.ex4"} <= set(EXERCISES)


@pytest.mark.parametrize("key", ["ch01.ex1", "ch01.ex2", "ch01.ex3", "ch01.ex4"])
def test_ch01_reference_passes_and_wrong_answers_fail(key):
    from seqviz.exercises import EXERCISES, run_checker
    from instructor.exercises import SOLUTIONS

    assert key in EXERCISES
    ok, message = run_checker(key, SOLUTIONS[key].reference())
    assert ok, message
    assert len(SOLUTIONS[key].wrong) >= 2
    for make_wrong, _ in SOLUTIONS[key].wrong.values():
        ok, message = run_checker(key, make_wrong())
        assert not ok
        assert message  # feedback, not silence


def test_ch01_checkers_survive_nonsense():
    from seqviz.exercises import run_checker

    for key in ("ch01.ex1", "ch01.ex2", "ch01.ex3", "ch01.ex4"):
        for nonsense in ("sixty", [1, 2], lambda *args: 1 / 0):
            ok, message = run_checker(key, nonsense)
            assert not ok and isinstance(message, str)


def test_window_mlp_grows_with_its_window_and_reads_no_other_length():
    from seqviz.models import WindowMLP

    V, E, H, C = 30, 8, 16, 3
    for window in (5, 50):
        mlp = WindowMLP(V, E, window, H, C)
        assert sum(p.numel() for p in mlp.parameters()) == V * E + (window * E * H + H) + (H * C + C)
    # the same network as an nn.Sequential over the flattened window (chapter 2's first form), weight for weight
    torch.manual_seed(0)
    mlp = WindowMLP(V, E, 5, H, C, activation="tanh")
    torch.manual_seed(0)
    plain = torch.nn.Sequential(torch.nn.Embedding(V, E), torch.nn.Flatten(), torch.nn.Linear(5 * E, H),
                                torch.nn.Tanh(), torch.nn.Linear(H, C))
    ids = torch.randint(0, V, (4, 5))
    torch.testing.assert_close(mlp(ids), plain(ids))
    with pytest.raises(ValueError, match=r"exactly 5 tokens: ids must be \(B, 5\), got shape \(1, 500\)"):
        mlp(torch.zeros(1, 500, dtype=torch.long))
    with pytest.raises(ValueError, match="activation"):
        WindowMLP(V, E, 5, H, C, activation="gelu")
