"""The shipped real-language data: sizes, splits that never overlap, tokens, sources with licences."""

from __future__ import annotations

import pytest

from seqviz.data import real


def test_the_book_splits_in_order_and_covers_it_once():
    parts = [real.book_text(s) for s in real.SPLITS]
    assert "".join(parts) == real.book_text("all")
    assert real.book_text("all").startswith("CHAPTER 1. Loomings.")
    sizes = [len(p) for p in parts]
    assert 0.78 < sizes[0] / sum(sizes) < 0.83 and min(sizes[1:]) > 100_000


def test_pairs_split_by_english_sentence_without_leaks():
    splits = {s: real.sentence_pairs(s) for s in real.SPLITS}
    assert sum(len(p) for p in splits.values()) == len(real.sentence_pairs("all")) == 8000
    english = {s: {" ".join(p.source) for p in pairs} for s, pairs in splits.items()}
    assert not english["train"] & english["valid"] and not english["train"] & english["test"]
    assert 0.75 < len(splits["train"]) / 8000 < 0.85
    short = real.sentence_pairs("train", max_words=4)
    assert short and all(len(p.source) <= 4 for p in short)


def test_tokenize_keeps_words_whole_and_punctuation_apart():
    assert real.tokenize("Don't go! Lève-toi, c'est l'heure.") == \
        ["don't", "go", "!", "lève-toi", ",", "c'est", "l'heure", "."]


def test_sources_name_their_licence_and_bad_input_is_explained():
    for source in real.SOURCES.values():
        assert (real.FOLDER / source["file"]).exists() and source["licence"] and source["attribution"]
    with pytest.raises(ValueError, match="split must be one of"):
        real.book_text("training")
    with pytest.raises(ValueError, match="max_words"):
        real.sentence_pairs("train", max_words=0)
    with pytest.raises(ValueError, match="string"):
        real.tokenize(None)


def test_the_large_slice_starts_with_the_small_file_and_splits_the_same_way():
    small = [(tuple(p.source), tuple(p.target)) for p in real.sentence_pairs("all")]
    large = [(tuple(p.source), tuple(p.target)) for p in real.sentence_pairs("all", size="large")]
    assert len(large) == 47_482 and large[:8000] == small  # the small file is an exact subset, its first lines
    for split in ("train", "valid", "test"):
        s = {p for p in map(lambda x: (tuple(x.source), tuple(x.target)), real.sentence_pairs(split))}
        big = {(tuple(p.source), tuple(p.target)) for p in real.sentence_pairs(split, size="large")}
        assert s <= big, split  # a pair lies in the same split in both files
    train_english = {tuple(p.source) for p in real.sentence_pairs("train", size="large")}
    assert not train_english & {tuple(p.source) for p in real.sentence_pairs("test", size="large")}
    assert len(set(large)) == len(large) - (len(small) - len(set(small)))  # no duplicates beyond the small file's


def test_file_hashes_name_the_shipped_bytes():
    import hashlib

    path = real.FOLDER / "eng_fra_large.tsv.gz"
    assert real.file_sha256("eng_fra_large.tsv.gz") == hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(ValueError, match="no shipped file 'fra.txt'"):
        real.file_sha256("fra.txt")
    with pytest.raises(ValueError, match="size must be 'small'"):
        real.sentence_pairs("test", size="medium")
    with pytest.raises(ValueError, match="max_words"):
        real.sentence_pairs("test", max_words=True)
