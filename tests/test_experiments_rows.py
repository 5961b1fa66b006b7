"""Chapter 10's runners: the same tasks for every kind of model, one row each (the guide: test_guide.py)."""

import pytest
import torch
from torch import nn

from seqviz.experiments import agreement_rows, forecast_rows, translation_rows
from seqviz.experiments.rows import LAPS, _train, _translation_data, warmup_runs
from seqviz.measure import markdown_table

ROW_KEYS = {"task", "model", "score", "metric", "train_s", "train_laps", "latency_ms", "latency_samples", "memory_kb",
            "parameters", "steps", "examples", "width"}


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
    for r in rows:  # the latency is the median of its repeats
        assert r["latency_ms"] == sorted(r["latency_samples"])[len(r["latency_samples"]) // 2]
    table = markdown_table(rows, {"model": ("model", ""), "score": ("score", "%"), "parameters": ("params", ",")})
    assert table.count("\n") == len(rows) + 1 and "%" in table
    # the score of a row is its task's own measure, recomputed here for the forecaster
    model = models["RNN"].eval()
    with torch.no_grad():
        mse = torch.nn.functional.mse_loss(model(x), y).item()
    assert forecast[0]["score"] == pytest.approx(1 - mse / forecast[0]["baseline_mse"], rel=1e-5)


def test_translation_is_tested_on_new_sentences_of_seen_and_longer_lengths():
    _, _, train, tests = _translation_data(300, 50, max_len=6, test_max_len=9, seed=0)
    pad = 0
    as_set = lambda data: {tuple(t for t in row.tolist() if t != pad) for row in data[0]}  # noqa: E731
    lengths = lambda data: data[1].tolist()  # noqa: E731
    assert not as_set(train) & as_set(tests["seen"]) and not as_set(train) & as_set(tests["longer"])
    assert max(lengths(tests["seen"])) <= 6 and min(lengths(tests["longer"])) == 7 and max(lengths(tests["longer"])) <= 9
    _, _, _, only_seen = _translation_data(300, 50, max_len=6, test_max_len=6, seed=0)
    assert set(only_seen) == {"seen"}
    _, _, again, tests_again = _translation_data(300, 50, max_len=6, test_max_len=9, seed=0)
    assert again is train and all(tests_again[k] is tests[k] for k in tests)   # built once, not per call
    assert _translation_data(300, 50, max_len=6, test_max_len=9, seed=1)[2][0].tolist() != train[0].tolist()
    rows = translation_rows(("GRU",), hidden_size=8, steps=2, n_train=60, n_test=10, max_len=5, test_max_len=8,
                            progress=False)
    assert rows[0]["score_longer"] is not None and rows[0]["longer_words"] == (6, 8)
    assert translation_rows(("GRU",), hidden_size=8, steps=2, n_train=60, n_test=10, max_len=5,
                            progress=False)[0]["score_longer"] is None


def test_the_warm_up_raises_the_rate_linearly_then_holds_it():
    torch.manual_seed(0)
    data = (torch.randn(32, 3), torch.randn(32, 1))
    history, laps = _train(nn.Linear(3, 1), data, nn.functional.mse_loss, steps=12, lr=0.01, warmup_steps=4, seed=0,
                           progress=False, desc="", device="cpu", batch_size=8)
    rates = [r["lr"] for r in history.records]
    assert rates == pytest.approx([0.0025, 0.005, 0.0075, 0.01] + [0.01] * 8)
    assert len(laps) == LAPS and sum(laps) == pytest.approx(history.seconds, rel=0.2, abs=0.05)
    history, _ = _train(nn.Linear(3, 1), data, nn.functional.mse_loss, steps=5, lr=0.01, warmup_steps=0, seed=0,
                        progress=False, desc="", device="cpu", batch_size=8)
    assert [r["lr"] for r in history.records] == pytest.approx([0.01] * 5)


def test_only_the_transformer_warms_up_and_warmup_runs_returns_one_score_per_seed():
    rows = translation_rows(("GRU", "Transformer"), hidden_size=8, steps=10, n_train=40, n_test=5, warmup=0.5,
                            progress=False)
    assert all(0 <= r["score"] <= 1 for r in rows)
    assert [r["warmup_steps"] for r in rows] == [0, 5]
    rows = agreement_rows(("LSTM", "Transformer"), hidden_size=8, steps=10, n_train=40, n_test=5, warmup=0.2,
                          progress=False)
    assert [r["warmup_steps"] for r in rows] == [0, 2]
    out = warmup_runs((0.0, 0.5), (0, 1), hidden_size=8, steps=4, n_train=40, n_test=5, progress=False)
    assert set(out) == {0.0, 0.5} and all(len(v) == 2 for v in out.values())


def test_bad_input():
    with pytest.raises(ValueError, match="warmup"):
        translation_rows(("GRU",), steps=1, warmup=1.0)
    with pytest.raises(ValueError, match="kinds"):
        agreement_rows(("CNN",), steps=1)
    with pytest.raises(ValueError, match="warmups"):
        warmup_runs((), (0,))
    with pytest.raises(ValueError, match="new to the"):
        _translation_data(3000, 10, max_len=1, test_max_len=1, seed=0)   # every one-word sentence is in training
