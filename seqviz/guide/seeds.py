"""Seed 002's decision guide and final checklist (its section 8), row by row: :func:`seed_guide` marks each
piece of advice *supported*, *contradicted* or *not tested here* by the same evidence the rules read.
Used by chapter 10.
"""

from __future__ import annotations

from ..book import compare_word
from .evidence import check_evidence
from .rules import RECURRENT, same

VERDICTS = ("supported", "contradicted", "mixed", "no difference measured", "not tested here")


def _verdict(word: str, claim_higher: bool = True) -> str:
    if word == "about the same":
        return "no difference measured"
    return "supported" if (word == "higher") == claim_higher else "contradicted"


def seed_guide(evidence: dict) -> list[dict]:
    """Seed 002's decision guide and checklist (its section 8), one row per piece of advice:
    ``{"situation", "seeds' advice", "verdict", "measured"}``; ``verdict`` is one of :data:`VERDICTS`,
    computed from ``evidence``."""
    ev = check_evidence(evidence)
    rows = []

    def row(situation, advice, verdict, measured):
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
        rows.append({"situation": situation, "advice": advice, "verdict": verdict, "measured": measured})

    ft = ev["finetune:pretrained"]
    ft_word = same(ft.value, ev["finetune:scratch"].value)
    row("classification or labelling", "a pretrained Transformer encoder (BERT and its variants)",
        _verdict(ft_word), ft.summary)
    row("classification or labelling, very limited resources", "a bidirectional LSTM/GRU with a CRF",
        "not tested here", "no CRF in this book")
    rec_best = max(RECURRENT, key=lambda k: ev[f"translation:{k}"].value)
    word = same(ev["translation:Transformer"].value, ev[f"translation:{rec_best}"].value)
    row("generation (translation, summaries, dialogue)",
        "a Transformer encoder-decoder (BART, T5) or decoder-only (GPT)", _verdict(word),
        f"{ev['translation:Transformer'].summary}; BART, T5 and GPT themselves are not run")
    gated = max(("GRU", "LSTM"), key=lambda k: ev[f"forecasting:{k}"].value)
    others = max(("RNN", "Transformer"), key=lambda k: ev[f"forecasting:{k}"].value)
    word = same(ev[f"forecasting:{gated}"].value, ev[f"forecasting:{others}"].value)
    row("time series", "an LSTM or a GRU", "supported" if word == "higher" else _verdict(word),
        ev["forecasting:GRU"].summary)
    row("time series", "Transformers built for it (Informer, Autoformer)", "not tested here",
        "only a plain causal Transformer encoder is measured (above)")
    row("small data (< 10k labels)", "fine-tune a pretrained model rather than train from scratch",
        _verdict(ft_word), ft.summary)
    mem = ev["mem_ratio:Transformer/GRU"]
    row("long inputs (> 512 tokens)", "a standard Transformer is slow and memory-hungry there",
        _verdict(same(mem.value, 1.0)), f"{mem.summary}; {ev['mem_tail:Transformer'].summary}")
    row("long inputs (> 512 tokens)", "a sparse-attention Transformer (Longformer, BigBird, Reformer)",
        "not tested here", "chapter 8's exercise builds a Longformer-style window mask but does not time it")
    linear = compare_word(ev["mem_exp:GRU"].value, 1.0, ("higher", "about the same", "lower"), 0.1)
    row("long inputs (> 512 tokens)", "or an RNN/LSTM, whose cost is O(n)",
        "supported" if linear == "about the same" else "contradicted",
        f"{ev['mem_exp:GRU'].summary}; {ev['mem_exp:LSTM'].summary}")
    ratio = ev["params:GRU/LSTM"]
    row("limited compute", "a GRU: fewer parameters than an LSTM", _verdict(same(ratio.value, 1.0), False),
        ratio.summary)
    gru_time = sum(ev[f"{t}_train_s:GRU"].value for t in ("agreement", "forecasting"))
    lstm_time = sum(ev[f"{t}_train_s:LSTM"].value for t in ("agreement", "forecasting"))
    row("limited compute", "a GRU: faster to train than an LSTM", _verdict(same(gru_time, lstm_time, "time"), False),
        f"agreement and forecasting together: GRU {gru_time:.1f} s, LSTM {lstm_time:.1f} s of training "
        "(torch.nn's layers on the machine that ran this chapter)")
    row("limited compute", "a distilled Transformer (DistilBERT, TinyBERT)", "not tested here",
        "no distilled model here")
    parts = []
    for task, against in (("translation", "a recurrent encoder-decoder whose decoder steps in Python"),
                          ("agreement", "torch.nn's fused recurrent layers")):
        fastest = min(RECURRENT, key=lambda k: ev[f"{task}_train_s:{k}"].value)
        word = same(ev[f"{task}_train_s:Transformer"].value, ev[f"{task}_train_s:{fastest}"].value, "time")
        parts.append((_verdict(word, False), f"{task} ({against}): Transformer "
                      f"{ev[f'{task}_train_s:Transformer'].value:.1f} s, fastest recurrent ({fastest}) "
                      f"{ev[f'{task}_train_s:{fastest}'].value:.1f} s"))
    found = {v for v, _ in parts}
    row("training speed matters", "a Transformer: it trains in parallel, much faster than an RNN",
        found.pop() if len(found) == 1 else "mixed", "; ".join(text for _, text in parts))
    cheaper = same(ev["stream_ratio:cache/GRU"].value, 1.0, "time")  # "higher": the GRU's step is cheaper
    flat = compare_word(ev["stream_growth:GRU"].value, 1.0, ("grew", "flat", "fell"), 0.3)
    parts = {"supported" if cheaper == "higher" else "contradicted" if cheaper == "lower" else "no difference measured",
             "supported" if flat == "flat" else "contradicted"}
    row("latency on edge devices, streaming", "a recurrent model: its step is small and fixed",
        parts.pop() if len(parts) == 1 else "mixed",
        f"{ev['stream_ratio:cache/GRU'].summary}; {ev['stream_growth:GRU'].summary}")
    row("latency on edge devices", "prune and quantise the model", "not tested here", "no pruning or quantisation here")
    pairs = [(t, same(ev[f"{t}:GRU"].value, ev[f"{t}:LSTM"].value))
             for t in ("agreement", "translation", "forecasting")]
    n_same = sum(w == "about the same" for _, w in pairs)
    row("any task, a first model", "start with a GRU: as good as an LSTM on most tasks",
        "supported" if n_same * 2 > len(pairs) else "contradicted",
        "; ".join(f"{t}: GRU {ev[f'{t}:GRU'].value:.1%}, LSTM {ev[f'{t}:LSTM'].value:.1%}" for t, _ in pairs))
    word = same(ev["agreement:LSTM"].value, ev["agreement:GRU"].value)
    row("very long memory", "an LSTM may have the edge over a GRU", _verdict(word),
        f"agreement (chapter 4's task, the longest distance here): LSTM {ev['agreement:LSTM'].value:.1%}, "
        f"GRU {ev['agreement:GRU'].value:.1%}")
    row("small data", "a GRU overfits less than an LSTM", "not tested here", "not measured in this chapter")
    return rows
