"""Byte-pair encoding: the merges of a hand-worked example, words back exactly, and what it buys on real pairs."""

import pytest

from seqviz.data import real
from seqviz.data.subwords import SubwordBPE as BPE, join


def test_merges_of_a_hand_worked_example():
    # Sennrich et al. (2016)'s toy corpus: low x5, lower x2, newest x6, widest x3
    words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    bpe = BPE.learn(words, 4)
    # pair counts at the start: (e, s) 9, (s, t</w>) 9, (w, e) 8, (l, o) 7, (n, e) 6, (e, w) 6, ...; ties go to
    # the smaller pair. Once "es" exists, newest's (w, e) is gone (w es), so (l, o) 7 comes next, then (e, w) 6.
    assert bpe.merges == [("e", "s"), ("es", "t</w>"), ("l", "o"), ("e", "w")]
    assert bpe.split("lowest") == ["lo@@", "w@@", "est"]
    assert bpe.split("newer") == ["n@@", "ew@@", "e@@", "r"]
    assert bpe.encode(["low", "widest"]) == ["lo@@", "w", "w@@", "i@@", "d@@", "est"]


def test_end_of_word_is_part_of_a_piece():
    bpe = BPE.learn({"est": 10, "estate": 1}, 2)
    assert bpe.merges == [("e", "s"), ("es", "t</w>")]
    assert bpe.split("est") == ["est"] and bpe.split("estate")[:2] == ["es@@", "t@@"]  # "est" only at a word's end


def test_join_inverts_encode_on_real_sentences():
    pairs = real.sentence_pairs("train")
    bpe = BPE.learn([w for p in pairs for w in p.target], 500)
    for p in real.sentence_pairs("test")[:300]:
        assert join(bpe.encode(p.target)) == p.target
    assert BPE.from_dict(bpe.to_dict()).merges == bpe.merges


def test_learning_does_not_depend_on_word_order():
    words = [w for p in real.sentence_pairs("train")[:2000] for w in p.target]
    assert BPE.learn(words, 200).merges == BPE.learn(list(reversed(words)), 200).merges


def test_a_subword_vocabulary_writes_words_a_word_vocabulary_cannot():
    train, test = real.sentence_pairs("train"), real.sentence_pairs("test")
    seen = {w for p in train for w in p.target}
    bpe = BPE.learn([w for p in train for w in p.target], 1000)
    pieces = {x for p in train for x in bpe.encode(p.target)}
    unseen_words = [w for p in test for w in p.target if w not in seen]
    assert len(unseen_words) > 50
    covered = sum(all(x in pieces for x in bpe.split(w)) for w in unseen_words) / len(unseen_words)
    assert covered > 0.95, covered  # almost every unseen French word can be written from training pieces


def test_bad_input():
    with pytest.raises(ValueError, match="merges must be an int"):
        BPE.learn(["a"], -1)
    with pytest.raises(ValueError, match="without spaces"):
        BPE.learn(["two words"], 3)
    with pytest.raises(ValueError, match="pair of non-empty strings"):
        BPE([("a",)])
    with pytest.raises(ValueError, match="non-empty word"):
        BPE([]).split("")
    with pytest.raises(ValueError, match="list of words"):
        BPE([]).encode("a sentence")
    with pytest.raises(ValueError, match="merges"):
        BPE.from_dict({"pieces": []})
