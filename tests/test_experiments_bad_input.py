"""Every bad input to the language and real-translation runners is one clear ValueError, never a traceback from
deep inside and never a silent wrong answer (44 cases; on the code before this test 11 raised something else and
7 returned without complaint)."""

import pytest
import torch

from seqviz.data import Pair
from seqviz.experiments import language as L
from seqviz.experiments import real_translation as R
from seqviz.models import GRULM

MODEL = GRULM(10, 8)
IDS = torch.randint(10, (200,), generator=torch.Generator().manual_seed(0))
ONE = R.Translations([["a"]], [[["b"]]], [["c"]])

CASES = {
    "text_features(None)": lambda: L.text_features(None),
    "text_features('')": lambda: L.text_features(""),
    "lm_trace(a string)": lambda: L.lm_trace("model", IDS),
    "lm_trace(chunk=0)": lambda: L.lm_trace(MODEL, IDS, chunk=0),
    "lm_trace(layer=5)": lambda: L.lm_trace(MODEL, IDS, chunk=16, layer=5),
    "lm_trace(float ids)": lambda: L.lm_trace(MODEL, IDS.float(), chunk=16),
    "unit_correlations(a list)": lambda: L.unit_correlations([[1.0]], torch.ones(1)),
    "readable_units({}, {})": lambda: L.readable_units({}, {}),
    "readable_units(lists)": lambda: L.readable_units({"h": [1, 2]}, {"x": torch.ones(2)}),
    "known_word_share(None)": lambda: L.known_word_share(None, {"a"}),
    "known_word_share(words=3)": lambda: L.known_word_share("a b", 3),
    "perplexity(a string)": lambda: L.perplexity("model", IDS),
    "perplexity(seq_len=0)": lambda: L.perplexity(MODEL, IDS, 0),
    "perplexity(batch_size=0)": lambda: L.perplexity(MODEL, IDS, 8, batch_size=0),
    "perplexity(a list of ids)": lambda: L.perplexity(MODEL, [1, 2, 3], 2),
    "ngram_perplexity(n=3)": lambda: L.ngram_perplexity(IDS, IDS, 10, n=3),
    "ngram_perplexity(add=nan)": lambda: L.ngram_perplexity(IDS, IDS, 10, add=float("nan")),
    "ngram_perplexity(ids past the vocabulary)": lambda: L.ngram_perplexity(IDS, IDS, 3),
    "ngram_perplexity(vocab_size=0)": lambda: L.ngram_perplexity(IDS, IDS, 0),
    "train_lm(steps=0)": lambda: L.train_lm(MODEL, IDS, IDS, steps=0, seq_len=8),
    "train_lm(a string)": lambda: L.train_lm("model", IDS, IDS, steps=1, seq_len=8),
    "train_lm(eval_every=-1)": lambda: L.train_lm(MODEL, IDS, IDS, steps=1, seq_len=8, eval_every=-1),
    "text_vocab(min_count=0)": lambda: L.text_vocab("abc", "char", 0),
    "text_vocab(level='byte')": lambda: L.text_vocab("abc", "byte"),
    "text_vocab(None)": lambda: L.text_vocab(None),
    "encode_text(vocab=None)": lambda: L.encode_text("abc", None),
    "windows(stride=-1)": lambda: L.windows(IDS, 8, stride=-1),
    "bleu(a string)": lambda: R.bleu("a", [["a"]]),
    "bleu(references of strings)": lambda: R.bleu(["a"], ["a"]),
    "build_vocabs([])": lambda: R.build_vocabs([]),
    "build_vocabs(min_count=0)": lambda: R.build_vocabs([Pair(["a"], ["b"])], 0),
    "detokenize(None)": lambda: R.detokenize(None),
    "detokenize(a string)": lambda: R.detokenize("abc"),
    "detokenize(language='de')": lambda: R.detokenize(["a"], "de"),
    "group_references('test')": lambda: R.group_references("test"),
    "Translations(references not lists of sentences)": lambda: R.Translations([["a"]], [["b"]], [["c"]]),
    "by_length(0)": lambda: ONE.by_length(0),
    "examples(-1)": lambda: ONE.examples(-1),
    "translate(None)": lambda: R.translate(None, "test"),
    "paired_bootstrap(None, None)": lambda: R.paired_bootstrap(None, None),
    "train_real_translator(lr=0)": lambda: R.train_real_translator(lr=0, steps=1, progress=False),
    "train_real_translator(steps=0)": lambda: R.train_real_translator(steps=0, progress=False),
    "train_real_translator(attention=1)": lambda: R.train_real_translator(attention=1, steps=1, progress=False),
    "train_real_translator(seed=-1)": lambda: R.train_real_translator(seed=-1, steps=1, progress=False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_clear_value_error(case):
    with pytest.raises(ValueError) as error:
        CASES[case]()
    assert len(str(error.value)) > 20  # a sentence that says what was expected, not a bare repr
