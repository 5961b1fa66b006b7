"""The guide's rules: :func:`recommend` answers (task, data, length, compute, latency) with a model, the reasons,
the evidence that decided it and the regime that evidence comes from.

:func:`regime_of` decides first where an answer may come from. A situation this chapter measured (a CPU and minutes
of training, few labels for classification or thousands of examples, inputs shorter than 100 tokens) is answered
from this run's numbers, each branch comparing two of them (:func:`same`, with the stated
:data:`~.evidence.TOLERANCE`; training times by :func:`seqviz.book.compare_times` over their laps). A situation it
did not measure (large data, a GPU, an hour of training, inputs of 100 tokens or more, few examples for
generation or forecasting) is answered from the book's long runs where they cover it, and otherwise from the
published findings of :mod:`~.literature`, cited; never extrapolated from the short run. Used by chapter 10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..book import compare_times, compare_word, listing, translate
from .evidence import GUIDE_OPTIONS, LITERATURE, LONG_RUNS, MEASURED, MODELS, TASKS, TOLERANCE, check_evidence

RECURRENT = ("RNN", "GRU", "LSTM")
# what a model scores on each measured task by guessing (agreement: two balanced classes; exact match of a
# translation: nothing; forecast skill: persistence itself), and how far above it a model must score to count as
# having learned the task: a guide never recommends a model that did not
CHANCE = {"agreement": 0.5, "translation": 0.0, "forecasting": 0.0}
SOLVED_MARGIN = 0.10
UNSOLVED = "none of the small models solved it at this budget"
_PROXY = {"classification": "agreement", "labelling": "agreement", "translation": "translation",
          "generation": "translation", "forecasting": "forecasting"}


def same(a: float, b: float, kind: str = "score") -> str:
    """``"higher"``, ``"about the same"`` or ``"lower"``: measured ``a`` against measured ``b``. Scores (fractions:
    accuracy, exact match, skill) are about the same within ``TOLERANCE["score"]`` of each other, in absolute terms
    (3 percentage points, so that 1% and 3% are not called different); other numbers within that share of the
    larger one."""
    if kind not in TOLERANCE:
        raise ValueError(f"kind must be one of {sorted(TOLERANCE)} (which tolerance), got {kind!r}")
    if kind == "score":
        a, b = _finite(a, "a"), _finite(b, "b")
        return "about the same" if abs(a - b) <= TOLERANCE["score"] + 1e-12 else "higher" if a > b else "lower"
    return compare_word(a, b, ("higher", "about the same", "lower"), TOLERANCE[kind])


def _finite(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number (a measurement), got {value!r}")
    return float(value)


def faster(evidence: dict, a: str, b: str) -> str:
    """How the timing ``a`` compares with ``b`` (two evidence names), judged over their repeats:
    ``"slower"``, ``"similar"`` or ``"faster"`` (:func:`seqviz.book.compare_times`)."""
    return compare_times(list(evidence[a].samples), list(evidence[b].samples), min_ratio=1 + TOLERANCE["time"])


def best_of(evidence: dict, task: str, kinds: Sequence[str]) -> tuple[str, list[str], str]:
    """The best-scoring kind on ``task``; among those within the score tolerance of the best, the one whose
    training was judged fastest over its laps (the first listed when none is). Returns ``(kind, evidence names
    used, reason in words)``."""
    check_evidence(evidence)
    if task not in TASKS:
        raise ValueError(f"task must be one of the measured tasks {TASKS}, got {task!r}")
    kinds = list(kinds) if not isinstance(kinds, str) else [kinds]
    if not kinds or any(k not in MODELS for k in kinds):
        raise ValueError(f"kinds must be a non-empty list from {MODELS}, got {kinds!r}")
    scores = {k: evidence[f"{task}:{k}"].value for k in kinds}
    top = max(scores.values())
    tied = [k for k in kinds if same(scores[k], top) == "about the same"]
    points = f"{100 * TOLERANCE['score']:.0f} points"
    if len(tied) == 1:
        return tied[0], [f"{task}:{tied[0]}"], f"the best score on {task} among {', '.join(kinds)} ({top:.0%})"
    times = {k: evidence[f"{task}_train_s:{k}"] for k in tied}
    quickest = min(tied, key=lambda k: times[k].value)
    beaten = [k for k in tied if k != quickest and faster(evidence, f"{task}_train_s:{quickest}",
                                                          f"{task}_train_s:{k}") == "faster"]
    used = [f"{task}:{k}" for k in tied] + [f"{task}_train_s:{k}" for k in tied]
    listed = ", ".join(f"{k} {times[k].value:.1f} s" for k in tied)
    if len(beaten) == len(tied) - 1:
        return quickest, used, (f"{', '.join(tied)} scored within {points} of the best on {task}; "
                                f"the {quickest} trained fastest, beyond the spread of its laps ({listed})")
    return tied[0], used, (f"{', '.join(tied)} scored within {points} of the best on {task} and no "
                           f"one of them trained clearly fastest ({listed}); the {tied[0]} is the simplest of them")


def unsolved(evidence: dict, task: str, kinds: Sequence[str]) -> str | None:
    """None when the best of ``kinds`` scored at least :data:`SOLVED_MARGIN` above :data:`CHANCE` on ``task``;
    otherwise the reason, in words, that none of them learned it (the guide then recommends none of them)."""
    scores = {k: evidence[f"{task}:{k}"].value for k in kinds}
    top, chance = max(scores.values()), CHANCE[task]
    if top >= chance + SOLVED_MARGIN:
        return None
    listed = ", ".join(f"{k} {v:.0%}" for k, v in scores.items())
    guess = {"agreement": "guessing scores 50%", "translation": "guessing gets none right",
             "forecasting": "0% is no better than repeating the last value"}[task]
    return f"no model learned {task} at this budget: the best scored {top:.0%} ({listed}), where {guess}"


def _label(kind: str, task: str) -> str:
    if task in ("translation", "generation"):
        return "Transformer encoder-decoder" if kind == "Transformer" else f"{kind} encoder-decoder with attention"
    return kind


def regime_of(task: str, data: str, length: str, compute: str, latency: str, evidence: dict) -> str:
    """Where the answer for this situation comes from: :data:`~.evidence.MEASURED` when this run measured it
    (a CPU and minutes of training, short inputs, few labels only for classification), :data:`~.evidence.LONG_RUNS`
    when the book's long runs cover it and were given (an hour of CPU: character language models for generation,
    whose contexts of a few hundred characters are short inputs, a few dozen words; translators of short
    sentences), else
    :data:`~.evidence.LITERATURE`. Large data, a GPU and long inputs are never answered from the short run: its
    tasks are shorter than 100 tokens, so its scores say nothing about long inputs."""
    if compute == "CPU, an hour of training" and data != "small (few labels)":
        # the long-run character models read windows of 128-256 characters, a few dozen words: short inputs
        covered = {"generation": ("charlm", ("short (< 100)",)),
                   "translation": ("translate", ("short (< 100)",))}.get(task)
        if covered and length in covered[1] and any(name.startswith(f"long:{covered[0]}:") for name in evidence):
            return LONG_RUNS
        return LITERATURE
    if compute != "limited (CPU)" or data == "large" or length != "short (< 100)":
        return LITERATURE
    if data == "small (few labels)" and task not in ("classification", "labelling"):
        return LITERATURE
    return MEASURED


def recommend(task: str, data: str, length: str, compute: str, latency: str, evidence: dict) -> dict:
    """A model for the situation, from the evidence that covers it.

    Returns ``{"model", "reasons", "evidence", "choice", "regime", "cite", "brief"}``: ``evidence`` names the
    entries that decided the answer, ``reasons`` says how (with the numbers), ``regime`` is where the answer comes
    from (:func:`regime_of`), ``cite`` the works it rests on and ``brief`` the deciding point in a few words (a
    table's cell). In a measured situation the questions are asked in this
    order: streaming first (the cost per token decides), then few labels for classification (the fine-tuning gap
    decides), then the task's own scores.
    """
    choice = dict(task=task, data=data, length=length, compute=compute, latency=latency)
    for key, value in choice.items():
        if not isinstance(value, str) or value not in GUIDE_OPTIONS[key]:
            raise ValueError(f"{key} must be one of {GUIDE_OPTIONS[key]}, got {value!r}")
    check_evidence(evidence)
    regime = regime_of(task, data, length, compute, latency, evidence)
    if regime == MEASURED:
        model, reasons, decided, brief = _measured(choice, evidence)
    elif regime == LONG_RUNS:
        model, reasons, decided, brief = _long_runs(choice, evidence)
    else:
        model, reasons, decided = _literature(choice, evidence)
        brief = _literature_brief(decided, evidence)
    cite = tuple(dict.fromkeys(c for name in decided for c in evidence[name].cite))
    return {"model": model, "reasons": reasons, "evidence": list(dict.fromkeys(decided)), "choice": choice,
            "regime": regime, "cite": cite, "brief": brief}


# -- measured here ----------------------------------------------------------------------------------------------


def _measured(choice: dict, ev: dict):
    task, latency = choice["task"], choice["latency"]
    proxy = _PROXY[task]
    decided: list[str] = ["setting"]
    reasons: list[str] = []
    if latency == "streaming, per token":
        ratio = ev["stream_ratio:cache/GRU"]
        decided += ["stream_ratio:cache/GRU", "stream_growth:GRU", "stream_growth:cache"]
        cheaper = ratio.judged  # the cached Transformer's token against the GRU's, over the repeats
        if cheaper == "similar":  # as costly at the longest context: the one whose cost grew less wins
            grew = ev["stream_growth:cache"].judged, ev["stream_growth:GRU"].judged
            cheaper = "slower" if grew == ("slower", "similar") else "faster" if grew == ("similar", "slower") \
                else "similar"
        costs = (f"cost per generated token: {ratio.summary}; {ev['stream_growth:GRU'].summary}; "
                 f"{ev['stream_growth:cache'].summary}")
        brief = (f"after {ev['context_max'].value:,} tokens a cached Transformer token cost {ratio.value:.1f} "
                 f"times a GRU token")
        if cheaper == "faster":
            model = "Transformer decoder with a key/value cache"
            reasons.append(f"{costs}: recurrence showed no advantage here")
        else:
            reasons.append(costs if cheaper == "slower" else f"{costs}: about the same per token within the spread "
                           f"of the repeats, but the recurrent state stays the same size while the cache grows")
            if cheaper == "similar":
                brief = "the same cost per token within the repeats' spread; the recurrent state does not grow"
            why_none = unsolved(ev, proxy, ("GRU", "LSTM"))
            if why_none is None:
                kind, used, why = best_of(ev, proxy, ("GRU", "LSTM"))
                decided += used
                model = kind
                reasons.append(f"{kind} among the gated models: {why}")
            else:  # the cost per token decides the family; the task's scores cannot pick one of the two
                decided += [f"{proxy}:{k}" for k in ("GRU", "LSTM")]
                model = "a GRU or an LSTM (the cost per token decides; neither learned the task here)"
                reasons.append(why_none)
    elif task in ("classification", "labelling") and choice["data"] == "small (few labels)":
        pre, scratch = ev["finetune:pretrained"].value, ev["finetune:scratch"].value
        decided.append("finetune:pretrained")
        labels = ev["finetune:labels"].value if "finetune:labels" in ev else None
        brief = (f"with {labels:,.0f} labels: " if labels else "") + f"pretrained {pre:.0%}, from scratch {scratch:.0%}"
        if same(pre, scratch) == "higher":
            model = "a pretrained Transformer encoder (BERT-style), fine-tuned"
            reasons.append(f"with few labels, pretraining and fine-tuning scored {pre:.0%} against {scratch:.0%} "
                           f"for the same model trained from scratch")
        elif (why_none := unsolved(ev, "agreement", MODELS)) is not None:
            decided += [f"agreement:{k}" for k in MODELS]
            model = UNSOLVED
            reasons.append(f"pretraining did not help in this run ({pre:.0%} against {scratch:.0%} from scratch), "
                           f"and {why_none}")
        else:
            model, used, why = best_of(ev, "agreement", MODELS)
            decided += used
            reasons.append(f"pretraining did not help in this run ({pre:.0%} against {scratch:.0%} from scratch), "
                           f"so the best model trained from scratch: {why}")
        if task == "labelling":
            reasons.append("for one label per token the sources name a bidirectional LSTM or GRU with a CRF as the "
                           "light alternative, which this book does not measure")
    elif (why_none := unsolved(ev, proxy, MODELS)) is not None:
        decided += [f"{proxy}:{k}" for k in MODELS]
        model, brief = UNSOLVED, why_none
        reasons.append(f"{why_none}; a model must score {100 * SOLVED_MARGIN:.0f} points above guessing to count "
                       f"as having learned a task")
        reasons.append("this run trains for seconds; more training is another regime: the book's long runs (an "
                       "hour of CPU) and the literature answer it")
    else:
        kind, used, why = best_of(ev, proxy, MODELS)
        decided += used
        model = _label(kind, task)
        reasons.append(f"{kind}: {why}")
        brief = why
        if task in ("translation", "generation") and "translation_longer:GRU" in ev:
            longer = {k: ev[f"translation_longer:{k}"].value for k in MODELS}
            best_longer = max(longer, key=longer.get)
            decided.append(f"translation_longer:{best_longer}")
            reasons.append(f"if sentences may be longer than any in training: {ev['translation_longer:GRU'].summary}")
    return model, reasons, decided, brief


# -- the book's long runs ---------------------------------------------------------------------------------------


def _long_runs(choice: dict, ev: dict):
    task = choice["task"]
    family = "charlm" if task == "generation" else "translate"
    entries = {name.split(":", 2)[2]: e for name, e in ev.items() if name.startswith(f"long:{family}:")}
    if family == "charlm":
        best = min(entries, key=lambda k: entries[k].value)
        model = "Transformer decoder (GPT-style)" if best == "Transformer" else f"{best} language model"
        brief = (f"the {best} family reached the lowest validation loss ({entries[best].value:.3f} nats per "
                 f"character), on contexts of a few hundred characters")
        reasons = [f"in the book's long runs (one CPU thread, up to half an hour each, character models reading "
                   f"contexts of a few hundred characters, a few dozen words) the {best} family reached the lowest "
                   f"validation loss ({entries[best].value:.3f} nats per character)"]
        reasons += [e.summary for e in entries.values()]
    else:
        best = max(entries, key=lambda k: entries[k].value)
        model = "Transformer encoder-decoder" if best == "Transformer" else f"{best} encoder-decoder"
        brief = f"the {best} translator scored the highest test BLEU ({entries[best].value:.1f})"
        reasons = [f"in the book's long runs (one CPU thread, up to half an hour each) the {best} translator "
                   f"scored the highest test BLEU ({entries[best].value:.1f})"] + [e.summary for e in entries.values()]
    decided = [f"long:{family}:{k}" for k in entries]
    finding = "lit:scaling" if family == "charlm" else "lit:translation"
    reasons.append(f"at far larger scale, {ev[finding].source}: {ev[finding].summary}")
    return model, reasons, decided + [finding], brief


# -- from the literature ----------------------------------------------------------------------------------------


def _literature_brief(decided: list[str], ev: dict) -> str:
    """Who found what decided an answer from the literature: the works behind the recommendation, then, for a
    streaming answer, the work that measured the key/value cache's cost (the reason, not the recommendation)."""
    works = lambda names: "; ".join(dict.fromkeys(c for n in names for c in ev[n].cite))  # noqa: E731
    main = [n for n in decided if n != "lit:kv_cache"]
    if "lit:kv_cache" not in decided or not main:
        return works(decided)
    return translate("{works}; the cost of the key/value cache: {cache}").format(
        works=works(main), cache=works(["lit:kv_cache"]))


def _cited(ev: dict, *names: str) -> list[str]:
    return [f"{ev[f'lit:{n}'].source}: {ev[f'lit:{n}'].summary}" for n in names]


def _literature(choice: dict, ev: dict):
    task, data, length, compute, latency = (choice[k] for k in ("task", "data", "length", "compute", "latency"))
    why_not = _not_measured(choice, ev)
    if latency == "streaming, per token":
        names = ["recurrent_at_scale", "kv_cache"]
        model = "a recurrent model built to train in parallel (a state-space model such as Mamba, or RWKV)"
    elif task in ("classification", "labelling"):
        if length == "very long (> 1000)":
            names, model = ["sparse_attention", "bert"], "a pretrained sparse-attention encoder (Longformer, BigBird)"
        elif task == "labelling" and compute == "limited (CPU)":
            names = ["crf", "distillation"]
            model = "a bidirectional LSTM with a CRF, or a distilled pretrained encoder"
        else:
            names = ["bert", "roberta"] + (["ulmfit"] if data == "small (few labels)" else [])
            model = "a pretrained Transformer encoder (BERT-style), fine-tuned"
            if compute == "limited (CPU)":
                names.append("distillation")
                model = "a distilled pretrained Transformer encoder (DistilBERT, TinyBERT), fine-tuned"
    elif task in ("translation", "generation"):
        if data == "small (few labels)":
            names, model = ["pretrained_seq2seq"], "a pretrained Transformer encoder-decoder (BART, T5), fine-tuned"
        elif length == "very long (> 1000)":
            names = ["sparse_attention", "recurrent_at_scale"]
            model = "a Transformer with sparse or windowed attention, or a parallel-trained recurrent model"
        elif task == "translation":
            names, model = ["translation", "tuned_rnn_translation", "warmup"], "Transformer encoder-decoder"
        else:
            names, model = ["decoder_only", "scaling"], "Transformer decoder (GPT-style)"
    else:  # forecasting
        names = ["forecast_linear", "forecast_transformers"]
        model = ("a linear model as the baseline to beat, then a GRU or LSTM"
                 + (", and a forecasting Transformer (Informer, Autoformer) when the horizon is long"
                    if length != "short (< 100)" else ""))
    return model, [why_not] + _cited(ev, *names), [f"lit:{n}" for n in names]


def _not_measured(choice: dict, ev: dict) -> str:
    """Why this situation is answered from the literature, in words."""
    reach = ev["context_max"].value if choice["latency"] == "streaming, per token" else ev["length_max"].value
    if choice["compute"] == "GPU":
        what = "a GPU"
    elif choice["compute"] == "CPU, an hour of training":
        what = "an hour of training (the book's long runs cover generation and translation only)"
    elif choice["data"] == "large":
        what = "large data"
    elif choice["data"] == "small (few labels)":
        what = f"few labelled examples for {choice['task']}"
    else:
        what = (f"{choice['length'].split(' (')[0]} inputs: its tasks are shorter than 100 tokens (its cost curves "
                f"reach {reach:,}, its scores do not)")
    return f"this chapter did not measure {what}, so the answer comes from published results"


_SHORT = {"small (few labels)": "few labels", "moderate (thousands)": "thousands of examples", "large": "large data",
          "short (< 100)": "short inputs", "long (100-1000)": "inputs of 100-1,000", "very long (> 1000)":
          "inputs over 1,000", "limited (CPU)": "a CPU, minutes", "CPU, an hour of training": "a CPU, an hour",
          "GPU": "GPUs", "batch": "not streaming", "streaming, per token": "streaming"}


_REGIME_WORDS = {MEASURED: "measured here ({machine}, the budget of 10.1)",
                 LONG_RUNS: "the book's long runs (one CPU thread, up to half an hour each)",
                 LITERATURE: "from the literature (published, at scale)"}


def regime_words(regime: str, machine: str) -> str:
    """Where an answer's evidence comes from, for a table's cell: the regime (one of :data:`REGIMES`) and how it
    was measured, "measured here" naming ``machine`` (:func:`machine_words`); in the book's language."""
    if regime not in _REGIME_WORDS:
        raise ValueError(f"regime must be one of {tuple(_REGIME_WORDS)}, got {regime!r}")
    if not isinstance(machine, str) or not machine:
        raise ValueError(f"machine must be a non-empty string (machine_words()), got {machine!r}")
    return translate(_REGIME_WORDS[regime]).format(machine=translate(machine, strict=False))


def situation_words(choice: dict) -> str:
    """A situation (``recommend(...)["choice"]``) in a few words, for a table's cell, in the book's language
    (:func:`seqviz.book.translate`: "classification, few labels, ..." or "分类，标签很少，...")."""
    words = [translate(_SHORT.get(choice[k], choice[k])) for k in ("task", "data", "length", "compute", "latency")]
    return listing(words)
