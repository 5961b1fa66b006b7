"""Data: tokenizers, padding and batching, and the synthetic tasks of the chapters."""

from .tasks import (
    Example,
    agreement_task,
    agreement_vocab,
    recall_task,
    to_tensors,
    who_did_it_task,
    who_did_it_vocab,
)
from .tokenizers import BOS, EOS, PAD, SPECIALS, UNK, CharTokenizer, Vocab, WordTokenizer, batches, pad_batch

__all__ = [
    "BOS", "EOS", "PAD", "SPECIALS", "UNK", "CharTokenizer", "Example", "Vocab", "WordTokenizer",
    "agreement_task", "agreement_vocab", "batches", "pad_batch", "recall_task", "to_tensors",
    "who_did_it_task", "who_did_it_vocab",
]
