"""The numbers and findings chapter 10's guide reads, each with the regime it comes from.

:func:`collect_evidence` turns the chapter's measured rows (the task table, the training cost against length, the
cost per generated token), the fine-tuning rerun and, when given, the language-model race and the book's long runs
into named :class:`Evidence`, and adds the published findings of :mod:`~seqviz.guide.literature`. Every entry says
where it comes from (:data:`REGIMES`):

- *measured here*: this chapter's run, on this machine, at its budget and sizes (:data:`MEASURED`);
- *the book's long runs*: the models the book trains for up to half an hour of CPU each, re-evaluated in this run
  (:data:`LONG_RUNS`);
- *from the literature*: a published result, cited (:data:`LITERATURE`).

Also the guide's questions (:data:`GUIDE_OPTIONS`) and what counts as "about the same" (:data:`TOLERANCE`).
Used by chapter 10.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch

from ..book import compare_times, readable
from ..config import pick_device
from ..measure import fit_power_law, fitted_growth
from .literature import FINDINGS, literature_evidence
from .regimes import LITERATURE, LONG_RUNS, MEASURED, REGIMES, Evidence  # noqa: F401 (the regimes, re-exported)

GUIDE_OPTIONS = {
    "task": ("classification", "labelling", "translation", "generation", "forecasting"),
    "data": ("small (few labels)", "moderate (thousands)", "large"),
    "length": ("short (< 100)", "long (100-1000)", "very long (> 1000)"),
    "compute": ("limited (CPU)", "CPU, an hour of training", "GPU"),
    "latency": ("batch", "streaming, per token"),
}

# what counts as "about the same": scores (fractions) within 3 points; times, within 10 % (and beyond their spread);
# ratios and perplexities, within 5 % of the larger
TOLERANCE = {"score": 0.03, "time": 0.10, "ratio": 0.05}
TASKS = ("agreement", "translation", "forecasting")
MODELS = ("RNN", "GRU", "LSTM", "Transformer")
COST_MODELS = ("GRU", "LSTM", "Transformer")
STREAM_MODELS = ("GRU", "Transformer (KV cache)")
ROW_KEYS = {"rows": ("task", "model", "score", "metric", "train_s", "latency_ms", "parameters"),
            "cost": ("model", "length", "ms_per_step", "saved_MiB"),
            "stream": ("model", "context", "ms_per_token")}
POSITIVE = ("train_s", "latency_ms", "parameters", "length", "ms_per_step", "saved_MiB", "context", "ms_per_token")


# -- checks ----------------------------------------------------------------------------------------------------


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
            if key in ("task", "model", "metric"):
                continue
            value = row[key]
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


def _samples(row: dict, key: str, value_key: str) -> tuple:
    """The repeats behind a timing (``row[key]``), or the single value twice when a row carries none (a row
    without repeats cannot show a spread, so any comparison of it comes out "similar" unless it is lopsided)."""
    samples = row.get(key)
    if samples is None or len(samples) < 2:
        return (row[value_key], row[value_key])
    return tuple(float(s) for s in samples)


def _spread(samples: Sequence[float]) -> str:
    """The range of repeated timings as a sentence writes it, two significant figures: "0.19–0.62"."""
    low, high = readable(min(samples), 2), readable(max(samples), 2)
    return low if low == high else f"{low}–{high}"


def _judge(a: Sequence[float], b: Sequence[float], min_ratio: float = 1 + TOLERANCE["time"]) -> str:
    return compare_times(list(a), list(b), min_ratio=min_ratio)


# -- the evidence ----------------------------------------------------------------------------------------------


def machine_words(device=None) -> str:
    """The machine a chapter measured on, in words: "this machine's CPU, one thread", or its GPU's name."""
    device = torch.device(device) if device is not None else pick_device()
    if device.type == "cuda":
        return f"a {torch.cuda.get_device_name(device)} GPU"
    if device.type == "mps":
        return "an Apple GPU (MPS)"
    threads = torch.get_num_threads()
    return f"this machine's CPU, {'one thread' if threads == 1 else f'{threads} threads'}"


def _setting(rows: list[dict], machine: str | None) -> str:
    """This run's regime in words: the machine, the budget and the sizes the rows record."""
    steps = sorted({r["steps"] for r in rows if "steps" in r})
    seconds = [r["train_s"] for r in rows]
    examples = sorted({r["examples"] for r in rows if "examples" in r})
    widths = sorted({r["width"] for r in rows if "width" in r})

    def span(values, fmt="{:,}"):
        return fmt.format(values[0]) if len(values) == 1 else f"{fmt.format(values[0])}–{fmt.format(values[-1])}"

    parts = [machine or "the machine that ran this chapter"]
    if steps:
        time = [format(t, ".1f" if t < 10 else ".0f") for t in (min(seconds), max(seconds))]
        parts.append(f"{span(steps)} training steps per model ({time[0] if time[0] == time[1] else '–'.join(time)} "
                     f"s of training)")
    if examples:
        parts.append(f"{span(examples)} training examples per task")
    if widths:
        parts.append(f"width {span(widths)}")
    return ", ".join(parts)


def collect_evidence(rows: Sequence[dict], cost: Sequence[dict], stream: Sequence[dict], finetune: dict, *,
                     race: Mapping | None = None, long_runs: Mapping | None = None,
                     machine: str | None = None) -> dict:
    """The guide's evidence, by name, from chapter 10's measured rows, with the published findings.

    ``rows``: the task table (``agreement_rows`` + ``translation_rows`` + ``forecast_rows``);
    ``cost``: :func:`seqviz.experiments.step_cost` rows; ``stream``: :func:`seqviz.experiments.streaming_cost`
    rows; ``finetune``: :func:`seqviz.experiments.finetune_evidence`'s result. Each is checked first: a row
    without a key the guide reads, a zero or non-finite measurement, or a model missing at some length is a
    ``ValueError`` that names it. Optional: ``race``, the language-model race (``{name: {"valid_ppl", "seconds",
    "steps"}}``, :func:`seqviz.experiments.lm_race.race` turned into numbers); ``long_runs``, the book's long runs
    re-evaluated in this run (:func:`long_run_evidence`'s input); ``machine``, the machine in words.
    ``evidence["setting"]`` says what "measured here" means in this run.
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
    lengths = _check_grid(cost, "cost", COST_MODELS, "length")
    contexts = _check_grid(stream, "stream", STREAM_MODELS, "context")
    setting = _setting(rows, machine)
    ev: dict[str, Evidence] = {"setting": Evidence(None, setting, "10.1")}
    for task, source in (("agreement", "10.1, chapter 4's task"), ("translation", "10.1, the task of chapters 7-8"),
                         ("forecasting", "10.1, 10.4")):
        scores = {k: by[task, k]["score"] for (t, k) in by if t == task}
        metric = by[task, "GRU"]["metric"]
        text = ", ".join(f"{k} {v:.0%}" for k, v in scores.items()) + f" ({metric})"
        for k, v in scores.items():
            row = by[task, k]
            ev[f"{task}:{k}"] = Evidence(v, f"{task}: {text}", source)
            laps = _samples(row, "train_laps", "train_s")
            ev[f"{task}_train_s:{k}"] = Evidence(row["train_s"], f"{task}: {k} trained in {row['train_s']:.1f} s",
                                                 source, samples=laps)
            ev[f"{task}_latency:{k}"] = Evidence(row["latency_ms"], f"{task}: {k} answers one example in "
                                                 f"{row['latency_ms']:.2f} ms", source,
                                                 samples=_samples(row, "latency_samples", "latency_ms"))
    longer = {k: by["translation", k].get("score_longer") for k in MODELS}
    if all(v is not None for v in longer.values()):
        words = by["translation", "GRU"].get("longer_words") or ("more", "")
        text = ", ".join(f"{k} {v:.0%}" for k, v in longer.items())
        for k, v in longer.items():
            ev[f"translation_longer:{k}"] = Evidence(v, f"translation, sentences of {words[0]}–{words[1]} words "
                                                     f"(longer than any in training): {text}", "10.1")
    p_gru, p_lstm = by["agreement", "GRU"]["parameters"], by["agreement", "LSTM"]["parameters"]
    ev["params:GRU/LSTM"] = Evidence(p_gru / p_lstm, f"GRU {p_gru:,} vs LSTM {p_lstm:,} parameters "
                                     "(agreement models, same width)", "10.1")
    longest = lengths[-1]
    at = {(r["model"], r["length"]): r for r in cost}
    ev["length_max"] = Evidence(longest, f"training cost measured at lengths {lengths[0]}–{longest}", "10.2")
    for kind in COST_MODELS:
        ms = [at[kind, n]["ms_per_step"] for n in lengths]
        mib = [at[kind, n]["saved_MiB"] for n in lengths]
        span = f"over n = {lengths[0]}–{longest}"
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
        trf, gru = at["Transformer", n], at["GRU", n]
        ev[f"step_ratio_{key}:Transformer/GRU"] = Evidence(
            trf["ms_per_step"] / gru["ms_per_step"], f"at n = {n} a Transformer layer's training step takes "
            f"{trf['ms_per_step']:.2f} ms, a GRU's {gru['ms_per_step']:.2f} ms", "10.2",
            judged=_judge(_samples(trf, "ms_samples", "ms_per_step"), _samples(gru, "ms_samples", "ms_per_step")))
    per = {(r["model"], r["context"]): r for r in stream}
    ev["context_max"] = Evidence(contexts[-1], f"cost per token measured after {contexts[0]}–{contexts[-1]} tokens",
                                 "10.3")
    for name, key in (("GRU", "GRU"), ("Transformer (KV cache)", "cache")):
        ms = [per[name, c]["ms_per_token"] for c in contexts]
        growth = fitted_growth(contexts, ms)
        first, last = per[name, contexts[0]], per[name, contexts[-1]]
        ev[f"stream_growth:{key}"] = Evidence(
            growth, f"{name}: {ms[0]:.3f} -> {ms[-1]:.3f} ms per token (repeats "
            f"{_spread(_samples(first, 'ms_samples', 'ms_per_token'))} and "
            f"{_spread(_samples(last, 'ms_samples', 'ms_per_token'))}) from {contexts[0]} to {contexts[-1]} tokens "
            f"of context (a power law fitted to all {len(contexts)} contexts: a factor {growth:.1f})", "10.3",
            judged=_judge(_samples(last, "ms_samples", "ms_per_token"), _samples(first, "ms_samples", "ms_per_token"),
                          min_ratio=1.3))
    last = contexts[-1]
    cache, gru = per["Transformer (KV cache)", last], per["GRU", last]
    ev["stream_ratio:cache/GRU"] = Evidence(cache["ms_per_token"] / gru["ms_per_token"],
                                            f"after {last} tokens of context: cached Transformer "
                                            f"{cache['ms_per_token']:.3f} ms per token, GRU "
                                            f"{gru['ms_per_token']:.3f} ms", "10.3",
                                            judged=_judge(_samples(cache, "ms_samples", "ms_per_token"),
                                                          _samples(gru, "ms_samples", "ms_per_token")))
    ft = finetune
    ev["finetune:pretrained"] = Evidence(ft["pretrained"], f"{ft['labels']} labelled sentences: pretrained then "
                                         f"fine-tuned {ft['pretrained']:.0%}, from scratch {ft['scratch']:.0%} "
                                         f"(chance {ft['chance']:.0%})", "10.5, chapter 9's experiment")
    ev["finetune:scratch"] = Evidence(ft["scratch"], ev["finetune:pretrained"].summary,
                                      ev["finetune:pretrained"].source)
    ev["finetune:labels"] = Evidence(ft["labels"], ev["finetune:pretrained"].summary, ev["finetune:pretrained"].source)
    if race is not None:
        ev.update(race_evidence(race))
    if long_runs is not None:
        ev.update(long_run_evidence(long_runs))
    ev.update(literature_evidence())
    return ev


def race_evidence(race: Mapping) -> dict:
    """``{"race:<name>": Evidence}`` from the language-model race: ``race`` maps each model ("Transformer",
    "GRU", "LSTM") to ``{"valid_ppl", "seconds", "steps"}`` (its validation perplexity after ``seconds`` of
    training, ``steps`` steps)."""
    if not isinstance(race, Mapping) or not race:
        raise ValueError(f"race must map each model to its result, e.g. {{'GRU': {{'valid_ppl': 9.4, 'seconds': 4, "
                         f"'steps': 40}}}}, got {race!r}")
    for name, r in race.items():
        if not isinstance(r, Mapping) or not all(k in r for k in ("valid_ppl", "seconds", "steps")):
            raise ValueError(f"race[{name!r}] must hold valid_ppl, seconds and steps, got {r!r}")
    text = ", ".join(f"{n} {r['valid_ppl']:.1f} after {r['steps']:,} steps" for n, r in race.items())
    seconds = max(r["seconds"] for r in race.values())
    return {f"race:{n}": Evidence(float(r["valid_ppl"]), f"Moby-Dick, characters, {seconds:.2g} s of training each "
                                  f"on this machine: validation perplexity {text}", "10.6")
            for n, r in race.items()}


def long_run_evidence(long_runs: Mapping) -> dict:
    """``{"long:<task>:<family>": Evidence}`` from the book's long runs, re-evaluated in this run.

    ``long_runs`` maps ``"charlm"`` to ``{family: [{"name", "parameters", "valid_loss"}, ...]}`` (character
    language models on Moby-Dick, each family's sizes, smallest first, the families' sizes matched pair by pair;
    loss in nats per character) and/or ``"translate"`` to ``{model: {"name", "bleu"}}`` (the English-French
    translators, BLEU on the test split). Each entry's value is the family's best (the lowest loss, the highest
    BLEU); a language-model family's ``samples`` are its losses, size by size.
    """
    if not isinstance(long_runs, Mapping) or not set(long_runs) <= {"charlm", "translate"} or not long_runs:
        raise ValueError(f"long_runs must map 'charlm' and/or 'translate' to their results, got {long_runs!r}")
    ev = {}
    for family, sizes in long_runs.get("charlm", {}).items():
        if isinstance(sizes, Mapping) or not sizes or not all(isinstance(s, Mapping) and {"name", "parameters",
                                                                "valid_loss"} <= set(s) for s in sizes):
            raise ValueError(f"long_runs['charlm'][{family!r}] must be a list of {{name, parameters, valid_loss}}, "
                             f"got {sizes!r}")
        best = min(sizes, key=lambda s: s["valid_loss"])
        text = "; ".join(f"{s['name']} ({s['parameters']:,} parameters) {s['valid_loss']:.3f}" for s in sizes)
        ev[f"long:charlm:{family}"] = Evidence(float(best["valid_loss"]), f"long runs, validation loss in nats per "
                                               f"character: {text}", "the book's long runs", regime=LONG_RUNS,
                                               samples=tuple(float(s["valid_loss"]) for s in sizes))
    for model, result in long_runs.get("translate", {}).items():
        if not isinstance(result, Mapping) or not {"name", "bleu"} <= set(result):
            raise ValueError(f"long_runs['translate'][{model!r}] must hold name and bleu, got {result!r}")
        ev[f"long:translate:{model}"] = Evidence(float(result["bleu"]), f"long runs, English-French test BLEU: "
                                                 f"{result['name']} {result['bleu']:.1f}", "the book's long runs",
                                                 regime=LONG_RUNS)
    return ev


def evidence_names() -> set[str]:
    """The name of every entry :func:`collect_evidence` always returns (the optional race, long runs and the
    longer-sentence scores aside)."""
    names = {f"{prefix}:{k}" for t in TASKS for k in MODELS for prefix in (t, f"{t}_train_s", f"{t}_latency")}
    names |= {f"{prefix}:{k}" for k in COST_MODELS for prefix in ("time_exp", "mem_exp", "mem_tail")}
    names |= {f"lit:{name}" for name in FINDINGS}
    return names | {"setting", "params:GRU/LSTM", "length_max", "mem_ratio:Transformer/GRU",
                    "step_ratio_short:Transformer/GRU", "step_ratio_long:Transformer/GRU", "context_max",
                    "stream_growth:GRU", "stream_growth:cache", "stream_ratio:cache/GRU", "finetune:pretrained",
                    "finetune:scratch"}


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
