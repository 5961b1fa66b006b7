"""Chapter 9's experiment, rerun for chapter 10's guide: does pretraining help with few labels?

:func:`finetune_evidence` pretrains a tiny BERT (masked words and next sentence, Devlin et al., 2019) on
unlabelled text, then fine-tunes it and an untrained copy on a few labelled sentences, and returns the test
accuracies of both. Used by chapter 10 (:func:`seqviz.guide.collect_evidence` reads its result).
"""

from __future__ import annotations

import copy

import torch.nn.functional as F

from ..config import seed_everything
from ..data import bert_vocab, encode_sentences, nsp_pairs, pretraining_data, topic_corpus, topic_sentences
from ..data.bert_data import TOPIC_NAMES
from ..measure import check_ints
from ..models import BertClassifier, BertMini, pretraining_loss
from ..train import accuracy, evaluate, fit

__all__ = ["finetune_evidence"]


def finetune_evidence(*, label_count: int = 6, pretrain_steps: int = 1600, finetune_steps: int = 100,
                      n_docs: int = 2000, n_pairs: int = 4000, copies: int = 3, n_test: int = 400,
                      d_model: int = 64, num_layers: int = 2, num_heads: int = 4, max_len: int = 24, seed: int = 0,
                      device=None, progress: bool = True) -> dict:
    """Pretrain a BertMini on ``n_pairs`` sentence pairs, each masked ``copies`` times (masked words +
    next sentence), for ``pretrain_steps`` steps, then fine-tune it, and a randomly initialised twin,
    on ``label_count`` labelled sentences (chapter 9's topic task). The defaults are chapter 9's full
    settings; ``device`` as :func:`seqviz.train.fit` (default: ``pick_device()``). Returns
    ``{"pretrained", "scratch"}`` (test accuracies), ``"labels"``,
    ``"pretrain_steps"``, ``"pretrain_s"`` (seconds) and ``"chance"``."""
    if not isinstance(label_count, int) or isinstance(label_count, bool) or label_count < 1:
        raise ValueError(f"label_count must be a positive int, got {label_count!r}")
    check_ints([pretrain_steps, finetune_steps, n_docs, n_pairs, copies, n_test, d_model, num_layers, num_heads,
                max_len], "pretrain_steps, finetune_steps and the sizes", 1)
    if d_model % num_heads:
        raise ValueError(f"d_model ({d_model}) must split into num_heads ({num_heads}) heads of equal width")
    vocab = bert_vocab()
    pairs = nsp_pairs(topic_corpus(n_docs, seed=seed), n_pairs, seed=seed)
    train = pretraining_data(pairs, vocab, max_len, copies=copies, seed=seed)
    seed_everything(seed)
    bert = BertMini(len(vocab), d_model, num_layers, num_heads, max_len, dropout=0.0)
    history = fit(bert, train, pretraining_loss, steps=pretrain_steps, batch_size=64, lr=1e-3, seed=seed,
                  device=device, progress=progress, desc="pretraining (chapter 9's experiment)")
    labelled = encode_sentences(topic_sentences(label_count, seed=seed + 6), vocab, max_len)
    test = encode_sentences(topic_sentences(n_test, seed=seed + 5), vocab, max_len)
    scores = {}
    for name in ("pretrained", "scratch"):
        seed_everything(seed)
        body = copy.deepcopy(bert) if name == "pretrained" else BertMini(len(vocab), d_model, num_layers, num_heads,
                                                                         max_len, dropout=0.0)
        classifier = BertClassifier(body, len(TOPIC_NAMES))
        fit(classifier, labelled, F.cross_entropy, steps=finetune_steps, batch_size=16, lr=1e-3, seed=seed,
            device=device, progress=False)
        scores[name] = evaluate(classifier, test, {"accuracy": accuracy}, device=device)["accuracy"]
    return {**scores, "labels": label_count, "pretrain_steps": pretrain_steps, "pretrain_s": history.seconds,
            "chance": 1 / len(TOPIC_NAMES)}
