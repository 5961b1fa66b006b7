"""The numbers chapter 10's guide reads: :func:`collect_evidence` turns the chapter's measured rows (the task
table, the training cost against length, the cost per generated token) and the fine-tuning run into named
:class:`Evidence`, each with its value and a one-line summary. Also the guide's questions
(:data:`GUIDE_OPTIONS`) and what counts as "about the same" (:data:`TOLERANCE`). Used by chapter 10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..measure import fit_power_law, fitted_growth

GUIDE_OPTIONS = {
    "task": ("classification", "labelling", "translation", "generation", "forecasting"),
    "data": ("small (few labels)", "large"),
    "length": ("short (< 100)", "long (100-1000)", "very long (> 1000)"),
    "compute": ("limited (CPU)", "GPU"),
    "latency": ("batch", "streaming, per token"),
}

TOLERANCE = {"score": 0.03, "time": 0.10}  # relative gaps counted as "about the same": scores, times
TASKS = ("agreement", "translation", "forecasting")
MODELS = ("RNN", "GRU", "LSTM", "Transformer")
COST_MODELS = ("GRU", "LSTM", "Transformer")
STREAM_MODELS = ("GRU", "Transformer (KV cache)")
ROW_KEYS = {"rows": ("task", "model", "score", "metric", "train_s", "latency_ms", "parameters"),
            "cost": ("model", "length", "ms_per_step", "saved_MiB"),
            "stream": ("model", "context", "ms_per_token")}
POSITIVE = ("train_s", "latency_ms", "parameters", "length", "ms_per_step", "saved_MiB", "context", "ms_per_token")


@dataclass
class Evidence:
    """One measured result the guide reads: ``value`` (a number), ``summary`` (what was measured,
    with the numbers), ``source`` (where in the book)."""

    value: float
    summary: str
    source: str


# -- the evidence ----------------------------------------------------------------------------------------


def _check_rows(rows, name: str) -> list[dict]:
    """``rows`` as a list of dicts, each with the keys the guide reads and positive finite timings and sizes."""
    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__iter__"):
        raise ValueError(f"{name} must be a list of dicts (the measured rows), got {type(rows).__name__}")
    rows = list(rows)
    keys = ROW_KEYS[name]
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"{name}[{i}] must be a dict with {keys}, got {type(row).__name__}")
        missing = [k for k in keys if k not in row]
        if missing:
            raise ValueError(f"{name}[{i}] lacks {missing}: each row of {name} needs {keys}")
        for key in keys:
            value = row[key]
            if key in ("task", "model", "metric"):
                continue
            number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if not number or (key in POSITIVE and value <= 0):
                raise ValueError(f"{name}[{i}][{key!r}] must be a finite number{' > 0' if key in POSITIVE else ''} "
                                 f"(a measurement), got {value!r}")
    return rows


def _check_grid(rows, name: str, models, axis: str) -> list:
    """Every model of ``models`` measured at the same two or more values of ``axis``; those values, sorted."""
    values = sorted({r[axis] for r in rows})
    if len(values) < 2:
        raise ValueError(f"{name} must measure at least two values of {axis!r} (a growth needs two), got {values}")
    have = {(r["model"], r[axis]) for r in rows}
    missing = [(m, v) for m in models for v in values if (m, v) not in have]
    if missing:
        raise ValueError(f"{name} lacks the rows (model, {axis}) {missing[:4]}{' ...' if len(missing) > 4 else ''}: "
                         f"every one of {models} must be measured at every {axis}")
    return values


def collect_evidence(rows: Sequence[dict], cost: Sequence[dict], stream: Sequence[dict], finetune: dict) -> dict:
    """The guide's evidence, by name, from chapter 10's measured rows.

    ``rows``: the task table (``agreement_rows`` + ``translation_rows`` + ``forecast_rows``);
    ``cost``: :func:`seqviz.experiments.step_cost` rows; ``stream``: :func:`seqviz.experiments.streaming_cost`
    rows; ``finetune``: :func:`seqviz.experiments.finetune_evidence`'s result. Each is checked first: a row
    without a key the guide reads, a zero or non-finite measurement, or a model missing at some length is a
    ``ValueError`` that names it.
    """
    rows, cost, stream = _check_rows(rows, "rows"), _check_rows(cost, "cost"), _check_rows(stream, "stream")
    by = {(r["task"], r["model"]): r for r in rows}
    for task in TASKS:
        for kind in MODELS:
            if (task, kind) not in by:
                raise ValueError(f"rows must hold task {task!r} for model {kind!r}; got {sorted(by)}")
    if not isinstance(finetune, dict) or not all(k in finetune for k in ("pretrained", "scratch", "labels", "chance")):
        raise ValueError(f"finetune must be finetune_evidence()'s dict (pretrained, scratch, labels, chance), "
                         f"got {finetune!r}")
    _check_grid(cost, "cost", COST_MODELS, "length")
    _check_grid(stream, "stream", STREAM_MODELS, "context")
    ev: dict[str, Evidence] = {}
    for task, source in (("agreement", "10.1, chapter 4's task"), ("translation", "10.1, the task of chapters 7-8"),
                         ("forecasting", "10.1, 10.4")):
        scores = {k: by[task, k]["score"] for (t, k) in by if t == task}
        metric = by[task, "GRU"]["metric"]
        text = ", ".join(f"{k} {v:.1%}" for k, v in scores.items()) + f" ({metric})"
        for k, v in scores.items():
            ev[f"{task}:{k}"] = Evidence(v, f"{task}: {text}", source)
            ev[f"{task}_train_s:{k}"] = Evidence(by[task, k]["train_s"], f"{task}: {k} trained in "
                                                 f"{by[task, k]['train_s']:.1f} s", source)
            ev[f"{task}_latency:{k}"] = Evidence(by[task, k]["latency_ms"], f"{task}: {k} answers one example in "
                                                 f"{by[task, k]['latency_ms']:.2f} ms", source)
    p_gru, p_lstm = by["agreement", "GRU"]["parameters"], by["agreement", "LSTM"]["parameters"]
    ev["params:GRU/LSTM"] = Evidence(p_gru / p_lstm, f"GRU {p_gru:,} vs LSTM {p_lstm:,} parameters "
                                     "(agreement models, same width)", "10.1")
    lengths = sorted({r["length"] for r in cost})
    longest = lengths[-1]
    at = {(r["model"], r["length"]): r for r in cost}
    for kind in ("GRU", "LSTM", "Transformer"):
        ms = [at[kind, n]["ms_per_step"] for n in lengths]
        mib = [at[kind, n]["saved_MiB"] for n in lengths]
        span = f"over n = {lengths[0]}-{longest}"
        p_time, p_mem = fit_power_law(lengths, ms)[0], fit_power_law(lengths, mib)[0]
        p_tail = fit_power_law(lengths[-2:], mib[-2:])[0]
        ev[f"time_exp:{kind}"] = Evidence(p_time, f"{kind}: training step time ~ n^{p_time:.2f} {span}", "10.2")
        ev[f"mem_exp:{kind}"] = Evidence(p_mem, f"{kind}: activation memory ~ n^{p_mem:.2f} {span}", "10.2")
        ev[f"mem_tail:{kind}"] = Evidence(p_tail, f"{kind}: local memory exponent {p_tail:.2f} between "
                                          f"n = {lengths[-2]} and {longest}", "10.2")
    mem_ratio = at["Transformer", longest]["saved_MiB"] / at["GRU", longest]["saved_MiB"]
    ev["mem_ratio:Transformer/GRU"] = Evidence(mem_ratio, f"at n = {longest} a Transformer layer's training step "
                                               f"keeps {at['Transformer', longest]['saved_MiB']:.1f} MiB, a GRU's "
                                               f"{at['GRU', longest]['saved_MiB']:.1f} MiB", "10.2")
    for n, key in ((lengths[0], "short"), (longest, "long")):
        ratio = at["Transformer", n]["ms_per_step"] / at["GRU", n]["ms_per_step"]
        ev[f"step_ratio_{key}:Transformer/GRU"] = Evidence(
            ratio, f"at n = {n} a Transformer layer's training step takes {at['Transformer', n]['ms_per_step']:.2f} "
            f"ms, a GRU's {at['GRU', n]['ms_per_step']:.2f} ms", "10.2")
    contexts = sorted({r["context"] for r in stream})
    per = {(r["model"], r["context"]): r["ms_per_token"] for r in stream}
    for name, key in (("GRU", "GRU"), ("Transformer (KV cache)", "cache")):
        ms = [per[name, c] for c in contexts]
        growth = fitted_growth(contexts, ms)
        ev[f"stream_growth:{key}"] = Evidence(growth, f"{name}: {ms[0]:.3f} -> {ms[-1]:.3f} ms per token from "
                                              f"{contexts[0]} to {contexts[-1]} tokens of context (a power law "
                                              f"fitted to all {len(contexts)} contexts: a factor {growth:.1f})", "10.3")
    last = contexts[-1]
    ev["stream_ratio:cache/GRU"] = Evidence(per["Transformer (KV cache)", last] / per["GRU", last],
                                            f"after {last} tokens of context: cached Transformer "
                                            f"{per['Transformer (KV cache)', last]:.3f} ms per token, GRU "
                                            f"{per['GRU', last]:.3f} ms", "10.3")
    ft = finetune
    ev["finetune:pretrained"] = Evidence(ft["pretrained"], f"{ft['labels']} labelled sentences: pretrained then "
                                         f"fine-tuned {ft['pretrained']:.1%}, from scratch {ft['scratch']:.1%} "
                                         f"(chance {ft['chance']:.0%})", "10.5, chapter 9's experiment")
    ev["finetune:scratch"] = Evidence(ft["scratch"], ev["finetune:pretrained"].summary,
                                      ev["finetune:pretrained"].source)
    return ev


def evidence_names() -> set[str]:
    """The name of every entry :func:`collect_evidence` returns."""
    names = {f"{prefix}:{k}" for t in TASKS for k in MODELS for prefix in (t, f"{t}_train_s", f"{t}_latency")}
    names |= {f"{prefix}:{k}" for k in COST_MODELS for prefix in ("time_exp", "mem_exp", "mem_tail")}
    return names | {"params:GRU/LSTM", "mem_ratio:Transformer/GRU", "step_ratio_short:Transformer/GRU",
                    "step_ratio_long:Transformer/GRU", "stream_growth:GRU", "stream_growth:cache",
                    "stream_ratio:cache/GRU", "finetune:pretrained", "finetune:scratch"}


def check_evidence(evidence) -> dict:
    """``evidence`` must be :func:`collect_evidence`'s dict: every name, each an :class:`Evidence`."""
    if not isinstance(evidence, dict):
        raise ValueError(f"evidence must be the dict that collect_evidence returns, got {type(evidence).__name__}")
    missing = sorted(evidence_names() - set(evidence))
    if missing:
        raise ValueError(f"evidence must be the dict that collect_evidence returns; it lacks {missing[:4]}"
                         f"{' ...' if len(missing) > 4 else ''} ({len(missing)} entries)")
    wrong = [k for k, v in evidence.items() if not isinstance(v, Evidence)]
    if wrong:
        raise ValueError(f"evidence must map names to Evidence (value, summary, source); {wrong[:3]} are not")
    return evidence
