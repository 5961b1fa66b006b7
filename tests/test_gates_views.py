"""Chapter 4's gate views: the survival product, the plotly figures and the matplotlib picture (the live view's
still; the live view itself runs in the browser: tests/test_web_gates.py)."""

import math

import numpy as np
import pytest
import torch

from seqviz.models import LSTM
from seqviz.viz import (GatesCanvas, accuracy_spread_figure, conveyor_belt_figure, forget_survival,
                        gate_heatmaps_figure, gate_slider_figure, gates_plot)
from seqviz.viz.gates.data import belt_floor

TOKENS = ["the", "keys", "near", "the", "old", "cabinet"]


def lstm_gates(T=len(TOKENS), H=5):
    torch.manual_seed(0)
    _, _, trace = LSTM(3, H)(torch.randn(1, T, 3), return_trace=True)
    return {name: trace[name][0, 0].detach() for name in ("forget", "input", "candidate", "output")}


def test_survival_equals_the_explicit_product():
    forget = torch.rand(7, 3, dtype=torch.float64)
    survival = forget_survival(forget)
    assert survival.shape == (7, 7, 3)
    for t in range(7):
        for s in range(7):
            for u in range(3):
                if s < t:
                    assert math.isnan(survival[t, s, u])
                else:
                    explicit = math.prod(forget[r, u].item() for r in range(t + 1, s + 1))
                    assert survival[t, s, u].item() == pytest.approx(explicit, rel=1e-12)


def test_survival_is_what_is_left_of_c_when_nothing_is_written():
    # with the input gate closed, c_s = f_s * ... * f_(t+1) * c_t: the belt's definition
    forget = torch.rand(6, 4, dtype=torch.float64)
    c = [torch.randn(4, dtype=torch.float64)]
    for t in range(1, 6):
        c.append(forget[t] * c[-1])
    torch.testing.assert_close(forget_survival(forget)[0, 5] * c[0], c[5])


def test_survival_batches_and_checks_its_input():
    forget = torch.rand(2, 5, 3)
    batched = forget_survival(forget)
    assert batched.shape == (2, 5, 5, 3)
    torch.testing.assert_close(batched[1], forget_survival(forget[1]), equal_nan=True)
    assert forget_survival(np.full((3, 2), 1.0))[0, 2].tolist() == [1.0, 1.0]  # an open belt keeps everything
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        forget_survival(torch.tensor([[1.5]]))
    with pytest.raises(ValueError, match="\\(T, H\\)"):
        forget_survival(torch.rand(4))


def test_gate_heatmaps_one_panel_per_gate_with_tokens_on_the_axis():
    gates = lstm_gates()
    fig = gate_heatmaps_figure(TOKENS, gates)
    assert len(fig.data) == 4
    assert [t.type for t in fig.data] == ["heatmap"] * 4
    for axis in ("xaxis", "xaxis2", "xaxis3", "xaxis4"):  # every panel names its tokens, read left to right
        assert list(fig.layout[axis].ticktext) == TOKENS
    assert list(fig.layout.yaxis.ticktext) == [f"unit {u}" for u in range(5)]  # every unit named
    assert fig.data[0].z.shape == (5, len(TOKENS))  # (units, tokens)
    assert {t.coloraxis for t in fig.data} == {"coloraxis", "coloraxis2"}  # gates 0..1, candidate signed
    bars = fig.layout.coloraxis.colorbar, fig.layout.coloraxis2.colorbar
    low = [b.y - b.len / 2 for b in bars]
    high = [b.y + b.len / 2 for b in bars]
    assert high[1] <= low[0] or high[0] <= low[1], "the two colour bars must not overlap"
    chosen = gate_heatmaps_figure(TOKENS, gates, units=[4, 0], unit_labels=["u4", "u0"])
    np.testing.assert_allclose(chosen.data[0].z[0], gates["forget"][:, 4].numpy(), rtol=1e-6)
    assert list(chosen.layout.yaxis.ticktext) == ["u4", "u0"]


def test_gate_views_reject_mismatched_tokens_and_shapes():
    gates = lstm_gates()
    with pytest.raises(ValueError, match="6 time steps but there are 5 tokens"):
        gate_heatmaps_figure(TOKENS[:5], gates)
    with pytest.raises(ValueError, match="same number of hidden units"):
        gate_heatmaps_figure(TOKENS, {"forget": torch.rand(6, 5), "input": torch.rand(6, 4)})
    with pytest.raises(ValueError, match="one sentence"):
        gate_heatmaps_figure(TOKENS, {"forget": torch.rand(1, 6, 5)})
    with pytest.raises(ValueError, match="units"):
        gate_heatmaps_figure(TOKENS, gates, units=[7])
    with pytest.raises(ValueError, match="unit labels"):
        gate_heatmaps_figure(TOKENS, gates, units=[0, 1], unit_labels=["a"])
    with pytest.raises(ValueError, match="tokens"):
        conveyor_belt_figure(TOKENS + ["extra"], gates["forget"])


def test_gate_slider_has_one_step_per_sentence_and_switches_tokens():
    long_gates, short_gates = lstm_gates(), lstm_gates(T=3)
    short_tokens = ["my", "dogs", "here"]
    fig = gate_slider_figure({"long": (TOKENS, long_gates), "short": (short_tokens, short_gates)})
    steps = fig.layout.updatemenus[0].buttons  # a menu that names each sentence
    assert [s.label for s in steps] == ["long", "short"] and len(fig.data) == 8
    assert [t.visible for t in fig.data] == [True] * 4 + [False] * 4
    assert steps[1].args[0]["visible"] == [False] * 4 + [True] * 4
    assert steps[1].args[1]["xaxis.ticktext"] == short_tokens == steps[1].args[1]["xaxis4.ticktext"]
    with pytest.raises(ValueError, match="gates"):
        gate_slider_figure({"a": (TOKENS, long_gates), "b": (short_tokens, {"forget": short_gates["forget"]})})


def test_conveyor_belt_frames_match_the_survival_product():
    forget = lstm_gates()["forget"]
    fig = conveyor_belt_figure(TOKENS, forget, units=[0, 2], start=1)
    T, per = len(TOKENS), 3  # two units and the mean
    assert len(fig.data) == T * per
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == TOKENS and fig.layout.sliders[0].active == 1
    assert [bool(t.visible) for t in fig.data] == [j // per == 1 for j in range(T * per)]
    survival = forget_survival(forget.double())
    np.testing.assert_allclose(fig.data[per * 1 + 1].y, survival[1, 1:, 2].numpy(), rtol=1e-6)
    np.testing.assert_allclose(fig.data[per * 1 + 2].y, survival[1, 1:].mean(-1).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="start"):
        conveyor_belt_figure(TOKENS, forget, start=6)


def test_conveyor_belt_axis_follows_what_survives():
    """An open belt on a linear axis from 0 to 1; a leaking one on a log axis that reaches its smallest share."""
    open_belt = torch.full((6, 3), 0.97)
    assert conveyor_belt_figure(TOKENS, open_belt).layout.yaxis.type != "log"
    leaking = torch.full((6, 3), 0.2)
    axis = conveyor_belt_figure(TOKENS, leaking).layout.yaxis
    assert axis.type == "log"
    assert 10 ** axis.range[0] <= 0.2 ** 5 < 10 ** (axis.range[0] + 1)  # the floor is the decade below


def test_accuracy_spread_figure_draws_band_seeds_and_mean():
    runs = {"RNN": torch.tensor([[0.9, 0.6], [0.8, 0.5], [0.7, 0.55]]), "LSTM": torch.tensor([[1.0, 0.99]])}
    fig = accuracy_spread_figure([2, 40], runs)
    assert len(fig.data) == 2 * 3 + 1  # band, seeds, mean per model; chance
    band, seeds, mean = fig.data[:3]
    np.testing.assert_allclose(mean.y, [0.8, 0.55])
    np.testing.assert_allclose(band.y, [0.9, 0.6, 0.5, 0.7])  # high forwards, low backwards
    assert len(seeds.y) == 6
    with pytest.raises(ValueError, match="2 distances"):
        accuracy_spread_figure([2, 40], {"GRU": torch.rand(3, 3)})


def test_gates_picture_draws_every_gate_and_the_belt_from_the_start():
    gates = lstm_gates()
    canvas = GatesCanvas(TOKENS, gates, units=[0, 1])
    first, later = canvas.show(0).data, canvas.show(3).data
    assert first[:8] == b"\x89PNG\r\n\x1a\n" and first != later
    assert canvas.show(-5).data == first                                  # clamped to the first token
    fig = gates_plot(TOKENS, gates, start=2, units=[0, 1])
    gates_axes, belt = fig.axes  # every gate in one image (one axes draws fast), and the belt
    assert [t.get_text() for t in gates_axes.texts if t.get_text() in gates] == list(gates)
    assert belt.get_xscale() == "log"
    assert belt.get_title() == "on the belt since 'near'"
    survival = forget_survival(gates["forget"].double()).numpy()
    np.testing.assert_allclose(belt.lines[1].get_xdata(), np.maximum(survival[2, 2:, 1], belt.get_xlim()[0]),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="start"):
        gates_plot(TOKENS, gates, start=9)
    with pytest.raises(ValueError, match="unit labels"):
        GatesCanvas(TOKENS, gates, units=[0, 1], unit_labels=["a"])


def test_belt_floor_follows_the_smallest_share_and_checks_its_input():
    assert belt_floor([1.0, 0.97, float("nan"), 0.05]) == 0.0            # every share >= 5%: a linear axis
    assert belt_floor([1.0, 0.2 ** 5]) == pytest.approx(1e-4)             # 0.00032: the decade below
    assert belt_floor([1.0, 1e-30]) == pytest.approx(1e-12)              # never below 10^-12
    with pytest.raises(ValueError, match="at least one share"):
        belt_floor([float("nan")])
    with pytest.raises(ValueError, match="lie in"):
        belt_floor([1.2])


def test_gates_picture_axis_follows_what_survives():
    """The still's belt axis, as conveyor_belt_figure's: linear for an open belt, log down to a leaking one's
    smallest share (not a fixed 10^-6, which crushes an open belt's lines against the right edge)."""
    gates = lstm_gates()
    gates["forget"] = torch.full((len(TOKENS), 5), 0.97)
    belt = gates_plot(TOKENS, gates, start=1, units=[0, 1]).axes[1]
    assert belt.get_xscale() == "linear" and belt.get_xlim() == (0.0, 1.05)
    gates["forget"] = torch.full((len(TOKENS), 5), 0.2)
    belt = gates_plot(TOKENS, gates, start=1, units=[0, 1]).axes[1]
    low = belt.get_xlim()[0]
    assert belt.get_xscale() == "log" and low <= 0.2 ** 5 < 10 * low      # the decade below the smallest share
    canvas = GatesCanvas(TOKENS, gates, units=[0, 1])
    assert canvas.fig.axes[1].get_xlim()[0] == pytest.approx(low)          # the same axis for every start
    assert canvas.show(4).data != canvas.show(0).data
