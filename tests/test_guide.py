"""Chapter 10's decision guide: every answer follows the evidence that covers its situation, says which regime that
evidence comes from, and flips when the evidence does; situations the chapter did not measure are never answered
from its short run."""

import itertools
import json
import re
from pathlib import Path

import pytest

from seqviz.experiments import finetune_evidence
from seqviz.guide import (FINDINGS, GUIDE_OPTIONS, LITERATURE, LONG_RUNS, MEASURED, VERDICTS, collect_evidence,
                          recommend, regime_of, advice_checked)
from seqviz.viz import guide_html

KINDS = ("RNN", "GRU", "LSTM", "Transformer")
BIB = Path(__file__).resolve().parents[1] / "book" / "references.bib"
CPU_SHORT = ("limited (CPU)", "batch")


def fake_rows(scores=None, train_s=None, laps=None, longer=None):
    """Rows shaped like chapter 10's, with numbers the test chooses (laps: the seconds of each fifth)."""
    scores, train_s, laps = scores or {}, train_s or {}, laps or {}
    rows = []
    for task in ("agreement", "translation", "forecasting"):
        for i, k in enumerate(KINDS):
            seconds = train_s.get((task, k), 10.0 + i)
            row = {"task": task, "model": k, "score": scores.get((task, k), 0.5 + 0.1 * i), "metric": "accuracy",
                   "train_s": seconds, "train_laps": laps.get((task, k), [seconds / 5 * f for f in
                                                                           (0.99, 1.0, 1.01, 1.0, 1.0)]),
                   "latency_ms": 1.0, "memory_kb": 100.0, "steps": 300, "examples": 4000, "width": 32,
                   "parameters": {"RNN": 100, "GRU": 300, "LSTM": 400}.get(k, 500)}
            if task == "translation" and longer is not None:
                row.update(score_longer=longer.get(k, 0.2), longer_words=(9, 12))
            rows.append(row)
    return rows


def fake_run(scores=None, train_s=None, laps=None, transformer_memory=8.0, cache_growth=4.0, pretrained=0.6,
             scratch=0.2, cache_cost=0.1, lengths=(16, 32, 64), contexts=(16, 64), longer=None, race=None,
             long_runs=None, machine="a test CPU"):
    """The guide's evidence from rows, cost curves and a fine-tuning result the test chooses."""
    rows = fake_rows(scores, train_s, laps, longer)
    cost = []
    for n in lengths:
        for k in ("GRU", "LSTM", "Transformer"):
            quadratic = transformer_memory * (n / lengths[-1]) ** 2 if k == "Transformer" else n / lengths[-1]
            ms = n / 10
            cost.append({"model": k, "length": n, "ms_per_step": ms, "ms_samples": [0.98 * ms, ms, 1.02 * ms],
                         "saved_MiB": quadratic})
    stream = []
    for c in contexts:
        cached = cache_cost * (cache_growth if c == contexts[-1] else 1)
        stream += [{"model": "GRU", "context": c, "ms_per_token": 0.1, "ms_samples": [0.099, 0.1, 0.101],
                    "state_bytes": 10},
                   {"model": "Transformer (KV cache)", "context": c, "ms_per_token": cached,
                    "ms_samples": [0.99 * cached, cached, 1.01 * cached], "state_bytes": 10 * c},
                   {"model": "Transformer (no cache)", "context": c, "ms_per_token": 1.0, "state_bytes": 0}]
    finetune = {"pretrained": pretrained, "scratch": scratch, "labels": 6, "pretrain_steps": 10, "pretrain_s": 1.0,
                "chance": 1 / 6}
    return collect_evidence(rows, cost, stream, finetune, race=race, long_runs=long_runs, machine=machine)


def situations():
    return itertools.product(*GUIDE_OPTIONS.values())


def test_every_situation_gets_an_answer_backed_by_evidence_of_a_named_regime():
    ev = fake_run()
    for choice in situations():
        advice = recommend(*choice, ev)
        assert advice["model"] and advice["reasons"] and advice["evidence"]
        assert all(name in ev for name in advice["evidence"])
        assert advice["regime"] in (MEASURED, LONG_RUNS, LITERATURE)
        regimes = {ev[name].regime for name in advice["evidence"]}
        if advice["regime"] == MEASURED:
            assert regimes == {MEASURED} and "setting" in advice["evidence"] and not advice["cite"]
        else:  # answered from the literature: every piece of evidence is a cited finding, none a short-run number
            assert regimes == {LITERATURE} and advice["cite"]


def test_situations_this_chapter_did_not_measure_are_never_answered_from_its_run():
    ev = fake_run(lengths=(32, 128, 512), contexts=(32, 1024))
    for task, data, length, compute, latency in situations():
        regime = regime_of(task, data, length, compute, latency, ev)
        # long inputs too: the run's tasks are shorter than 100 tokens, even where its cost curves reach 1,024
        unmeasured = (compute != "limited (CPU)" or data == "large" or length != "short (< 100)"
                      or (data == "small (few labels)" and task not in ("classification", "labelling")))
        assert (regime != MEASURED) == unmeasured, (task, data, length, compute, latency)


def test_long_inputs_are_answered_from_the_literature_however_far_the_cost_curves_reach():
    situation = ("classification", "moderate (thousands)", "long (100-1000)", *CPU_SHORT)
    for lengths in ((16, 32, 64), (32, 128, 512)):
        advice = recommend(*situation, fake_run(lengths=lengths))
        assert advice["regime"] == LITERATURE and "shorter than 100 tokens" in advice["reasons"][0]
    stream = ("generation", "moderate (thousands)", "long (100-1000)", "limited (CPU)", "streaming, per token")
    assert recommend(*stream, fake_run(contexts=(32, 1024)))["regime"] == LITERATURE


def test_large_data_and_gpus_are_answered_from_cited_findings():
    ev = fake_run(scores={("translation", "GRU"): 0.99, ("translation", "Transformer"): 0.1})
    gen = recommend("translation", "large", "short (< 100)", "GPU", "batch", ev)
    # the short run's GRU win does not carry over: the answer is the published one, and it says whose
    assert gen["model"] == "Transformer encoder-decoder" and "Vaswani et al. (2017)" in gen["cite"]
    assert "Chen et al. (2018)" in gen["cite"]
    cls = recommend("classification", "large", "short (< 100)", "GPU", "batch", ev)
    assert "pretrained" in cls["model"] and "Devlin et al. (2019)" in cls["cite"]
    forecast = recommend("forecasting", "large", "short (< 100)", "GPU", "batch", ev)
    assert "linear" in forecast["model"] and "Zeng et al. (2023)" in forecast["cite"]
    # a GPU alone (moderate data, short inputs, measured here on a CPU) is not the short run's regime either
    gpu = recommend("translation", "moderate (thousands)", "short (< 100)", "GPU", "batch", ev)
    assert gpu["regime"] == LITERATURE and gpu["model"] == "Transformer encoder-decoder"
    assert "did not measure a GPU" in gpu["reasons"][0]


def test_long_runs_answer_an_hour_of_training_and_flip_with_their_numbers():
    situation = ("generation", "moderate (thousands)", "short (< 100)", "CPU, an hour of training", "batch")
    assert recommend(*situation, fake_run())["regime"] == LITERATURE                  # none shipped: the literature
    lstm_wins = {"charlm": {"LSTM": [{"name": "charlm-lstm-s", "parameters": 10, "valid_loss": 1.2}],
                            "Transformer": [{"name": "charlm-transformer-s", "parameters": 10, "valid_loss": 1.5}]}}
    advice = recommend(*situation, fake_run(long_runs=lstm_wins))
    assert advice["regime"] == LONG_RUNS and advice["model"] == "LSTM language model"
    assert "long:charlm:LSTM" in advice["evidence"]
    lstm_wins["charlm"]["Transformer"][0]["valid_loss"] = 1.0
    assert recommend(*situation, fake_run(long_runs=lstm_wins))["model"] == "Transformer decoder (GPT-style)"
    # their contexts are a few hundred characters: a long input is the literature's, not the long runs'
    lstm_wins["charlm"]["Transformer"][0]["valid_loss"] = 1.5
    longer = recommend("generation", "moderate (thousands)", "long (100-1000)", "CPU, an hour of training", "batch",
                       fake_run(long_runs=lstm_wins))
    assert longer["regime"] == LITERATURE and longer["model"] == "Transformer decoder (GPT-style)"
    translate = {"translate": {"GRU": {"name": "translate-gru", "bleu": 10.0},
                               "Transformer": {"name": "translate-transformer", "bleu": 25.0}}}
    advice = recommend("translation", "moderate (thousands)", "short (< 100)", "CPU, an hour of training", "batch",
                       fake_run(long_runs=translate))
    assert advice["regime"] == LONG_RUNS and advice["model"] == "Transformer encoder-decoder"
    # the long-run translators read short sentences: a long input is the literature's
    assert recommend("translation", "moderate (thousands)", "long (100-1000)", "CPU, an hour of training", "batch",
                     fake_run(long_runs=translate))["regime"] == LITERATURE
    # classification has no long run: still the literature
    assert recommend("classification", "moderate (thousands)", "short (< 100)", "CPU, an hour of training", "batch",
                     fake_run(long_runs=translate))["regime"] == LITERATURE


def test_few_labels_follow_the_fine_tuning_measurement():
    situation = ("classification", "small (few labels)", "short (< 100)", *CPU_SHORT)
    assert "pretrained" in recommend(*situation, fake_run(pretrained=0.6, scratch=0.2))["model"]
    # pretraining did not help: the best from-scratch model on the agreement table (the Transformer here)
    assert recommend(*situation, fake_run(pretrained=0.2, scratch=0.2))["model"] == "Transformer"


def test_best_score_wins_and_a_tie_goes_to_the_model_clearly_faster_to_train():
    situation = ("forecasting", "moderate (thousands)", "short (< 100)", *CPU_SHORT)
    scores = {("forecasting", "RNN"): 0.1, ("forecasting", "GRU"): 0.9, ("forecasting", "LSTM"): 0.2,
              ("forecasting", "Transformer"): 0.3}
    assert recommend(*situation, fake_run(scores=scores))["model"] == "GRU"
    tie = {**scores, ("forecasting", "LSTM"): 0.895}
    faster_lstm = {("forecasting", "LSTM"): 1.0, ("forecasting", "GRU"): 5.0}
    advice = recommend(*situation, fake_run(scores=tie, train_s=faster_lstm))
    assert advice["model"] == "LSTM" and "forecasting_train_s:GRU" in advice["evidence"]
    # the same medians, but laps so spread that they overlap: neither is clearly faster, the first listed stays
    noisy = {("forecasting", "LSTM"): [0.1, 0.2, 0.2, 0.2, 2.0], ("forecasting", "GRU"): [0.9, 1.0, 1.0, 1.0, 1.1]}
    advice = recommend(*situation, fake_run(scores=tie, train_s=faster_lstm, laps=noisy))
    assert advice["model"] == "GRU" and "no one of them trained clearly fastest" in advice["reasons"][0]


def test_streaming_follows_the_cost_per_token():
    stream = ("generation", "moderate (thousands)", "short (< 100)", "limited (CPU)", "streaming, per token")
    assert recommend(*stream, fake_run(cache_growth=4.0))["model"] in ("GRU", "LSTM")
    assert "Transformer" in recommend(*stream, fake_run(cache_growth=1.0, cache_cost=0.02))["model"]
    # both flat, but each cached Transformer token costs 5x a GRU token: the recurrent model
    assert recommend(*stream, fake_run(cache_growth=1.0, cache_cost=0.5))["model"] in ("GRU", "LSTM")


def test_translation_is_judged_on_lengths_seen_in_training_and_reports_longer_ones_apart():
    scores = {("translation", k): 1.0 for k in KINDS}
    ev = fake_run(scores=scores, longer={"RNN": 0.2, "GRU": 0.25, "LSTM": 0.25, "Transformer": 0.03})
    assert ev["translation:Transformer"].value == 1.0 and ev["translation_longer:Transformer"].value == 0.03
    row = next(r for r in advice_checked(ev) if r["situation"].startswith("generation"))
    assert row["verdict"] == "no difference measured" and "longer than any in training" in row["measured"]
    advice = recommend("translation", "moderate (thousands)", "short (< 100)", *CPU_SHORT, ev)
    longer = [r for r in advice["reasons"] if "longer than any in training" in r]
    assert longer and "Transformer 3%" in longer[0] and "translation_longer:GRU" in advice["evidence"]


def verdict(ev, advice_start, column="verdict"):
    return next(r[column] for r in advice_checked(ev) if r["advice"].startswith(advice_start))


def test_start_with_a_gru_is_not_contradicted_by_a_gru_that_scores_better():
    gru_better = {(t, "GRU"): 0.9 for t in ("agreement", "translation", "forecasting")}
    gru_better.update({(t, "LSTM"): 0.6 for t in ("agreement", "translation", "forecasting")})
    assert verdict(fake_run(scores=gru_better), "start with a GRU") == "supported"
    lstm_better = {k: (0.6 if k[1] == "GRU" else 0.9) for k in gru_better}
    assert verdict(fake_run(scores=lstm_better), "start with a GRU") == "contradicted"
    assert verdict(fake_run(scores=lstm_better), "GRU and LSTM perform about the same") == "mixed"


def test_seed_rows_are_judged_by_the_measurements():
    lstm_wins = fake_run(scores={("agreement", "LSTM"): 0.9, ("agreement", "GRU"): 0.6})
    gru_wins = fake_run(scores={("agreement", "LSTM"): 0.6, ("agreement", "GRU"): 0.9})
    assert verdict(lstm_wins, "an LSTM may have the edge") == "supported"
    assert verdict(gru_wins, "an LSTM may have the edge") == "contradicted"
    assert verdict(fake_run(pretrained=0.6, scratch=0.2), "fine-tune a pretrained") == "supported"
    assert verdict(fake_run(pretrained=0.2, scratch=0.6), "fine-tune a pretrained") == "contradicted"
    assert verdict(fake_run(), "a GRU: fewer parameters") == "supported"  # 300 < 400 parameters
    slow_gru = {("agreement", "GRU"): 30.0, ("forecasting", "GRU"): 30.0}
    assert verdict(fake_run(train_s=slow_gru), "a GRU: faster to train") == "contradicted"
    assert verdict(fake_run(train_s={("agreement", "GRU"): 5.0, ("forecasting", "GRU"): 5.0}),
                   "a GRU: faster to train") == "supported"
    assert verdict(fake_run(), "a GRU: faster to train") == "no difference measured"  # 11 s vs 12 s: within 10 %
    fast_translation = {("translation", "Transformer"): 1.0, ("agreement", "Transformer"): 50.0}
    assert verdict(fake_run(train_s=fast_translation), "a Transformer: it trains in parallel") == "mixed"
    fast_both = {("translation", "Transformer"): 1.0, ("agreement", "Transformer"): 1.0}
    assert verdict(fake_run(train_s=fast_both), "a Transformer: it trains in parallel") == "supported"
    assert verdict(fake_run(cache_growth=1.0, cache_cost=0.5), "a recurrent model: its step") == "supported"
    assert verdict(fake_run(cache_growth=1.0, cache_cost=0.02), "a recurrent model: its step") == "mixed"
    # the LM race joins the LSTM-or-GRU row: a GRU with lower perplexity there makes it mixed
    race = {"GRU": {"valid_ppl": 5.0, "seconds": 4, "steps": 40}, "LSTM": {"valid_ppl": 9.0, "seconds": 4, "steps": 90}}
    assert verdict(fake_run(scores={("agreement", "LSTM"): 0.9, ("agreement", "GRU"): 0.6}, race=race),
                   "an LSTM may have the edge") == "mixed"


def test_every_seed_row_has_a_verdict_at_scale_with_who_found_it():
    rows = advice_checked(fake_run())
    assert {r["source"] for r in rows} == {"从“序列”到“理解”的本质之旅", "为什么序列与众不同"}
    for r in rows:
        assert r["verdict"] in VERDICTS and r["at_scale"] in VERDICTS and r["scale_evidence"]
        if r["at_scale"] != "not tested here":
            assert re.search(r"[A-Z]\w+ (et al\. |and \w+ )?\(\d{4}\)", r["scale_evidence"]), r
    for name in ("BART", "Longformer", "DistilBERT", "Informer", "CRF", "quantise"):
        assert any(name in r["advice"] for r in rows), name
    won = next(r for r in rows if r["situation"] == "why Transformers won")
    assert won["scale_regime"] == LITERATURE and "Kaplan et al. (2020)" in won["scale_evidence"]
    assert won["long_verdict"] is None
    # the long runs get their own verdict, computed size by size; "at scale" stays the literature's
    sizes = lambda lstm, trf: {"charlm": {  # noqa: E731
        "LSTM": [{"name": f"charlm-lstm-{s}", "parameters": 9, "valid_loss": v} for s, v in zip("sml", lstm)],
        "Transformer": [{"name": f"charlm-transformer-{s}", "parameters": 9, "valid_loss": v}
                        for s, v in zip("sml", trf)]}}

    def won(runs):
        return next(r for r in advice_checked(fake_run(long_runs=runs)) if r["situation"] == "why Transformers won")

    assert won(sizes((1.7, 1.6, 1.5), (1.5, 1.4, 1.3)))["long_verdict"] == "supported"
    lstm_ahead = won(sizes((1.65, 1.6, 1.5), (1.73, 1.74, 1.66)))
    assert lstm_ahead["long_verdict"] == "contradicted" and lstm_ahead["at_scale"] == "supported"
    assert lstm_ahead["scale_regime"] == LITERATURE and "1.66" in lstm_ahead["long_measured"]
    # the smallest pair within 5 % in perplexity (e^0.03), the others apart: mixed
    assert won(sizes((1.7, 1.6, 1.5), (1.73, 1.74, 1.66)))["long_verdict"] == "mixed"
    translate = {"translate": {"GRU": {"name": "translate-gru", "bleu": 22.7},
                               "Transformer": {"name": "translate-transformer", "bleu": 39.9}}}
    gen = next(r for r in advice_checked(fake_run(long_runs=translate)) if r["situation"].startswith("generation"))
    assert gen["long_verdict"] == "supported" and "39.9" in gen["long_measured"]
    translate["translate"]["GRU"]["bleu"] = 45.0
    gen = next(r for r in advice_checked(fake_run(long_runs=translate)) if r["situation"].startswith("generation"))
    assert gen["long_verdict"] == "contradicted"


def test_every_finding_is_cited_by_an_entry_of_the_bibliography():
    from pybtex.database import parse_file

    entries = parse_file(str(BIB)).entries
    for name, finding in FINDINGS.items():
        assert finding.key in entries, (name, finding.key)
        entry = entries[finding.key]
        first = entry.persons["author"][0].last_names[0].replace("{", "").replace("}", "").replace("\\'", "")
        first = first.replace("\\", "")
        cited = finding.cite.split(";")[0]          # the work the key names comes first
        assert first.lower() in cited.lower().replace("é", "e"), (name, first, cited)
        assert entry.fields["year"] in cited, (name, entry.fields["year"], cited)


def test_the_setting_names_this_runs_machine_budget_and_sizes():
    setting = fake_run()["setting"].summary
    assert "a test CPU" in setting and "300 training steps" in setting and "4,000 training examples" in setting
    assert "(10–13 s of training)" in setting and "width 32" in setting   # a range takes an en dash
    short = {(t, k): 0.3 for t in ("agreement", "translation", "forecasting") for k in KINDS}
    assert "(0.3 s of training)" in fake_run(train_s=short)["setting"].summary   # not "0-0 s"


def test_the_widget_picture_shows_the_answer_its_regime_and_numbers():
    ev = fake_run(pretrained=0.61, scratch=0.2)
    advice = recommend("classification", "small (few labels)", "short (< 100)", *CPU_SHORT, ev)
    page = guide_html(advice, ev).data
    assert "pretrained" in page and "61%" in page and "20%" in page and "measured here" in page
    advice = recommend("classification", "large", "short (< 100)", "GPU", "batch", ev)
    page = guide_html(advice, ev).data
    assert "from the literature" in page and "Devlin et al. (2019)" in page
    runs = {"translate": {"GRU": {"name": "translate-gru", "bleu": 22.7},
                          "Transformer": {"name": "translate-transformer", "bleu": 39.9}}}
    ev = fake_run(long_runs=runs)
    advice = recommend("translation", "moderate (thousands)", "short (< 100)", "CPU, an hour of training", "batch",
                       ev)
    page = guide_html(advice, ev).data
    assert ("the book&#x27;s long runs (one CPU thread, up to half an hour each), read with Vaswani et al. (2017)"
            in page)
    assert "39.9" in page


def test_bad_input():
    ev = fake_run()
    with pytest.raises(ValueError, match="compute"):
        recommend("classification", "large", "short (< 100)", "TPU", "batch", ev)
    with pytest.raises(ValueError, match="collect_evidence"):
        recommend("classification", "large", "short (< 100)", "GPU", "batch", {})
    with pytest.raises(ValueError, match="task"):
        collect_evidence([], [], [], {})
    with pytest.raises(ValueError, match="race"):
        fake_run(race={"GRU": {"valid_ppl": 3.0}})
    with pytest.raises(ValueError, match="long_runs"):
        fake_run(long_runs={"images": {}})
    with pytest.raises(ValueError, match="valid_loss"):
        fake_run(long_runs={"charlm": {"LSTM": [{"name": "x", "parameters": 1}]}})


def test_finetune_evidence_runs_small():
    out = finetune_evidence(label_count=6, pretrain_steps=2, finetune_steps=2, n_docs=20, n_pairs=40, n_test=30,
                            d_model=16, num_layers=1, num_heads=2, progress=False)
    assert 0 <= out["pretrained"] <= 1 and 0 <= out["scratch"] <= 1 and out["labels"] == 6
    with pytest.raises(ValueError, match="label_count"):
        finetune_evidence(label_count=0)


def test_scores_within_three_points_are_tied_whatever_their_size():
    from seqviz.guide import same

    assert same(0.01, 0.03) == "about the same"            # a relative rule would call these different
    assert same(0.97, 1.0) == "about the same" and same(0.5, 0.54) == "lower"
    close = {("translation", "RNN"): 0.53, ("translation", "GRU"): 0.5, ("translation", "LSTM"): 0.5,
             ("translation", "Transformer"): 0.51}
    advice = recommend("translation", "moderate (thousands)", "short (< 100)", *CPU_SHORT, fake_run(scores=close))
    assert "within 3 points" in advice["brief"]


def test_a_task_no_model_learned_is_answered_with_none_of_them():
    """Scores near what guessing gets are tied, but the guide does not recommend a model that learned nothing:
    translation at 0-3 % exact match, agreement at chance (50 %), a forecast skill near 0."""
    from seqviz.guide import UNSOLVED

    near_zero = {("translation", "RNN"): 0.03, ("translation", "GRU"): 0.0, ("translation", "LSTM"): 0.0,
                 ("translation", "Transformer"): 0.01}
    advice = recommend("translation", "moderate (thousands)", "short (< 100)", *CPU_SHORT, fake_run(scores=near_zero))
    assert advice["model"] == UNSOLVED and advice["regime"] == MEASURED
    assert "best scored 3%" in advice["brief"] and "translation:RNN" in advice["evidence"]
    chance = {("agreement", k): 0.5 + 0.02 * i for i, k in enumerate(KINDS)}           # 50-56 %: two classes
    advice = recommend("classification", "moderate (thousands)", "short (< 100)", *CPU_SHORT, fake_run(scores=chance))
    assert advice["model"] == UNSOLVED and "guessing scores 50%" in advice["brief"]
    learned = {**chance, ("agreement", "LSTM"): 0.9}
    assert recommend("classification", "moderate (thousands)", "short (< 100)", *CPU_SHORT,
                     fake_run(scores=learned))["model"] == "LSTM"
    # streaming: the cost per token picks the recurrent family, but neither gated model is named on no evidence
    stream = ("generation", "moderate (thousands)", "short (< 100)", "limited (CPU)", "streaming, per token")
    advice = recommend(*stream, fake_run(scores=near_zero, cache_growth=4.0))
    assert "neither learned the task" in advice["model"]
    # few labels, pretraining no help, and no model learned agreement from scratch either
    advice = recommend("classification", "small (few labels)", "short (< 100)", *CPU_SHORT,
                       fake_run(scores=chance, pretrained=0.2, scratch=0.2))
    assert advice["model"] == UNSOLVED


# -- the Chinese edition: the guide and its table have no English sentence left ----------------------------------

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "10_choosing_a_model.ipynb"
# three English words in a row (model names such as RNN, GRU, LSTM are capitals, so lists of them pass), once the
# citations, which are named as the bibliography names them, are taken out
ENGLISH = re.compile(r"[A-Za-z][a-z'’-]+(?:[ ,;:]+[A-Za-z][a-z'’-]+){2,}")
CITATION = re.compile(r"[A-Z][\w'’é-]+(?: and [A-Z][\w'’é-]+| et al\.)? \(\d{4}\)")
LONG_RUNS_EVIDENCE = {
    "translate": {k: {"name": n, "bleu": b} for k, n, b in (("GRU", "translate-gru", 22.7), ("GRU + attention",
                  "translate-gru-attn", 37.1), ("Transformer", "translate-transformer", 39.9))},
    "charlm": {f: [{"name": f"charlm-{f.lower()}-{s}", "parameters": p, "valid_loss": loss + (0.05 if f == "LSTM" else 0)}
                   for s, p, loss in (("s", 150_000, 1.7), ("m", 560_000, 1.6), ("l", 1_200_000, 1.5))]
               for f in ("LSTM", "Transformer")}}


def english_left(text: str) -> list[str]:
    """The runs of English words in ``text`` (HTML tags and citations taken out)."""
    return ENGLISH.findall(CITATION.sub(" ", re.sub(r"<[^>]+>|&[#\w]+;", " ", text)))


def evidence_variants():
    """Runs that send the rules down every branch: each measured answer, the long runs, the literature."""
    from seqviz.guide import machine_words

    same = {(t, k): 0.9 for t in ("agreement", "translation", "forecasting") for k in KINDS}
    chance = {(t, k): 0.5 if t == "agreement" else 0.0 for t in ("agreement", "translation", "forecasting")
              for k in KINDS}
    race = {"Transformer": {"valid_ppl": 12.1, "seconds": 4.0, "steps": 70},
            "GRU": {"valid_ppl": 9.3, "seconds": 4.0, "steps": 76}}
    longer = {"RNN": 0.2, "GRU": 0.28, "LSTM": 0.25, "Transformer": 0.05}
    machine = machine_words()
    yield fake_run(long_runs=LONG_RUNS_EVIDENCE, race=race, longer=longer, machine=machine)
    yield fake_run(pretrained=0.2, scratch=0.2, longer=longer, machine=machine)
    yield fake_run(scores=chance, pretrained=0.2, scratch=0.2, machine=machine)
    yield fake_run(cache_cost=0.05, cache_growth=1.0, machine=machine)
    yield fake_run(cache_cost=0.1, cache_growth=1.0, machine=machine)
    yield fake_run(scores=same, train_s={("agreement", "LSTM"): 2.0, ("translation", "Transformer"): 3.0},
                   machine=machine)
    yield fake_run(scores=same, machine="a NVIDIA H200 GPU")


@pytest.fixture
def zh():
    import seqviz as sv

    sv.book.set_language("zh")
    try:
        yield sv
    finally:
        sv.book.set_language("en")


def test_the_guide_in_chinese_has_no_english_sentence_left(zh):
    """Every answer, reason and piece of evidence the guide can write, for every situation and every branch of the
    rules, is in the catalogue: the picture holds no run of English words and nothing was missing."""
    before = set(zh.book.missing_translations())
    for i, ev in enumerate(evidence_variants()):
        for choice in situations():
            if i and regime_of(*choice, ev) == LITERATURE:  # the literature's answers do not move with the run
                continue
            page = guide_html(recommend(*choice, ev), ev).data
            assert not english_left(page), f"{choice}: English left in the guide: {english_left(page)}"
    assert set(zh.book.missing_translations()) == before
    zh.book.set_language("en")  # the check can fail: the English picture is all English words
    assert english_left(guide_html(recommend(*next(situations()), ev), ev).data)


def _chapter_table(ev) -> str:
    """The guide's table exactly as chapter 10's cell builds it (its own code, run on ``ev``)."""
    from seqviz.guide import machine_words, regime_words, situation_words
    from seqviz.measure import markdown_table

    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    source = next("".join(c["source"]) for c in cells if c.get("id") == "d8bda1f9")
    tables = []
    space = {"recommend": recommend, "situation_words": situation_words, "regime_words": regime_words, "evidence": ev,
             "MACHINE": machine_words(), "show": lambda rows, columns: tables.append(markdown_table(rows, columns))}
    exec(compile(source, str(NOTEBOOK), "exec"), space)
    assert len(tables) == 1
    return tables[0]


def test_the_guides_table_in_chinese_has_no_english_sentence_left(zh):
    for ev in evidence_variants():
        table = _chapter_table(ev)
        cells = [c.strip() for line in table.splitlines()[2:] for c in line.strip("|").split(" | ")]
        assert cells and not [c for c in cells if english_left(c)], [english_left(c) for c in cells if english_left(c)]
        assert not english_left(table.splitlines()[0])  # the headers
    zh.book.set_language("en")
    assert english_left(_chapter_table(ev))


def test_the_live_guides_menus_and_still_speak_the_books_language(zh, monkeypatch):
    """In Chinese the menus show Chinese labels and descriptions, while the function still receives the English
    option the rules read; the book's still names the chosen labels."""
    import ipywidgets as widgets

    from seqviz import config
    from seqviz.viz import live

    monkeypatch.setattr(config, "BOOK", True)
    seen = []
    ev = fake_run()
    menus = {name: widgets.Dropdown(options=options, value=options[0], description=name)
             for name, options in GUIDE_OPTIONS.items()}
    view = live(lambda **choice: seen.append(choice) or guide_html(recommend(**choice, evidence=ev), ev),
                title="Describe your problem", **menus)
    assert seen[-1] == {name: options[0] for name, options in GUIDE_OPTIONS.items()}  # English values, as before
    assert menus["task"].label == "分类任务" and menus["task"].description == "任务"
    note = view._repr_mimebundle_()["text/html"]
    assert "（任务：分类任务，" in note and "classification" not in note and "&#x27;" not in note
    menus["task"].value = "translation"
    assert seen[-1]["task"] == "translation" and menus["task"].label == "翻译任务"


def test_the_checked_advice_reads_as_a_list_in_both_languages():
    import seqviz as sv
    from seqviz.guide import SOURCES, advice_list

    race = {k: {"valid_ppl": 9.0 + i, "seconds": 4.0, "steps": 70 + i}
            for i, k in enumerate(("Transformer", "GRU", "LSTM"))}
    long_runs = {"charlm": {f: [{"name": f"charlm-{f.lower()}-s", "parameters": 1000, "valid_loss": 1.7}]
                            for f in ("LSTM", "Transformer")},
                 "translate": {"GRU": {"name": "translate-gru", "bleu": 22.7},
                               "Transformer": {"name": "translate-transformer", "bleu": 39.9}}}
    rows = advice_checked(fake_run(race=race, long_runs=long_runs))
    english = advice_list(rows, SOURCES["002"])
    first = next(r for r in rows if r["source"] == SOURCES["002"])
    assert english.splitlines()[0] == (f"- **{first['situation'].capitalize()}: {first['advice']}.** This run: "
                                       f"*{first['verdict']}* ({first['measured']}). At scale: *{first['at_scale']}* "
                                       f"({first['scale_cite']}).")
    assert len(english.splitlines()) == sum(r["source"] == SOURCES["002"] for r in rows)
    before = len(sv.book.missing_translations())
    sv.book.set_language("zh")
    try:
        chinese = "\n".join(advice_list(rows, s) for s in SOURCES.values())
    finally:
        sv.book.set_language("en")
    assert sv.book.missing_translations()[before:] == []   # every situation, advice, verdict and measurement
    assert "本次运行" in chinese and "This run" not in chinese and "；" in chinese
    with pytest.raises(ValueError, match="source must be one of"):
        advice_list(rows, "another article")


def test_verdicts_apart_counts_only_advice_that_both_sides_tested():
    from seqviz.guide import verdicts_apart

    rows = [{"verdict": "supported", "long_verdict": None, "at_scale": "supported"},
            {"verdict": "mixed", "long_verdict": "mixed", "at_scale": "supported"},
            {"verdict": "not tested here", "long_verdict": "contradicted", "at_scale": "supported"},
            {"verdict": "contradicted", "long_verdict": None, "at_scale": "not tested here"}]
    assert verdicts_apart(rows) == [rows[1]]
    assert verdicts_apart(rows, "long_verdict") == [rows[1], rows[2]]
    with pytest.raises(ValueError, match="which must be"):
        verdicts_apart(rows, "at_scale")
    # on a whole run: every row it returns is one whose verdicts differ, none of them untested
    for row in verdicts_apart(advice_checked(fake_run())):
        assert row["verdict"] != row["at_scale"] and "not tested here" not in (row["verdict"], row["at_scale"])


def test_chapter_10_names_no_verdict_label_the_list_never_prints():
    """A sentence such as 'where they differ, it says "not in this regime"' promises a label the reader must find
    in the list of advice: every label the prose quotes as what a verdict says must be one advice_list prints."""
    from seqviz.guide.sources import NO_STUDY

    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    prose = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    quoted = re.findall(r"(?:says|reads|labelled|marked) \*{0,2}[\"“]([^\"”]+)[\"”]", prose)
    assert not [q for q in quoted if q not in VERDICTS + (NO_STUDY,)], quoted
    assert "it says \"not in this regime\"" not in prose


def test_the_literature_column_never_reads_not_tested_here():
    from seqviz.guide import advice_list
    from seqviz.guide.sources import NO_STUDY

    rows = advice_checked(fake_run())
    assert any(r["at_scale"] == "not tested here" for r in rows)
    listed = advice_list(rows, "从“序列”到“理解”的本质之旅")
    assert "At scale: *not tested here*" not in listed and f"At scale: *{NO_STUDY}*" in listed
    assert "chapter 4 measures it over seeds, in section 4.7" in listed


def test_the_regime_words_name_the_machine_and_refuse_an_unknown_regime():
    from seqviz.guide import regime_words

    assert regime_words(MEASURED, "a test CPU") == "measured here (a test CPU, the budget of 10.1)"
    assert regime_words(LITERATURE, "a test CPU") == "from the literature (published, at scale)"
    with pytest.raises(ValueError, match="regime must be one of"):
        regime_words("measured somewhere", "a test CPU")
    with pytest.raises(ValueError, match="machine must be"):
        regime_words(MEASURED, "")


def test_a_streaming_answer_cites_the_cache_paper_for_the_cache_not_the_recommendation():
    ev = fake_run()
    advice = recommend("generation", "large", "long (100-1000)", "GPU", "streaming, per token", ev)
    assert advice["brief"] == ("Gu and Dao (2023); Peng et al. (2023); the cost of the key/value cache: "
                               "Pope et al. (2022)")
