"""Data for chapter 9's tiny BERT: a generated corpus, masking, sentence pairs.

Devlin et al. (2019), "BERT: pre-training of deep bidirectional Transformers":

- :func:`mask_tokens`: masked language modelling. 15% of the (non-special) tokens are
  chosen; of those 80% become ``[MASK]``, 10% a random non-special token, 10% stay as
  they are. Labels hold the original id where a token was chosen and -100 elsewhere
  (the value ``F.cross_entropy`` ignores);
- :func:`topic_corpus`: documents of several sentences, each document about one topic
  (animals, food, weather ...), generated from templates, so nothing is downloaded;
- :func:`nsp_pairs`: next-sentence prediction pairs, half true continuations, half a
  sentence from another document;
- :func:`encode_pairs` / :func:`pretraining_data`: ``[CLS] A [SEP] B [SEP]`` with segment
  ids 0 for A (and [CLS] and the first [SEP]) and 1 for B, padded with ``[PAD]``;
- :func:`topic_sentences` / :func:`encode_sentences`: the downstream task (one sentence,
  which topic?) used to compare fine-tuning with training from scratch.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from .tokenizers import Vocab

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
BERT_SPECIALS = (PAD, UNK, CLS, SEP, MASK)  # ids 0..4 in every BertVocab
IGNORE_INDEX = -100  # label of positions the MLM loss ignores (F.cross_entropy's default)

# Each topic: nouns, verbs (transitive, third person), adjectives. Function words are shared.
TOPICS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "animals": (("dog", "cat", "horse", "fox", "owl", "rabbit", "cow", "goat", "mouse", "wolf", "duck", "bear"),
                ("chases", "feeds", "licks", "hunts", "follows", "sniffs"),
                ("furry", "wild", "hungry", "tame", "sleepy", "fierce")),
    "food": (("bread", "soup", "cheese", "apple", "rice", "pie", "salad", "cake", "pasta", "egg", "honey", "plum"),
             ("bakes", "cooks", "slices", "tastes", "serves", "eats"),
             ("sweet", "salty", "fresh", "spicy", "crisp", "ripe")),
    "weather": (("rain", "storm", "cloud", "wind", "snow", "fog", "thunder", "frost", "sun", "hail", "breeze", "mist"),
                ("soaks", "covers", "hides", "chills", "batters", "warms"),
                ("cold", "grey", "stormy", "damp", "bright", "icy")),
    "sport": (("ball", "team", "goal", "coach", "match", "racket", "player", "net", "bat", "court", "race", "medal"),
              ("kicks", "throws", "wins", "trains", "scores", "blocks"),
              ("fast", "strong", "final", "winning", "tired", "agile")),
    "music": (("song", "piano", "drum", "violin", "choir", "guitar", "band", "tune", "flute", "singer", "chord",
               "melody"),
              ("plays", "sings", "hums", "tunes", "records", "composes"),
              ("loud", "gentle", "soft", "catchy", "sad", "lively")),
    "travel": (("train", "ticket", "map", "hotel", "airport", "suitcase", "bus", "road", "ship", "passport", "bridge",
                "station"),
               ("books", "packs", "boards", "crosses", "misses", "reaches"),
               ("long", "busy", "late", "crowded", "distant", "cheap")),
}
TOPIC_NAMES = tuple(TOPICS)
_FUNCTION_WORDS = ("the", "a", "and", "near", "every", "is", "we", "saw", "then", "very", "there", "was", "with",
                   "today", ".")
_TEMPLATES = (
    "the {adj} {noun} {verb} the {noun}",
    "a {noun} {verb} a {adj} {noun} .",
    "every {noun} is {adj} today",
    "we saw the {noun} and the {adj} {noun}",
    "then the {noun} {verb} a {noun} near the {noun}",
    "there was a very {adj} {noun}",
    "the {noun} is {adj} and {adj}",
    "a {adj} {noun} with a {noun} {verb} the {noun}",
)


class BertVocab(Vocab):
    """A word vocabulary whose first five ids are ``[PAD]`` 0, ``[UNK]`` 1, ``[CLS]`` 2, ``[SEP]`` 3, ``[MASK]`` 4."""

    def __init__(self, tokens, unknown: str = "error"):
        super().__init__(tokens, specials=BERT_SPECIALS, unknown="error")
        self.unknown = unknown  # Vocab only knows "<unk>"; id() below maps to [UNK] itself

    def id(self, token: str) -> int:
        if token not in self.stoi and self.unknown == "unk":
            return self.stoi[UNK]
        return super().id(token)

    pad_id = property(lambda self: self.stoi[PAD])
    unk_id = property(lambda self: self.stoi[UNK])
    cls_id = property(lambda self: self.stoi[CLS])
    sep_id = property(lambda self: self.stoi[SEP])
    mask_id = property(lambda self: self.stoi[MASK])
    special_ids = property(lambda self: tuple(self.stoi[t] for t in BERT_SPECIALS))


def bert_vocab() -> BertVocab:
    """The vocabulary of :func:`topic_corpus`: the five specials, the function words, then every topic's words."""
    words = list(_FUNCTION_WORDS)
    for nouns, verbs, adjectives in TOPICS.values():
        words += [*nouns, *verbs, *adjectives]
    return BertVocab(words)


# -- masking ----------------------------------------------------------------------------------


def mask_tokens(ids: torch.Tensor, mask_id: int, vocab_size: int, special_ids: Sequence[int] = (), prob: float = 0.15,
                generator: torch.Generator | None = None):
    """``(inputs, labels)``, both shaped like ``ids``, for masked language modelling.

    Each token whose id is not in ``special_ids`` is chosen with probability ``prob``.
    A chosen token becomes ``mask_id`` with probability 0.8, a random token (uniform over
    the non-special ids below ``vocab_size``) with probability 0.1, and stays unchanged
    with probability 0.1. ``labels`` holds the original id at chosen positions and -100
    everywhere else. ``ids`` itself is not modified.
    """
    if not isinstance(ids, torch.Tensor) or ids.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"ids must be an integer tensor of token ids, got "
                         f"{ids.dtype if isinstance(ids, torch.Tensor) else type(ids).__name__}")
    if not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int, got {vocab_size!r}")
    if not 0 <= mask_id < vocab_size:
        raise ValueError(f"mask_id must lie in 0..{vocab_size - 1}, got {mask_id}")
    if not 0.0 <= float(prob) <= 1.0:
        raise ValueError(f"prob must lie in [0, 1], got {prob}")
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
        raise ValueError(f"ids must lie in 0..{vocab_size - 1}, got {int(ids.min())}..{int(ids.max())}")
    special = torch.zeros(vocab_size, dtype=torch.bool)
    special[list(special_ids)] = True
    ordinary = (~special).nonzero().flatten()  # (V_ordinary,) the ids a random replacement may take
    if len(ordinary) == 0:
        raise ValueError("every id is special: there is no ordinary token to mask or to draw at random")
    device = ids.device
    shape = ids.shape
    chosen = (torch.rand(shape, generator=generator) < prob).to(device) & ~special.to(device)[ids]
    action = torch.rand(shape, generator=generator).to(device)  # < 0.8 mask, < 0.9 random, else keep
    random_ids = ordinary[torch.randint(len(ordinary), shape, generator=generator)].to(device)
    inputs = ids.clone()
    inputs = torch.where(chosen & (action < 0.8), torch.as_tensor(mask_id, dtype=ids.dtype, device=device), inputs)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids.to(ids.dtype), inputs)
    labels = torch.where(chosen, ids, torch.as_tensor(IGNORE_INDEX, dtype=ids.dtype, device=device)).long()
    return inputs, labels


# -- the corpus -------------------------------------------------------------------------------


@dataclass
class Document:
    topic: int  # index into TOPIC_NAMES
    sentences: list[list[str]]


def _sentence(rng: random.Random, topic: int) -> list[str]:
    nouns, verbs, adjectives = TOPICS[TOPIC_NAMES[topic]]
    template = rng.choice(_TEMPLATES)
    words = []
    for word in template.split():
        if word == "{noun}":
            words.append(rng.choice(nouns))
        elif word == "{verb}":
            words.append(rng.choice(verbs))
        elif word == "{adj}":
            words.append(rng.choice(adjectives))
        else:
            words.append(word)
    return words


def topic_corpus(num_documents: int, sentences: tuple[int, int] = (4, 8), seed: int = 0) -> list[Document]:
    """``num_documents`` documents, each of ``sentences[0]..sentences[1]`` template sentences about one topic."""
    if not isinstance(num_documents, int) or num_documents < 2:
        raise ValueError(f"num_documents must be an int >= 2 (negatives come from other documents), got "
                         f"{num_documents!r}")
    low, high = sentences
    if not 2 <= low <= high:
        raise ValueError(f"sentences must be (low, high) with 2 <= low <= high, got {sentences}")
    rng = random.Random(seed)
    docs = []
    for _ in range(num_documents):
        topic = rng.randrange(len(TOPIC_NAMES))
        docs.append(Document(topic, [_sentence(rng, topic) for _ in range(rng.randint(low, high))]))
    return docs


def nsp_pairs(documents: Sequence[Document], num_pairs: int, seed: int = 0):
    """``num_pairs`` triples ``(sentence_a, sentence_b, is_next)``: exactly half (rounded down) with
    ``is_next = 1``, B the sentence that follows A in its document; the rest ``is_next = 0``, B a
    sentence of another document (which may happen to share A's topic). Shuffled."""
    if len(documents) < 2:
        raise ValueError(f"need at least 2 documents, got {len(documents)}")
    if not isinstance(num_pairs, int) or num_pairs < 1:
        raise ValueError(f"num_pairs must be a positive int, got {num_pairs!r}")
    rng = random.Random(seed)
    pairs = []
    for i in range(num_pairs):
        d = rng.randrange(len(documents))
        doc = documents[d]
        k = rng.randrange(len(doc.sentences) - 1)
        if i < num_pairs // 2:
            pairs.append((doc.sentences[k], doc.sentences[k + 1], 1))
        else:
            other = rng.randrange(len(documents) - 1)
            other += other >= d  # any document but d
            pairs.append((doc.sentences[k], rng.choice(documents[other].sentences), 0))
    rng.shuffle(pairs)
    return pairs


def segment_ids_for(tokens: Sequence[str]) -> list[int]:
    """0 up to and including the first ``[SEP]``, 1 after it; ``[PAD]`` gets 0."""
    out, segment = [], 0
    for token in tokens:
        out.append(0 if token == PAD else segment)
        if token == SEP:
            segment = 1
    return out


def encode_pairs(pairs, vocab: BertVocab, max_len: int):
    """``(input_ids, segment_ids, attention_mask, is_next)`` for pairs ``(a, b, is_next)`` (or ``(a, b)``,
    then is_next is all -1): ``[CLS] a [SEP] b [SEP]`` padded to ``max_len``; the mask is True on real tokens."""
    rows, nsp = [], []
    for pair in pairs:
        a, b = pair[0], pair[1]
        tokens = [CLS, *a, SEP, *b, SEP] if b else [CLS, *a, SEP]
        if len(tokens) > max_len:
            raise ValueError(f"a pair of {len(tokens)} tokens (with [CLS] and [SEP]s) exceeds max_len={max_len}")
        rows.append(tokens)
        nsp.append(pair[2] if len(pair) > 2 else -1)
    if not rows:
        raise ValueError("no pairs to encode")
    N = len(rows)
    input_ids = torch.full((N, max_len), vocab.pad_id, dtype=torch.long)  # (N, T)
    segment_ids = torch.zeros(N, max_len, dtype=torch.long)  # (N, T)
    for r, tokens in enumerate(rows):
        input_ids[r, : len(tokens)] = torch.tensor(vocab.encode(tokens))
        segment_ids[r, : len(tokens)] = torch.tensor(segment_ids_for(tokens))
    return input_ids, segment_ids, input_ids != vocab.pad_id, torch.tensor(nsp, dtype=torch.long)


def pretraining_data(pairs, vocab: BertVocab, max_len: int, copies: int = 1, prob: float = 0.15, seed: int = 0):
    """``(input_ids, segment_ids, attention_mask, targets)`` ready for ``fit``: every pair masked
    ``copies`` times with different random choices (BERT duplicated its data 10 times this way).

    ``targets`` packs both labels in one tensor (N, T + 1): the MLM labels (-100 where nothing
    was chosen) and, in the last column, is_next (see ``seqviz.models.bert.pretraining_loss``).
    """
    ids, segments, attention, nsp = encode_pairs(pairs, vocab, max_len)
    generator = torch.Generator().manual_seed(seed)
    ids, segments, attention, nsp = (t.repeat(copies, *([1] * (t.dim() - 1))) for t in (ids, segments, attention, nsp))
    inputs, labels = mask_tokens(ids, vocab.mask_id, len(vocab), vocab.special_ids, prob, generator)
    return inputs, segments, attention, torch.cat([labels, nsp[:, None]], dim=1)


def topic_sentences(num: int, seed: int = 0):
    """``num`` pairs ``(sentence, topic)`` for the downstream task: which topic is a sentence about?"""
    rng = random.Random(seed)
    out = []
    for _ in range(num):
        topic = rng.randrange(len(TOPIC_NAMES))
        out.append((_sentence(rng, topic), topic))
    return out


def encode_sentences(examples, vocab: BertVocab, max_len: int):
    """``(input_ids, segment_ids, attention_mask, topics)`` for ``[CLS] sentence [SEP]``, padded."""
    ids, segments, attention, _ = encode_pairs([(s, []) for s, _ in examples], vocab, max_len)
    return ids, segments, attention, torch.tensor([t for _, t in examples], dtype=torch.long)
