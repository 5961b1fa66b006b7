"""Chapter 9's data: masking statistics, NSP pairs, encoding of [CLS] A [SEP] B [SEP]."""

import pytest
import torch

from seqviz.data import (BertVocab, bert_vocab, encode_pairs, mask_tokens, nsp_pairs, pretraining_data,
                         segment_ids_for, topic_corpus, topic_sentences)
from seqviz.data.bert_data import CLS, PAD, SEP, TOPIC_NAMES, encode_sentences

VOCAB, MASK_ID, SPECIALS = 60, 4, (0, 1, 2, 3, 4)


def big_batch():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(5, VOCAB, (500, 400), generator=g)  # 200,000 ordinary tokens
    ids[:, 0], ids[:, -1] = 2, 3  # [CLS] ... [SEP]
    ids[:50, -40:] = 0  # some padding
    return ids


def test_mask_tokens_statistics_on_200k_tokens():
    ids = big_batch()
    inputs, labels = mask_tokens(ids, MASK_ID, VOCAB, SPECIALS, generator=torch.Generator().manual_seed(1))
    assert inputs.shape == labels.shape == ids.shape and labels.dtype == torch.long
    special = ids < 5
    chosen = labels != -100
    assert not chosen[special].any(), "special tokens are never chosen"
    assert (inputs[special] == ids[special]).all()
    assert (labels[chosen] == ids[chosen]).all() and (inputs[~chosen] == ids[~chosen]).all()
    n_ordinary = int((~special).sum())
    assert n_ordinary >= 100_000
    assert abs(chosen[~special].float().mean().item() - 0.15) < 0.005      # 15% +- 0.5 points
    picked, original = inputs[chosen], ids[chosen]
    masked = (picked == MASK_ID).float().mean().item()
    unchanged = (picked == original).float().mean().item()
    replaced = 1 - masked - unchanged
    expected_same = 0.1 + 0.1 / (VOCAB - 5)                               # a random draw may hit the original
    assert abs(masked - 0.8) < 0.01                                       # 80% +- 1 point
    assert abs(unchanged - expected_same) < 0.01                          # 10% (+ lucky draws) +- 1 point
    assert abs(replaced - (0.2 - expected_same)) < 0.01
    assert (picked[picked != MASK_ID] >= 5).all(), "random replacements are ordinary tokens"
    replacements = picked[(picked != MASK_ID) & (picked != original)]
    counts = torch.bincount(replacements, minlength=VOCAB)[5:].float()
    assert counts.min() > 0.5 * counts.mean(), "random replacements are spread over the vocabulary"


def test_mask_tokens_is_reproducible_and_leaves_ids_alone():
    ids = big_batch()[:10]
    before = ids.clone()
    a = mask_tokens(ids, MASK_ID, VOCAB, SPECIALS, generator=torch.Generator().manual_seed(3))
    b = mask_tokens(ids, MASK_ID, VOCAB, SPECIALS, generator=torch.Generator().manual_seed(3))
    assert torch.equal(ids, before)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_mask_tokens_checks_its_arguments():
    ids = big_batch()[:2]
    with pytest.raises(ValueError, match="integer"):
        mask_tokens(ids.float(), MASK_ID, VOCAB)
    with pytest.raises(ValueError, match="mask_id"):
        mask_tokens(ids, VOCAB, VOCAB)
    with pytest.raises(ValueError, match="prob"):
        mask_tokens(ids, MASK_ID, VOCAB, prob=1.5)
    with pytest.raises(ValueError, match="ids must lie"):
        mask_tokens(ids, MASK_ID, 10)


def test_vocab_has_the_bert_specials_first():
    vocab = bert_vocab()
    assert isinstance(vocab, BertVocab)
    assert (vocab.pad_id, vocab.unk_id, vocab.cls_id, vocab.sep_id, vocab.mask_id) == (0, 1, 2, 3, 4)
    assert vocab.decode([2, 5, 3]) == [vocab.itos[5]]
    with pytest.raises(ValueError, match="unknown token"):
        vocab.id("zebra-crossing")
    assert BertVocab(["a"], unknown="unk").id("zzz") == 1


def test_corpus_documents_have_several_sentences_of_one_topic():
    docs = topic_corpus(50, sentences=(3, 6), seed=0)
    vocab = bert_vocab()
    assert len(docs) == 50 and all(3 <= len(d.sentences) <= 6 for d in docs)
    assert {d.topic for d in docs} == set(range(len(TOPIC_NAMES)))
    for d in docs:
        for s in d.sentences:
            vocab.encode(s)  # every word is in the vocabulary
    assert topic_corpus(5, seed=1)[0].sentences == topic_corpus(5, seed=1)[0].sentences


def test_nsp_pairs_are_balanced_and_correct():
    docs = topic_corpus(300, seed=0)
    pairs = nsp_pairs(docs, 2001, seed=0)
    labels = [p[2] for p in pairs]
    assert len(pairs) == 2001 and sum(labels) == 1000
    follows = {(tuple(a), tuple(b)) for d in docs for a, b in zip(d.sentences, d.sentences[1:])}
    assert all((tuple(a), tuple(b)) in follows for a, b, y in pairs if y == 1)
    assert 0 < sum(y for y in labels[:100]) < 100, "pairs are shuffled"
    negatives = [(a, b) for a, b, y in pairs if y == 0]
    assert sum((tuple(a), tuple(b)) in follows for a, b in negatives) < 0.02 * len(negatives)


def test_encode_pairs_layout_segments_and_mask():
    vocab = bert_vocab()
    ids, segments, mask, nsp = encode_pairs([(["the", "dog"], ["a", "cat", "."], 1)], vocab, 10)
    tokens = vocab.decode(ids[0], skip_specials=False)
    assert tokens == [CLS, "the", "dog", SEP, "a", "cat", ".", SEP, PAD, PAD]
    assert segments[0].tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
    assert mask[0].tolist() == [True] * 8 + [False] * 2 and nsp.tolist() == [1]
    assert segment_ids_for(tokens) == segments[0].tolist()
    with pytest.raises(ValueError, match="max_len"):
        encode_pairs([(["the"] * 8, ["a"] * 8, 0)], vocab, 10)


def test_pretraining_data_packs_labels_and_copies():
    vocab = bert_vocab()
    pairs = nsp_pairs(topic_corpus(20, seed=0), 30, seed=0)
    inputs, segments, mask, targets = pretraining_data(pairs, vocab, 24, copies=2, seed=0)
    assert inputs.shape == segments.shape == mask.shape == (60, 24) and targets.shape == (60, 25)
    assert set(targets[:, -1].tolist()) == {0, 1}
    assert not torch.equal(inputs[:30], inputs[30:]), "each copy is masked differently"
    assert ((targets[:, :-1] != -100) <= mask).all(), "padding is never chosen"


def test_topic_sentences_for_fine_tuning():
    vocab = bert_vocab()
    examples = topic_sentences(100, seed=0)
    ids, segments, mask, topics = encode_sentences(examples, vocab, 16)
    assert ids.shape == (100, 16) and (ids[:, 0] == vocab.cls_id).all() and (segments == 0).all()
    assert set(topics.tolist()) == set(range(len(TOPIC_NAMES)))
