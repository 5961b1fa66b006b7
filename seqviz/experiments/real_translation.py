"""Real sentences through the encoder-decoder: English -> French pairs from Tatoeba, scored with BLEU.

- :func:`build_vocabs`: source and target vocabularies from the training pairs; a word seen fewer than
  ``min_count`` times (:data:`MIN_COUNT` = 2) becomes ``<unk>``;
- :func:`train_real_translator`: a small :class:`~seqviz.models.Seq2Seq` (with or without attention, Bahdanau
  et al., 2015) trained on the train split, into a :class:`RealTranslator`; the default sizes
  (:data:`DEFAULTS`) are the same in every chapter, so chapters 5, 6 and 7 train the same translator;
- :func:`translate`: one split (or a list of pairs) translated greedily or with beam search, into
  :class:`Translations`, which score themselves: corpus BLEU, exact match, both per source length;
- :func:`bleu`: corpus BLEU from sacrebleu (Papineni et al., 2002; Post, 2018) on detokenized strings
  (:func:`detokenize`), with sacrebleu's standard ``13a`` tokenizer (:data:`BLEU_TOKENIZER`);
- :func:`paired_bootstrap`: how often one system beats another over resampled test sets (Koehn, 2004).

Several French translations of one English sentence are common in the data, so a split is translated once per
distinct English sentence and every translation of it counts as a reference (multi-reference BLEU; exact match
means equal to one of them). A model that outputs ``<unk>`` is charged for it: the token stays in the output
(exact match fails) and is dropped from the string BLEU scores (it matches no reference word; the brevity
penalty charges the missing length). Used by chapters 5, 6 and 7.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import sacrebleu
import torch
from sacrebleu.metrics.bleu import BLEU

from ..config import scaled, seed_everything
from ..data import BOS, EOS, PAD, UNK, Pair, Vocab, pad_batch, pairs_to_tensors, real
from ..data.subwords import join as join_pieces
from ..decode import beam_search
from ..measure import Stopwatch
from ..models import Seq2Seq, sequence_loss
from ..train import fit

__all__ = ["BLEU_TOKENIZER", "DEFAULTS", "MAX_TARGET", "MIN_COUNT", "RealTranslator", "Translations", "bleu",
           "build_vocabs", "detokenize", "group_references", "paired_bootstrap", "train_real_translator", "translate"]

MIN_COUNT = 2  # a word must appear this often in the training pairs to get its own id
MAX_TARGET = 10  # training pairs with longer French sides (7 of 6,391) are left out: they would widen every batch
BLEU_TOKENIZER = "13a"  # sacrebleu's default, the WMT standard (mteval-v13a)
DEFAULTS = dict(embed_size=scaled(64, quick=16), hidden_size=scaled(128, quick=32), steps=scaled(300, quick=30),
                batch_size=64, lr=1e-2)  # about 3 passes over the pairs: sized for a CPU, not for good French


def build_vocabs(pairs: Sequence[Pair], min_count: int = MIN_COUNT) -> tuple[Vocab, Vocab]:
    """(source, target) vocabularies of the words seen at least ``min_count`` times; others map to ``<unk>``."""
    if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 1:
        raise ValueError(f"min_count must be a positive int, got {min_count!r}")
    pairs = _check_pairs(pairs)
    return (Vocab.build([p.source for p in pairs], min_count, unknown="unk"),
            Vocab.build([p.target for p in pairs], min_count, unknown="unk"))


def detokenize(tokens: Sequence[str], language: str = "fr") -> str:
    """Tokens (of :func:`seqviz.data.real.tokenize`) back into a sentence: marks glued to the word before them
    (``. , ) »``) and after them (``( «``); French keeps its space before ``! ? : ;``, English does not."""
    if language not in ("en", "fr"):
        raise ValueError(f"language must be 'en' or 'fr', got {language!r}")
    if isinstance(tokens, str) or not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise ValueError(f"detokenize expects a list of string tokens, got {type(tokens).__name__}"
                         + (" (a string: tokenize it first)" if isinstance(tokens, str) else ""))
    text = " ".join(tokens)
    text = re.sub(r" ([.,)»%])" if language == "fr" else r" ([.,)!?:;%])", r"\1", text)
    return re.sub(r"([(«]) ", r"\1", text)


def bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU (0-100) of detokenized ``hypotheses`` against ``references[i]``, the list of reference strings
    of sentence i (any number >= 1), with sacrebleu's ``13a`` tokenizer and its default smoothing ('exp')."""
    return _bleu_from_stats(_bleu_stats(hypotheses, references))


def _bleu_stats(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> list[list[int]]:
    """Per sentence: [output length, reference length, 4 n-gram matches, 4 n-gram counts] (sacrebleu's own
    statistics, so that resampled and per-length scores need no second pass over the text)."""
    if isinstance(hypotheses, str) or not all(isinstance(h, str) for h in hypotheses):
        raise ValueError("hypotheses must be a list of strings (one detokenized sentence each)")
    if len(references) != len(hypotheses) or not hypotheses:
        raise ValueError(f"need one list of references per hypothesis and at least one hypothesis, got "
                         f"{len(hypotheses)} hypotheses and {len(references)} reference lists")
    if any(isinstance(r, str) or not r or not all(isinstance(s, str) for s in r) for r in references):
        raise ValueError("references[i] must be a non-empty list of strings (the translations of sentence i)")
    width = max(len(r) for r in references)
    streams = [[r[j] if j < len(r) else None for r in references] for j in range(width)]  # None: no such reference
    metric = sacrebleu.BLEU(tokenize=BLEU_TOKENIZER)
    return [list(map(int, row)) for row in metric._extract_corpus_statistics(list(hypotheses), streams)]


def _bleu_from_stats(rows: Sequence[Sequence[int]]) -> float:
    sums = [sum(column) for column in zip(*rows)]  # the corpus is the sum of its sentences
    return BLEU.compute_bleu(correct=sums[2:6], total=sums[6:10], sys_len=sums[0], ref_len=sums[1],
                             smooth_method="exp").score


def group_references(pairs: Sequence[Pair]) -> tuple[list[list[str]], list[list[list[str]]]]:
    """(distinct sources in first-seen order, for each the list of all its targets)."""
    grouped: dict[tuple[str, ...], list[list[str]]] = {}
    for p in _check_pairs(pairs):
        grouped.setdefault(tuple(p.source), []).append(list(p.target))
    return [list(s) for s in grouped], list(grouped.values())


@dataclass
class RealTranslator:
    """A trained translator and what it needs to read and write words.

    With ``source_bpe``/``target_bpe`` (a :class:`seqviz.data.subwords.SubwordBPE`; the long-run translators of ``make
    checkpoints``) the model reads and writes subword pieces: :meth:`encode_source` splits the English words
    into pieces, :meth:`words` joins the French pieces back into words. Without them it reads and writes words.
    """

    model: torch.nn.Module
    source_vocab: Vocab
    target_vocab: Vocab
    losses: list[float]  # training loss at every step
    seconds: float  # training time
    attention: bool
    source_bpe: object = None
    target_bpe: object = None
    pairs_size: str = "small"  # the file of seqviz.data.real.sentence_pairs that translate() reads a split from

    def encode_source(self, words: Sequence[str]) -> list[int]:
        """English words -> the ids the model reads (pieces first, with a subword vocabulary)."""
        if isinstance(words, str) or not words or not all(isinstance(w, str) for w in words):
            raise ValueError(f"encode_source expects a non-empty list of words, got {words!r}")
        return self.source_vocab.encode(self.source_bpe.encode(words) if self.source_bpe is not None else words)

    def pieces(self, ids) -> list[str]:
        """Output ids -> the tokens the model wrote (subword pieces, or words), stopping at eos, without bos and
        pads; ``<unk>`` kept."""
        if isinstance(ids, torch.Tensor):
            ids = ids.tolist()
        out = []
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.target_vocab):
                raise ValueError(f"output ids must be ints in 0..{len(self.target_vocab) - 1}, got {i!r}")
            token = self.target_vocab.itos[i]
            if token == EOS:
                break
            if token not in (BOS, PAD):
                out.append(token)
        return out

    def words(self, ids) -> list[str]:
        """Output ids -> words, stopping at eos, without bos and pads; ``<unk>`` kept."""
        pieces = self.pieces(ids)
        return join_pieces(pieces) if self.target_bpe is not None else pieces


def train_real_translator(*, attention: bool = False, embed_size: int | None = None, hidden_size: int | None = None,
                          steps: int | None = None, batch_size: int | None = None, lr: float | None = None,
                          min_count: int = MIN_COUNT, seed: int = 0, device=None,
                          progress: bool = True) -> RealTranslator:
    """Train a :class:`~seqviz.models.Seq2Seq` (bidirectional GRU encoder, GRU decoder, teacher forcing, Adam,
    gradients clipped to norm 1) on the train split of :func:`seqviz.data.real.sentence_pairs` (French sides of
    at most :data:`MAX_TARGET` tokens), vocabularies from the same pairs (:func:`build_vocabs`).

    Sizes left as None come from :data:`DEFAULTS` (smaller in quick mode). Trains on ``device`` (default
    :func:`~seqviz.config.pick_device`); the model stays there, in eval mode.
    """
    size = {k: DEFAULTS[k] if v is None else v for k, v in dict(embed_size=embed_size, hidden_size=hidden_size,
                                                                 steps=steps, batch_size=batch_size).items()}
    for name, value in size.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    lr = DEFAULTS["lr"] if lr is None else lr
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")
    if not isinstance(attention, bool):
        raise ValueError(f"attention must be True or False, got {attention!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    pairs = [p for p in real.sentence_pairs("train") if len(p.target) <= MAX_TARGET]
    source_vocab, target_vocab = build_vocabs(pairs, min_count)
    data = pairs_to_tensors(pairs, source_vocab, target_vocab)  # (src, src_lengths, tgt_in, tgt_out)
    seed_everything(seed)
    model = Seq2Seq(len(source_vocab), len(target_vocab), size["embed_size"], size["hidden_size"],
                    attention=attention, bos_id=target_vocab.stoi[BOS], eos_id=target_vocab.stoi[EOS])
    history = fit(model, data, sequence_loss, steps=size["steps"], batch_size=size["batch_size"], lr=lr,
                  clip_norm=1.0, device=device, seed=seed, progress=progress,
                  desc=f"translator {'with' if attention else 'without'} attention")
    return RealTranslator(model.eval(), source_vocab, target_vocab, history["loss"], history.seconds, bool(attention))


@dataclass
class Translations:
    """One split translated: per distinct source sentence its ``references`` and the model's ``output``."""

    sources: list[list[str]]
    references: list[list[list[str]]]
    outputs: list[list[str]]
    beam_size: int = 1
    length_penalty: float = 0.0
    seconds: float = 0.0  # decoding time
    lengths: list[int] = field(init=False)
    _stats: list | None = field(init=False, default=None, repr=False)

    def __post_init__(self):
        if not len(self.sources) == len(self.references) == len(self.outputs) or not self.sources:
            raise ValueError(f"sources, references and outputs must be equally long and non-empty, got "
                             f"{len(self.sources)}, {len(self.references)}, {len(self.outputs)}")
        tokens = lambda x: isinstance(x, list) and all(isinstance(t, str) for t in x)  # noqa: E731
        if not all(tokens(s) for s in self.sources) or not all(tokens(o) for o in self.outputs):
            raise ValueError("sources and outputs must be lists of token lists (one list of strings per sentence)")
        if not all(isinstance(r, list) and r and all(tokens(x) for x in r) for r in self.references):
            raise ValueError("references[i] must be a non-empty list of token lists: every translation of sentence "
                             "i, e.g. [['je', 'suis', 'prêt', '.'], ['je', 'suis', 'prête', '.']]")
        self.lengths = [len(s) for s in self.sources]

    def __len__(self) -> int:
        return len(self.sources)

    def hits(self) -> list[bool]:
        """Whether each output equals one of its references, token for token."""
        return [out in refs for out, refs in zip(self.outputs, self.references)]

    def exact_match(self) -> float:
        return sum(self.hits()) / len(self)

    def bleu(self) -> float:
        """Corpus BLEU (0-100) over every sentence, see :func:`bleu`."""
        return self._bleu(range(len(self)))

    def bleu_parts(self) -> dict:
        """What the corpus BLEU is made of: the four clipped n-gram precisions (0-1), the brevity penalty, and the
        output and reference lengths (sacrebleu's tokens, summed over the corpus; the closest reference counts)."""
        self._bleu([0])  # computes the per-sentence statistics once
        sums = [sum(column) for column in zip(*self._stats)]
        score = BLEU.compute_bleu(correct=sums[2:6], total=sums[6:10], sys_len=sums[0], ref_len=sums[1],
                                  smooth_method="exp")
        return {"precisions": [p / 100 for p in score.precisions], "brevity_penalty": score.bp,
                "output_length": sums[0], "reference_length": sums[1]}

    def _bleu(self, rows) -> float:
        if self._stats is None:  # computed once: resampling and per-length scores only add up rows
            hyps = [detokenize([t for t in out if t != UNK]) for out in self.outputs]
            self._stats = _bleu_stats(hyps, [[detokenize(r) for r in refs] for refs in self.references])
        return _bleu_from_stats([self._stats[i] for i in rows])

    def by_length(self, min_sentences: int = 20) -> dict[int, dict[str, float]]:
        """``{source length: {"sentences", "bleu", "exact_match"}}`` for the lengths (in tokens, punctuation
        included) with at least ``min_sentences`` sentences; rarer lengths are too few to score."""
        if isinstance(min_sentences, bool) or not isinstance(min_sentences, int) or min_sentences < 1:
            raise ValueError(f"min_sentences must be a positive int, got {min_sentences!r}")
        hits, out = self.hits(), {}
        for n in sorted(set(self.lengths)):
            rows = [i for i, m in enumerate(self.lengths) if m == n]
            if len(rows) >= min_sentences:
                out[n] = {"sentences": len(rows), "bleu": self._bleu(rows),
                          "exact_match": sum(hits[i] for i in rows) / len(rows)}
        return out

    def examples(self, count: int = 5, start: int = 0) -> list[dict[str, str]]:
        """``count`` rows {source, reference, output} as sentences, for a table."""
        for name, value, least in (("count", count, 1), ("start", start, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{name} must be an int >= {least}, got {value!r}")
        return [{"source": detokenize(self.sources[i], "en"), "reference": detokenize(self.references[i][0]),
                 "output": detokenize(self.outputs[i])} for i in range(start, min(len(self), start + count))]


def translate(translator: RealTranslator, pairs: str | Sequence[Pair] = "test", *, beam_size: int = 1,
              length_penalty: float = 0.0, limit: int | None = None, batch_size: int = 256) -> Translations:
    """Translate a split (``"valid"``, ``"test"``, ...; of the pairs file the translator learned from) or a list of
    pairs; the first ``limit`` distinct sources.

    ``beam_size`` 1 is batched greedy decoding (``model.greedy``); larger runs
    :func:`seqviz.decode.beam_search` sentence by sentence with ``length_penalty``. Outputs may run to
    ``2 * source length + 2`` tokens. Runs where the model is.
    """
    if not isinstance(translator, RealTranslator):
        raise ValueError(f"translate expects a RealTranslator (train_real_translator, or a checkpoint's), got "
                         f"{type(translator).__name__}")
    if not isinstance(beam_size, int) or isinstance(beam_size, bool) or beam_size < 1:
        raise ValueError(f"beam_size must be a positive int, got {beam_size!r}")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError(f"limit must be a positive int or None, got {limit!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    if isinstance(length_penalty, bool) or not isinstance(length_penalty, (int, float)) \
            or not math.isfinite(length_penalty) or length_penalty < 0:
        raise ValueError(f"length_penalty must be a finite number >= 0, got {length_penalty!r}")
    pairs = real.sentence_pairs(pairs, size=translator.pairs_size) if isinstance(pairs, str) else pairs
    sources, references = group_references(pairs)
    sources, references = sources[:limit], references[:limit]
    model, vocab = translator.model, translator.source_vocab
    ids = [translator.encode_source(s) for s in sources]
    was_training = model.training
    model.eval()
    clock, outputs = Stopwatch(next(model.parameters()).device, running=True), []
    if beam_size == 1:
        for i in range(0, len(ids), batch_size):
            src, lengths = pad_batch(ids[i:i + batch_size], vocab.pad_id)  # (B, S), (B,)
            tokens, _ = model.greedy(src, lengths, max_len=2 * src.shape[1] + 2)  # (B, <= max_len)
            outputs += [translator.words(row[: 2 * n + 2]) for row, n in zip(tokens, lengths.tolist())]
    else:
        for sentence in ids:
            best = beam_search(model.log_prob_fn(sentence), model.bos_id, model.eos_id, beam_size,
                               max_len=2 * len(sentence) + 2, length_penalty=length_penalty)[0]
            outputs.append(translator.words(best.tokens[1:]))
    model.train(was_training)
    return Translations(sources, references, outputs, beam_size, length_penalty, clock.wall)


def paired_bootstrap(a: Translations, b: Translations, *, samples: int = 200, seed: int = 0) -> float:
    """Share of ``samples`` resamplings of the sentences (with replacement, the same rows for both) in which ``a``
    scores a higher corpus BLEU than ``b`` (Koehn, 2004). Near 1 or 0: the difference holds across resamplings;
    near 0.5: the test set does not separate them. Both must translate the same sources."""
    if not isinstance(a, Translations) or not isinstance(b, Translations):
        raise ValueError(f"paired_bootstrap compares two Translations (translate), got {type(a).__name__} and "
                         f"{type(b).__name__}")
    if a.sources != b.sources:
        raise ValueError(f"a and b must translate the same sentences, got {len(a)} and {len(b)} that differ")
    if not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be a positive int, got {samples!r}")
    rng = random.Random(seed)
    wins = 0
    for _ in range(samples):
        rows = [rng.randrange(len(a)) for _ in range(len(a))]
        wins += a._bleu(rows) > b._bleu(rows)
    return wins / samples


def _check_pairs(pairs) -> list[Pair]:
    if isinstance(pairs, str) or not pairs or not all(isinstance(p, Pair) and p.source and p.target for p in pairs):
        raise ValueError("expected a non-empty list of Pair(source tokens, target tokens), each side non-empty; "
                         "seqviz.data.real.sentence_pairs(split) gives one")
    return list(pairs)
