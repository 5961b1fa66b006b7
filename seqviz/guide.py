"""Chapter 10's decision guide, derived from measurements rather than typed rules.

- :func:`collect_evidence`: the numbers the guide reads, from chapter 10's measured rows (the task
  table, the training cost against length, the cost per generated token) and the fine-tuning run,
  each as an :class:`Evidence` with its value and a one-line summary;
- :func:`recommend`: (task, data, length, compute, latency) -> a model and the measured numbers
  that decided it. Each branch compares two measured numbers (:func:`seqviz.book.compare_word`
  with a stated tolerance); no answer is fixed in advance;
- :func:`seed_guide`: the decision guide and final checklist of seed 002 (section 8), row by row,
  each marked *supported*, *contradicted* or *not tested here* by the same evidence;

The seeds' guide follows Devlin et al. (2019) for fine-tuning, Beltagy et al. (2020, Longformer),
Zaheer et al. (2020, BigBird), Kitaev et al. (2020, Reformer), Sanh et al. (2019, DistilBERT),
Jiao et al. (2020, TinyBERT), Zhou et al. (2021, Informer) and Wu et al. (2021, Autoformer);
those models are named, not run, here. It reads the runs of :mod:`seqviz.experiments`. Used by chapter 10.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .book import compare_word
from .measure import fit_power_law, fitted_growth

__all__ = ["GUIDE_OPTIONS", "Evidence", "collect_evidence", "recommend", "seed_guide", "TOLERANCE"]

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


# -- deciding -------------------------------------------------------------------------------------------

RECURRENT = ("RNN", "GRU", "LSTM")
_PROXY = {"classification": "agreement", "labelling": "agreement", "translation": "translation",
          "generation": "translation", "forecasting": "forecasting"}


def _same(a: float, b: float, kind: str = "score") -> str:
    """``"higher"``, ``"about the same"`` or ``"lower"``: measured ``a`` against measured ``b``."""
    return compare_word(a, b, ("higher", "about the same", "lower"), TOLERANCE[kind])


def best_of(evidence: dict, task: str, kinds: Sequence[str]) -> tuple[str, list[str], str]:
    """The best-scoring kind on ``task``; among those within the score tolerance of the best, the
    fastest to train. Returns ``(kind, evidence names used, reason in words)``."""
    scores = {k: evidence[f"{task}:{k}"].value for k in kinds}
    top = max(scores.values())
    tied = [k for k in kinds if _same(scores[k], top) == "about the same"]
    choice = min(tied, key=lambda k: evidence[f"{task}_train_s:{k}"].value)
    if len(tied) == 1:
        return choice, [f"{task}:{choice}"], f"the best score on {task} among {', '.join(kinds)} ({top:.1%})"
    times = ", ".join(f"{k} {evidence[f'{task}_train_s:{k}'].value:.1f} s" for k in tied)
    return (choice, [f"{task}:{choice}"] + [f"{task}_train_s:{k}" for k in tied],
            f"{', '.join(tied)} scored within {TOLERANCE['score']:.0%} of the best on {task}; "
            f"{choice} trained fastest ({times})")


def _label(kind: str, task: str) -> str:
    if task in ("translation", "generation"):
        return "Transformer encoder-decoder" if kind == "Transformer" else f"{kind} encoder-decoder with attention"
    return kind


def recommend(task: str, data: str, length: str, compute: str, latency: str, evidence: dict) -> dict:
    """A model for the situation, decided by measured ``evidence`` (:func:`collect_evidence`).

    Returns ``{"model", "reasons", "evidence", "choice"}``: ``evidence`` names the entries that decided
    the answer; ``reasons`` says how, with the numbers. Order of the questions: streaming first (it fixes
    the cost per token), then few labels for classification (pretraining), then long inputs (attention's
    memory), then the task's own scores.
    """
    choice = dict(task=task, data=data, length=length, compute=compute, latency=latency)
    for key, value in choice.items():
        if value not in GUIDE_OPTIONS[key]:
            raise ValueError(f"{key} must be one of {GUIDE_OPTIONS[key]}, got {value!r}")
    if not isinstance(evidence, dict) or "finetune:pretrained" not in evidence:
        raise ValueError("evidence must be the dict that collect_evidence returns")
    ev, proxy = evidence, _PROXY[task]
    decided: list[str] = []
    reasons: list[str] = []

    if latency == "streaming, per token":
        ratio = ev["stream_ratio:cache/GRU"].value
        cache, gru = ev["stream_growth:cache"].value, ev["stream_growth:GRU"].value
        decided += ["stream_ratio:cache/GRU", "stream_growth:GRU", "stream_growth:cache"]
        word = _same(ratio, 1.0, "time")
        if word == "about the same":  # as costly at the longest context: the one that grows less wins
            word = _same(cache, gru, "time")
        if word == "higher":
            kind, used, why = best_of(ev, proxy, ("GRU", "LSTM"))
            decided += used
            reasons += [f"cost per generated token: {ev['stream_ratio:cache/GRU'].summary}; over the measured "
                        f"contexts the cached Transformer's grew {cache:.1f}x, the GRU's {gru:.1f}x",
                        f"{kind} among the gated models: {why}"]
            model = kind
        else:
            model = "Transformer decoder with a key/value cache"
            reasons.append(f"cost per generated token: {ev['stream_ratio:cache/GRU'].summary}; over the measured "
                           f"contexts the cached Transformer's grew {cache:.1f}x, the GRU's {gru:.1f}x: recurrence "
                           f"showed no advantage in this run")
    elif task in ("classification", "labelling") and data == "small (few labels)":
        pre, scratch = ev["finetune:pretrained"].value, ev["finetune:scratch"].value
        decided.append("finetune:pretrained")
        if _same(pre, scratch) == "higher":
            model = "a pretrained Transformer encoder (BERT-style), fine-tuned"
            reasons.append(f"with few labels, pretraining and fine-tuning scored {pre:.1%} against {scratch:.1%} "
                           f"for the same model trained from scratch")
        else:
            model, used, why = best_of(ev, "agreement", ("RNN", "GRU", "LSTM", "Transformer"))
            decided += used
            reasons.append(f"pretraining did not help in this run ({pre:.1%} vs {scratch:.1%} from scratch), "
                           f"so the best model trained from scratch: {why}")
        if task == "labelling":
            reasons.append("for one label per token the seeds name a bidirectional LSTM/GRU with a CRF as the "
                           "light alternative; this book does not measure a CRF")
    elif length == "very long (> 1000)" or (length == "long (100-1000)" and compute == "limited (CPU)"):
        ratio = ev["mem_ratio:Transformer/GRU"].value
        decided += ["mem_ratio:Transformer/GRU", "mem_tail:Transformer", "mem_exp:GRU"]
        if _same(ratio, 1.0) == "higher":
            kind, used, why = best_of(ev, proxy, RECURRENT)
            decided += used
            model = _label(kind, task)
            reasons += [f"{ev['mem_ratio:Transformer/GRU'].summary}; the Transformer's memory grows with exponent "
                        f"{ev['mem_tail:Transformer'].value:.2f} at the longest lengths, the GRU's with "
                        f"{ev['mem_exp:GRU'].value:.2f}, so at {length.split(' (')[0]} inputs a recurrent model keeps "
                        f"memory linear (a sparse-attention Transformer, which this book does not measure, is the "
                        f"seeds' other answer)", f"{kind}: {why}"]
        else:
            kind, used, why = best_of(ev, proxy, ("RNN", "GRU", "LSTM", "Transformer"))
            decided += used
            model = _label(kind, task)
            reasons += [f"{ev['mem_ratio:Transformer/GRU'].summary}: attention's memory did not stand out in this "
                        f"run", f"{kind}: {why}"]
    else:
        kind, used, why = best_of(ev, proxy, ("RNN", "GRU", "LSTM", "Transformer"))
        decided += used
        model = _label(kind, task)
        reasons.append(f"{kind}: {why}")
        if kind == "Transformer" or task in ("translation", "generation"):
            fastest = min(RECURRENT, key=lambda k: ev[f"{proxy}_train_s:{k}"].value)
            word = _same(ev[f"{proxy}_train_s:Transformer"].value, ev[f"{proxy}_train_s:{fastest}"].value, "time")
            decided += [f"{proxy}_train_s:Transformer", f"{proxy}_train_s:{fastest}"]
            than = {"higher": "longer than", "lower": "less than", "about the same": "about as long as"}[word]
            reasons.append(f"training took the Transformer {ev[f'{proxy}_train_s:Transformer'].value:.1f} s, {than} "
                           f"the fastest recurrent model ({fastest}, {ev[f'{proxy}_train_s:{fastest}'].value:.1f} s)")
    if compute == "GPU":
        reasons.append("the times here come from the machine that ran this chapter; on a GPU attention's positions "
                       "run in parallel, so rerun the chapter there before trusting a time comparison")
    if data == "large" and task != "forecasting":
        reasons.append("with much more data than here, the seeds expect pretrained Transformers to pull ahead; "
                       "this run cannot test that")
    return {"model": model, "reasons": reasons, "evidence": decided, "choice": choice}


# -- the seeds' guide, row by row ---------------------------------------------------------------------

VERDICTS = ("supported", "contradicted", "mixed", "no difference measured", "not tested here")


def _verdict(word: str, claim_higher: bool = True) -> str:
    if word == "about the same":
        return "no difference measured"
    return "supported" if (word == "higher") == claim_higher else "contradicted"


def seed_guide(evidence: dict) -> list[dict]:
    """Seed 002's decision guide and checklist (its section 8), one row per piece of advice:
    ``{"situation", "seeds' advice", "verdict", "measured"}``; ``verdict`` is one of :data:`VERDICTS`,
    computed from ``evidence``."""
    ev = evidence
    rows = []

    def row(situation, advice, verdict, measured):
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
        rows.append({"situation": situation, "advice": advice, "verdict": verdict, "measured": measured})

    ft = ev["finetune:pretrained"]
    ft_word = _same(ft.value, ev["finetune:scratch"].value)
    row("classification or labelling", "a pretrained Transformer encoder (BERT and its variants)",
        _verdict(ft_word), ft.summary)
    row("classification or labelling, very limited resources", "a bidirectional LSTM/GRU with a CRF",
        "not tested here", "no CRF in this book")
    rec_best = max(RECURRENT, key=lambda k: ev[f"translation:{k}"].value)
    word = _same(ev["translation:Transformer"].value, ev[f"translation:{rec_best}"].value)
    row("generation (translation, summaries, dialogue)",
        "a Transformer encoder-decoder (BART, T5) or decoder-only (GPT)", _verdict(word),
        f"{ev['translation:Transformer'].summary}; BART, T5 and GPT themselves are not run")
    gated = max(("GRU", "LSTM"), key=lambda k: ev[f"forecasting:{k}"].value)
    others = max(("RNN", "Transformer"), key=lambda k: ev[f"forecasting:{k}"].value)
    word = _same(ev[f"forecasting:{gated}"].value, ev[f"forecasting:{others}"].value)
    row("time series", "an LSTM or a GRU", "supported" if word == "higher" else _verdict(word),
        ev["forecasting:GRU"].summary)
    row("time series", "Transformers built for it (Informer, Autoformer)", "not tested here",
        "only a plain causal Transformer encoder is measured (above)")
    row("small data (< 10k labels)", "fine-tune a pretrained model rather than train from scratch",
        _verdict(ft_word), ft.summary)
    mem = ev["mem_ratio:Transformer/GRU"]
    row("long inputs (> 512 tokens)", "a standard Transformer is slow and memory-hungry there",
        _verdict(_same(mem.value, 1.0)), f"{mem.summary}; {ev['mem_tail:Transformer'].summary}")
    row("long inputs (> 512 tokens)", "a sparse-attention Transformer (Longformer, BigBird, Reformer)",
        "not tested here", "chapter 8's exercise builds a Longformer-style window mask but does not time it")
    linear = compare_word(ev["mem_exp:GRU"].value, 1.0, ("higher", "about the same", "lower"), 0.1)
    row("long inputs (> 512 tokens)", "or an RNN/LSTM, whose cost is O(n)",
        "supported" if linear == "about the same" else "contradicted",
        f"{ev['mem_exp:GRU'].summary}; {ev['mem_exp:LSTM'].summary}")
    ratio = ev["params:GRU/LSTM"]
    row("limited compute", "a GRU: fewer parameters than an LSTM", _verdict(_same(ratio.value, 1.0), False),
        ratio.summary)
    gru_time = sum(ev[f"{t}_train_s:GRU"].value for t in ("agreement", "forecasting"))
    lstm_time = sum(ev[f"{t}_train_s:LSTM"].value for t in ("agreement", "forecasting"))
    row("limited compute", "a GRU: faster to train than an LSTM", _verdict(_same(gru_time, lstm_time, "time"), False),
        f"agreement and forecasting together: GRU {gru_time:.1f} s, LSTM {lstm_time:.1f} s of training "
        "(torch.nn's layers on the machine that ran this chapter)")
    row("limited compute", "a distilled Transformer (DistilBERT, TinyBERT)", "not tested here",
        "no distilled model here")
    parts = []
    for task, against in (("translation", "a recurrent encoder-decoder whose decoder steps in Python"),
                          ("agreement", "torch.nn's fused recurrent layers")):
        fastest = min(RECURRENT, key=lambda k: ev[f"{task}_train_s:{k}"].value)
        word = _same(ev[f"{task}_train_s:Transformer"].value, ev[f"{task}_train_s:{fastest}"].value, "time")
        parts.append((_verdict(word, False), f"{task} ({against}): Transformer "
                      f"{ev[f'{task}_train_s:Transformer'].value:.1f} s, fastest recurrent ({fastest}) "
                      f"{ev[f'{task}_train_s:{fastest}'].value:.1f} s"))
    found = {v for v, _ in parts}
    row("training speed matters", "a Transformer: it trains in parallel, much faster than an RNN",
        found.pop() if len(found) == 1 else "mixed", "; ".join(text for _, text in parts))
    cheaper = _same(ev["stream_ratio:cache/GRU"].value, 1.0, "time")  # "higher": the GRU's step is cheaper
    flat = compare_word(ev["stream_growth:GRU"].value, 1.0, ("grew", "flat", "fell"), 0.3)
    parts = {"supported" if cheaper == "higher" else "contradicted" if cheaper == "lower" else "no difference measured",
             "supported" if flat == "flat" else "contradicted"}
    row("latency on edge devices, streaming", "a recurrent model: its step is small and fixed",
        parts.pop() if len(parts) == 1 else "mixed",
        f"{ev['stream_ratio:cache/GRU'].summary}; {ev['stream_growth:GRU'].summary}")
    row("latency on edge devices", "prune and quantise the model", "not tested here", "no pruning or quantisation here")
    pairs = [(t, _same(ev[f"{t}:GRU"].value, ev[f"{t}:LSTM"].value))
             for t in ("agreement", "translation", "forecasting")]
    same = sum(w == "about the same" for _, w in pairs)
    row("any task, a first model", "start with a GRU: as good as an LSTM on most tasks",
        "supported" if same * 2 > len(pairs) else "contradicted",
        "; ".join(f"{t}: GRU {ev[f'{t}:GRU'].value:.1%}, LSTM {ev[f'{t}:LSTM'].value:.1%}" for t, _ in pairs))
    word = _same(ev["agreement:LSTM"].value, ev["agreement:GRU"].value)
    row("very long memory", "an LSTM may have the edge over a GRU", _verdict(word),
        f"agreement (chapter 4's task, the longest distance here): LSTM {ev['agreement:LSTM'].value:.1%}, "
        f"GRU {ev['agreement:GRU'].value:.1%}")
    row("small data", "a GRU overfits less than an LSTM", "not tested here", "not measured in this chapter")
    return rows


CHECKLIST = (("What goes in and what comes out?", "task"), ("How much labelled data?", "data"),
             ("How long are the sequences?", "length"), ("What hardware?", "compute"),
             ("Must it answer token by token?", "latency"))
