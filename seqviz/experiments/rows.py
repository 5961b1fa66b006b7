"""Chapter 10's table: the same tasks for RNN, GRU, LSTM and Transformer, trained and measured side by side.

- :func:`agreement_rows`: chapter 4's agreement task at its longest distance;
- :func:`translation_rows`: the toy translation of chapters 5-8, scored apart on sentence lengths seen in
  training and on longer ones;
- :func:`forecast_rows`: next-value forecasting of noisy sines;
- :func:`warmup_runs`: the Transformer translator trained with and without its learning-rate warm-up, over seeds.

Each row: ``task, model, score, metric, train_s, train_laps, steps, warmup_steps, examples, width`` and
:func:`seqviz.measure.measure`'s ``parameters, latency_ms, memory_kb`` (plus ``latency_samples``, the repeats
behind ``latency_ms``). ``train_laps`` are the seconds of each fifth of training, so that two training times can be
judged against their spread (:func:`seqviz.book.compare_times`). Every Transformer trains with a linear
learning-rate warm-up over the first ``warmup`` share of its steps (Vaswani et al., 2017; Popel and Bojar, 2018),
the recipe it is known to need; the recurrent models train at a constant rate, theirs. Each runner trains on
``device`` (default :func:`~seqviz.config.pick_device`) and measures where the trained model is. The decision
guide that reads these rows is :mod:`seqviz.guide`. Used by chapter 10.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ..config import model_device, pick_device, seed_everything
from ..data import (agreement_task, agreement_vocab, forecast_windows, pairs_to_tensors, sine_series, to_tensors,
                    translation_task, translation_vocabs)
from ..measure import Stopwatch, check_ints, measure, time_samples
from ..models import KINDS, Forecaster, Seq2Seq, SequenceClassifier, TransformerSeq2Seq, make_encoder, sequence_loss
from ..train import accuracy, evaluate, fit
from .distance import _agreement_data
from .translation import exact_match

__all__ = ["agreement_rows", "forecast_rows", "translation_rows", "warmup_runs"]

LAPS = 5  # training is timed in this many equal laps


def _check_kinds(kinds) -> list[str]:
    kinds = None if isinstance(kinds, (str, bytes)) or not hasattr(kinds, "__iter__") else list(kinds)
    if not kinds or any(k not in KINDS for k in kinds) or len(set(kinds)) != len(kinds):
        raise ValueError(f"kinds must be a list of distinct kinds from {KINDS}, got {kinds!r}")
    return kinds


def _check_warmup(warmup) -> float:
    if isinstance(warmup, bool) or not isinstance(warmup, (int, float)) or not 0 <= warmup < 1:
        raise ValueError(f"warmup must be the share of the steps spent warming up, a number in [0, 1), got {warmup!r}")
    return float(warmup)


def _train(model, data, loss_fn, *, steps, lr, warmup_steps, seed, progress, desc, device, batch_size=64):
    """:func:`seqviz.train.fit` with Adam at ``lr``, its rate raised linearly from ``lr / warmup_steps`` to ``lr``
    over the first ``warmup_steps`` steps (none when 0), and the wall-clock seconds of each of :data:`LAPS` equal
    laps. Each record of the history holds the ``lr`` its step was taken with. Returns ``(history, laps)``.

    (A callback, so that :func:`seqviz.train.fit` needs no schedule of its own; fit's own ``schedule=`` can replace
    it once the long-run machinery that adds one is merged.)"""
    model.to(device)  # before the optimiser is built over its parameters
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    marks = sorted({max(1, round(steps * k / LAPS)) for k in range(1, LAPS + 1)})
    laps, clock = [], Stopwatch(device)

    def rate(step):  # the learning rate of step ``step`` (1-based)
        return lr * min(1.0, step / warmup_steps) if warmup_steps else lr

    def callback(step, trained, record):
        record["lr"] = rate(step)  # the rate this step was taken with
        for group in optimizer.param_groups:
            group["lr"] = rate(step + 1)
        if step in marks:
            laps.append(clock.elapsed() - sum(laps))
        return False

    for group in optimizer.param_groups:
        group["lr"] = rate(1)
    clock.start()
    history = fit(model, data, loss_fn, steps=steps, batch_size=batch_size, optimizer=optimizer, seed=seed,
                  progress=progress, desc=desc, device=device, callbacks=[callback])
    return history, laps


def _costs(model, inputs, one, **kwargs) -> dict:
    """:func:`~seqviz.measure.measure`'s numbers, and the repeats of the latency timing (``latency_samples``, ms)."""
    cost = measure(model, inputs, one, min_time=1e-4, repeats=1, **kwargs)  # its latency is timed again below
    infer = kwargs.get("infer") or model
    where = model_device(model)
    one = [t.to(where) for t in one]
    model.eval()

    def call():
        with torch.no_grad():
            infer(*one)

    samples = [1e3 * s for s in time_samples(call, min_time=0.01, repeats=5, device=where)]
    cost.update(latency_samples=samples, latency_ms=sorted(samples)[len(samples) // 2])  # the median of the five
    return cost


def agreement_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 32, steps: int = 300, distance: int = 6,
                   n_train: int = 2000, n_test: int = 300, seed: int = 0, warmup: float = 0.1, progress: bool = True,
                   device=None) -> list[dict]:
    """Chapter 4's agreement task for each kind: trained on every distance 0..``distance`` (the same sentences as
    :func:`seqviz.experiments.accuracy_vs_distance` draws), tested on new sentences at ``distance``.

    Each row: task, model, score (accuracy), train_s, train_laps, latency_ms (one sentence), memory_kb (a
    training step on 64 sentences), parameters, steps, examples, width."""
    kinds = _check_kinds(kinds)
    check_ints([hidden_size, steps, n_train, n_test], "hidden_size, steps, n_train and n_test", 1)
    (distance,) = check_ints([distance], "distance", 0)
    warmup = _check_warmup(warmup)
    device = torch.device(device) if device is not None else pick_device()
    vocab = agreement_vocab()
    per_distance = n_train // (distance + 1)
    if per_distance < 1:
        raise ValueError(f"n_train ({n_train}) must give at least one sentence per distance 0..{distance}")
    train = _agreement_data(range(distance + 1), per_distance, "random", 0)
    test = _agreement_data([distance], n_test, "random", 1)
    ids, lengths, _ = to_tensors(agreement_task(64, distance, seed=seed + 7), vocab)
    rows = []
    for k in kinds:
        seed_everything(seed)
        model = SequenceClassifier(len(vocab), 32, make_encoder(k, 32, hidden_size), num_classes=2)
        warm = round(warmup * steps) if k == "Transformer" else 0
        history, laps = _train(model, train, nn.functional.cross_entropy, steps=steps, lr=3e-3, seed=seed,
                               warmup_steps=warm, progress=progress, desc=f"agreement, {k}", device=device)
        model.eval()
        score = evaluate(model, test, {"acc": accuracy})["acc"]
        cost = _costs(model, (ids, lengths), (ids[:1], lengths[:1]), loss=lambda out: out.logsumexp(-1).mean())
        rows.append({"task": "agreement", "model": k, "score": score, "metric": f"accuracy at distance {distance}",
                     "train_s": history.seconds, "train_laps": laps, "steps": steps, "warmup_steps": warm,
                     "examples": per_distance * (distance + 1), "width": hidden_size, **cost})
    return rows


def _translator(kind, src_vocab, tgt_vocab, hidden_size, max_len):
    if kind == "Transformer":  # chapter 8's encoder-decoder, post-LN as in Vaswani et al. (2017)
        return TransformerSeq2Seq(len(src_vocab), len(tgt_vocab), d_model=hidden_size, num_heads=4,
                                  num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=2 * hidden_size,
                                  dropout=0.0, max_len=max_len + 8), 1e-3
    return Seq2Seq(len(src_vocab), len(tgt_vocab), embed_size=16, hidden_size=hidden_size, attention=True,
                   cell=kind.lower()), 3e-3


_TRANSLATION_DATA = {}  # (n_train, n_test, max_len, test_max_len, seed) -> _translation_data's answer


def _translation_data(n_train, n_test, max_len, test_max_len, seed):
    """Training pairs of 1..``max_len`` words; test pairs new to training, of lengths seen (1..``max_len``) and,
    when ``test_max_len > max_len``, of longer ones (``max_len + 1``..``test_max_len``). Built once per
    arguments: a second call (chapter 10's rerun without the warm-up) gets the same tensors, which nothing
    changes in place."""
    key = (n_train, n_test, max_len, test_max_len, seed)
    if key not in _TRANSLATION_DATA:
        _TRANSLATION_DATA[key] = _build_translation_data(*key)
    src_vocab, tgt_vocab, train, tests = _TRANSLATION_DATA[key]
    return src_vocab, tgt_vocab, train, dict(tests)


def _build_translation_data(n_train, n_test, max_len, test_max_len, seed):
    src_vocab, tgt_vocab = translation_vocabs()
    pairs = translation_task(n_train, 1, max_len, seed=seed)
    known = {tuple(p.source) for p in pairs}
    tests = {}
    for name, (low, high) in (("seen", (1, max_len)), ("longer", (max_len + 1, test_max_len))):
        if low > high:
            continue
        fresh = [p for p in translation_task(2 * n_test, low, high, seed=seed + 1) if tuple(p.source) not in known]
        if not fresh:
            raise ValueError(f"no test sentence of {low}-{high} words is new to the {n_train} training pairs: "
                             f"use longer sentences (max_len) or fewer training pairs")
        tests[name] = pairs_to_tensors(fresh[:n_test], src_vocab, tgt_vocab)
    return src_vocab, tgt_vocab, pairs_to_tensors(pairs, src_vocab, tgt_vocab), tests


def translation_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 64, steps: int = 400, n_train: int = 3000,
                     n_test: int = 300, max_len: int = 8, test_max_len: int | None = None, seed: int = 0,
                     warmup: float = 0.1, progress: bool = True, device=None) -> list[dict]:
    """The toy translation (digit words to digits) for each kind: a Seq2Seq with Bahdanau attention
    whose encoder is an RNN, GRU or LSTM (the decoder is a GRU), or a TransformerSeq2Seq.

    Trained on sentences of 1..``max_len`` words; scored by greedy exact match on ``n_test`` sentences new to
    training, of the lengths seen in training (``score``) and, when ``test_max_len`` is longer, of
    ``max_len + 1``..``test_max_len`` words (``score_longer``, else None). Latency: greedy translation of one
    sentence; ``latency_samples`` its repeats."""
    kinds = _check_kinds(kinds)
    check_ints([hidden_size, steps, n_train, n_test, max_len], "hidden_size, steps, n_train, n_test and max_len", 1)
    if test_max_len is not None:
        check_ints([test_max_len], "test_max_len", 1)
    warmup = _check_warmup(warmup)
    device = torch.device(device) if device is not None else pick_device()
    test_max_len = max(test_max_len or max_len, max_len)
    src_vocab, tgt_vocab, train, tests = _translation_data(n_train, n_test, max_len, test_max_len, seed)
    src, src_len, tgt_in, tgt_out = tests["seen"]
    rows = []
    for k in kinds:
        seed_everything(seed)
        model, lr = _translator(k, src_vocab, tgt_vocab, hidden_size, test_max_len)
        warm = round(warmup * steps) if k == "Transformer" else 0
        history, laps = _train(model, train, sequence_loss, steps=steps, lr=lr, seed=seed, progress=progress,
                               warmup_steps=warm, desc=f"translation, {k}", device=device)
        model.eval()
        scores = {name: exact_match(model, data) for name, data in tests.items()}
        cost = _costs(model, (src[:64], src_len[:64], tgt_in[:64]), (src[:1], src_len[:1]),   # latency: a greedy
                      infer=lambda s, n, model=model: model.greedy(s, n, max_len=tgt_out.shape[1] + 2))  # translation
        rows.append({"task": "translation", "model": k, "score": scores["seen"], "score_longer": scores.get("longer"),
                     "metric": f"exact match, 1–{max_len} words", "longer_words": (max_len + 1, test_max_len)
                     if "longer" in tests else None, "train_s": history.seconds, "train_laps": laps, "steps": steps,
                     "warmup_steps": warm, "examples": n_train, "width": hidden_size, **cost})
    return rows


def warmup_runs(warmups: Sequence[float] = (0.0, 0.1), seeds: Sequence[int] = (0, 1), *, hidden_size: int = 64,
                steps: int = 400, n_train: int = 3000, n_test: int = 300, max_len: int = 8,
                progress: bool = True, device=None) -> dict[float, list[float]]:
    """``{warmup: [exact match per seed]}``: :func:`translation_rows`'s Transformer (same data, same lengths
    seen) trained with each warm-up share, for each seed: what the warm-up changes, beside how much seeds do."""
    if isinstance(warmups, (str, bytes)) or not hasattr(warmups, "__iter__") or not list(warmups):
        raise ValueError(f"warmups must be a list of shares in [0, 1), e.g. (0.0, 0.1), got {warmups!r}")
    warmups = [_check_warmup(w) for w in warmups]
    seeds = check_ints(seeds, "seeds", 0)
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    out = {}
    for w in warmups:
        out[w] = [translation_rows(["Transformer"], hidden_size=hidden_size, steps=steps, n_train=n_train,
                                   n_test=n_test, max_len=max_len, seed=s, warmup=w, progress=progress,
                                   device=device)[0]["score"] for s in seeds]
    return out


def forecast_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 32, steps: int = 400, window: int = 48,
                  n_series: int = 200, series_length: int = 200, seed: int = 0, warmup: float = 0.1,
                  progress: bool = True, device=None):
    """Next-value forecasting of :func:`seqviz.data.sine_series` from ``window`` past values.

    Score: 1 - MSE / MSE of the persistence baseline (repeat the last value), on new series;
    0 means no better than the baseline, 1 a perfect forecast. Returns ``(rows, models, test)``: the
    models stay on ``device``, the test windows on the CPU.
    """
    kinds = _check_kinds(kinds)
    check_ints([hidden_size, steps, window, n_series], "hidden_size, steps, window and n_series", 1)
    if series_length <= window:
        raise ValueError(f"series_length ({series_length}) must be longer than the window ({window})")
    warmup = _check_warmup(warmup)
    device = torch.device(device) if device is not None else pick_device()
    train = forecast_windows(sine_series(n_series, series_length, seed=seed), window, stride=4)
    test_x, test_y = forecast_windows(sine_series(max(20, n_series // 4), series_length, seed=seed + 1), window,
                                      stride=8)
    baseline = float((test_x[:, -1] - test_y).pow(2).mean())
    rows, models = [], {}
    for k in kinds:
        seed_everything(seed)
        model = Forecaster(k, hidden_size, max_len=window + 64) if k == "Transformer" else Forecaster(k, hidden_size)
        warm = round(warmup * steps) if k == "Transformer" else 0
        history, laps = _train(model, train, nn.functional.mse_loss, steps=steps, lr=3e-3, seed=seed,
                               warmup_steps=warm, progress=progress, desc=f"forecast, {k}", device=device)
        model.eval()
        where = model_device(model)
        with torch.no_grad():
            mse = float(nn.functional.mse_loss(model(test_x.to(where)), test_y.to(where)))
        cost = _costs(model, (test_x[:64],), (test_x[:1],))
        rows.append({"task": "forecasting", "model": k, "score": 1 - mse / baseline,
                     "metric": "skill vs persistence", "mse": mse, "baseline_mse": baseline,
                     "train_s": history.seconds, "train_laps": laps, "steps": steps, "warmup_steps": warm,
                     "examples": len(train[0]), "width": hidden_size, **cost})
        models[k] = model
    return rows, models, (test_x, test_y)
