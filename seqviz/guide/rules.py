"""The guide's rules: :func:`recommend` answers (task, data, length, compute, latency) with a model and the
measured numbers that decided it. Each branch compares two measured numbers (:func:`same`, with the stated
:data:`~.evidence.TOLERANCE`); no answer is fixed in advance. Used by chapter 10.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..book import compare_word
from .evidence import GUIDE_OPTIONS, MODELS, TASKS, TOLERANCE, check_evidence

RECURRENT = ("RNN", "GRU", "LSTM")
_PROXY = {"classification": "agreement", "labelling": "agreement", "translation": "translation",
          "generation": "translation", "forecasting": "forecasting"}


def same(a: float, b: float, kind: str = "score") -> str:
    """``"higher"``, ``"about the same"`` or ``"lower"``: measured ``a`` against measured ``b``."""
    if kind not in TOLERANCE:
        raise ValueError(f"kind must be one of {sorted(TOLERANCE)} (which tolerance), got {kind!r}")
    return compare_word(a, b, ("higher", "about the same", "lower"), TOLERANCE[kind])


def best_of(evidence: dict, task: str, kinds: Sequence[str]) -> tuple[str, list[str], str]:
    """The best-scoring kind on ``task``; among those within the score tolerance of the best, the
    fastest to train. Returns ``(kind, evidence names used, reason in words)``."""
    check_evidence(evidence)
    if task not in TASKS:
        raise ValueError(f"task must be one of the measured tasks {TASKS}, got {task!r}")
    kinds = list(kinds) if not isinstance(kinds, str) else [kinds]
    if not kinds or any(k not in MODELS for k in kinds):
        raise ValueError(f"kinds must be a non-empty list from {MODELS}, got {kinds!r}")
    scores = {k: evidence[f"{task}:{k}"].value for k in kinds}
    top = max(scores.values())
    tied = [k for k in kinds if same(scores[k], top) == "about the same"]
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
        if not isinstance(value, str) or value not in GUIDE_OPTIONS[key]:
            raise ValueError(f"{key} must be one of {GUIDE_OPTIONS[key]}, got {value!r}")
    check_evidence(evidence)
    ev, proxy = evidence, _PROXY[task]
    decided: list[str] = []
    reasons: list[str] = []

    if latency == "streaming, per token":
        ratio = ev["stream_ratio:cache/GRU"].value
        cache, gru = ev["stream_growth:cache"].value, ev["stream_growth:GRU"].value
        decided += ["stream_ratio:cache/GRU", "stream_growth:GRU", "stream_growth:cache"]
        word = same(ratio, 1.0, "time")
        if word == "about the same":  # as costly at the longest context: the one that grows less wins
            word = same(cache, gru, "time")
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
        if same(pre, scratch) == "higher":
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
        if same(ratio, 1.0) == "higher":
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
            word = same(ev[f"{proxy}_train_s:Transformer"].value, ev[f"{proxy}_train_s:{fastest}"].value, "time")
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
