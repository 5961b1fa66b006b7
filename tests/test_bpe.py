"""Byte-pair encoding from scratch: the incremental trainer against the plain recount-every-merge loop, lossless
round trips, the order merges are applied in, and bad input."""

from collections import Counter

import pytest

from seqviz.data import BPE, learn_bpe
from seqviz.data.bpe import pieces
from seqviz.data.real import book_text


def reference_merges(text, n):
    """The definition, slowly: recount every pair after every merge; ties to the smaller pair."""
    words = Counter(tuple(p.encode("utf-8")) for p in pieces(text))
    merges = []
    for k in range(n):
        counts = Counter()
        for word, f in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] += f
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        merges.append(best)
        merged = Counter()
        for word, f in words.items():
            out, j = [], 0
            while j < len(word):
                if j + 1 < len(word) and (word[j], word[j + 1]) == best:
                    out.append(256 + k)
                    j += 2
                else:
                    out.append(word[j])
                    j += 1
            merged[tuple(out)] += f
        words = merged
    return merges


@pytest.mark.parametrize("text", [book_text("valid")[:15_000], "aaaa aaa aa a " * 5 + "__x_ y — é ü", "ab" * 50],
                         ids=["novel", "overlaps-and-unicode", "one-word"])
def test_incremental_training_equals_the_definition(text):
    assert learn_bpe(text, 120).merges == reference_merges(text, 120)


def test_the_first_merges_of_a_small_corpus():
    text = "low low low low low lower lower newest newest newest newest newest newest widest widest widest"
    bpe = learn_bpe(text, 3)
    # "es" and "st" occur 9 times each (newest x6, widest x3): the tie goes to the smaller pair, (e, s); then "est"
    # (9); then "lo" and "ow" (7 each: low x5, lower x2), the tie to (l, o)
    assert [bpe.vocab[256 + i] for i in range(3)] == [b"es", b"est", b"lo"]
    assert bpe.tokens(" newest") == [" ", "n", "e", "w", "est"]
    assert bpe.tokens("lowest") == ["lo", "w", "est"]


@pytest.mark.parametrize("text", ["Call me Ishmael.", "naïve café — 1851!\n\n  tabs\tand  spaces", "", "_x_"])
def test_round_trip_is_lossless_on_any_text(text):
    bpe = learn_bpe(book_text("valid")[:20_000], 200)
    assert "".join(pieces(text)) == text
    assert bpe.decode(bpe.encode(text)) == text
    assert all(0 <= i < bpe.vocab_size for i in bpe.encode(text))


def test_more_merges_mean_fewer_tokens_and_a_larger_vocabulary():
    train, valid = book_text("train")[:60_000], book_text("valid")[:20_000]
    small, large = learn_bpe(train, 50), learn_bpe(train, 400)
    assert small.vocab_size == 306 and large.vocab_size == 656
    assert len(large.encode(valid)) < len(small.encode(valid)) < len(valid.encode("utf-8"))


def test_bad_input():
    with pytest.raises(ValueError, match="num_merges"):
        learn_bpe("abc", -1)
    with pytest.raises(ValueError, match="non-empty"):
        learn_bpe("", 3)
    with pytest.raises(ValueError, match="string"):
        pieces(b"bytes")
    with pytest.raises(ValueError, match="only ids below 256"):
        BPE([(300, 1)])
    with pytest.raises(ValueError, match="token ids below"):
        learn_bpe("abc abc", 2).decode([10_000])
