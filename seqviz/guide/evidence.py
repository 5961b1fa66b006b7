"""The numbers chapter 10's guide reads: :func:`collect_evidence` turns the chapter's measured rows (the task
table, the training cost against length, the cost per generated token) and the fine-tuning run into named
:class:`Evidence`, each with its value and a one-line summary. Also the guide's questions
(:data:`GUIDE_OPTIONS`) and what counts as "about the same" (:data:`TOLERANCE`). Used by chapter 10.
"""

from __future__ import annotations

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


@dataclass
class Evidence:
    """One measured result the guide reads: ``value`` (a number), ``summary`` (what was measured,
    with the numbers), ``source`` (where in the book)."""

    value: float
    summary: str
    source: str


# -- the evidence ----------------------------------------------------------------------------------------


def collect_evidence(rows: Sequence[dict], cost: Sequence[dict], stream: Sequence[dict], finetune: dict) -> dict:
    """The guide's evidence, by name, from chapter 10's measured rows.

    ``rows``: the task table (``agreement_rows`` + ``translation_rows`` + ``forecast_rows``);
    ``cost``: :func:`seqviz.experiments.step_cost` rows; ``stream``: :func:`seqviz.experiments.streaming_cost`
    rows; ``finetune``: :func:`seqviz.experiments.finetune_evidence`'s result.
    """
    by = {(r["task"], r["model"]): r for r in rows}
    for task in ("agreement", "translation", "forecasting"):
        for kind in ("RNN", "GRU", "LSTM", "Transformer"):
            if (task, kind) not in by:
                raise ValueError(f"rows must hold task {task!r} for model {kind!r}; got {sorted(by)}")
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
