"""Chapter 10's decision guide: every answer follows the measured evidence, and flips when it does."""

import itertools

import pytest

from seqviz.experiments import finetune_evidence
from seqviz.guide import GUIDE_OPTIONS, VERDICTS, collect_evidence, recommend, seed_guide
from seqviz.viz import guide_html

KINDS = ("RNN", "GRU", "LSTM", "Transformer")


def fake_run(scores=None, train_s=None, transformer_memory=8.0, cache_growth=4.0, pretrained=0.6, scratch=0.2,
             cache_cost=0.1):
    """Rows shaped like chapter 10's, with numbers the test chooses."""
    scores = scores or {}
    train_s = train_s or {}
    rows = []
    for task in ("agreement", "translation", "forecasting"):
        for i, k in enumerate(KINDS):
            rows.append({"task": task, "model": k, "score": scores.get((task, k), 0.5 + 0.1 * i),
                         "metric": "accuracy", "train_s": train_s.get((task, k), 10.0 + i), "latency_ms": 1.0,
                         "memory_kb": 100.0, "parameters": {"RNN": 100, "GRU": 300, "LSTM": 400}.get(k, 500)})
    cost = []
    for n in (16, 32, 64):
        for k in ("GRU", "LSTM", "Transformer"):
            quadratic = transformer_memory * (n / 64) ** 2 if k == "Transformer" else n / 64
            cost.append({"model": k, "length": n, "ms_per_step": n / 10, "saved_MiB": quadratic})
    stream = []
    for c in (16, 64):
        cached = cache_cost * (cache_growth if c == 64 else 1)
        stream += [{"model": "GRU", "context": c, "ms_per_token": 0.1, "state_bytes": 10},
                   {"model": "Transformer (KV cache)", "context": c, "ms_per_token": cached, "state_bytes": 10 * c},
                   {"model": "Transformer (no cache)", "context": c, "ms_per_token": 1.0, "state_bytes": 0}]
    finetune = {"pretrained": pretrained, "scratch": scratch, "labels": 6, "pretrain_steps": 10, "pretrain_s": 1.0,
                "chance": 1 / 6}
    return collect_evidence(rows, cost, stream, finetune)


def test_every_situation_gets_an_answer_backed_by_evidence():
    ev = fake_run()
    for choice in itertools.product(*GUIDE_OPTIONS.values()):
        advice = recommend(*choice, ev)
        assert advice["model"] and advice["reasons"] and advice["evidence"]
        assert all(name in ev for name in advice["evidence"])


def test_few_labels_follow_the_fine_tuning_measurement():
    situation = ("classification", "small (few labels)", "short (< 100)", "limited (CPU)", "batch")
    assert "pretrained" in recommend(*situation, fake_run(pretrained=0.6, scratch=0.2))["model"]
    # pretraining did not help: the best from-scratch model on the agreement table (the Transformer here)
    assert recommend(*situation, fake_run(pretrained=0.2, scratch=0.2))["model"] == "Transformer"


def test_best_score_wins_and_a_tie_goes_to_the_faster_model():
    situation = ("forecasting", "large", "short (< 100)", "limited (CPU)", "batch")
    scores = {("forecasting", "RNN"): 0.1, ("forecasting", "GRU"): 0.9, ("forecasting", "LSTM"): 0.2,
              ("forecasting", "Transformer"): 0.3}
    assert recommend(*situation, fake_run(scores=scores))["model"] == "GRU"
    tie = {**scores, ("forecasting", "LSTM"): 0.895}
    faster_lstm = {("forecasting", "LSTM"): 1.0, ("forecasting", "GRU"): 5.0}
    advice = recommend(*situation, fake_run(scores=tie, train_s=faster_lstm))
    assert advice["model"] == "LSTM" and "forecasting_train_s:GRU" in advice["evidence"]


def test_streaming_and_long_inputs_follow_the_cost_curves():
    stream = ("generation", "large", "short (< 100)", "limited (CPU)", "streaming, per token")
    assert recommend(*stream, fake_run(cache_growth=4.0))["model"] in ("GRU", "LSTM")
    assert "Transformer" in recommend(*stream, fake_run(cache_growth=1.0))["model"]
    # both flat, but each cached Transformer token costs 5x a GRU token: the recurrent model
    assert recommend(*stream, fake_run(cache_growth=1.0, cache_cost=0.5))["model"] in ("GRU", "LSTM")
    assert "Transformer" in recommend(*stream, fake_run(cache_growth=1.0, cache_cost=0.02))["model"]
    long = ("classification", "large", "very long (> 1000)", "limited (CPU)", "batch")
    assert recommend(*long, fake_run(transformer_memory=8.0))["model"] in ("RNN", "GRU", "LSTM")
    assert recommend(*long, fake_run(transformer_memory=1.0 / 64))["model"] == "Transformer"  # memory no larger


def test_seed_rows_are_judged_by_the_measurements():
    lstm_wins = fake_run(scores={("agreement", "LSTM"): 0.9, ("agreement", "GRU"): 0.6})
    gru_wins = fake_run(scores={("agreement", "LSTM"): 0.6, ("agreement", "GRU"): 0.9})

    def verdict(ev, advice_start):
        return next(r["verdict"] for r in seed_guide(ev) if r["advice"].startswith(advice_start))

    assert verdict(lstm_wins, "an LSTM may have the edge") == "supported"
    assert verdict(gru_wins, "an LSTM may have the edge") == "contradicted"
    assert verdict(fake_run(pretrained=0.6, scratch=0.2), "fine-tune a pretrained") == "supported"
    assert verdict(fake_run(pretrained=0.2, scratch=0.6), "fine-tune a pretrained") == "contradicted"
    assert verdict(fake_run(), "a GRU: fewer parameters") == "supported"  # 300 < 400 parameters
    slow_gru = {("agreement", "GRU"): 30.0, ("forecasting", "GRU"): 30.0}
    assert verdict(fake_run(train_s=slow_gru), "a GRU: faster to train") == "contradicted"
    assert verdict(fake_run(train_s={("agreement", "GRU"): 5.0, ("forecasting", "GRU"): 5.0}),
                   "a GRU: faster to train") == "supported"
    assert verdict(fake_run(), "a GRU: faster to train") == "no difference measured"  # 22 s vs 24 s: within 10 %
    fast_translation = {("translation", "Transformer"): 1.0, ("agreement", "Transformer"): 50.0}
    assert verdict(fake_run(train_s=fast_translation), "a Transformer: it trains in parallel") == "mixed"
    fast_both = {("translation", "Transformer"): 1.0, ("agreement", "Transformer"): 1.0}
    assert verdict(fake_run(train_s=fast_both), "a Transformer: it trains in parallel") == "supported"
    assert verdict(fake_run(cache_growth=1.0, cache_cost=0.5), "a recurrent model: its step") == "supported"
    assert verdict(fake_run(cache_growth=1.0, cache_cost=0.02), "a recurrent model: its step") == "mixed"
    rows = seed_guide(fake_run())
    assert all(r["verdict"] in VERDICTS for r in rows)
    assert {"not tested here", "supported"} <= {r["verdict"] for r in rows}
    for name in ("BART", "Longformer", "DistilBERT", "Informer", "CRF", "quantise"):
        assert any(name in r["advice"] for r in rows), name


def test_the_widget_picture_shows_the_answer_and_its_numbers():
    ev = fake_run(pretrained=0.61, scratch=0.2)
    advice = recommend("classification", "small (few labels)", "short (< 100)", "limited (CPU)", "batch", ev)
    page = guide_html(advice, ev).data
    assert "pretrained" in page and "61.0%" in page and "20.0%" in page


def test_bad_input():
    ev = fake_run()
    with pytest.raises(ValueError, match="compute"):
        recommend("classification", "large", "short (< 100)", "TPU", "batch", ev)
    with pytest.raises(ValueError, match="collect_evidence"):
        recommend("classification", "large", "short (< 100)", "GPU", "batch", {})
    with pytest.raises(ValueError, match="task"):
        collect_evidence([], [], [], {})


def test_finetune_evidence_runs_small():
    out = finetune_evidence(label_count=6, pretrain_steps=2, finetune_steps=2, n_docs=20, n_pairs=40, n_test=30,
                            d_model=16, num_layers=1, num_heads=2, progress=False)
    assert 0 <= out["pretrained"] <= 1 and 0 <= out["scratch"] <= 1 and out["labels"] == 6
    with pytest.raises(ValueError, match="label_count"):
        finetune_evidence(label_count=0)
