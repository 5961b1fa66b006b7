"""seqviz.measure: timing, the one count of activation memory (checked by hand), power-law fits, parameter
counts, one model's costs and the one markdown table writer."""

import math

import pytest
import torch
from torch import nn

from seqviz.models import GRU
from seqviz.measure import (Stopwatch, activation_bytes, count_parameters, crossover, fit_power_law, fitted_growth,
                            markdown_table, match_parameters, measure, spread_cell, time_call)

F32 = 4  # bytes per float32


def test_linear_tanh_by_hand():
    # y = tanh(x W^T + b): backward needs x (for dW) and tanh's output (for tanh'); W itself is a parameter
    torch.manual_seed(0)
    layer, x = nn.Linear(3, 5), torch.randn(4, 3)
    assert activation_bytes(lambda: torch.tanh(layer(x)).sum()) == (4 * 3 + 4 * 5) * F32


def test_a_tensor_saved_twice_counts_once_and_parameters_never():
    # with x requiring grad, addmm also saves W^T (a view of a parameter): not counted
    torch.manual_seed(0)
    layer, x = nn.Linear(3, 5), torch.randn(4, 3)
    h = torch.randn(4, 5, requires_grad=True) * 1.0  # a non-leaf activation
    # h is saved by both multiplications: one storage
    assert activation_bytes(lambda: (h * h).sum() + torch.tanh(layer(x)).sum()) == (4 * 5 + 4 * 3 + 4 * 5) * F32


def test_rnn_by_hand_and_linear_in_length():
    # nn.RNN on a CPU: x (for dW_ih), h_0 ... h_T (tanh outputs and inputs of the next W_hh product)
    torch.manual_seed(0)
    B, I, H = 2, 3, 5
    rnn = nn.RNN(I, H, batch_first=True)
    for T in (1, 4, 9):
        x = torch.randn(B, T, I)
        expected = (B * T * I + (T + 1) * B * H) * F32
        assert activation_bytes(lambda: rnn(x)[0].sum()) == expected


def test_attention_weights_grow_with_the_square_of_the_length():
    x = torch.randn(2, 16, 8, requires_grad=True)  # a leaf that requires grad: not counted, like a weight
    small = activation_bytes(lambda: (x[:, :8] @ x[:, :8].transpose(1, 2)).softmax(-1).sum())
    big = activation_bytes(lambda: (x @ x.transpose(1, 2)).softmax(-1).sum())
    assert small == 2 * 8 * 8 * F32 and big == 2 * 16 * 16 * F32  # the softmax's output, (B, T, T)


def test_a_saved_view_costs_its_whole_buffer():
    # mul saves both factors; x[:2] is a view of x's 10 x 5 buffer, which stays alive for backward: 50 floats,
    # not the view's 10. A count of the view's own bytes (numel * element_size) would say 2 * 5 * 4.
    x = torch.randn(10, 5, requires_grad=True) * 1.0   # a non-leaf activation
    assert activation_bytes(lambda: (x[:2] * x[:2]).sum()) == 10 * 5 * F32


def test_plain_loop_gru_by_hand_counts_the_gate_buffer_it_slices():
    # Per step the plain loop (models/gru.py) saves h_{t-1} (for W_hh's gradient and z * h), the reset and update
    # gates and the candidate (their activations' outputs), 1 - z (for (1 - z) * n), and W_hh h + b_hh: a (B, 3H)
    # buffer of which reset_gate * h_n saves the view h_n, so all 3H count. Plus x (B, T, I), saved once for W_ih.
    # 8 B H per step. Counting the view's own bytes instead gives 6 B H per step: 172,800 bytes, not 224,000.
    B, I, H, T = 4, 24, 32, 50
    gru, x = GRU(I, H, fused=False), torch.randn(B, T, I)
    nbytes = activation_bytes(lambda: gru(x)[0].sum())
    assert nbytes == (B * T * I + 8 * B * T * H) * F32 == 224_000


def test_without_grad_it_refuses_rather_than_count_zero_and_returns_the_result():
    layer, x = nn.Linear(3, 5), torch.randn(4, 3)
    with torch.no_grad(), pytest.raises(ValueError, match="no_grad"):
        activation_bytes(lambda: layer(x))
    with torch.inference_mode(), pytest.raises(ValueError, match="no_grad"):
        activation_bytes(lambda: layer(x))

    def inside():
        with torch.no_grad():
            return layer(x)

    with pytest.raises(ValueError, match="does not require grad"):
        activation_bytes(inside)
    assert activation_bytes(lambda: torch.randn(3, requires_grad=True).sum()) == 0   # sum saves nothing: truly 0
    loss, nbytes = activation_bytes(lambda: torch.tanh(layer(x)).sum(), return_result=True)
    loss.backward()
    assert nbytes > 0 and layer.weight.grad is not None


def test_bad_input():
    with pytest.raises(ValueError, match="function"):
        activation_bytes(torch.randn(3))
    with pytest.raises(ValueError, match="function"):
        time_call(3)


# -- time ---------------------------------------------------------------------------------------------------


def test_time_call_is_the_median_per_call():
    import time

    calls = []

    def sleepy():
        calls.append(1)
        time.sleep(0.002)

    seconds = time_call(sleepy, min_time=0.01, repeats=3)
    assert 0.002 <= seconds < 0.02
    # one warm-up, one to size the inner loop, then 3 repeats of at least min_time / once calls each
    assert len(calls) >= 2 + 3 * 2


def test_the_stopwatch_adds_its_intervals_and_leaves_the_pauses_out():
    import time

    clock = Stopwatch()
    with clock:
        time.sleep(0.01)
    time.sleep(0.25)   # off the clock
    clock.start()
    time.sleep(0.01)
    running = clock.elapsed()
    total = clock.stop()
    assert 0.02 <= running <= total < 0.25 and not clock.running   # the pause would make it >= 0.27
    with pytest.raises(ValueError, match="not running"):
        clock.stop()
    with pytest.raises(ValueError, match="already running"):
        clock.start().start()


def test_time_samples_are_the_repeats_time_call_takes_the_median_of(monkeypatch):
    import seqviz.measure as measure

    clock = [0.0]  # a fake clock: each call of the function takes the next duration, exactly
    durations = iter([1.0, 1.0, 3.0, 1.0, 2.0])  # warm-up, sizing, then the three repeats
    monkeypatch.setattr(measure.time, "perf_counter", lambda: clock[0])

    def uneven():
        clock[0] += next(durations)

    assert measure.time_samples(uneven, min_time=0.0, repeats=3, device="cpu") == [3.0, 1.0, 2.0]
    durations = iter([1.0, 1.0, 3.0, 1.0, 2.0])
    assert measure.time_call(uneven, min_time=0.0, repeats=3, device="cpu") == 2.0   # their median
    with pytest.raises(ValueError, match="expects a function"):
        measure.time_samples(3)


# -- growth -------------------------------------------------------------------------------------------------


def test_power_law_fit_and_crossover():
    n = [16, 32, 64, 128]
    quad = [3e-7 * x ** 2 for x in n]
    lin = [2e-5 * x for x in n]
    p, c = fit_power_law(n, quad)
    assert math.isclose(p, 2.0, rel_tol=1e-9) and math.isclose(c, 3e-7, rel_tol=1e-6)
    cross = crossover(fit_power_law(n, quad), fit_power_law(n, lin))
    assert math.isclose(cross, 2e-5 / 3e-7, rel_tol=1e-6)
    assert crossover((1.0, 2.0), (1.0, 3.0)) is None
    with pytest.raises(ValueError):
        fit_power_law([1], [1])


def test_fitted_growth_reads_every_point():
    assert fitted_growth([1, 2, 4, 8], [1, 2, 4, 8]) == pytest.approx(8.0)  # linear: a factor 8 over 1..8
    assert fitted_growth([16, 64], [0.1, 0.4]) == pytest.approx(4.0)
    # one slow first timing: the end points say it fell 10x, the fit over all four much less
    assert 1 / 10 < fitted_growth([1, 2, 4, 8], [10, 1, 1, 1]) < 1.0


# -- parameters and one model's costs -----------------------------------------------------------------------


def gru_parameters(input_size, hidden_size):
    # PyTorch's GRU: three gates, each W_ih (H x I), W_hh (H x H) and two biases of H
    return 3 * (hidden_size * input_size + hidden_size * hidden_size + 2 * hidden_size)


def test_count_parameters_matches_the_formula_and_counts_a_tied_weight_once():
    assert count_parameters(nn.GRU(5, 7)) == gru_parameters(5, 7)
    tied = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False))
    tied[1].weight = tied[0].weight
    assert count_parameters(tied) == 40
    with pytest.raises(ValueError, match="Module"):
        count_parameters(torch.zeros(3))


def test_match_parameters_picks_the_nearest_size():
    make = lambda h: nn.GRU(16, h)  # noqa: E731
    target = gru_parameters(16, 30) + 5
    size, count = match_parameters(make, target, range(10, 50))
    assert (size, count) == (30, gru_parameters(16, 30))
    # no size in range reaches the target: the largest is nearest
    assert match_parameters(make, 10**9, [4, 8, 12])[0] == 12
    with pytest.raises(ValueError, match="sizes"):
        match_parameters(make, target, [])
    with pytest.raises(ValueError, match="target"):
        match_parameters(make, 0, [4])


def test_measure_reports_parameters_latency_and_memory():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh())
    x = torch.randn(4, 3)
    cost = measure(model, (x,), (x[:1],), min_time=0.001, repeats=1)
    assert cost["parameters"] == 3 * 5 + 5
    # the training step keeps x (for dW) and tanh's output; the default loss squares a float copy of it (no copy
    # of a float32 tensor), so pow saves the tanh output again: one storage
    assert cost["memory_kb"] * 1024 == (4 * 3 + 4 * 5) * F32
    assert cost["latency_ms"] > 0 and model.training and model[0].weight.grad is None


# -- tables -------------------------------------------------------------------------------------------------


def test_markdown_table_formats_aligns_and_leaves_missing_cells_empty():
    rows = [{"model": "GRU", "score": 0.9123, "parameters": 12345, "ms": 1.23456},
            {"model": "LSTM", "score": 0.5, "parameters": 999, "ms": 1234.5}]
    table = markdown_table(rows, {"model": ("model", ""), "score": ("score", "%"), "parameters": ("params", ","),
                                  "ms": ("ms", None), "note": "note"})
    assert table.splitlines() == ["| model | score | params | ms | note |",
                                  "|---|---:|---:|---:|---|",
                                  "| GRU | 91.2% | 12,345 | 1.23 |  |",
                                  "| LSTM | 50.0% | 999 | 1,234 |  |"]
    # no columns: every key of the first row, numbers right-aligned, text left
    assert markdown_table([{"model": "GRU", "length": 8, "ms": 1.5}]).splitlines() == [
        "| model | length | ms |", "|---|---:|---:|", "| GRU | 8 | 1.5 |"]
    cell = lambda runs: spread_cell(runs, 1)  # noqa: E731
    assert markdown_table([{"x": [1.0, 2.0, 6.0]}], {"x": ("x", cell)}).endswith("| 3.0 (1.0–6.0) |")
    with pytest.raises(ValueError, match="non-empty list of dicts"):
        markdown_table([])


def test_markdown_table_writes_tiny_numbers_as_powers_of_ten_never_e_notation():
    # the default format is 3 significant digits; ".3g" alone would print 1.23e-05 into the reader's table
    rows = [{"x": 1.234e-5}, {"x": -4.5e-9}, {"x": 0.0012345}, {"x": 0.0}, {"x": float("inf")}]
    cells = [line.split("|")[1].strip() for line in markdown_table(rows).splitlines()[2:]]
    assert cells == ["1.23 × 10⁻⁵", "−4.5 × 10⁻⁹", "0.00123", "0", "inf"]
    assert not any("e-" in c for c in cells)


def test_spread_cell():
    assert spread_cell(torch.tensor([0.98, 1.0])) == "99.0 (98.0–100.0)"
    assert spread_cell([0.5]) == "50.0"
    assert spread_cell([0.2, 0.4], show_range=False) == "30.0"
    with pytest.raises(ValueError, match="at least one"):
        spread_cell([])


def test_largest_difference_sees_outputs_states_and_gradients():
    from seqviz.measure import largest_difference
    from seqviz.models import LSTM

    torch.manual_seed(0)
    builtin = torch.nn.LSTM(3, 4, batch_first=True)
    x = torch.randn(2, 5, 3)
    assert largest_difference(LSTM(3, 4).copy_from(builtin), builtin, (x,), gradients=True) < 1e-5
    # a layer whose forward is right and whose backward is wrong: only the gradients show it

    class DoubledGradient(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, grad):
            return 2 * grad

    class WrongBackward(nn.Linear):
        def forward(self, x):
            return DoubledGradient.apply(super().forward(x))

    linear = nn.Linear(3, 4)
    wrong = WrongBackward(3, 4)
    wrong.load_state_dict(linear.state_dict())
    assert largest_difference(wrong, linear, (x,)) == 0
    assert largest_difference(wrong, linear, (x,), gradients=True) > 0.1
    with pytest.raises(ValueError, match="shapes"):
        largest_difference(LSTM(3, 4), torch.nn.LSTM(3, 5, batch_first=True), (x,))
    with pytest.raises(ValueError, match="parameters"):
        largest_difference(LSTM(3, 4), torch.nn.LSTM(3, 4, batch_first=True, bias=False), (x,), gradients=True)


def test_interleaved_samples_take_turns_and_time_each_function(monkeypatch):
    import seqviz.measure as measure

    clock, order = [0.0], []

    def step(name, seconds):
        def fn():
            order.append(name)
            clock[0] += seconds
        return fn

    monkeypatch.setattr(measure.time, "perf_counter", lambda: clock[0])
    samples = measure.interleaved_samples({"a": step("a", 1.0), "b": step("b", 3.0)}, min_time=0.0, repeats=2,
                                          device="cpu")
    assert samples == {"a": [1.0, 1.0], "b": [3.0, 3.0]}
    assert order == ["a", "a", "b", "b", "a", "b", "a", "b"]   # warm-up and sizing, then repeats in turns
    with pytest.raises(ValueError, match="mapping"):
        measure.interleaved_samples({})
