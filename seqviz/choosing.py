"""Chapter 10: the same tasks for RNN, GRU, LSTM and Transformer, measured side by side.

- :class:`CausalTransformerEncoder`: a Transformer encoder over vectors with a causal mask,
  with the interface of a recurrent layer (``out, _ = enc(x)``, ``hidden_size``), so it
  drops into :class:`~seqviz.models.SequenceClassifier` and :class:`Forecaster`; with the
  causal mask the state at a sequence's last real token never sees the padding after it;
- :func:`make_encoder`: ``"RNN"``, ``"GRU"``, ``"LSTM"`` (``torch.nn``'s) or ``"Transformer"``;
- :class:`Forecaster`: encoder + a linear head that predicts the next ``horizon`` values;
- :func:`measure`: parameters, inference latency and activation memory of one model;
- :func:`markdown_table`: rows of dicts as a markdown table;
- :func:`agreement_rows`, :func:`translation_rows`, :func:`forecast_rows`: the same tasks for each kind;
- :func:`step_cost`, :func:`streaming_cost`: cost against length for training and for generation.

The decision guide that reads these rows is :mod:`seqviz.guide`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from .compare import time_call
from .config import model_device, pick_device
from .memory import activation_bytes
from .models import KINDS, Forecaster, make_encoder

__all__ = ["markdown_table", "measure", "agreement_rows", "translation_rows", "forecast_rows", "step_cost",
           "streaming_cost"]

def measure(model: nn.Module, inputs: Sequence[torch.Tensor], one: Sequence[torch.Tensor], *,
            loss: Callable | None = None, infer: Callable | None = None, min_time: float = 0.01,
            repeats: int = 3) -> dict:
    """``{"parameters", "latency_ms", "memory_kb"}`` of ``model``.

    ``latency_ms``: median time of one no-grad ``infer(*one)`` (default: the forward) on a single example;
    ``memory_kb``: what a training step on ``inputs`` keeps for backward
    (:func:`seqviz.memory.activation_bytes`), in KiB. Runs where the model is: ``inputs`` and ``one`` are moved there.
    """
    device = model_device(model)
    inputs, one = [t.to(device) for t in inputs], [t.to(device) for t in one]
    loss = loss or (lambda out: out.float().pow(2).mean())
    was_training = model.training
    model.eval()

    infer = infer or model

    def call():
        with torch.no_grad():
            infer(*one)

    latency = time_call(call, min_time=min_time, repeats=repeats, device=device)
    model.train()
    memory = activation_bytes(lambda: loss(model(*inputs)))
    model.zero_grad(set_to_none=True)
    model.train(was_training)
    return {"parameters": sum(p.numel() for p in model.parameters()), "latency_ms": 1e3 * latency,
            "memory_kb": memory / 1024}


def _cell(value, fmt):
    if isinstance(value, str):
        return value
    if fmt == "%":
        return f"{100 * value:.1f}%"
    return format(value, fmt)


def markdown_table(rows: Sequence[dict], columns: dict[str, tuple[str, str]]) -> str:
    """``columns`` maps a row key to ``(header, format)``; format "%" for fractions, a format spec, or "" for text."""
    if not rows:
        raise ValueError("markdown_table needs at least one row")
    head = "| " + " | ".join(h for h, _ in columns.values()) + " |"
    rule = "|" + "|".join("---:" if f else "---" for _, f in columns.values()) + "|"  # numbers right-aligned
    body = ["| " + " | ".join(_cell(r.get(k, ""), f) for k, (_, f) in columns.items()) + " |" for r in rows]
    return "\n".join([head, rule, *body])


# -- the same tasks for every model ---------------------------------------------------------------------


def agreement_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 32, steps: int = 300, distance: int = 6,
                   n_train: int = 2000, n_test: int = 300, seed: int = 0, progress: bool = True,
                   device=None) -> list[dict]:
    """Chapter 4's agreement task (train on distances 0..distance, test at ``distance``) for each kind.

    Reuses :func:`seqviz.experiments.accuracy_vs_distance`; each row: task, model, score
    (accuracy), train_s, latency_ms (one sentence), memory_kb (a training step on 64 sentences),
    parameters. ``device``: where to train and measure (default :func:`~seqviz.config.pick_device`).
    """
    from .data import agreement_task, agreement_vocab, to_tensors
    from .experiments import accuracy_vs_distance

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
    ``max_len``). Score: greedy exact-match accuracy; latency: greedy translation of one sentence.
    ``device``: where to train and measure (default :func:`~seqviz.config.pick_device`)."""
    from .config import seed_everything
    from .data import pairs_to_tensors, translation_task, translation_vocabs
    from .models import Seq2Seq, TransformerSeq2Seq, sequence_accuracy, sequence_loss
    from .train import fit

    src_vocab, tgt_vocab = translation_vocabs()
    train = pairs_to_tensors(translation_task(n_train, 1, max_len, seed=seed), src_vocab, tgt_vocab)
    test = translation_task(n_test, 1, test_max_len or max_len, seed=seed + 1)
    src, src_len, tgt_in, tgt_out = pairs_to_tensors(test, src_vocab, tgt_vocab)
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
        with torch.no_grad():
            tokens = model.greedy(src, src_len, max_len=tgt_out.shape[1] + 2)[0]
        score = float(sequence_accuracy(tokens, tgt_out).float().mean())
        cost = measure(model, (src[:64], src_len[:64], tgt_in[:64]), (src[:1], src_len[:1]),  # latency: a greedy
                       infer=lambda s, n: model.greedy(s, n, max_len=tgt_out.shape[1] + 2))  # translation of one
        model.zero_grad(set_to_none=True)
        metric = "exact match" if test_max_len in (None, max_len) else f"exact match, 1-{test_max_len} words"
        rows.append({"task": "translation", "model": k, "score": score, "metric": metric,
                     "train_s": history.seconds, **cost})
    return rows


def forecast_rows(kinds: Sequence[str] = KINDS, *, hidden_size: int = 32, steps: int = 400, window: int = 48,
                  n_series: int = 200, series_length: int = 200, seed: int = 0, progress: bool = True, device=None):
    """Next-value forecasting of :func:`seqviz.data.sine_series` from ``window`` past values.

    Score: 1 - MSE / MSE of the persistence baseline (repeat the last value), on new series;
    0 means no better than the baseline, 1 a perfect forecast. Returns ``(rows, models, test)``: the
    models stay on ``device`` (default :func:`~seqviz.config.pick_device`), the test windows on the CPU.
    """
    from .config import seed_everything
    from .data import forecast_windows, sine_series
    from .train import fit

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


# -- cost against length, for training and for generation ---------------------------------------------


def step_cost(lengths: Sequence[int], kinds: Sequence[str] = ("GRU", "LSTM", "Transformer"), *, width: int = 64,
              batch_size: int = 8, min_time: float = 0.02, repeats: int = 3, progress: bool = True,
              device=None) -> list[dict]:
    """One training step (forward + backward, one layer of ``width``) at each length: rows with
    ``model, length, ms_per_step`` (median, :func:`~seqviz.compare.time_call`) and ``saved_MiB``
    (activation memory kept for backward, :func:`~seqviz.memory.activation_bytes`). Used by chapter 10
    and ``benchmarks/length_cost.py``. ``device``: default :func:`~seqviz.config.pick_device`."""
    from .config import progress as bar

    device = torch.device(device) if device is not None else pick_device()
    rows = []
    for kind in bar(list(kinds), desc="cost vs length", disable=not progress, leave=False):
        torch.manual_seed(0)
        model = make_encoder(kind, width, width, **({"max_len": max(lengths)} if kind == "Transformer" else {}))
        model.to(device)
        for n in lengths:
            x = torch.randn(batch_size, n, width).to(device)

            def step():
                model(x)[0].pow(2).mean().backward()

            seconds = time_call(step, min_time=min_time, repeats=repeats, device=device)
            memory = activation_bytes(lambda: model(x)[0].pow(2).mean())
            model.zero_grad(set_to_none=True)
            rows.append({"model": kind, "length": n, "ms_per_step": 1e3 * seconds, "saved_MiB": memory / 2 ** 20})
    return rows


def streaming_cost(contexts: Sequence[int], *, d_model: int = 64, num_layers: int = 2, vocab_size: int = 200,
                   min_time: float = 0.01, repeats: int = 3, progress: bool = True, device=None) -> list[dict]:
    """The cost of one generated token (batch 1, no grad) after ``n`` tokens of context: a GRU
    language model, a Transformer decoder with a key/value cache, and one that re-reads the prefix.
    Rows: ``model, context, ms_per_token, state_bytes``. Used by chapter 10 and
    ``benchmarks/streaming_cost.py``. ``device``: default :func:`~seqviz.config.pick_device`."""
    from .config import progress as bar
    from .models import GRULM, TransformerLM, cache_bytes

    device = torch.device(device) if device is not None else pick_device()
    torch.manual_seed(0)
    gru = GRULM(vocab_size, d_model, num_layers=num_layers).eval().to(device)
    tlm = TransformerLM(vocab_size, d_model, num_heads=4, num_layers=num_layers, dim_feedforward=4 * d_model,
                        max_len=max(contexts) + 1).eval().to(device)
    token = torch.zeros(1, 1, dtype=torch.long).to(device)
    rows = []
    with torch.no_grad():
        for n in bar(list(contexts), desc="cost per token", disable=not progress, leave=False):
            prefix = torch.randint(0, vocab_size, (1, n)).to(device)
            _, state = gru.prefill(prefix)
            _, cache = tlm.prefill(prefix)
            full = torch.cat([prefix, token], 1)
            cases = {"GRU": (lambda: gru.step(token, state), cache_bytes(state)),
                     "Transformer (KV cache)": (lambda: tlm.step(token, cache), cache_bytes(cache)),
                     "Transformer (no cache)": (lambda: tlm(full)[:, -1], 0)}
            for model, (fn, held) in cases.items():
                seconds = time_call(fn, min_time=min_time, repeats=repeats, device=device)
                rows.append({"model": model, "context": n, "ms_per_token": 1e3 * seconds, "state_bytes": held})
    return rows
