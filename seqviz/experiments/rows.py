"""Chapter 10's table: the same tasks for RNN, GRU, LSTM and Transformer, trained and measured side by side.

- :func:`agreement_rows`: chapter 4's agreement task at its longest distance;
- :func:`translation_rows`: the toy translation of chapters 5-8;
- :func:`forecast_rows`: next-value forecasting of noisy sines.

Each row: ``task, model, score, metric, train_s`` and :func:`seqviz.measure.measure`'s ``parameters,
latency_ms, memory_kb``. Each runner trains on ``device`` (default :func:`~seqviz.config.pick_device`) and
measures where the trained model is. The decision guide that reads these rows is :mod:`seqviz.guide`.
Used by chapter 10.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..config import model_device, seed_everything
from ..data import (agreement_task, agreement_vocab, forecast_windows, pairs_to_tensors, sine_series, to_tensors,
                    translation_task, translation_vocabs)
from ..measure import check_ints, measure
from ..models import KINDS, Forecaster, Seq2Seq, TransformerSeq2Seq, make_encoder, sequence_loss
from ..train import fit
from .distance import accuracy_vs_distance
from .translation import exact_match

__all__ = ["agreement_rows", "forecast_rows", "translation_rows"]


def _check_kinds(kinds) -> list[str]:
    kinds = None if isinstance(kinds, (str, bytes)) or not hasattr(kinds, "__iter__") else list(kinds)
    if not kinds or any(k not in KINDS for k in kinds) or len(set(kinds)) != len(kinds):
        raise ValueError(f"kinds must be a list of distinct kinds from {KINDS}, got {kinds!r}")
    return kinds


def agreement_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 32, steps: int = 300, distance: int = 6,
                   n_train: int = 2000, n_test: int = 300, seed: int = 0, progress: bool = True,
                   device=None) -> list[dict]:
    """Chapter 4's agreement task (train on distances 0..distance, test at ``distance``) for each kind.

    Reuses :func:`seqviz.experiments.accuracy_vs_distance`; each row: task, model, score
    (accuracy), train_s, latency_ms (one sentence), memory_kb (a training step on 64 sentences),
    parameters.
    """
    kinds = _check_kinds(kinds)
    check_ints([hidden_size, steps, n_train, n_test], "hidden_size, steps, n_train and n_test", 1)
    check_ints([distance], "distance", 0)
    makers = {k: (lambda e, k=k: make_encoder(k, e, hidden_size)) for k in kinds}
    table = accuracy_vs_distance(makers, [distance], [seed], steps, n_train=n_train, n_test=n_test,
                                 keep_models=True, progress=progress, device=device)
    ids, lengths, _ = to_tensors(agreement_task(64, distance, seed=seed + 7), agreement_vocab())
    rows = []
    for k in kinds:
        model = table.models[k][0]
        cost = measure(model, (ids, lengths), (ids[:1], lengths[:1]),
                       loss=lambda out: out.logsumexp(-1).mean())
        rows.append({"task": "agreement", "model": k, "score": float(table.at(k, distance).mean()),
                     "metric": f"accuracy at distance {distance}", "train_s": table.seconds[k][0], **cost})
    return rows


def translation_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 64, steps: int = 400, n_train: int = 3000,
                     n_test: int = 300, max_len: int = 8, test_max_len: int | None = None, seed: int = 0,
                     progress: bool = True, device=None) -> list[dict]:
    """The toy translation (digit words to digits) for each kind: a Seq2Seq with Bahdanau attention
    whose encoder is an RNN, GRU or LSTM (the decoder is a GRU), or a TransformerSeq2Seq.
    Trained on 1..``max_len`` words, tested on new sentences of 1..``test_max_len`` words (default
    ``max_len``). Score: greedy exact-match accuracy; latency: greedy translation of one sentence."""
    kinds = _check_kinds(kinds)
    check_ints([hidden_size, steps, n_train, n_test, max_len], "hidden_size, steps, n_train, n_test and max_len", 1)
    if test_max_len is not None:
        check_ints([test_max_len], "test_max_len", 1)
    src_vocab, tgt_vocab = translation_vocabs()
    train = pairs_to_tensors(translation_task(n_train, 1, max_len, seed=seed), src_vocab, tgt_vocab)
    test = pairs_to_tensors(translation_task(n_test, 1, test_max_len or max_len, seed=seed + 1), src_vocab,
                            tgt_vocab)
    src, src_len, tgt_in, tgt_out = test
    rows = []
    for k in kinds:
        seed_everything(seed)
        if k == "Transformer":
            model, lr = TransformerSeq2Seq(len(src_vocab), len(tgt_vocab), d_model=hidden_size, num_heads=4,
                                           num_encoder_layers=2, num_decoder_layers=1,
                                           dim_feedforward=2 * hidden_size, dropout=0.0,
                                           max_len=max(max_len, test_max_len or 0) + 8), 1e-3
        else:
            model, lr = Seq2Seq(len(src_vocab), len(tgt_vocab), embed_size=16, hidden_size=hidden_size,
                                attention=True, cell=k.lower()), 3e-3
        history = fit(model, train, sequence_loss, steps=steps, batch_size=64, lr=lr, seed=seed, progress=progress,
                      desc=f"translation, {k}", device=device)
        model.eval()
        score = exact_match(model, test)
        cost = measure(model, (src[:64], src_len[:64], tgt_in[:64]), (src[:1], src_len[:1]),  # latency: a greedy
                       infer=lambda s, n: model.greedy(s, n, max_len=tgt_out.shape[1] + 2))  # translation of one
        metric = "exact match" if test_max_len in (None, max_len) else f"exact match, 1-{test_max_len} words"
        rows.append({"task": "translation", "model": k, "score": score, "metric": metric,
                     "train_s": history.seconds, **cost})
    return rows


def forecast_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 32, steps: int = 400, window: int = 48,
                  n_series: int = 200, series_length: int = 200, seed: int = 0, progress: bool = True, device=None):
    """Next-value forecasting of :func:`seqviz.data.sine_series` from ``window`` past values.

    Score: 1 - MSE / MSE of the persistence baseline (repeat the last value), on new series;
    0 means no better than the baseline, 1 a perfect forecast. Returns ``(rows, models, test)``: the
    models stay on ``device``, the test windows on the CPU.
    """
    kinds = _check_kinds(kinds)
    check_ints([hidden_size, steps, window, n_series], "hidden_size, steps, window and n_series", 1)
    if series_length <= window:
        raise ValueError(f"series_length ({series_length}) must be longer than the window ({window})")
    train = forecast_windows(sine_series(n_series, series_length, seed=seed), window, stride=4)
    test_x, test_y = forecast_windows(sine_series(max(20, n_series // 4), series_length, seed=seed + 1), window,
                                      stride=8)
    baseline = float((test_x[:, -1] - test_y).pow(2).mean())
    rows, models = [], {}
    for k in kinds:
        seed_everything(seed)
        model = Forecaster(k, hidden_size, max_len=window + 64) if k == "Transformer" else Forecaster(k, hidden_size)
        history = fit(model, train, nn.functional.mse_loss, steps=steps, batch_size=64, lr=3e-3, seed=seed,
                      progress=progress, desc=f"forecast, {k}", device=device)
        model.eval()
        where = model_device(model)
        with torch.no_grad():
            mse = float(nn.functional.mse_loss(model(test_x.to(where)), test_y.to(where)))
        cost = measure(model, (test_x[:64],), (test_x[:1],))
        rows.append({"task": "forecasting", "model": k, "score": 1 - mse / baseline,
                     "metric": "skill vs persistence", "mse": mse, "baseline_mse": baseline,
                     "train_s": history.seconds, **cost})
        models[k] = model
    return rows, models, (test_x, test_y)
