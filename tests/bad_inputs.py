"""Bad inputs across seqviz's public surface, and what each must give: one table.

``tests/test_bad_inputs.py`` holds the package to it; ``python tests/bad_inputs.py`` tallies how the code in
use answers each input (run it on an older checkout to compare):

- **clear**: a ``ValueError`` or ``TypeError`` raised by a ``raise`` statement in seqviz (a message written for the
  reader, naming what was expected and what came), or, for an input that must simply work (a ``|`` in a table
  cell, a torch.nn encoder), the right answer;
- **raw**: any other exception: a traceback from deep inside torch, numpy or Python itself;
- **silent**: no error for an input that must be refused (a wrong answer, NaN, or a loop that never ends),
  or a wrong answer for one that must work.

A case is ``Case(area, what, call, match)``: ``call()`` must raise a clear error whose message matches ``match``
(a regular expression; None: any message); or ``Case(..., check=predicate)``: ``call()`` must return a value the
predicate accepts. The fixtures are tiny models with random weights, built once.
"""

from __future__ import annotations

import functools
import linecache
import math
import signal
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@dataclass
class Case:
    area: str
    what: str
    call: Callable
    match: str | None = None
    check: Callable | None = None


CASES: list[Case] = []


def bad(area: str, what: str, call: Callable, match: str | None = None) -> None:
    CASES.append(Case(area, what, call, match))


def good(area: str, what: str, call: Callable, check: Callable) -> None:
    CASES.append(Case(area, what, call, check=check))


# -- fixtures -------------------------------------------------------------------------------------------------

WORDS = "the keys key near old cabinet cabinets that my friend left on table".split()
SENTENCE = "the keys that my friend left on the old table"
NAN, INF = math.nan, math.inf


@functools.lru_cache(maxsize=None)
def vocab():
    from seqviz.data import Vocab

    return Vocab(WORDS)


@functools.lru_cache(maxsize=None)
def classifier(cell="lstm", builtin=False):
    from seqviz.models import GRU, LSTM, RNN, SequenceClassifier

    torch.manual_seed(0)
    if builtin:
        encoder = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[cell](8, 6, num_layers=2, batch_first=True)
    else:
        encoder = {"lstm": LSTM, "gru": GRU, "rnn": RNN}[cell](8, 6)
    return SequenceClassifier(len(vocab()), 8, encoder, num_classes=2).eval()


@functools.lru_cache(maxsize=None)
def char_lm():
    from seqviz.data import Vocab
    from seqviz.models import GRULM

    torch.manual_seed(0)
    chars = Vocab(list("abcdefghijklmnopqrstuvwxyz ."))
    return GRULM(len(chars), 8).eval(), chars


@functools.lru_cache(maxsize=None)
def translator(attention=True):
    from seqviz.data import translation_vocabs
    from seqviz.models import Seq2Seq

    torch.manual_seed(0)
    src, tgt = translation_vocabs()
    return Seq2Seq(len(src), len(tgt), embed_size=8, hidden_size=12, attention=attention).eval(), src, tgt


@functools.lru_cache(maxsize=None)
def transformer():
    from seqviz.data import Vocab
    from seqviz.models import TransformerSeq2Seq

    torch.manual_seed(0)
    digits = Vocab("zero one two three four five six seven eight nine".split())
    model = TransformerSeq2Seq(len(digits), len(digits), d_model=16, num_heads=4, num_encoder_layers=2,
                               num_decoder_layers=1, dim_feedforward=32, dropout=0.0, max_len=12)
    return model.eval(), digits


@functools.lru_cache(maxsize=None)
def bert():
    from seqviz.data.bert_data import BertVocab
    from seqviz.models import BertMini

    torch.manual_seed(0)
    words = BertVocab("the hungry fox chases rabbit every owl is sleepy".split())
    return BertMini(len(words), 16, 2, 4, 16, dropout=0.0).eval(), words


def evidence_inputs(zero_time=False, drop_stream_model=False, one_context=False):
    """Rows shaped like chapter 10's (tests/test_guide.py's fake run)."""
    kinds = ("RNN", "GRU", "LSTM", "Transformer")
    rows = [{"task": task, "model": k, "score": 0.5 + 0.1 * i, "metric": "accuracy", "train_s": 10.0 + i,
             "latency_ms": 1.0, "memory_kb": 100.0, "parameters": {"RNN": 100, "GRU": 300, "LSTM": 400}.get(k, 500)}
            for task in ("agreement", "translation", "forecasting") for i, k in enumerate(kinds)]
    cost = [{"model": k, "length": n, "ms_per_step": 0.0 if zero_time else n / 10,
             "saved_MiB": 8.0 * (n / 64) ** 2 if k == "Transformer" else n / 64}
            for n in (16, 32, 64) for k in ("GRU", "LSTM", "Transformer")]
    stream = []
    for c in ((16,) if one_context else (16, 64)):
        stream += [{"model": "GRU", "context": c, "ms_per_token": 0.1, "state_bytes": 10},
                   {"model": "Transformer (KV cache)", "context": c, "ms_per_token": 0.1 * (4 if c == 64 else 1),
                    "state_bytes": 10 * c},
                   {"model": "Transformer (no cache)", "context": c, "ms_per_token": 1.0, "state_bytes": 0}]
    if drop_stream_model:
        stream = [r for r in stream if r["model"] != "GRU"]
    finetune = {"pretrained": 0.6, "scratch": 0.2, "labels": 6, "pretrain_steps": 10, "pretrain_s": 1.0,
                "chance": 1 / 6}
    return rows, cost, stream, finetune


@functools.lru_cache(maxsize=None)
def evidence():
    from seqviz.guide import collect_evidence

    return collect_evidence(*evidence_inputs())


SITUATION = ("classification", "large", "short (< 100)", "limited (CPU)", "batch")


class NanModel(nn.Module):
    """A language model whose logits are ``value`` everywhere but token 0: prefill and step, as sample needs."""

    def __init__(self, value, vocab_size=5):
        super().__init__()
        self.value, self.vocab_size = value, vocab_size
        self.w = nn.Parameter(torch.zeros(1))

    def _logits(self):
        logits = torch.zeros(1, self.vocab_size)
        logits[0, 1] = self.value
        return logits

    def prefill(self, ids):
        return self._logits(), None

    def step(self, ids, state):
        return self._logits(), None


def lp_fn(V=4, eos_row=None):
    """A log_prob_fn over V tokens: uniform, except that it never gives bos (0) again."""
    def fn(prefixes):
        row = torch.full((V,), math.log(1 / (V - 1)))
        row[0] = -INF
        return row.expand(prefixes.shape[0], V).clone()
    return fn


def minus_inf(prefixes):
    return torch.full((prefixes.shape[0], 4), -INF)


def spec_html_has_no_raw_lt(view) -> bool:
    html = view.html()
    start = html.index("class='seqviz-web-spec'>") + len("class='seqviz-web-spec'>")
    return "<" not in html[start:html.index("</script>", start)]


def one_row_of_cells(table: str, columns: int) -> bool:
    lines = table.split("\n")
    import re
    return len(lines) == 3 and all(len(re.split(r"(?<!\\)\|", line)) == columns + 2 for line in lines)


# -- seqviz.web ----------------------------------------------------------------------------------------------


def _web():
    from seqviz.data import Vocab
    from seqviz.web import (WebView, alignment_view, beam_view, gates_view, generate_view, head_view,
                            sticky_note_view, tensor)
    from seqviz.web.export import cell_kind, known_ids, vocabulary
    from seqviz.web.generate import mulberry32

    note = lambda **kw: sticky_note_view(classifier("lstm"), kw.pop("vocab", vocab()),  # noqa: E731
                                         kw.pop("sentence", SENTENCE), **{"class_names": ["is", "are"], **kw})
    bad("web", "sticky_note_view: model is a Linear", lambda: sticky_note_view(nn.Linear(2, 2), vocab(), SENTENCE,
                                                                               class_names=["a", "b"]))
    bad("web", "sticky_note_view: vocab is a list", lambda: note(vocab=WORDS), "Vocab")
    bad("web", "sticky_note_view: vocab is None", lambda: note(vocab=None), "Vocab")
    bad("web", "sticky_note_view: sentence None", lambda: note(sentence=None), "sentence")
    bad("web", "sticky_note_view: sentence 42", lambda: note(sentence=42), "sentence")
    bad("web", "sticky_note_view: sentence empty", lambda: note(sentence=""), "words the model knows")
    bad("web", "sticky_note_view: unknown word", lambda: note(sentence="the dog"), "words the model knows")
    bad("web", "sticky_note_view: class_names a string", lambda: note(class_names="ab"), "class_names")
    bad("web", "sticky_note_view: class_names None", lambda: note(class_names=None), "class_names")
    bad("web", "sticky_note_view: three class names for two classes", lambda: note(class_names=["a", "b", "c"]),
        "2 class names")
    bad("web", "sticky_note_view: track out of range", lambda: note(track=5), "track")
    bad("web", "sticky_note_view: track '0'", lambda: note(track="0"), "track")
    bad("web", "sticky_note_view: track 0.5", lambda: note(track=0.5), "track")
    bad("web", "sticky_note_view: track True", lambda: note(track=True), "track")
    bad("web", "sticky_note_view: pattern None", lambda: note(pattern=None), "pattern")
    bad("web", "sticky_note_view: still is text", lambda: note(still="a picture"), "still")
    bad("web", "sticky_note_view: title None", lambda: note(title=None), "title")
    bad("web", "sticky_note_view: title 123", lambda: note(title=123), "title")
    bad("web", "sticky_note_view: bidirectional encoder", lambda: sticky_note_view(
        _bidirectional(), vocab(), SENTENCE, class_names=["a", "b"]), "bidirectional")
    good("web", "sticky_note_view: a title with <!--<script>", lambda: note(title="<!--<script>x</script>"),
         spec_html_has_no_raw_lt)
    good("web", "sticky_note_view: a word '<!--<script>' in the vocabulary",
         lambda: sticky_note_view(_odd_word_classifier(), Vocab(WORDS + ["<!--<script>"]), SENTENCE,
                                  class_names=["a", "b"], pattern=r"\S+"), spec_html_has_no_raw_lt)

    gates = lambda model=None, **kw: gates_view(model or classifier("lstm"), kw.pop("vocab", vocab()),  # noqa: E731
                                                kw.pop("sentence", SENTENCE), **kw)
    good("web", "gates_view over a torch.nn.LSTM encoder (its docstring promises it)",
         lambda: gates(classifier("lstm", builtin=True)), lambda view: len(view.spec["expected"]["gates"]) == 4)
    bad("web", "gates_view: an RNN has no gates", lambda: gates(classifier("rnn")), "no gates")
    bad("web", "gates_view: units [1.5]", lambda: gates(units=[1.5]), "units")
    bad("web", "gates_view: units '01'", lambda: gates(units="01"), "units")
    bad("web", "gates_view: units []", lambda: gates(units=[]), "units")
    bad("web", "gates_view: units [99]", lambda: gates(units=[99]), "units")
    bad("web", "gates_view: order with a repeat", lambda: gates(order=[0, 0]), "order")
    bad("web", "gates_view: gates 'forget'", lambda: gates(gates="forget"), "gates")
    bad("web", "gates_view: gates []", lambda: gates(gates=[]), "gates")
    bad("web", "gates_view: layer 'a'", lambda: gates(layer="a"), "layer")
    bad("web", "gates_view: layer 5", lambda: gates(layer=5), "layer")
    bad("web", "gates_view: layer 0.7", lambda: gates(layer=0.7), "layer")
    bad("web", "gates_view: start 0", lambda: gates(start=0), "start")
    bad("web", "gates_view: start '2'", lambda: gates(start="2"), "start")
    bad("web", "gates_view: unit_labels 'ab'", lambda: gates(units=[0, 1], unit_labels="ab"), "unit_labels")
    bad("web", "gates_view: one label for two units", lambda: gates(units=[0, 1], unit_labels=["a"]), "unit labels")
    bad("web", "gates_view: sentence None", lambda: gates(sentence=None), "sentence")
    bad("web", "gates_view: vocab is a list", lambda: gates(vocab=WORDS), "Vocab")
    bad("web", "gates_view: title None", lambda: gates(title=None), "title")

    def gen(**kw):
        model, chars = char_lm()
        return generate_view(model, kw.pop("vocab", chars), kw.pop("prompt", "the sea"), **{"steps": 5, **kw})

    bad("web", "generate_view: model is a Linear", lambda: generate_view(nn.Linear(2, 2), char_lm()[1], "a"), "GRULM")
    bad("web", "generate_view: vocab of another size", lambda: gen(vocab=vocab()), "vocab")
    bad("web", "generate_view: vocab a list", lambda: gen(vocab=list("abc")), "vocab")
    bad("web", "generate_view: level 'byte'", lambda: gen(level="byte"), "level")
    bad("web", "generate_view: steps 0", lambda: gen(steps=0), "steps")
    bad("web", "generate_view: steps 1001", lambda: gen(steps=1001), "steps")
    bad("web", "generate_view: steps 2.0", lambda: gen(steps=2.0), "steps")
    bad("web", "generate_view: steps True", lambda: gen(steps=True), "steps")
    bad("web", "generate_view: temperature 0", lambda: gen(temperature=0), "temperature")
    bad("web", "generate_view: temperature 0.33 (off the slider)", lambda: gen(temperature=0.33), "temperature")
    bad("web", "generate_view: temperature NaN", lambda: gen(temperature=NAN), "temperature")
    bad("web", "generate_view: temperature '1'", lambda: gen(temperature="1"), "temperature")
    bad("web", "generate_view: top_k 5 (not on the menu)", lambda: gen(top_k=5), "top_k")
    bad("web", "generate_view: top_k True", lambda: gen(top_k=True), "top_k")
    bad("web", "generate_view: seed 21", lambda: gen(seed=21), "seed")
    bad("web", "generate_view: seed 1.5", lambda: gen(seed=1.5), "seed")
    bad("web", "generate_view: lower 'no'", lambda: gen(lower="no"), "lower")
    bad("web", "generate_view: max_prompt 0", lambda: gen(max_prompt=0), "max_prompt")
    bad("web", "generate_view: prompt None", lambda: gen(prompt=None), "prompt")
    bad("web", "generate_view: prompt empty", lambda: gen(prompt=""), "prompt")
    bad("web", "generate_view: prompt longer than max_prompt", lambda: gen(prompt="a" * 30, max_prompt=10), "prompt")
    bad("web", "generate_view: prompt with unknown characters", lambda: gen(prompt="the sea!"), "prompt")
    bad("web", "generate_view: title None", lambda: gen(title=None), "title")

    def align(**kw):
        model, src, tgt = translator(kw.pop("attention", True))
        return alignment_view(model, kw.pop("src", src), kw.pop("tgt", tgt), kw.pop("sentence", "three one four"),
                              **kw)

    def beams(**kw):
        model, src, tgt = translator(False)
        return beam_view(kw.pop("model", model), kw.pop("src", src), tgt, kw.pop("sentence", "three one four"), **kw)

    bad("web", "alignment_view: a translator without attention", lambda: align(attention=False), "attention")
    bad("web", "alignment_view: src_vocab a list", lambda: align(src=["one"]), "src_vocab")
    bad("web", "alignment_view: tgt_vocab of another size", lambda: align(tgt=vocab()), "tgt_vocab")
    bad("web", "alignment_view: sentence None", lambda: align(sentence=None), "sentence")
    bad("web", "alignment_view: sentence blank", lambda: align(sentence="  "), "sentence")
    bad("web", "alignment_view: extra_steps 0", lambda: align(extra_steps=0), "extra_steps")
    bad("web", "alignment_view: max_words 0", lambda: align(max_words=0), "max_words")
    bad("web", "alignment_view: max_words '20'", lambda: align(max_words="20"), "max_words")
    bad("web", "alignment_view: heading None", lambda: align(heading=None), "heading")
    bad("web", "beam_view: model is a Linear", lambda: beams(model=nn.Linear(2, 2)), "Seq2Seq")
    bad("web", "beam_view: beam_size 0", lambda: beams(beam_size=0), "beam_size")
    bad("web", "beam_view: beam_size 9 > max_beam", lambda: beams(beam_size=9), "beam_size")
    bad("web", "beam_view: beam_size 2.5", lambda: beams(beam_size=2.5), "beam_size")
    bad("web", "beam_view: alpha NaN", lambda: beams(alpha=NAN), "alpha")
    bad("web", "beam_view: alpha -1", lambda: beams(alpha=-1.0), "alpha")
    bad("web", "beam_view: max_alpha 0", lambda: beams(alpha=0.0, max_alpha=0.0), "alpha")
    bad("web", "beam_view: pruned_per_step -1", lambda: beams(pruned_per_step=-1), "pruned_per_step")
    bad("web", "beam_view: max_words 0", lambda: beams(max_words=0), "max_words")
    bad("web", "beam_view: title None", lambda: beams(title=None), "title")
    bad("web", "beam_view: the model's eos_id outside its vocabulary", lambda: beams(model=_eos_outside()), "eos_id")

    heads = lambda model=None, words=None, sentence="one two", **kw: head_view(  # noqa: E731
        model or transformer()[0], words or transformer()[1], sentence, **kw)
    bad("web", "head_view: model is a Linear", lambda: heads(nn.Linear(2, 2)), "TransformerSeq2Seq")
    bad("web", "head_view: a pair for a TransformerSeq2Seq", lambda: heads(sentence=("one", "two")), "string")
    bad("web", "head_view: a string for a BertMini", lambda: heads(*bert(), sentence="the fox"), "pair")
    bad("web", "head_view: sentence None", lambda: heads(sentence=None), "string")
    bad("web", "head_view: layer 'a'", lambda: heads(layer="a"), "layer")
    bad("web", "head_view: head 'mean'", lambda: heads(head="mean"), "head")
    bad("web", "head_view: layer -1", lambda: heads(layer=-1), "layer")
    bad("web", "head_view: layer 1.5", lambda: heads(layer=1.5), "layer")
    bad("web", "head_view: head 5 (4 heads; 4 is the mean)", lambda: heads(head=5), "head")
    bad("web", "head_view: vocab a list", lambda: heads(words=["one"]), "vocabulary")
    bad("web", "head_view: with_hidden 'yes'", lambda: heads(with_hidden="yes"), "with_hidden")
    bad("web", "head_view: title None", lambda: heads(title=None), "title")
    bad("web", "head_view: BertMini with a plain Vocab", lambda: head_view(bert()[0], vocab(), ("the", "fox")),
        "BertVocab")

    bad("web", "WebView: no view name", lambda: WebView("", {}, None, {}), "view")
    bad("web", "WebView: weights a list", lambda: WebView("x", [1], None, {}), "weights")
    bad("web", "WebView: options with a set", lambda: WebView("x", {}, None, {"a": {1, 2}}), "options")
    bad("web", "WebView: expected holds NaN", lambda: WebView("x", {}, None, {}, expected={"p": [NAN]}), "finite")
    bad("web", "tensor: a string", lambda: tensor("abc"), "tensor")
    bad("web", "tensor: NaN weights", lambda: tensor(torch.tensor([1.0, NAN])), "NaN")
    bad("web", "tensor: infinite weights", lambda: tensor(torch.tensor([INF])), "infinite")
    bad("web", "mulberry32: seed -0.5", lambda: mulberry32(-0.5, 2), "seed")
    bad("web", "mulberry32: n -1", lambda: mulberry32(1, -1), "n")
    bad("web", "mulberry32: seed True", lambda: mulberry32(True, 2), "seed")
    bad("web", "known_ids: sentence None", lambda: known_ids(None, vocab()), "sentence")
    bad("web", "vocabulary: max_tokens 0", lambda: vocabulary(vocab(), max_tokens=0), "max")
    bad("web", "vocabulary: lower 'yes'", lambda: vocabulary(vocab(), lower="yes"), "lower")
    bad("web", "vocabulary: a list", lambda: vocabulary(WORDS), "Vocab")
    bad("web", "cell_kind: a Linear", lambda: cell_kind(nn.Linear(2, 2)), "RNN, LSTM or GRU")


def _bidirectional():
    from seqviz.models import LSTM, SequenceClassifier

    return SequenceClassifier(len(vocab()), 8, LSTM(8, 6, bidirectional=True), 2)


def _odd_word_classifier():
    from seqviz.models import LSTM, SequenceClassifier

    torch.manual_seed(0)
    return SequenceClassifier(len(vocab()) + 1, 8, LSTM(8, 6), 2).eval()


def _eos_outside():
    from seqviz.data import translation_vocabs
    from seqviz.models import Seq2Seq

    src, tgt = translation_vocabs()
    torch.manual_seed(0)
    model = Seq2Seq(len(src), len(tgt), embed_size=8, hidden_size=12).eval()
    model.eos_id = len(tgt) + 5
    return model


# -- seqviz.sampling and seqviz.decode ------------------------------------------------------------------------


def _sampling():
    from seqviz.sampling import choose, distribution, sample

    z = torch.tensor([0.0, 1.0, 2.0])
    bad("sampling", "distribution: a list", lambda: distribution([0.0, 1.0]), "logits")
    bad("sampling", "distribution: 2-D logits", lambda: distribution(torch.zeros(2, 3)), "logits")
    bad("sampling", "distribution: empty logits", lambda: distribution(torch.zeros(0)), "logits")
    bad("sampling", "distribution: NaN logits", lambda: distribution(torch.tensor([0.0, NAN, 1.0])), "finite")
    bad("sampling", "distribution: one +inf logit", lambda: distribution(torch.tensor([0.0, INF, 1.0])), "finite")
    bad("sampling", "distribution: every logit -inf", lambda: distribution(torch.full((3,), -INF)), "-inf")
    for t in (0, -1.0, NAN, INF, "1", True):
        bad("sampling", f"distribution: temperature {t!r}", lambda t=t: distribution(z, t), "temperature")
    for k in (0, 4, 1.5, True, "2"):
        bad("sampling", f"distribution: top_k {k!r}", lambda k=k: distribution(z, 1.0, k), "top_k")
    p = torch.tensor([0.2, 0.3, 0.5], dtype=torch.float64)
    bad("sampling", "choose: probabilities summing to 0.6", lambda: choose(torch.tensor([0.3, 0.3]), 0.5), "sum to 1")
    bad("sampling", "choose: a negative probability", lambda: choose(torch.tensor([1.5, -0.5]), 0.5), "probs")
    bad("sampling", "choose: NaN probabilities", lambda: choose(torch.tensor([NAN, 0.5]), 0.5), "probs")
    bad("sampling", "choose: all zero", lambda: choose(torch.zeros(3), 0.5), "probs")
    bad("sampling", "choose: a list", lambda: choose([0.5, 0.5], 0.5), "probs")
    bad("sampling", "choose: u = 1", lambda: choose(p, 1.0), "u must")
    bad("sampling", "choose: u NaN", lambda: choose(p, NAN), "u must")
    bad("sampling", "choose: u '0.5'", lambda: choose(p, "0.5"), "u must")
    model, chars = char_lm()
    bad("sampling", "sample: a model without prefill", lambda: sample(nn.Linear(2, 2), [1], 3), "prefill")
    bad("sampling", "sample: prompt 'abc'", lambda: sample(model, "abc", 3), "prompt")
    bad("sampling", "sample: empty prompt", lambda: sample(model, [], 3), "prompt")
    bad("sampling", "sample: prompt [1.5]", lambda: sample(model, [1.5], 3), "prompt")
    bad("sampling", "sample: steps 0", lambda: sample(model, [1], 0), "steps")
    bad("sampling", "sample: steps 2.5", lambda: sample(model, [1], 2.5), "steps")
    bad("sampling", "sample: too few uniforms", lambda: sample(model, [1], 3, uniforms=[0.1]), "uniforms")
    bad("sampling", "sample: a uniform of 1.0", lambda: sample(model, [1], 2, uniforms=[0.1, 1.0]), "uniforms")
    bad("sampling", "sample: temperature 0", lambda: sample(model, [1], 2, temperature=0), "temperature")
    bad("sampling", "sample: top_k 0", lambda: sample(model, [1], 2, top_k=0), "top_k")
    bad("sampling", "sample: stop_ids 'a'", lambda: sample(model, [1], 2, stop_ids="a"), "stop_ids")
    bad("sampling", "sample: a prompt id outside the vocabulary", lambda: sample(model, [999], 2), None)
    bad("sampling", "sample: a model with NaN logits", lambda: sample(NanModel(NAN), [1], 3), "finite")
    bad("sampling", "sample: a model with a +inf logit", lambda: sample(NanModel(INF), [1], 3), "finite")


def _decode():
    from seqviz.decode import beam_search, exhaustive_search, greedy_decode, length_score, score_sequence

    fn = lp_fn()
    for kwargs, match in ((dict(bos_id=-1), "bos_id"), (dict(eos_id="a"), "eos_id"), (dict(max_len=0), "max_len"),
                          (dict(beam_size=0), "beam_size"), (dict(length_penalty=-1.0), "length_penalty"),
                          (dict(length_penalty=NAN), "length_penalty"), (dict(beam_size=2.0), "beam_size"),
                          (dict(max_len=True), "max_len")):
        args = dict(bos_id=0, eos_id=1, beam_size=2, max_len=3) | kwargs
        bad("decode", f"beam_search: {kwargs}", lambda args=args: beam_search(fn, **args), match)
    bad("decode", "beam_search: log_prob_fn returns logits", lambda: beam_search(
        lambda p: torch.ones(p.shape[0], 4), 0, 1, 2, 3), "log-probabilities")
    bad("decode", "beam_search: log_prob_fn returns one row too few", lambda: beam_search(
        lambda p: torch.zeros(4), 0, 1, 2, 3), "k = 1")
    bad("decode", "beam_search: log_prob_fn returns a list", lambda: beam_search(lambda p: [[0.0]], 0, 1, 2, 3),
        "tensor")
    bad("decode", "beam_search: log_prob_fn is not callable", lambda: beam_search(3, 0, 1, 2, 3), "log_prob_fn")
    bad("decode", "beam_search: NaN log-probabilities", lambda: beam_search(
        lambda p: torch.full((p.shape[0], 4), NAN), 0, 1, 2, 3), "log-probabilities")
    bad("decode", "beam_search: every score -inf", lambda: beam_search(minus_inf, 0, 1, 2, 3), "-inf")
    bad("decode", "beam_search: eos_id outside the vocabulary", lambda: beam_search(fn, 0, 7, 2, 5), "eos_id")
    bad("decode", "beam_search: bos_id outside the vocabulary", lambda: beam_search(fn, 9, 1, 2, 5), "bos_id")
    bad("decode", "greedy_decode: every score -inf", lambda: greedy_decode(minus_inf, 0, 1, 3), "-inf")
    bad("decode", "greedy_decode: eos_id outside the vocabulary", lambda: greedy_decode(fn, 0, 7, 5), "eos_id")
    bad("decode", "greedy_decode: max_len 0", lambda: greedy_decode(fn, 0, 1, 0), "max_len")
    bad("decode", "exhaustive_search: every score -inf", lambda: exhaustive_search(minus_inf, 0, 1, 2), "-inf")
    bad("decode", "exhaustive_search: eos_id outside the vocabulary", lambda: exhaustive_search(fn, 0, 7, 2), "eos_id")
    bad("decode", "score_sequence: one token", lambda: score_sequence(fn, [0]), "tokens")
    bad("decode", "score_sequence: tokens 'ab'", lambda: score_sequence(fn, "ab"), "tokens")
    bad("decode", "score_sequence: a token outside the vocabulary", lambda: score_sequence(fn, [0, 99]), "vocabulary")
    bad("decode", "length_score: length 0", lambda: length_score(-1.0, 0), "length")
    bad("decode", "length_score: length 1.5", lambda: length_score(-1.0, 1.5), "length")
    bad("decode", "length_score: a positive log-probability", lambda: length_score(1.0, 2), "log_prob")
    bad("decode", "length_score: length_penalty -1", lambda: length_score(-1.0, 2, -1.0), "length_penalty")


# -- seqviz.measure -------------------------------------------------------------------------------------------


def _measure():
    from seqviz.measure import (activation_bytes, check_ints, count_parameters, crossover, fit_power_law,
                                fitted_growth, largest_difference, markdown_table, match_parameters, spread_cell,
                                time_call)

    from seqviz.book import wrap

    bad("book", "wrap: not a string", lambda: wrap(None), "string")
    bad("book", "wrap: columns 3", lambda: wrap("some text", columns=3), "columns")
    noop = lambda: None  # noqa: E731
    bad("measure", "time_call: not a function", lambda: time_call(3), "function")
    for r in (0, -1, 2.5, True, "3"):
        bad("measure", f"time_call: repeats {r!r}", lambda r=r: time_call(noop, repeats=r), "repeats")
    for m in (-1.0, NAN, INF, "a"):
        bad("measure", f"time_call: min_time {m!r}", lambda m=m: time_call(noop, min_time=m), "min_time")
    layer, x = nn.Linear(3, 5), torch.randn(4, 3)
    bad("measure", "activation_bytes: not a function", lambda: activation_bytes(torch.randn(3)), "function")

    def under_no_grad():
        with torch.no_grad():
            return activation_bytes(lambda: layer(x))

    bad("measure", "activation_bytes: under no_grad (it counted 0)", under_no_grad, "no_grad")
    bad("measure", "activation_bytes: fn that turns gradients off inside", lambda: activation_bytes(
        lambda: torch.no_grad()(layer)(x)), "require grad")
    bad("measure", "fit_power_law: one point", lambda: fit_power_law([1], [1]), "two")
    bad("measure", "fit_power_law: x with 0", lambda: fit_power_law([0, 1], [1, 2]), "x must")
    bad("measure", "fit_power_law: negative x", lambda: fit_power_law([-1, 2], [1, 2]), "x must")
    bad("measure", "fit_power_law: y with 0", lambda: fit_power_law([1, 2], [0, 1]), "y must")
    bad("measure", "fit_power_law: NaN x", lambda: fit_power_law([NAN, 2], [1, 2]), "x must")
    bad("measure", "fit_power_law: infinite y", lambda: fit_power_law([1, 2], [1, INF]), "y must")
    bad("measure", "fit_power_law: x all equal (a singular fit)", lambda: fit_power_law([2, 2], [1, 3]), "distinct")
    bad("measure", "fit_power_law: unequal counts", lambda: fit_power_law([1, 2], [1, 2, 3]), "equal count")
    bad("measure", "fit_power_law: strings", lambda: fit_power_law(["a", "b"], [1, 2]), "x must")
    bad("measure", "fit_power_law: None", lambda: fit_power_law(None, None), "x must")
    bad("measure", "fit_power_law: a string", lambda: fit_power_law("12", [1, 2]), "x must")
    bad("measure", "crossover: a fit with c < 0 (a complex answer)", lambda: crossover((1.0, -1.0), (2.0, 1.0)),
        "c > 0")
    bad("measure", "crossover: a string", lambda: crossover("ab", (1.0, 2.0)), "fit")
    bad("measure", "crossover: three numbers", lambda: crossover((1.0, 2.0, 3.0), (1.0, 2.0)), "fit")
    bad("measure", "crossover: a NaN exponent", lambda: crossover((NAN, 1.0), (1.0, 1.0)), "finite")
    bad("measure", "fitted_growth: y with 0", lambda: fitted_growth([1, 2], [1, 0]), "y must")
    bad("measure", "fitted_growth: empty", lambda: fitted_growth([], []), "two")
    bad("measure", "count_parameters: a tensor", lambda: count_parameters(torch.zeros(3)), "Module")
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    bad("measure", "largest_difference: no inputs", lambda: largest_difference(a, b, ()), "inputs")
    bad("measure", "largest_difference: inputs a tensor, not a tuple", lambda: largest_difference(a, b, x), "tuple")
    bad("measure", "largest_difference: ours a tensor", lambda: largest_difference(x, b, (x,)), "Module")
    bad("measure", "largest_difference: different output shapes", lambda: largest_difference(
        a, nn.Linear(3, 4), (x,)), "shapes")
    bad("measure", "match_parameters: make is not a function", lambda: match_parameters(3, 10, [1, 2]), "make")
    bad("measure", "match_parameters: no sizes", lambda: match_parameters(lambda s: nn.Linear(s, s), 10, []), "sizes")
    bad("measure", "match_parameters: target 0", lambda: match_parameters(lambda s: nn.Linear(s, s), 0, [1]), "target")
    bad("measure", "spread_cell: empty", lambda: spread_cell([]), "at least one")
    bad("measure", "spread_cell: strings", lambda: spread_cell(["a"]), "numbers")
    bad("measure", "spread_cell: NaN", lambda: spread_cell([NAN, 1.0]), "finite")
    bad("measure", "spread_cell: scale 'a'", lambda: spread_cell([1.0, 2.0], scale="a"), "scale")
    bad("measure", "markdown_table: no rows", lambda: markdown_table([]), "non-empty")
    bad("measure", "markdown_table: a string", lambda: markdown_table("abc"), "dicts")
    good("measure", "markdown_table: a '|' in a value", lambda: markdown_table([{"a": "x|y", "b": 1}]),
         lambda table: one_row_of_cells(table, 2))
    good("measure", "markdown_table: a line break in a value", lambda: markdown_table([{"a": "x\ny", "b": 1}]),
         lambda table: one_row_of_cells(table, 2))
    good("measure", "markdown_table: a '|' in a header", lambda: markdown_table([{"a": 1}], {"a": "x | y"}),
         lambda table: one_row_of_cells(table, 1))
    bad("measure", "markdown_table: columns a string", lambda: markdown_table([{"a": 1, "b": 2}], "ab"), "columns")
    bad("measure", "markdown_table: a column mapped to 5", lambda: markdown_table([{"a": 1}], {"a": 5}), "column")
    bad("measure", "markdown_table: '%' of None", lambda: markdown_table([{"a": None}], {"a": ("a", "%")}), "%")
    bad("measure", "markdown_table: '.2f' of a list", lambda: markdown_table([{"a": [1]}], {"a": ("a", ".2f")}),
        "format")
    bad("measure", "check_ints: a string", lambda: check_ints("abc", "sizes", 1), "sizes")
    bad("measure", "check_ints: 1.5", lambda: check_ints([1.5], "sizes", 1), "sizes")
    bad("measure", "Stopwatch: stopped before it started", lambda: _stopwatch().stop(), "not running")


def _stopwatch():
    from seqviz.measure import Stopwatch

    return Stopwatch()


# -- seqviz.guide ---------------------------------------------------------------------------------------------


def _guide():
    from seqviz.guide import best_of, collect_evidence, recommend, same, advice_checked

    rows, cost, stream, finetune = evidence_inputs()
    bad("guide", "collect_evidence: nothing measured", lambda: collect_evidence([], [], [], {}), "rows")
    bad("guide", "collect_evidence: rows None", lambda: collect_evidence(None, cost, stream, finetune), "rows")
    bad("guide", "collect_evidence: a row without its score", lambda: collect_evidence(
        [{k: v for k, v in r.items() if k != "score"} for r in rows], cost, stream, finetune), "score")
    bad("guide", "collect_evidence: no cost rows", lambda: collect_evidence(rows, [], stream, finetune), "cost")
    bad("guide", "collect_evidence: a zero timing", lambda: collect_evidence(*evidence_inputs(zero_time=True)),
        "ms_per_step")
    bad("guide", "collect_evidence: the GRU missing from the stream rows",
        lambda: collect_evidence(*evidence_inputs(drop_stream_model=True)), "GRU")
    bad("guide", "collect_evidence: one context only", lambda: collect_evidence(*evidence_inputs(one_context=True)),
        "context")
    bad("guide", "collect_evidence: finetune {}", lambda: collect_evidence(rows, cost, stream, {}), "finetune")
    bad("guide", "collect_evidence: finetune None", lambda: collect_evidence(rows, cost, stream, None), "finetune")
    bad("guide", "collect_evidence: a cost row without its model",
        lambda: collect_evidence(rows, [{"length": 16}], stream, finetune), "cost")
    bad("guide", "recommend: an unknown task", lambda: recommend("poetry", *SITUATION[1:], evidence()), "task")
    bad("guide", "recommend: task 1", lambda: recommend(1, *SITUATION[1:], evidence()), "task")
    bad("guide", "recommend: evidence None", lambda: recommend(*SITUATION, None), "evidence")
    bad("guide", "recommend: partial evidence", lambda: recommend(*SITUATION, {"finetune:pretrained": 1}),
        "evidence")
    bad("guide", "recommend: evidence of plain numbers", lambda: recommend(
        *SITUATION, {k: 1.0 for k in evidence()}), "evidence")
    bad("guide", "advice_checked: {}", lambda: advice_checked({}), "evidence")
    bad("guide", "advice_checked: None", lambda: advice_checked(None), "evidence")
    bad("guide", "same: an unknown kind", lambda: same(1.0, 2.0, "speed"), "kind")
    bad("guide", "same: a string", lambda: same("a", 1.0), None)
    bad("guide", "same: NaN", lambda: same(NAN, 1.0), None)
    bad("guide", "best_of: an unknown task", lambda: best_of(evidence(), "poetry", ("GRU",)), "task")
    bad("guide", "best_of: no kinds", lambda: best_of(evidence(), "agreement", ()), "kinds")


# -- seqviz.experiments (the runners of this issue; language and real_translation are tested in their own files)


def _experiments():
    from seqviz.data import pairs_to_tensors, translation_task, translation_vocabs
    from seqviz.experiments import (accuracy_vs_distance, accuracy_vs_train_size, agreement_rows,
                                    attention_entropy, attention_gradients, cost_vs_batch, cost_vs_length,
                                    exact_match, finetune_evidence, forecast_rows, learning_curve,
                                    repeat_over_seeds, retest, softmax_attention_gradients, step_cost,
                                    streaming_cost, train_translators, translation_rows)
    from seqviz.experiments.lm_race import context_perplexity, race, race_models
    from seqviz.models import GRU

    for w in ([], [0], [2.5], "8"):
        bad("experiments", f"attention_entropy: widths {w!r}", lambda w=w: attention_entropy(w, samples=2), "widths")
    bad("experiments", "attention_entropy: length 0", lambda: attention_entropy([4], length=0, samples=2), "length")
    bad("experiments", "attention_entropy: samples 0", lambda: attention_entropy([4], samples=0), "samples")
    bad("experiments", "attention_entropy: scaled 'no'", lambda: attention_entropy([4], samples=2, scaled="no"),
        "scaled")
    bad("experiments", "attention_gradients: widths [-1]", lambda: attention_gradients([-1], samples=2), "widths")
    bad("experiments", "attention_gradients: threshold NaN", lambda: attention_gradients([4], samples=2,
                                                                                         threshold=NAN), "threshold")
    q = torch.randn(2, 3, 4)
    bad("experiments", "softmax_attention_gradients: 2-D q", lambda: softmax_attention_gradients(
        q[0], q[0], q[0], q[0]), "expected q")
    bad("experiments", "softmax_attention_gradients: q a list", lambda: softmax_attention_gradients(
        [1.0], q, q, q), "q")
    bad("experiments", "cost_vs_length: no lengths", lambda: cost_vs_length([], progress=False), "lengths")
    bad("experiments", "cost_vs_length: an unknown kind", lambda: cost_vs_length(
        [4], kinds=["cnn"], progress=False, min_time=0, repeats=1), "kind")
    bad("experiments", "cost_vs_length: kinds 'gru'", lambda: cost_vs_length(
        [4], kinds="gru", progress=False, min_time=0, repeats=1), "kind")
    bad("experiments", "cost_vs_length: d_model 0", lambda: cost_vs_length(
        [4], d_model=0, progress=False, min_time=0, repeats=1), "d_model")
    bad("experiments", "cost_vs_length: batch_size 0", lambda: cost_vs_length(
        [4], batch_size=0, progress=False, min_time=0, repeats=1), "batch_size")
    bad("experiments", "cost_vs_length: repeats 0", lambda: cost_vs_length(
        [4], progress=False, min_time=0, repeats=0), "repeats")
    bad("experiments", "cost_vs_batch: length 0", lambda: cost_vs_batch([1], 0, progress=False), "length")
    bad("experiments", "cost_vs_batch: batch size 0", lambda: cost_vs_batch([0], 4, progress=False), "batch_sizes")
    bad("experiments", "step_cost: lengths [0]", lambda: step_cost([0], progress=False), "lengths")
    bad("experiments", "step_cost: an unknown kind", lambda: step_cost([4], ["CNN"], progress=False), "kind")
    bad("experiments", "step_cost: width 0", lambda: step_cost([4], ["GRU"], width=0, progress=False), "width")
    bad("experiments", "streaming_cost: contexts [0]", lambda: streaming_cost([0], progress=False), "contexts")
    bad("experiments", "streaming_cost: vocab_size 0", lambda: streaming_cost([4], vocab_size=0, progress=False),
        "vocab_size")
    bad("experiments", "streaming_cost: d_model 6 with 4 heads", lambda: streaming_cost(
        [4], d_model=6, progress=False, min_time=0, repeats=1), "d_model")
    make = lambda e: GRU(e, 8)  # noqa: E731
    bad("experiments", "accuracy_vs_distance: models 3", lambda: accuracy_vs_distance(3, [1], [0], 1), "models")
    bad("experiments", "accuracy_vs_distance: no distances", lambda: accuracy_vs_distance(make, [], [0], 1),
        "distances")
    bad("experiments", "accuracy_vs_distance: steps 0", lambda: accuracy_vs_distance(make, [1], [0], 0), "steps")
    bad("experiments", "accuracy_vs_distance: attractors 'many'", lambda: accuracy_vs_distance(
        make, [1], [0], 1, attractors="many", n_train=4, n_test=2, progress=False), "attractors")
    bad("experiments", "accuracy_vs_distance: n_test 0", lambda: accuracy_vs_distance(
        make, [1], [0], 1, n_train=4, n_test=0, progress=False), "n_test")
    bad("experiments", "accuracy_vs_distance: embed_size 0", lambda: accuracy_vs_distance(
        make, [1], [0], 1, n_train=4, n_test=2, embed_size=0, progress=False), "embed_size")
    bad("experiments", "accuracy_vs_distance: a maker that returns a Linear", lambda: accuracy_vs_distance(
        lambda e: nn.Linear(e, 2), [1], [0], 1, n_train=4, n_test=2, progress=False), "hidden_size")
    bad("experiments", "retest: a table of another kind", lambda: retest(None, [1]), "table")
    bad("experiments", "accuracy_vs_train_size: sizes [0]", lambda: accuracy_vs_train_size(
        {"g": make}, [0], [0], 1, distances=[1]), "sizes")
    bad("experiments", "accuracy_vs_train_size: models {}", lambda: accuracy_vs_train_size(
        {}, [4], [0], 1, distances=[1], progress=False), "models")
    bad("experiments", "repeat_over_seeds: run 3", lambda: repeat_over_seeds(3, ["a"], [1], [0]), "run")
    bad("experiments", "repeat_over_seeds: names 'ab'", lambda: repeat_over_seeds(
        lambda n, s, seed: 1.0, "ab", [1], [0], progress=False), "names")
    bad("experiments", "repeat_over_seeds: a run that returns NaN", lambda: repeat_over_seeds(
        lambda n, s, seed: NAN, ["a"], [1], [0], progress=False), "number")
    bad("experiments", "repeat_over_seeds: settings None", lambda: repeat_over_seeds(
        lambda n, s, seed: 1.0, ["a"], None, [0], progress=False), "settings")
    src_vocab, tgt_vocab = translation_vocabs()
    data = pairs_to_tensors(translation_task(8, 1, 3, seed=0), src_vocab, tgt_vocab)
    seq2seq = translator(False)[0]
    bad("experiments", "exact_match: data a tensor", lambda: exact_match(seq2seq, data[0]), "data")
    bad("experiments", "exact_match: max_extra -1", lambda: exact_match(seq2seq, data, max_extra=-1), "max_extra")
    bad("experiments", "exact_match: model without greedy", lambda: exact_match(nn.Linear(2, 2), data), "greedy")
    bad("experiments", "train_translators: models {}", lambda: train_translators({}, data, data, [0], 1), "models")
    bad("experiments", "train_translators: steps 0", lambda: train_translators(
        {"a": lambda: seq2seq}, data, data, [0], 0), "steps")
    bad("experiments", "train_translators: eval_every 2.5", lambda: train_translators(
        {"a": lambda: seq2seq}, data, data, [0], 4, eval_every=2.5), "eval_every")
    bad("experiments", "learning_curve: points 0", lambda: learning_curve(seq2seq, data, data, steps=2, points=0),
        "points")
    bad("experiments", "learning_curve: steps 0", lambda: learning_curve(seq2seq, data, data, steps=0), "steps")
    bad("experiments", "learning_curve: points 1.5", lambda: learning_curve(seq2seq, data, data, steps=2,
                                                                            points=1.5), "points")
    bad("experiments", "agreement_rows: an unknown kind", lambda: agreement_rows(["CNN"], steps=1), "kind")
    bad("experiments", "agreement_rows: kinds 'GRU'", lambda: agreement_rows("GRU", steps=1), "kind")
    bad("experiments", "agreement_rows: steps 0", lambda: agreement_rows(["GRU"], steps=0), "steps")
    bad("experiments", "agreement_rows: hidden_size 0", lambda: agreement_rows(["GRU"], hidden_size=0, steps=1),
        "hidden_size")
    bad("experiments", "translation_rows: an unknown kind", lambda: translation_rows(["CNN"], steps=1), "kind")
    bad("experiments", "translation_rows: max_len 0", lambda: translation_rows(["GRU"], steps=1, max_len=0),
        "max_len")
    bad("experiments", "forecast_rows: window 0", lambda: forecast_rows(["GRU"], steps=1, window=0), "window")
    bad("experiments", "forecast_rows: an unknown kind", lambda: forecast_rows(["CNN"], steps=1), "kind")
    bad("experiments", "finetune_evidence: label_count 0", lambda: finetune_evidence(label_count=0), "label_count")
    bad("experiments", "finetune_evidence: label_count True", lambda: finetune_evidence(label_count=True),
        "label_count")
    bad("experiments", "finetune_evidence: pretrain_steps -1", lambda: finetune_evidence(pretrain_steps=-1,
                                                                                         progress=False),
        "pretrain_steps")
    bad("experiments", "finetune_evidence: d_model 10 with 4 heads", lambda: finetune_evidence(
        d_model=10, pretrain_steps=1, finetune_steps=1, n_docs=4, n_pairs=4, n_test=2), "d_model")
    bad("experiments", "race_models: vocab_size 0", lambda: race_models(0), "sizes")
    bad("experiments", "race_models: an unknown cell", lambda: race_models(20, d_model=8, num_heads=2,
                                                                           cells=("cnn",)), "cell")
    ids = torch.randint(0, 20, (400,))
    tiny = {"GRU": _tiny_lm()}
    bad("experiments", "race: no models", lambda: race({}, ids, ids, seconds=1), "models")
    bad("experiments", "race: seconds -1", lambda: race(tiny, ids, ids, seconds=-1), "seconds")
    bad("experiments", "race: seconds NaN", lambda: race(tiny, ids, ids, seconds=NAN), "seconds")
    bad("experiments", "race: float ids", lambda: race(tiny, ids.float(), ids, seconds=0.01, seq_len=8), "ids")
    bad("experiments", "race: models a list", lambda: race([_tiny_lm()], ids, ids, seconds=0.01, seq_len=8),
        "models")
    bad("experiments", "context_perplexity: contexts [0]", lambda: context_perplexity(_tiny_lm(), ids, [0]),
        "contexts")
    bad("experiments", "context_perplexity: float ids", lambda: context_perplexity(_tiny_lm(), ids.float(), [4]),
        "ids")
    bad("experiments", "context_perplexity: too few ids", lambda: context_perplexity(_tiny_lm(), ids[:3], [4]),
        "too few")


def _tiny_lm():
    from seqviz.models import GRULM

    torch.manual_seed(0)
    return GRULM(20, 8)


# -- seqviz.models: attention and masks -----------------------------------------------------------------------


def _models():
    from seqviz.models import (AdditiveAttention, MultiHeadAttention, causal_mask, masked_softmax, padding_mask,
                               positional_encoding, scaled_dot_product_attention)

    scores = torch.randn(2, 3)
    no_key = torch.tensor([[True, True, False], [False, False, False]])
    bad("models", "masked_softmax: a row with no key (it gave NaN)", lambda: masked_softmax(scores, no_key), "no")
    bad("models", "masked_softmax: an int mask", lambda: masked_softmax(scores, torch.ones(2, 3, dtype=torch.long)),
        "bool")
    bad("models", "masked_softmax: a mask of another shape", lambda: masked_softmax(scores, torch.ones(4, dtype=bool)),
        "mask")
    bad("models", "masked_softmax: scores a list", lambda: masked_softmax([1.0, 2.0], None), "scores")
    attention = AdditiveAttention(4, 6, 5)
    query, keys = torch.randn(2, 4), torch.randn(2, 3, 6)
    bad("models", "AdditiveAttention: a sentence with every position masked (it gave NaN)",
        lambda: attention(query, keys, no_key), "no")
    bad("models", "AdditiveAttention: query a list", lambda: attention([1.0], keys), "query")
    bad("models", "AdditiveAttention: keys of the wrong width", lambda: attention(query, torch.randn(2, 3, 5)),
        "keys")
    bad("models", "AdditiveAttention: size 0", lambda: AdditiveAttention(0, 6, 5), "query_size")
    q = torch.randn(1, 3, 4)
    bad("models", "scaled_dot_product_attention: every key masked", lambda: scaled_dot_product_attention(
        q, q, q, torch.zeros(3, 3, dtype=torch.bool)), "no key")
    bad("models", "scaled_dot_product_attention: an int mask", lambda: scaled_dot_product_attention(
        q, q, q, torch.ones(3, 3, dtype=torch.long)), "bool")
    bad("models", "scaled_dot_product_attention: q a list", lambda: scaled_dot_product_attention([1.0], q, q), "q")
    bad("models", "scaled_dot_product_attention: scale 0", lambda: scaled_dot_product_attention(q, q, q, scale=0.0),
        "scale")
    bad("models", "scaled_dot_product_attention: scale NaN", lambda: scaled_dot_product_attention(
        q, q, q, scale=NAN), "scale")
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(1, 5, 8)
    bad("models", "MultiHeadAttention: every key masked", lambda: mha(x, x, x, key_mask=torch.zeros(1, 5, dtype=bool)),
        "no key")
    bad("models", "MultiHeadAttention: 7 features for 2 heads", lambda: MultiHeadAttention(7, 2), "heads")
    bad("models", "causal_mask: T 0", lambda: causal_mask(0), "T")
    bad("models", "causal_mask: T 2.5", lambda: causal_mask(2.5), "T")
    bad("models", "padding_mask: a length of 0", lambda: padding_mask(torch.tensor([0, 2]), 3), "lengths")
    bad("models", "padding_mask: lengths a list", lambda: padding_mask([1, 2], 3), "lengths")
    bad("models", "padding_mask: T '3'", lambda: padding_mask(torch.tensor([1, 2]), "3"), "T")
    bad("models", "positional_encoding: d_model 0", lambda: positional_encoding(4, 0), "d_model")
    bad("models", "positional_encoding: 2.5 positions", lambda: positional_encoding(2.5, 4), "positions")


# -- seqviz.viz -----------------------------------------------------------------------------------------------


def _viz():
    from seqviz.viz import (decay_figure, head_view_figure, heatmap_figure, lines_figure, positional_encoding_figure,
                            require_known_words, step_changes, to_bertviz)

    bad("viz", "heatmap_figure: a 3-D matrix", lambda: heatmap_figure(torch.zeros(2, 2, 2)), "matrix")
    bad("viz", "heatmap_figure: labels of the wrong count", lambda: heatmap_figure(torch.zeros(2, 3), ["a"]), "labels")
    bad("viz", "heatmap_figure: a string", lambda: heatmap_figure("abc"), "matrix")
    bad("viz", "lines_figure: series a list", lambda: lines_figure([1, 2]), "series")
    bad("viz", "lines_figure: x and y of different lengths", lambda: lines_figure({"a": ([1, 2], [1])}), "a")
    bad("viz", "decay_figure: series a list", lambda: decay_figure([1, 2]), "series")
    bad("viz", "head_view_figure: tokens of the wrong count", lambda: head_view_figure(
        [torch.rand(2, 3, 3)], ["a", "b"]), "tokens")
    bad("viz", "head_view_figure: no layers", lambda: head_view_figure([], ["a"]), "attentions")
    bad("viz", "to_bertviz: 2-D attention", lambda: to_bertviz([torch.rand(3, 3)], ["a", "b", "c"]), "attention")
    bad("viz", "positional_encoding_figure: a 1-D table", lambda: positional_encoding_figure(torch.zeros(4)), "pe")
    bad("viz", "step_changes: a 1-D state", lambda: step_changes(torch.zeros(4)), "states")
    bad("viz", "require_known_words: no tokens", lambda: require_known_words([], ["a"]), "empty")


# -- seqviz.gradients and seqviz.trace ------------------------------------------------------------------------


def _gradients():
    from seqviz.gradients import clip_by_norm, clip_by_value, recurrent_matrix, tbptt_cost
    from seqviz.models import RNN
    from seqviz.trace import hidden_grad_norms

    rnn = RNN(3, 4)
    x = torch.randn(2, 5, 3)
    bad("gradients", "hidden_grad_norms: a Linear", lambda: hidden_grad_norms(nn.Linear(3, 4), x,
                                                                               lambda o: o.sum()), None)
    bad("gradients", "hidden_grad_norms: loss_fn not callable", lambda: hidden_grad_norms(rnn, x, 3), "loss_fn")
    bad("gradients", "hidden_grad_norms: x 2-D", lambda: hidden_grad_norms(rnn, x[0], lambda o: o.sum()), None)
    bad("gradients", "hidden_grad_norms: a loss that is not a scalar", lambda: hidden_grad_norms(
        rnn, x, lambda o: o), "scalar")
    bad("gradients", "recurrent_matrix: size 0", lambda: recurrent_matrix(0, 1.0), None)
    bad("gradients", "recurrent_matrix: radius NaN", lambda: recurrent_matrix(4, NAN), "radius")
    bad("gradients", "recurrent_matrix: an unknown kind", lambda: recurrent_matrix(4, 1.0, kind="uniform"), "kind")
    bad("gradients", "clip_by_norm: max_norm -1", lambda: clip_by_norm([torch.ones(3)], -1.0), "max_norm")
    bad("gradients", "clip_by_norm: max_norm NaN", lambda: clip_by_norm([torch.ones(3)], NAN), "max_norm")
    bad("gradients", "clip_by_value: clip_value -1", lambda: clip_by_value([torch.ones(3)], -1.0), "clip_value")
    bad("gradients", "clip_by_norm: no gradients", lambda: clip_by_norm([], 1.0), None)
    bad("gradients", "tbptt_cost: repeats 0", lambda: tbptt_cost(lambda: rnn(x)[0].sum(), repeats=0), "repeats")
    bad("gradients", "tbptt_cost: loss_fn 3", lambda: tbptt_cost(3), "loss_fn")


for _area in (_web, _sampling, _decode, _measure, _guide, _experiments, _models, _viz, _gradients):
    _area()


# -- the tally ------------------------------------------------------------------------------------------------


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout


def raised_by_seqviz(error: BaseException) -> bool:
    """True for a ValueError/TypeError from a ``raise`` statement in seqviz's own code (the frame that raised it
    is in seqviz/ and its statement is a raise), not one from torch, numpy or Python inside seqviz's call."""
    if not isinstance(error, (ValueError, TypeError)):
        return False
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    last = frames[-1]
    if "/seqviz/" not in last.filename.replace("\\", "/"):
        return False
    return linecache.getline(last.filename, last.lineno).lstrip().startswith("raise ")   # 3.11: the statement's line


def classify(case: Case, seconds: float = 20.0) -> tuple[str, str]:
    """("clear" | "raw" | "silent" | "n/a", detail) for one case; "n/a": the code under test lacks the API."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        result = case.call()
    except Timeout:
        return "silent", f"still running after {seconds:.0f} s"
    except (ImportError, AttributeError) as error:
        if isinstance(error, ImportError) or "has no attribute" in str(error) and "seqviz" in str(error):
            return "n/a", f"{type(error).__name__}: {error}"
        return "raw", f"{type(error).__name__}: {error}"
    except Exception as error:  # noqa: BLE001 - the tally classifies every kind
        if case.check is not None:
            return "raw", f"{type(error).__name__}: {error}"
        kind = "clear" if raised_by_seqviz(error) else "raw"
        return kind, f"{type(error).__name__}: {str(error)[:160]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if case.check is not None:
        try:
            right = bool(case.check(result))
        except Exception as error:  # noqa: BLE001
            return "silent", f"the check failed: {type(error).__name__}: {error}"
        return ("clear", "handled") if right else ("silent", "a wrong answer")
    return "silent", f"accepted, returned {type(result).__name__}"


def tally(verbose: bool = False) -> dict:
    import os
    import warnings

    os.environ.setdefault("SEQVIZ_QUICK", "1")
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    counts: dict[str, dict[str, int]] = {}
    for case in CASES:
        torch.manual_seed(0)
        kind, detail = classify(case)
        counts.setdefault(case.area, {}).setdefault(kind, 0)
        counts[case.area][kind] += 1
        if verbose and kind != "clear":
            print(f"  {kind:6} {case.area}: {case.what}: {detail}")
    return counts


if __name__ == "__main__":
    result = tally(verbose="-v" in sys.argv)
    total: dict[str, int] = {}
    print(f"{'area':12} {'tried':>5} {'clear':>5} {'raw':>5} {'silent':>6} {'n/a':>4}")
    for area, kinds in result.items():
        for k, v in kinds.items():
            total[k] = total.get(k, 0) + v
        print(f"{area:12} {sum(kinds.values()):5} {kinds.get('clear', 0):5} {kinds.get('raw', 0):5} "
              f"{kinds.get('silent', 0):6} {kinds.get('n/a', 0):4}")
    print(f"{'all':12} {sum(total.values()):5} {total.get('clear', 0):5} {total.get('raw', 0):5} "
          f"{total.get('silent', 0):6} {total.get('n/a', 0):4}")
