"""The source articles' advice, row by row, checked twice: against this chapter's run and against the evidence at
scale (the book's long runs where they apply, the published literature otherwise).

:func:`advice_checked` returns one row per piece of advice: the decision guide and checklist of
《从“序列”到“理解”的本质之旅》 ("From sequence to understanding", its section 8, with the GRU-or-LSTM advice of its
section 3.2) and the three claims of 《为什么序列与众不同》 ("Why sequences are different") that choose between models.
Each row has a verdict of this run (:data:`VERDICTS`, computed from the measured evidence) and one at scale. A
verdict of the run is about the run's regime (this machine, these sizes, this budget); it never stands for the
situation at scale, which has its own column. Used by chapter 10.
"""

from __future__ import annotations

import math
import re

from ..book import compare_word, translate
from .evidence import LITERATURE, check_evidence
from .rules import RECURRENT, faster, same

VERDICTS = ("supported", "contradicted", "mixed", "no difference measured", "not tested here")
NO_STUDY = "no published test cited"  # how the list shows a verdict at scale of "not tested here"
SOURCES = {"002": "从“序列”到“理解”的本质之旅", "000": "为什么序列与众不同"}


def _verdict(word: str, claim_higher: bool = True) -> str:
    if word == "about the same":
        return "no difference measured"
    return "supported" if (word == "higher") == claim_higher else "contradicted"


def _time_verdict(outcome: str) -> str:
    """A claim that the first of two timings is the faster one, judged by :func:`seqviz.book.compare_times`."""
    return {"faster": "supported", "slower": "contradicted", "similar": "no difference measured"}[outcome]


def _all(verdicts) -> str:
    found = set(verdicts)
    return found.pop() if len(found) == 1 else "mixed"


def advice_checked(evidence: dict) -> list[dict]:
    """One row per piece of the source articles' advice: ``{"source", "situation", "advice", "verdict",
    "measured", "long_verdict", "long_measured", "at_scale", "scale_evidence", "scale_cite", "scale_regime"}``.
    ``verdict`` (one of :data:`VERDICTS`) is this run's, computed from ``evidence`` with ``measured`` its numbers;
    ``long_verdict`` and ``long_measured`` the same for the book's long runs where they bear on the advice and
    were given (else None); ``at_scale`` is the verdict of the published literature, with ``scale_evidence`` what
    it found and who found it, ``scale_cite`` only who, ``scale_regime`` always "from the literature"."""
    ev = check_evidence(evidence)
    rows = []

    def row(source, situation, advice, verdict, measured, at_scale, *findings, long=None):
        long_verdict, long_measured = long if long is not None else (None, None)
        for v in (verdict, at_scale) + ((long_verdict,) if long is not None else ()):
            if v not in VERDICTS:
                raise ValueError(f"verdict must be one of {VERDICTS}, got {v!r}")
        texts = [f"{ev[f'lit:{f}'].source}: {ev[f'lit:{f}'].summary}" for f in findings]
        cites = [ev[f"lit:{f}"].source for f in findings]
        rows.append({"source": SOURCES[source], "situation": situation, "advice": advice, "verdict": verdict,
                     "measured": measured, "long_verdict": long_verdict, "long_measured": long_measured,
                     "at_scale": at_scale, "scale_evidence": "; ".join(texts) or "no study we cite measures it",
                     "scale_cite": "; ".join(cites), "scale_regime": LITERATURE})

    ft = ev["finetune:pretrained"]
    ft_word = _verdict(same(ft.value, ev["finetune:scratch"].value))
    row("002", "classification or labelling", "a pretrained Transformer encoder (BERT and its variants)", ft_word,
        ft.summary, "supported", "bert", "roberta")
    row("002", "classification or labelling, very limited resources", "a bidirectional LSTM or GRU with a CRF",
        "not tested here", "no CRF in this book", "supported", "crf")
    rec_best = max(RECURRENT, key=lambda k: ev[f"translation:{k}"].value)
    word = same(ev["translation:Transformer"].value, ev[f"translation:{rec_best}"].value)
    measured = ev["translation:Transformer"].summary
    if "translation_longer:GRU" in ev:
        measured += f"; {ev['translation_longer:GRU'].summary}"
    row("002", "generation (translation, summaries, dialogue)",
        "a Transformer encoder-decoder (BART, T5) or a decoder-only Transformer (GPT)", _verdict(word), measured,
        "supported", "translation", "tuned_rnn_translation", "decoder_only", long=_long_translation(ev))
    gated = max(("GRU", "LSTM"), key=lambda k: ev[f"forecasting:{k}"].value)
    others = max(("RNN", "Transformer"), key=lambda k: ev[f"forecasting:{k}"].value)
    row("002", "time series", "an LSTM or a GRU", _verdict(same(ev[f"forecasting:{gated}"].value,
                                                                ev[f"forecasting:{others}"].value)),
        ev["forecasting:GRU"].summary, "mixed", "forecast_transformers", "forecast_linear")
    row("002", "time series", "Transformers built for it (Informer, Autoformer)", "not tested here",
        "only a plain causal Transformer encoder is measured", "mixed", "forecast_transformers", "forecast_linear")
    row("002", "small data (< 10k labels)", "fine-tune a pretrained model rather than train from scratch", ft_word,
        ft.summary, "supported", "ulmfit", "bert")
    mem = ev["mem_ratio:Transformer/GRU"]
    row("002", "long inputs (> 512 tokens)", "a standard Transformer is slow and memory-hungry there",
        _verdict(same(mem.value, 1.0, "ratio")), f"{mem.summary}; {ev['mem_tail:Transformer'].summary}", "supported",
        "sparse_attention")
    row("002", "long inputs (> 512 tokens)", "a sparse-attention Transformer (Longformer, BigBird, Reformer)",
        "not tested here", "no sparse attention is timed in this book", "supported", "sparse_attention")
    linear = compare_word(ev["mem_exp:GRU"].value, 1.0, ("higher", "about the same", "lower"), 0.1)
    row("002", "long inputs (> 512 tokens)", "or an RNN or LSTM, whose cost is O(n)",
        "supported" if linear == "about the same" else "contradicted",
        f"{ev['mem_exp:GRU'].summary}; {ev['mem_exp:LSTM'].summary}", "mixed", "lstm_context", "scaling")
    ratio = ev["params:GRU/LSTM"]
    row("002", "limited compute", "a GRU: fewer parameters than an LSTM", _verdict(same(ratio.value, 1.0, "ratio"), False),
        ratio.summary, "supported", "gru_lstm")
    outcomes = [faster(ev, f"{t}_train_s:GRU", f"{t}_train_s:LSTM") for t in ("agreement", "forecasting")]
    row("002", "limited compute", "a GRU: faster to train than an LSTM", _all(_time_verdict(o) for o in outcomes),
        "; ".join(f"{t}: GRU {ev[f'{t}_train_s:GRU'].value:.1f} s, LSTM {ev[f'{t}_train_s:LSTM'].value:.1f} s"
                  for t in ("agreement", "forecasting")) + " (torch.nn's layers, this machine)",
        "not tested here")
    row("002", "limited compute", "a distilled Transformer (DistilBERT, TinyBERT)", "not tested here",
        "no distilled model in this chapter", "supported", "distillation")
    parts = []
    for task in ("translation", "agreement"):
        fastest = min(RECURRENT, key=lambda k: ev[f"{task}_train_s:{k}"].value)
        outcome = faster(ev, f"{task}_train_s:Transformer", f"{task}_train_s:{fastest}")
        parts.append((_time_verdict(outcome), f"{task}: Transformer {ev[f'{task}_train_s:Transformer'].value:.1f} s, "
                      f"fastest recurrent ({fastest}) {ev[f'{task}_train_s:{fastest}'].value:.1f} s"))
    row("002", "training speed matters", "a Transformer: it trains in parallel, much faster than an RNN",
        _all(v for v, _ in parts), "; ".join(t for _, t in parts) + " (one CPU thread)", "supported", "parallel")
    cheaper = ev["stream_ratio:cache/GRU"].judged   # "slower": the cached Transformer's token costs more
    flat = ev["stream_growth:GRU"].judged            # "similar": the GRU's cost did not grow
    stream = _all(["supported" if cheaper == "slower" else "contradicted" if cheaper == "faster" else
                   "no difference measured", "supported" if flat == "similar" else "contradicted"])
    row("002", "latency on edge devices, streaming", "a recurrent model: its step is small and fixed", stream,
        f"{ev['stream_ratio:cache/GRU'].summary}; {ev['stream_growth:GRU'].summary}", "supported",
        "recurrent_at_scale", "kv_cache")
    row("002", "latency on edge devices", "prune and quantise the model", "not tested here",
        "no pruning or quantisation in this book", "supported", "compression")
    pairs = [(t, same(ev[f"{t}:GRU"].value, ev[f"{t}:LSTM"].value)) for t in ("agreement", "translation",
                                                                               "forecasting")]
    not_worse = sum(w != "lower" for _, w in pairs)  # a GRU that scores better does not contradict "as good"
    scores = "; ".join(f"{t}: GRU {ev[f'{t}:GRU'].value:.0%}, LSTM {ev[f'{t}:LSTM'].value:.0%}" for t, _ in pairs)
    row("002", "any task, a first model", "start with a GRU: as good as an LSTM on most tasks",
        "supported" if 2 * not_worse > len(pairs) else "contradicted", scores, "supported", "gru_lstm")
    lstm_edge = [same(ev["agreement:LSTM"].value, ev["agreement:GRU"].value)]
    measured = (f"agreement (the longest distance in this chapter): LSTM {ev['agreement:LSTM'].value:.0%}, "
                f"GRU {ev['agreement:GRU'].value:.0%}")
    if "race:LSTM" in ev and "race:GRU" in ev:  # lower perplexity is better
        lstm_edge.append(same(ev["race:GRU"].value, ev["race:LSTM"].value, "ratio"))
        measured += f"; {ev['race:LSTM'].summary}"
    row("002", "very long memory (some character-level language models)", "an LSTM may have the edge over a GRU",
        _all(_verdict(w) for w in lstm_edge), measured, "supported", "gru_lstm", "lstm_counting")
    row("002", "small data", "a GRU overfits less than an LSTM", "not tested here",
        "not measured in this chapter; chapter 4 measures it over seeds, in section 4.7", "not tested here")
    same_count = sum(w == "about the same" for _, w in pairs)
    row("000", "choosing between the gated models", "GRU and LSTM perform about the same; neither is better "
        "everywhere, so try both", "supported" if 2 * same_count > len(pairs) else "mixed", scores, "supported",
        "gru_lstm", "lstm_variants")
    row("000", "limited data or hardware", "a GRU is lighter and trains a little faster",
        _all([_verdict(same(ratio.value, 1.0, "ratio"), False)] + [_time_verdict(o) for o in outcomes]),
        f"{ratio.summary}; " + "; ".join(f"{t}: GRU {ev[f'{t}_train_s:GRU'].value:.1f} s, LSTM "
                                          f"{ev[f'{t}_train_s:LSTM'].value:.1f} s"
                                          for t in ("agreement", "forecasting")), "mixed", "gru_lstm")
    race = [n for n in ("race:Transformer", "race:GRU", "race:LSTM") if n in ev]
    measured = (ev[race[0]].summary if race else "not at this scale: the chapter trains for seconds") + \
        "; chapter 9b measures the parallel training"
    row("000", "why Transformers won", "they train in parallel, which made far more data and far larger models "
        "affordable, and at today's scale, scale matters most", "not tested here", measured, "supported",
        "parallel", "scaling", long=_long_language_models(ev))
    return rows


def verdicts_apart(rows: list[dict], which: str = "verdict") -> list[dict]:
    """The rows of :func:`advice_checked` whose verdict ``which`` ("verdict": this run's; "long_verdict": the long
    runs') differs from the verdict at scale, both having tested the advice (neither "not tested here" nor
    missing): the pieces of advice on which the small regime and the literature disagree."""
    if which not in ("verdict", "long_verdict"):
        raise ValueError(f"which must be 'verdict' or 'long_verdict', got {which!r}")
    untested = (None, "not tested here")
    return [r for r in rows if r.get(which) not in untested and r["at_scale"] not in untested
            and r[which] != r["at_scale"]]


def _measured(text: str) -> str:
    """What a row measured, in the book's language: each of its "; "-separated parts (a part the catalogue does
    not know is read together with the part before it: a summary may itself hold "; "), joined by a full-width
    semicolon once they are Chinese."""
    groups = []  # [english, translated]
    for part in text.split("; "):
        translated = translate(part, strict=False)
        if translated == part and groups:
            joined = groups[-1][0] + "; " + part
            together = translate(joined, strict=False)
            if together != joined:
                groups[-1] = [joined, together]
                continue
        groups.append([part, translate(part)])  # strict: a text no catalogue has is reported
    parts = [translated for _, translated in groups]
    chinese = any(re.search(r"[\u3000-\u9fff\uff00-\uffef]", p) for p in parts)
    return ("；" if chinese else "; ").join(parts)


def advice_list(rows: list[dict], source: str) -> str:
    """The rows of :func:`advice_checked` from one source article (its title, a value of :data:`SOURCES`) as the
    Markdown list chapter 10 shows, in the book's language (:func:`seqviz.book.translate`): the situation and the
    advice in bold, then this run's verdict with what it measured, the long runs' where given, and the verdict at
    scale with the works that found it."""
    if source not in SOURCES.values():
        raise ValueError(f"source must be one of {list(SOURCES.values())}, got {source!r}")
    items = []
    for r in rows:
        if r["source"] != source:
            continue
        long = ""
        if r["long_verdict"]:
            long = translate(" The long runs: *{verdict}* ({measured}).").format(
                verdict=translate(r["long_verdict"]), measured=_measured(r["long_measured"]))
        frame = ("- **{situation}: {advice}.** This run: *{verdict}* ({measured}).{long} At scale: *{scale}*"
                 + (" ({cite})." if r["at_scale"] != "not tested here" else "."))
        situation = translate(r["situation"])
        # the literature is not "tested here": what is missing there is a published test
        scale = NO_STUDY if r["at_scale"] == "not tested here" else r["at_scale"]
        items.append(translate(frame).format(
            situation=situation[:1].upper() + situation[1:], advice=translate(r["advice"]),
            verdict=translate(r["verdict"]), measured=_measured(r["measured"]), long=long,
            scale=translate(scale), cite=r["scale_cite"]))
    return "\n".join(items)


def _long_translation(ev: dict):
    """The long-run translators: the Transformer's test BLEU against the best recurrent one's (within 5% of the
    larger counts as no difference). None when the long runs were not given."""
    bleu = {name.split(":", 2)[2]: e for name, e in ev.items() if name.startswith("long:translate:")}
    if "Transformer" not in bleu or len(bleu) < 2:
        return None
    rec = max((k for k in bleu if k != "Transformer"), key=lambda k: bleu[k].value)
    word = same(bleu["Transformer"].value, bleu[rec].value, "ratio")
    text = "; ".join(f"{k} {e.value:.1f}" for k, e in bleu.items())
    return _verdict(word), f"test BLEU of the book's long runs (one CPU thread, up to half an hour each): {text}"


def _long_language_models(ev: dict):
    """The long-run character language models, LSTM against Transformer at each matched size: the Transformer's
    perplexity lower at every size supports the advice, higher at every size contradicts it (in that regime),
    else mixed.
    None when the long runs were not given."""
    sizes = {family: ev.get(f"long:charlm:{family}") for family in ("LSTM", "Transformer")}
    if any(e is None or not e.samples for e in sizes.values()):
        return None
    pairs = list(zip(sizes["LSTM"].samples, sizes["Transformer"].samples))
    # perplexities within 5 % of each other are the same; "lower": the Transformer's is lower
    words = [same(math.exp(trf), math.exp(lstm), "ratio") for lstm, trf in pairs]
    verdict = _all("supported" if w == "lower" else "contradicted" if w == "higher" else "no difference measured"
                   for w in words)
    text = ", ".join(f"LSTM {lstm:.2f} and Transformer {trf:.2f}" for lstm, trf in pairs)
    return verdict, (f"validation loss in nats per character at matched sizes, small to large: {text} "
                     f"(one CPU thread, the same steps and characters for each pair)")
