"""Data: vocabularies and padding, the synthetic tasks of the chapters, and real language (:mod:`.real`)."""

from .bert_data import (BERT_SPECIALS, BertVocab, Document, bert_vocab, encode_pairs, encode_sentences, mask_tokens,
                        nsp_pairs, pretraining_data, segment_ids_for, topic_corpus, topic_sentences)
from . import real
from .bpe import BPE, learn_bpe
from .prose import book_prose
from .tagging import Tagged, tagged_to_tensors, tagging_task, tagging_vocabs, word_positions
from .tasks import (
    Example,
    agreement_task,
    agreement_vocab,
    recall_task,
    to_tensors,
    who_did_it_task,
    who_did_it_vocab,
)
from .timeseries import forecast_windows, sine_series
from .tokenizers import BOS, EOS, PAD, SPECIALS, UNK, Vocab, pad_batch
from .translation import (
    Pair,
    encode_source,
    pairs_to_tensors,
    strip_specials,
    translate_digits,
    translation_task,
    translation_vocabs,
    trim_padding,
)

__all__ = [
    "real",
    "BOS", "EOS", "PAD", "SPECIALS", "UNK", "Example", "Vocab",
    "agreement_task", "agreement_vocab", "pad_batch", "recall_task", "to_tensors",
    "who_did_it_task", "who_did_it_vocab",
    # chapters 5-7: translation and tagging
    "Pair", "Tagged", "encode_source", "pairs_to_tensors", "strip_specials", "tagged_to_tensors", "tagging_task",
    "tagging_vocabs", "translate_digits", "translation_task", "translation_vocabs", "trim_padding", "word_positions",
    # chapter 10: forecasting
    "forecast_windows", "sine_series",
    # chapter 9: BERT
    "BERT_SPECIALS", "BertVocab", "Document", "bert_vocab", "encode_pairs", "encode_sentences", "mask_tokens",
    "nsp_pairs", "pretraining_data", "segment_ids_for", "topic_corpus", "topic_sentences",
    # chapter 9b: byte-pair encoding
    "BPE", "book_prose", "learn_bpe",
]
