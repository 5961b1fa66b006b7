"""Chapter 10's runners: the same tasks for every kind of model, one row each (the guide: test_guide.py)."""

import pytest
import torch

from seqviz.experiments import agreement_rows, forecast_rows, translation_rows
from seqviz.measure import markdown_table

ROW_KEYS = {"task", "model", "score", "metric", "train_s", "latency_ms", "memory_kb", "parameters"}


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
    # the score of a row is its task's own measure, recomputed here for the forecaster
    model = models["RNN"].eval()
    with torch.no_grad():
        mse = torch.nn.functional.mse_loss(model(x), y).item()
    assert forecast[0]["score"] == pytest.approx(1 - mse / forecast[0]["baseline_mse"], rel=1e-5)
