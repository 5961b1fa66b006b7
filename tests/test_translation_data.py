"""The toy translation task (digit words -> digits) and the right-context tagging task."""

import pytest
import torch

from seqviz.data import (
    encode_source, pairs_to_tensors, strip_specials, tagged_to_tensors, tagging_task, tagging_vocabs,
    translate_digits, translation_task, translation_vocabs, word_positions,
)
from seqviz.data.tagging import SENSES


def test_pairs_translate_word_by_word_and_lengths_are_a_dial():
    pairs = translation_task(200, min_len=3, max_len=7, seed=1)
    assert {len(p.source) for p in pairs} == set(range(3, 8))
    for p in pairs:
        assert p.target == translate_digits(p.source) and len(p.target) == len(p.source)
    assert translate_digits(["one", "two", "nine"], order="reverse") == ["9", "2", "1"]
    assert translation_task(5, seed=3) == translation_task(5, seed=3) != translation_task(5, seed=4)


def test_tensors_shift_the_target_for_teacher_forcing():
    src_vocab, tgt_vocab = translation_vocabs()
    pairs = translation_task(6, 1, 5, seed=2)
    src, lengths, tgt_in, tgt_out = pairs_to_tensors(pairs, src_vocab, tgt_vocab)
    assert src.shape == (6, int(lengths.max())) and tgt_in.shape == tgt_out.shape == (6, int(lengths.max()) + 1)
    assert (tgt_in[:, 0] == 2).all()
    for b, p in enumerate(pairs):
        n = len(p.target)
        assert tgt_out[b, n] == 3 and (tgt_out[b, n + 1:] == 0).all() and (src[b, n:] == 0).all()
        assert torch.equal(tgt_in[b, 1 : n + 1], tgt_out[b, :n])
        assert strip_specials(tgt_out[b], tgt_vocab) == p.target


def test_bad_sources_are_clear_errors():
    src_vocab, _ = translation_vocabs()
    with pytest.raises(ValueError, match="source is empty"):
        encode_source("", src_vocab)
    with pytest.raises(ValueError, match="unknown token 'seven7'"):
        encode_source("one seven7", src_vocab)
    with pytest.raises(ValueError, match="unknown source word 'eleven'"):
        translate_digits(["eleven"])
    with pytest.raises(ValueError, match="min_len <= max_len"):
        translation_task(3, min_len=0)
    assert encode_source("Seven two", src_vocab) == src_vocab.encode(["seven", "two"])


def test_tagging_sentences_hold_one_ambiguous_word_and_its_cue():
    examples = tagging_task(300, right_share=0.5, seed=0)
    sides = {e.info["side"] for e in examples}
    assert sides == {"left", "right"}
    for e in examples:
        w, c = e.info["word_index"], e.info["cue_index"]
        word, sense = e.tokens[w], e.tags[w]
        assert e.tokens[c] in SENSES[word][sense]
        assert (c > w) == (e.info["side"] == "right") and abs(c - w) == e.info["distance"]
        assert [t for i, t in enumerate(e.tags) if i != w] == ["O"] * (len(e.tags) - 1)


def test_tagging_tensors_and_word_positions():
    vocab, tags = tagging_vocabs()
    examples = tagging_task(20, seed=1)
    ids, lengths, tag_ids = tagged_to_tensors(examples, vocab, tags)
    assert ids.shape == tag_ids.shape and (tag_ids[ids == 0] == 0).all() and (ids[tag_ids != 0] != 0).all()
    right = word_positions(examples, "right")
    left = word_positions(examples, "left")
    assert (right | left).sum() == 20 and not (right & left).any()
    assert all(tags.itos[int(tag_ids[i, j])] != "O" for i, j in word_positions(examples).nonzero().tolist())
