"""Chapter 10's helpers: the time series, the causal Transformer encoder, and the runners (the guide: test_guide.py)."""

import pytest
import torch

from seqviz.choosing import (agreement_rows, forecast_rows, markdown_table, measure, step_cost, streaming_cost,
                             translation_rows)
from seqviz.models import KINDS, CausalTransformerEncoder, Forecaster, make_encoder
from seqviz.data import forecast_windows, sine_series

ROW_KEYS = {"task", "model", "score", "metric", "train_s", "latency_ms", "memory_kb", "parameters"}


def test_sine_series_is_deterministic_and_shifts():
    a, b = sine_series(4, 100, seed=3), sine_series(4, 100, seed=3)
    assert a.shape == (4, 100) and torch.equal(a, b)
    assert not torch.equal(a, sine_series(4, 100, seed=4))
    calm = sine_series(50, 200, noise=0.0, shift=False, seed=0)
    shifted = sine_series(50, 200, noise=0.0, shift=True, seed=0)
    assert shifted[:, -40:].abs().max() > calm[:, -40:].abs().max()  # amplitude 1.5 after the shift
    with pytest.raises(ValueError, match="length"):
        sine_series(2, 0)


def test_forecast_windows_line_up():
    series = torch.arange(20.0).reshape(2, 10)
    x, y = forecast_windows(series, 4, horizon=2, stride=3)
    assert x.shape == (4, 4, 1) and y.shape == (4, 2)
    torch.testing.assert_close(x[0, :, 0], torch.tensor([0.0, 1, 2, 3]))
    torch.testing.assert_close(y[0], torch.tensor([4.0, 5]))
    with pytest.raises(ValueError, match="length"):
        forecast_windows(series, 9, horizon=2)


def test_causal_encoder_hides_the_future_and_fits_the_recurrent_interface():
    torch.manual_seed(0)
    enc = CausalTransformerEncoder(3, 8, num_heads=2, max_len=16).eval()
    x = torch.randn(2, 6, 3)
    out, _ = enc(x)
    assert out.shape == (2, 6, 8) and enc.hidden_size == 8
    y = x.clone()
    y[:, -1] += 1.0
    torch.testing.assert_close(enc(y)[0][:, :-1], out[:, :-1])
    with pytest.raises(ValueError, match="expected x"):
        enc(torch.randn(2, 6, 4))


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_forecasts(kind):
    torch.manual_seed(0)
    model = Forecaster(kind, hidden_size=8, horizon=2)
    assert model(torch.randn(5, 12, 1)).shape == (5, 2)
    assert model.rollout(torch.randn(12), 3).shape == (3,)
    assert make_encoder(kind, 4, 8)(torch.randn(2, 5, 4))[0].shape == (2, 5, 8)
    with pytest.raises(ValueError, match="kind"):
        make_encoder("CNN", 4, 8)


def test_measure_reports_parameters_latency_and_memory():
    model = Forecaster("GRU", hidden_size=8)
    cost = measure(model, (torch.randn(4, 10, 1),), (torch.randn(1, 10, 1),), min_time=0.001, repeats=1)
    assert cost["parameters"] == sum(p.numel() for p in model.parameters())
    assert cost["latency_ms"] > 0 and cost["memory_kb"] > 0


def test_runners_produce_one_row_per_model():
    rows = agreement_rows(("GRU", "Transformer"), hidden_size=8, steps=3, n_train=40, n_test=10, progress=False)
    rows += translation_rows(("LSTM", "Transformer"), hidden_size=16, steps=2, n_train=40, n_test=10, progress=False)
    forecast, models, (x, y) = forecast_rows(("RNN",), hidden_size=8, steps=2, n_series=4, series_length=80,
                                             progress=False)
    rows += forecast
    assert [(r["task"], r["model"]) for r in rows] == [("agreement", "GRU"), ("agreement", "Transformer"),
                                                       ("translation", "LSTM"), ("translation", "Transformer"),
                                                       ("forecasting", "RNN")]
    assert all(ROW_KEYS <= set(r) for r in rows) and set(models) == {"RNN"} and x.shape[0] == y.shape[0]
    table = markdown_table(rows, {"model": ("model", ""), "score": ("score", "%"), "parameters": ("params", ",")})
    assert table.count("\n") == len(rows) + 1 and "%" in table


def test_cost_helpers_return_rows():
    rows = step_cost([4, 8], kinds=("GRU", "Transformer"), width=8, batch_size=2, min_time=0.001, repeats=1,
                     progress=False)
    assert len(rows) == 4 and all(r["saved_MiB"] > 0 for r in rows)
    stream = streaming_cost([4, 8], d_model=8, num_layers=1, vocab_size=10, min_time=0.001, repeats=1,
                            progress=False)
    assert {r["model"] for r in stream} == {"GRU", "Transformer (KV cache)", "Transformer (no cache)"}
