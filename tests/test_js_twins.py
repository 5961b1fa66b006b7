"""The page's JavaScript twins compute what seqviz computes: golden vectors, run under node, no browser.

Python writes each case: weights (a view's spec, as the page receives it, or tensors), inputs and, on this side,
seqviz's outputs; ``node tests/js_twins.js`` runs the page's own script (``seqviz.web.page.bundle()``) on the
cases and the test compares. Every forward pass of ``seqviz/web/js/nn/`` is covered: each recurrent cell (with
and without a starting state), the classifier of chapters 2 and 4 (every layer's trace, the head), the language
model of chapter 4b (logits, and sampling by the book's rule: temperature, top-k, ties, mulberry32), the
tokenizers, the translator of chapters 6 and 7 (encoder, attention, decoder steps, greedy), beam search (on the
translator and on log-probability tables), the Transformer and BERT encoders of chapters 8 and 9 (with masks,
LayerNorm, GELU, positions), the conveyor belt; and what both sides refuse (non-finite numbers, an eos outside
the vocabulary, a row with nothing to attend to). Chromium (``tests/test_web_*.py``) keeps the controls and
the drawing.

Tolerances: 2e-5 absolute on float32 quantities (the page sums in doubles and stores float32, PyTorch sums in
float32); 1e-4 on a hypothesis's log-probability, a sum of up to 15 steps; token ids and search records exactly.
``test_a_planted_bug_in_the_page_fails_these_tests`` plants the bugs these tests exist for and sees them fail.
"""

from __future__ import annotations

import base64
import json
import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from seqviz.data import Vocab, encode_pairs, translation_vocabs
from seqviz.data.bert_data import BertVocab
from seqviz.data.real import book_text, tokenize
from seqviz.decode import beam_search, length_score
from seqviz.models import GRU, GRULM, LSTM, RNN, BertMini, MultiHeadAttention, Seq2Seq, SequenceClassifier
from seqviz.models import TransformerSeq2Seq, positional_encoding
from seqviz.sampling import choose, distribution, sample
from seqviz.viz import forget_survival
from seqviz.web import beam_view, gates_view, generate_view, head_view, sticky_note_view
from seqviz.web.export import NAMES, known_ids
from seqviz.web.generate import mulberry32, prompt_tokens
from seqviz.web.page import bundle

JS_RUNNER = Path(__file__).with_name("js_twins.js")
TOL, SUM_TOL = 2e-5, 1e-4
WORDS = "the keys key near old cabinet cabinets that my friend left on table".split()
SENTENCE = "the keys that my friend left on the old table"
SRC, TGT = translation_vocabs()


def f32(x) -> dict:
    """A tensor as the page receives one (page.tensor's format), -inf and NaN included."""
    array = np.ascontiguousarray(np.asarray(x.detach() if hasattr(x, "detach") else x, dtype="<f4"))
    return {"shape": list(array.shape), "data": base64.b64encode(array.tobytes()).decode()}


def _numbers(value):
    """The runner's JSON back to numbers: "Infinity", "-Infinity", "NaN" become floats again."""
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if value in ("Infinity", "-Infinity", "NaN"):
        return float(value)
    return value


def run_js(node, tmp_path, cases, script=None):
    """Each case's result from the page's script under node: ``{"ok": value}`` or ``{"error": message}``."""
    (tmp_path / "bundle.js").write_text(bundle() if script is None else script)
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    done = subprocess.run([node, str(JS_RUNNER), str(tmp_path / "bundle.js"), str(tmp_path / "cases.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return _numbers(json.loads(done.stdout))


def ok(result):
    assert "ok" in result, result.get("error")
    return result["ok"]


def largest(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.abs(a - b).max()) if a.size else 0.0


# -- recurrent cells, the classifier, the gates ---------------------------------------------------------------


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_each_recurrent_cell_equals_seqviz(node, tmp_path, kind):
    torch.manual_seed(0)
    layer = {"rnn": RNN, "lstm": LSTM, "gru": GRU}[kind](5, 6)
    x = torch.randn(1, 7, 5)
    h0, c0 = torch.randn(1, 1, 6), torch.randn(1, 1, 6)
    state = (h0, c0) if kind == "lstm" else h0
    with torch.no_grad():
        fresh = layer(x, return_trace=True)[2]
        resumed = layer(x, state, return_trace=True)[2]
    weights = {"w_ih": f32(layer.weight_ih_l0), "w_hh": f32(layer.weight_hh_l0), "b_ih": f32(layer.bias_ih_l0),
               "b_hh": f32(layer.bias_hh_l0)}
    cases = [{"run": "recurrent", "kind": kind, "x": f32(x[0]), **weights},
             {"run": "recurrent", "kind": kind, "x": f32(x[0]), "h0": f32(h0[0, 0]),
              "c0": f32(c0[0, 0]) if kind == "lstm" else None, **weights}]
    for result, trace in zip(run_js(node, tmp_path, cases), (fresh, resumed)):
        shown = ok(result)
        assert set(shown) == set(trace)
        for name, value in trace.items():
            assert largest(shown[name], value[0, 0]) < TOL, name


@pytest.mark.parametrize("cell,layers", [("rnn", 1), ("lstm", 2), ("gru", 2)])
def test_the_classifier_reads_a_sentence_as_seqviz_does(node, tmp_path, cell, layers):
    torch.manual_seed(1)
    vocab = Vocab(WORDS)
    encoder = {"rnn": RNN, "lstm": LSTM, "gru": GRU}[cell](8, 6, num_layers=layers)
    model = SequenceClassifier(len(vocab), 8, encoder, num_classes=3).eval()
    spec = sticky_note_view(model, vocab, SENTENCE, class_names=["a", "b", "c"]).spec
    ids = vocab.encode("the old table near the cabinets my friend left".split())
    with torch.no_grad():
        _, trace = model.features(torch.tensor([ids]), return_trace=True)
        probs = model.head(trace["h"][-1, 0]).softmax(-1)
    shown = ok(run_js(node, tmp_path, [{"run": "classifier", "spec": spec, "ids": ids}])[0])
    assert len(shown["traces"]) == layers
    for layer, page_trace in enumerate(shown["traces"]):
        for name, value in page_trace.items():
            assert largest(value, trace[name][layer, 0]) < TOL, (layer, name)
    assert largest(shown["probs"], probs) < TOL


def test_the_gates_view_reads_only_up_to_its_layer_even_over_a_torch_nn_encoder(node, tmp_path):
    torch.manual_seed(2)
    vocab = Vocab(WORDS)
    model = SequenceClassifier(len(vocab), 8, torch.nn.LSTM(8, 6, num_layers=2, batch_first=True), 2).eval()
    spec = gates_view(model, vocab, SENTENCE, layer=1).spec
    assert not any(k.startswith("head.") for k in spec["weights"])
    ids = vocab.encode(SENTENCE.split())
    with torch.no_grad():
        x = model.embedding(torch.tensor([ids]))
        trace = LSTM(8, 6, num_layers=2).copy_from(model.encoder)(x, return_trace=True)[2]
    shown = ok(run_js(node, tmp_path, [{"run": "gates", "spec": spec, "ids": ids}])[0])
    for name in ("forget", "input", "candidate", "output", "c", "h"):
        assert largest(shown[name], trace[name][1, 0]) < TOL, name
    expected = np.asarray(spec["expected"]["gates"]["forget"])   # what the browser check compares on the page
    assert largest(shown["forget"], expected) < TOL


def test_the_belt_is_forget_survival(node, tmp_path):
    torch.manual_seed(3)
    forget = torch.rand(9, 5) * 0.5 + 0.5
    survival = forget_survival(forget.double()).numpy()   # (T, T, U)
    cases = [{"run": "belt", "forget": f32(forget), "start": s} for s in (0, 3, 8)]
    cases.append({"run": "belt", "forget": f32(forget), "start": 9})
    results = run_js(node, tmp_path, cases)
    for s, result in zip((0, 3, 8), results):
        assert largest(ok(result), survival[s, s:]) < 1e-6
    assert "start must be a token index in 0..8" in results[-1]["error"]


# -- the language model and the sampling rule -----------------------------------------------------------------


def make_lm(cell, layers, seed=0):
    torch.manual_seed(seed)
    vocab = Vocab(sorted(set(book_text("train")[:20000])))
    model = GRULM(len(vocab), 12, layers, cell=cell).eval()
    with torch.no_grad():
        model.out.weight.mul_(4.0)   # logits further apart, as a trained model's are
    return model, vocab


@pytest.mark.parametrize("cell,layers", [("rnn", 1), ("lstm", 2), ("gru", 2)])
def test_the_language_model_and_its_samples_equal_seqviz(node, tmp_path, cell, layers):
    model, vocab = make_lm(cell, layers)
    prompt = "And still deeper the meaning"
    ids = [vocab.stoi[c] for c in prompt]
    spec = generate_view(model, vocab, prompt, steps=5).spec
    with torch.no_grad():
        logits = model(torch.tensor([ids]))[0]   # (T, V): after each prompt token
    settings = [(1.0, None, 0), (0.5, 3, 7), (1.5, 10, 20), (0.8, 1, 3)]
    cases = [{"run": "lm_logits", "spec": spec, "ids": ids}] + [
        {"run": "sample", "spec": spec, "prompt": ids, "steps": 40, "temperature": t, "top_k": k, "seed": s}
        for t, k, s in settings]
    results = run_js(node, tmp_path, cases)
    assert largest(ok(results[0]), logits) < TOL
    for (t, k, s), result in zip(settings, results[1:]):
        shown = ok(result)
        drawn = sample(model, ids, 40, temperature=t, top_k=k, uniforms=mulberry32(s, 40))
        assert shown["ids"] == drawn.ids, (t, k, s)
        assert largest(shown["dists"], drawn.distributions) < 2e-6
        assert largest(shown["probs"], drawn.probs) < 2e-6


def test_mulberry32_is_the_same_generator_in_python(node, tmp_path):
    seeds = (0, 1, 20, 123456789, 2**32 - 1)
    results = run_js(node, tmp_path, [{"run": "mulberry32", "seed": s, "n": 200} for s in seeds])
    for seed, result in zip(seeds, results):
        assert ok(result) == mulberry32(seed, 200)


def tied_logits():
    """Logits with ties: ids 5 and 10 share the largest value, ids 2, 7 and 11 the next."""
    z = torch.full((12,), -1.0)
    z[[5, 10]] = 2.0
    z[[2, 7, 11]] = 1.0
    z[3] = -math.inf   # a token that can never come
    return z


def test_the_sampling_rule_keeps_the_lower_id_on_ties_as_seqviz_does(node, tmp_path):
    torch.manual_seed(4)
    cases, expected = [], []
    for logits in (tied_logits(), torch.randn(30) * 3, torch.randn(7)):
        for temperature in (0.1, 0.7, 1.0, 2.0):
            for top_k in (None, 1, 2, 3, 4, len(logits)):
                cases.append({"run": "distribution", "logits": f32(logits), "temperature": temperature,
                              "top_k": top_k})
                expected.append(distribution(logits, temperature, top_k))
    results = run_js(node, tmp_path, cases)
    for case, result, p in zip(cases, results, expected):
        assert largest(ok(result), p) < 1e-12, (case["temperature"], case["top_k"])
    greedy = ok(run_js(node, tmp_path, [{"run": "distribution", "logits": f32(tied_logits()), "temperature": 1.0,
                                         "top_k": 1}])[0])
    assert int(np.argmax(greedy)) == 5 and greedy[5] == 1.0   # seqviz's rule: the lower of the tied ids


def test_the_inverse_cdf_chooses_as_seqviz_does(node, tmp_path):
    torch.manual_seed(5)
    us = [0.0, 1e-9, 0.25, 0.5, 0.75, 0.999999, math.nextafter(1.0, 0.0)] + torch.rand(50).tolist()
    dists = [distribution(tied_logits(), 1.0, 3), distribution(torch.randn(9), 0.7), torch.tensor([0.1] * 10 + [0.0],
                                                                                                 dtype=torch.float64)]
    results = run_js(node, tmp_path, [{"run": "choose", "p": p.tolist(), "us": us} for p in dists])
    for p, result in zip(dists, results):
        assert ok(result) == [choose(p, u) for u in us]


# -- the tokenizers ------------------------------------------------------------------------------------------


def test_the_chapters_words_are_read_as_seqviz_reads_them(node, tmp_path):
    torch.manual_seed(6)
    vocab = Vocab(WORDS)
    model = SequenceClassifier(len(vocab), 4, RNN(4, 3), 2)
    pattern = r"[a-z']+"
    spec = sticky_note_view(model, vocab, "the keys", class_names=["x", "y"], pattern=pattern).spec
    texts = ["The KEYS near the old cabinet", "the keys, near... the table!", "the keys near a door", "   ", "<unk>",
             "the " * 40]
    results = ok(run_js(node, tmp_path, [{"run": "encode", "spec": spec, "texts": texts}])[0])
    for text, result in zip(texts, results):
        ids = known_ids(text, vocab, pattern)
        if ids is None or len(ids) > spec["vocab"]["max_tokens"]:
            assert "error" in result, text
        else:
            assert result["ok"]["ids"] == ids, text
    assert "never seen 'a', 'door'" in results[2]["error"] and "type a sentence" in results[3]["error"]


@pytest.mark.parametrize("level", ["char", "word"])
def test_a_prompt_is_read_as_seqviz_reads_it(node, tmp_path, level):
    text = book_text("train")[:60000]
    vocab = Vocab(sorted(set(text))) if level == "char" else Vocab.build([tokenize(text.lower())])
    model = GRULM(len(vocab), 4)
    spec = generate_view(model, vocab, "and", level=level, steps=2, max_prompt=200).spec
    lines = [line for line in text.split("\n") if line.strip()][100:160]
    results = ok(run_js(node, tmp_path, [{"run": "lm_tokens", "spec": spec, "texts": lines}])[0])
    lower = spec["vocab"]["lower"]
    for line, result in zip(lines, results):
        tokens = prompt_tokens(line, level, lower)
        if all(t in vocab.stoi and t not in vocab.specials for t in tokens):
            assert result["ok"]["tokens"] == tokens, line
            assert result["ok"]["ids"] == [vocab.stoi[t] for t in tokens]
        else:
            assert "never seen" in result["error"], line


def test_a_view_in_the_chinese_edition_answers_what_a_reader_types_in_chinese(node, tmp_path):
    """The spec carries the book's language (page.page_messages): under set_language("zh") the tokenizers' messages
    are the catalogue's Chinese, with the reader's own words in them; in English they stay English. Every text the
    script writes through nn.say has a Chinese entry, and a spec without the messages falls back to English."""
    import seqviz as sv
    from seqviz import i18n
    from seqviz.web.page import script_texts

    torch.manual_seed(6)
    vocab = Vocab(WORDS)
    model = SequenceClassifier(len(vocab), 4, RNN(4, 3), 2)
    text = book_text("train")[:20000]
    chars = Vocab(sorted(set(text)))
    lm = GRULM(len(chars), 4)
    sv.book.set_language("zh")
    try:
        zh = sticky_note_view(model, vocab, "the keys", class_names=["x", "y"]).spec
        zh_lm = generate_view(lm, chars, "and", level="char", steps=2, max_prompt=20).spec
    finally:
        sv.book.set_language("en")
    en = sticky_note_view(model, vocab, "the keys", class_names=["x", "y"]).spec
    assert zh["i18n"]["language"] == "zh" and en["i18n"] == {"language": "en", "messages": {}}
    texts = ["the keys near a door", "   ", "the " * 40]
    zh_out, en_out, lm_out = (ok(r) for r in run_js(node, tmp_path, [
        {"run": "encode", "spec": zh, "texts": texts}, {"run": "encode", "spec": en, "texts": texts},
        {"run": "lm_tokens", "spec": zh_lm, "texts": ["", "and ✈", "a" * 30]}]))
    assert zh_out[0]["error"].startswith("这个模型从没见过 'a', 'door'；它只认识 13 个词") and "the, keys" in zh_out[0]["error"]
    assert zh_out[1]["error"] == "请在框里输入一句话（词之间用空格隔开）"
    assert en_out[0]["error"].startswith("this model has never seen 'a', 'door'; it only knows 13 words")
    assert en_out[1]["error"] == "type a sentence in the box (words separated by spaces)"
    assert lm_out[0]["error"] == "请在框里输入一段开头（至少一个字符）"
    assert lm_out[1]["error"].startswith("这个模型从没见过 '✈'；它认识 ") and "个字符" in lm_out[1]["error"]
    assert lm_out[2]["error"] == "30 个字符；这个视图最多读 20 个"
    catalogue = i18n.catalogue("zh")
    assert len(script_texts()) > 30
    missing = [t for t in script_texts() if t not in catalogue.entries]
    assert not missing, f"texts the page's script writes with no Chinese in seqviz/i18n/zh/: {missing}"
    assert set(zh["i18n"]["messages"]) == set(script_texts())
    for english, chinese in zh["i18n"]["messages"].items():
        assert i18n.placeholders(english) == i18n.placeholders(chinese), english


# -- the translator and beam search --------------------------------------------------------------------------


def make_translator(cell="gru", bidirectional=True, attention=True, seed=0, scale=3.0):
    torch.manual_seed(seed)
    model = Seq2Seq(len(SRC), len(TGT), embed_size=8, hidden_size=12, attention=attention,
                    bidirectional=bidirectional, cell=cell, attention_size=10)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(scale)   # sharper distributions than PyTorch's initialisation: eos gets chosen at times
    return model.eval()


TRANSLATORS = [("gru", True, True), ("gru", True, False), ("lstm", True, True), ("rnn", False, True),
               ("gru", False, False)]


@pytest.mark.parametrize("cell,bidirectional,attention", TRANSLATORS)
def test_the_translator_equals_seqviz(node, tmp_path, cell, bidirectional, attention):
    model = make_translator(cell, bidirectional, attention, seed=1)
    spec = beam_view(model, SRC, TGT, "three one four").spec
    torch.manual_seed(5)
    cases, expected = [], []
    for sentence in ("three one four one five nine two six", "seven seven zero", "nine"):
        ids = SRC.encode(sentence.split())
        tokens = [model.bos_id, *torch.randint(4, len(TGT), (len(ids) + 2,)).tolist()]   # any output, bos first
        cases.append({"run": "seq2seq", "spec": spec, "ids": ids, "tokens": tokens, "max_len": len(ids) + 3})
        with torch.no_grad():
            src = torch.tensor([ids])
            memory = model.encode(src)
            logits, trace = model(src, None, torch.tensor([tokens]), return_trace=True)
            greedy, weights = model.greedy(src, max_len=len(ids) + 3)
        out = greedy[0].tolist()
        n = out.index(model.eos_id) + 1 if model.eos_id in out else len(out)
        expected.append((memory, logits.log_softmax(-1)[0], trace.get("attention"), out[:n],
                         None if weights is None else weights[0, :n]))
    for result, (memory, log_probs, weights, greedy, greedy_weights) in zip(run_js(node, tmp_path, cases), expected):
        shown = ok(result)
        assert largest(shown["encoder"], memory.outputs[0]) < TOL
        assert largest(shown["state"], memory.state[0]) < TOL
        assert largest(shown["logProbs"], log_probs) < TOL
        assert shown["greedy"]["tokens"] == greedy
        if attention:
            assert largest(shown["weights"], weights[0]) < TOL
            assert largest(shown["greedy"]["weights"], greedy_weights) < TOL


def compare_search(shown, hypotheses, record):
    assert [h["tokens"] for h in shown["hypotheses"]] == [h.tokens for h in hypotheses]
    assert [h["finished"] for h in shown["hypotheses"]] == [h.finished for h in hypotheses]
    assert largest([h["log_prob"] for h in shown["hypotheses"]], [h.log_prob for h in hypotheses]) < SUM_TOL
    assert largest([h["score"] for h in shown["hypotheses"]], [h.score for h in hypotheses]) < SUM_TOL
    fields = ("id", "parent", "token", "step", "status")
    assert [tuple(n[f] for f in fields) for n in shown["record"]["nodes"]] == \
           [tuple(n[f] for f in fields) for n in record.nodes]
    assert shown["record"]["best"] == record.best


@pytest.mark.parametrize("attention", [False, True])
def test_beam_search_over_the_translator_equals_seqviz(node, tmp_path, attention):
    model = make_translator(attention=attention, seed=3)
    spec = beam_view(model, SRC, TGT, "one").spec
    grid = [(s, k, a) for s in ("three one four one five nine two six", "seven seven zero")
            for k in (1, 2, 3, 5, 8) for a in (0.0, 0.7, 2.0)]
    cases = [{"run": "beam_seq2seq", "spec": spec, "ids": SRC.encode(s.split()), "beam_size": k, "alpha": a,
              "max_len": len(s.split()) + 5, "pruned": 2} for s, k, a in grid]
    seen = set()
    for (s, k, a), result in zip(grid, run_js(node, tmp_path, cases)):
        ids = SRC.encode(s.split())
        hyps, record = beam_search(model.log_prob_fn(ids), model.bos_id, model.eos_id, k, max_len=len(ids) + 5,
                                   length_penalty=a, return_record=True, pruned_per_step=2)
        compare_search(ok(result), hyps, record)
        seen |= {n["status"] for n in record.nodes}
    assert {"kept", "finished", "cut", "pruned"} <= seen   # the searches met every kind of node


def table_fn(table):
    """seqviz's log_prob_fn over a (S, V, V) table: row table[min(len(prefix), S) - 1][last token]."""
    S = table.shape[0]
    return lambda prefixes: torch.stack([table[min(len(p), S) - 1, p[-1]] for p in prefixes.tolist()])


def late_winner_table():
    """tests/test_decode.py's late_winner as a table (bos 0, eos 1, a 2): its best hypothesis comes after the
    point where a bound of log P / t ** alpha (instead of / max_len ** alpha) would have stopped the search."""
    table = torch.full((3, 3, 3), -math.inf)
    table[0, 0] = torch.tensor([-math.inf, -0.7, -1.5])
    table[1, 2] = torch.tensor([-math.inf, -0.1, -0.2])
    table[2, 2] = torch.tensor([-math.inf, -0.01, -5.0])
    return table


def random_tables(count, V=6, S=6, seed=7):
    generator = torch.Generator().manual_seed(seed)
    for _ in range(count):
        table = (2.5 * torch.randn(S, V, V, generator=generator)).log_softmax(-1)
        table[..., 0] = -math.inf   # bos never comes again
        yield table


def test_beam_search_over_tables_equals_seqviz_with_and_without_length_penalty(node, tmp_path):
    tables = [late_winner_table(), *random_tables(60)]
    grid = [(i, k, a) for i in range(len(tables)) for k, a in ((2, 1.0), (3, 0.7), (2, 2.0), (4, 0.0))]
    cases = [{"run": "beam_table", "table": f32(tables[i]), "bos": 0, "eos": 1, "beam_size": k, "alpha": a,
              "max_len": 10, "pruned": 1} for i, k, a in grid]
    for (i, k, a), result in zip(grid, run_js(node, tmp_path, cases)):
        hyps, record = beam_search(table_fn(tables[i]), 0, 1, k, 10, length_penalty=a, return_record=True,
                                   pruned_per_step=1)
        compare_search(ok(result), hyps, record)
    late = ok(run_js(node, tmp_path, cases[:1])[0])
    assert [h["tokens"] for h in late["hypotheses"]] == [[0, 2, 2, 1], [0, 1]]
    assert late["hypotheses"][0]["score"] == pytest.approx(length_score(-1.71, 3, 1.0), abs=1e-6)


# -- the Transformer and BERT encoders -----------------------------------------------------------------------


def randomize(model, seed=0):
    """Every parameter drawn at random, so that LayerNorm gains and biases and every bias matter."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=generator)
            p.copy_(1 + 0.3 * noise if "norm" in name and name.endswith("weight") else 0.4 * noise)
    return model.eval()


DIGITS = "zero one two three four five six seven eight nine".split()


@pytest.mark.parametrize("positional,norm_first", [("sinusoidal", False), ("learned", True), ("none", False)])
def test_the_transformer_encoder_equals_seqviz(node, tmp_path, positional, norm_first):
    vocab = Vocab(DIGITS)
    model = randomize(TransformerSeq2Seq(len(vocab), len(vocab), d_model=16, num_heads=4, num_encoder_layers=2,
                                         num_decoder_layers=1, dim_feedforward=32, dropout=0.0, max_len=12,
                                         positional=positional, norm_first=norm_first))
    cases, expected = [], []
    for with_hidden in (True, False):
        spec = head_view(model, vocab, "one two", with_hidden=with_hidden).spec
        for sentence in ("three one four one five nine two six", "seven", "zero " * 12):
            ids = vocab.encode(sentence.split())
            cases.append({"run": "transformer", "spec": spec, "ids": ids})
            with torch.no_grad():
                memory, _, attentions = model.encode(torch.tensor([ids]), return_trace=True)
            expected.append((torch.stack([a[0] for a in attentions]), memory[0] if with_hidden else None))
    for result, (attentions, hidden) in zip(run_js(node, tmp_path, cases), expected):
        shown = ok(result)
        assert largest(shown["attentions"], attentions) < 1e-5
        if hidden is None:
            assert shown["hidden"] is None   # the last layer's feed-forward block is not on the page
        else:
            assert largest(shown["hidden"], hidden) < 1e-5


def test_bert_reads_a_pair_as_seqviz_does(node, tmp_path):
    words = "the hungry fox chases rabbit every owl is sleepy today near a old cabinet".split()
    vocab = BertVocab(words)
    model = randomize(BertMini(len(vocab), 16, 2, 4, 16, dropout=0.0), seed=1)
    spec = head_view(model, vocab, ("the fox", "the owl"), with_hidden=True).spec
    cases, expected = [], []
    for a, b in (("the hungry fox chases the rabbit", "every owl is sleepy today"), ("a fox", "the old cabinet")):
        ids, segments, mask, _ = encode_pairs([(a.split(), b.split())], vocab, 16)
        n = int(mask.sum())
        with torch.no_grad():
            out = model(ids[:, :n], segments[:, :n])
        cases.append({"run": "bert", "spec": spec, "ids": ids[0, :n].tolist(), "segments": segments[0, :n].tolist()})
        expected.append((torch.stack([w[0] for w in out["attentions"]]), out["hidden"][0]))
    for result, (attentions, hidden) in zip(run_js(node, tmp_path, cases), expected):
        shown = ok(result)
        assert largest(shown["attentions"], attentions) < 1e-5 and largest(shown["hidden"], hidden) < 1e-5


def test_attention_masks_padded_keys_and_refuses_a_query_with_nothing_to_attend_to(node, tmp_path):
    torch.manual_seed(3)
    mha = MultiHeadAttention(8, 2).eval()
    x, keep = torch.randn(1, 5, 8), torch.tensor([[True, True, True, False, False]])
    with torch.no_grad():
        out, weights = mha(x, x, x, key_mask=keep)
    state = {k: f32(v) for k, v in mha.state_dict().items()}
    cases = [{"run": "attention", "weights": state, "x": f32(x[0]), "heads": 2, "keep": keep[0].tolist()},
             {"run": "attention", "weights": state, "x": f32(x[0]), "heads": 2, "keep": [False] * 5}]
    masked, empty = run_js(node, tmp_path, cases)
    shown = ok(masked)
    assert largest(shown["weights"], weights[0]) < 1e-5 and (np.asarray(shown["weights"])[..., 3:] == 0).all()
    assert largest(shown["out"], out[0]) < 1e-5
    assert "every score is -inf" in empty["error"]
    with pytest.raises(ValueError, match="attend to no key"):
        mha(x, x, x, key_mask=torch.zeros(1, 5, dtype=torch.bool))


def test_layer_norm_gelu_and_positions_equal_pytorch(node, tmp_path):
    torch.manual_seed(8)
    x, weight, bias = torch.randn(16), torch.randn(16), torch.randn(16)
    grid = torch.linspace(-8, 8, 161)
    cases = [{"run": "layer_norm", "x": f32(x), "weight": f32(weight), "bias": f32(bias), "eps": 1e-5},
             {"run": "gelu", "x": f32(grid)}, {"run": "sinusoids", "T": 30, "d": 16, "base": 10000.0}]
    norm, gelu, sinusoids = (ok(r) for r in run_js(node, tmp_path, cases))
    assert largest(norm, torch.nn.functional.layer_norm(x, (16,), weight, bias, 1e-5)) < 1e-5
    assert largest(gelu, torch.nn.functional.gelu(grid.double())) < 1e-6
    assert largest(sinusoids, positional_encoding(30, 16)) < 1e-6


# -- what both sides refuse ----------------------------------------------------------------------------------


def test_non_finite_numbers_and_impossible_ids_are_refused_on_both_sides(node, tmp_path):
    nan_logits, inf_logit, masked = torch.tensor([0.0, math.nan, 1.0]), torch.tensor([0.0, math.inf, 1.0]), \
        torch.full((4,), -math.inf)
    cases = [{"run": "distribution", "logits": f32(z), "temperature": 1.0, "top_k": None}
             for z in (nan_logits, inf_logit, masked)]
    cases += [{"run": "softmax", "scores": f32(masked)}, {"run": "softmax", "scores": f32(nan_logits)},
              {"run": "choose", "p": [0.3, 0.3], "us": [0.5]}, {"run": "choose", "p": [0.5, 0.5], "us": [1.0]}]
    impossible = torch.full((3, 4, 4), -math.inf)
    cases += [{"run": "beam_table", "table": f32(late_winner_table()), "bos": 0, "eos": 3, "beam_size": 2,
               "alpha": 1.0, "max_len": 5, "pruned": 0},
              {"run": "beam_table", "table": f32(impossible), "bos": 0, "eos": 1, "beam_size": 2, "alpha": 0.0,
               "max_len": 5, "pruned": 0}]
    errors = [r.get("error", "") for r in run_js(node, tmp_path, cases)]
    assert "logit for token 1 is NaN" in errors[0] and "logit for token 1 is Infinity" in errors[1]
    assert "every kept logit is -inf" in errors[2]
    assert "every score is -inf" in errors[3] and "a score is NaN" in errors[4]
    assert "sum to 1" in errors[5] and "u must be a uniform number" in errors[6]
    assert "bos and eos must be token ids in 0..2" in errors[7] and "found no hypothesis" in errors[8]
    for z, match in ((nan_logits, "finite"), (inf_logit, "finite"), (masked, "every kept logit is -inf")):
        with pytest.raises(ValueError, match=match):
            distribution(z)
    with pytest.raises(ValueError, match="sum to 1"):
        choose(torch.tensor([0.3, 0.3], dtype=torch.float64), 0.5)
    with pytest.raises(ValueError, match="eos_id = 3 is not a token"):
        beam_search(table_fn(late_winner_table()), 0, 3, 2, 5, length_penalty=1.0)
    with pytest.raises(ValueError, match="no hypothesis"):
        beam_search(table_fn(impossible), 0, 1, 2, 5)


# -- the names the exporters write and the page reads ---------------------------------------------------------


def test_every_name_of_the_table_is_a_state_dict_name_and_the_views_ship_exactly_them():
    torch.manual_seed(9)
    vocab = Vocab(WORDS)
    classifier = SequenceClassifier(len(vocab), 4, LSTM(4, 3, num_layers=2), 2)
    lm, lm_vocab = make_lm("lstm", 2)
    translator = make_translator(attention=True)
    bert_vocab = BertVocab(WORDS)
    models = {"classifier": classifier, "language_model": lm, "seq2seq": translator,
              "transformer_seq2seq": TransformerSeq2Seq(10, 10, d_model=8, num_heads=2, positional="learned",
                                                         norm_first=True),
              "bert": BertMini(len(bert_vocab), 8, 1, 2, 12)}
    for family, model in models.items():
        state = model.state_dict()
        for role, name in NAMES[family].items():
            if name.endswith("."):   # a prefix: a recurrent module's or a layer stack's
                assert any(k.startswith(name) for k in state), (family, role, name)
            else:
                assert name in state, (family, role, name)
    layer = models["bert"].layers[0].state_dict()
    assert set(NAMES["encoder_layer"].values()) <= set(layer)
    assert set(NAMES["recurrent"]) == {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}
    assert set(sticky_note_view(classifier, vocab, SENTENCE, class_names=["a", "b"]).spec["weights"]) \
        == set(classifier.state_dict())
    assert set(generate_view(lm, lm_vocab, "And", steps=2).spec["weights"]) == set(lm.state_dict())
    assert set(beam_view(translator, SRC, TGT, "one").spec["weights"]) == set(translator.state_dict())


# -- the bugs these tests are for ----------------------------------------------------------------------------

PLANTED = {   # a bug once missed by every test, as a change to the page's script -> the test that must catch it
    "top-k keeps the higher id on ties": (
        "if (!(logits[i] > logits[best[topK - 1]])) continue;", "if (logits[i] < logits[best[topK - 1]]) continue;",
        test_the_sampling_rule_keeps_the_lower_id_on_ties_as_seqviz_does),
    "beam search's early stop bounds by the step, not max_len": (
        "/ Math.pow(maxLen, alpha) <= kth", "/ Math.pow(t, alpha) <= kth",
        test_beam_search_over_tables_equals_seqviz_with_and_without_length_penalty),
    "the GRU's candidate resets the input side": (
        "n[j] = Math.tanh(a[2 * H + j] + r[j] * b[2 * H + j]);",
        "n[j] = Math.tanh(r[j] * a[2 * H + j] + b[2 * H + j]);",
        test_each_recurrent_cell_equals_seqviz),
    "a masked key keeps its score": (
        "scores[j] = keyMask && !keyMask[j] ? -Infinity : s * scale;", "scores[j] = s * scale;",
        test_attention_masks_padded_keys_and_refuses_a_query_with_nothing_to_attend_to),
}


@pytest.mark.parametrize("bug", list(PLANTED))
def test_a_planted_bug_in_the_page_fails_these_tests(node, tmp_path, monkeypatch, bug):
    """Each bug, planted in the page's script, makes its golden-vector test fail (a test that can fail)."""
    original, planted, test = PLANTED[bug]
    script = bundle()
    assert script.count(original) == 1, f"the code the bug is planted in moved: update PLANTED[{bug!r}]"
    mutant = script.replace(original, planted)
    monkeypatch.setitem(globals(), "bundle", lambda: mutant)
    kwargs = {"kind": "gru"} if test is test_each_recurrent_cell_equals_seqviz else {}
    with pytest.raises(AssertionError):
        test(node, tmp_path, **kwargs)


# -- the layout of web/js/ -----------------------------------------------------------------------------------

JS = Path(__file__).resolve().parents[1] / "seqviz" / "web" / "js"


def test_each_numeric_twin_is_one_file_whose_header_names_its_python_original():
    repo = JS.parents[2]
    defined: dict[str, list[str]] = {}
    for path in sorted(JS.rglob("*.js")):
        text = path.read_text()
        for name in re.findall(r"^\s*(nn(?:\.\w+)+|views\.\w+)\s*=\s*", text, flags=re.M):
            defined.setdefault(name, []).append(path.relative_to(JS).as_posix())
        if path.parent.name == "nn" and path.name != "core.js":
            header = text.split('"use strict"')[0]
            originals = re.findall(r"seqviz/[\w/]+\.py", header)
            assert originals, f"js/nn/{path.name}'s header names no Python original (seqviz/....py)"
            for original in originals:
                assert (repo / original).exists(), f"js/nn/{path.name} names {original}, which does not exist"
    twice = {name: files for name, files in defined.items() if len(files) > 1}
    assert not twice, f"defined in more than one file: {twice}"
    numeric = {name for name, files in defined.items() if name.startswith("nn.")}
    assert all(defined[name][0].startswith("nn/") for name in numeric), "a numeric twin lives outside js/nn/"
    assert all(defined[name][0].startswith("views/") for name in defined if name.startswith("views."))
