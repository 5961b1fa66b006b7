"""seqviz.book.compare_word: a glued word that always agrees with the numbers beside it."""

import math

import numpy as np
import pytest
import torch

import seqviz as sv

WORDS = ("slower than", "about as fast as", "faster than")


@pytest.mark.parametrize("a, b, expected", [
    (2.0, 1.0, "slower than"),
    (1.0, 2.0, "faster than"),
    (1.04, 1.0, "about as fast as"),      # within 5 % of the larger
    (1.0, 1.04, "about as fast as"),
    (1.06, 1.0, "slower than"),
    (0.0, 0.0, "about as fast as"),
    (-1.0, -2.0, "slower than"),          # order, not size
])
def test_compare_word_follows_the_numbers(a, b, expected):
    assert sv.compare_word(a, b, WORDS) == expected


def test_compare_word_tolerance_and_scalar_types():
    assert sv.compare_word(1.2, 1.0, WORDS, rel_tol=0.2) == "about as fast as"
    assert sv.compare_word(1.2, 1.0, WORDS, rel_tol=0.1) == "slower than"
    assert sv.compare_word(np.float32(3), torch.tensor(1.0), WORDS) == "slower than"
    assert sv.compare_word(np.int64(1), 3, WORDS) == "faster than"


@pytest.mark.parametrize("a, b", [(math.nan, 1.0), (1.0, math.inf), (float("-inf"), 0.0)])
def test_compare_word_refuses_non_finite(a, b):
    with pytest.raises(ValueError, match="finite"):
        sv.compare_word(a, b, WORDS)


@pytest.mark.parametrize("words", [("a", "b"), ("a", "b", 3), "abc"])
def test_compare_word_needs_three_words(words):
    with pytest.raises(ValueError, match="three strings"):
        sv.compare_word(1.0, 2.0, words)


def test_compare_word_refuses_negative_tolerance():
    with pytest.raises(ValueError, match="rel_tol"):
        sv.compare_word(1.0, 2.0, WORDS, rel_tol=-0.1)


SPREAD = ("beat", "overlapped", "lost to")


@pytest.mark.parametrize("a, b, expected", [
    ([0.9, 0.95], [0.7, 0.8], "beat"),              # every run above every run
    ([0.7, 0.8], [0.9, 0.95], "lost to"),
    ([0.7, 0.95], [0.8, 0.9], "overlapped"),        # means differ, ranges overlap: no verdict
    ([0.8, 0.9], [0.85], "overlapped"),
    ([0.9], [0.9], "overlapped"),                   # a tie is not a win
    (torch.tensor([0.5, 0.6]), np.array([0.4]), "beat"),
    (0.3, [0.2, 0.25], "beat"),
])
def test_compare_spread_needs_every_run_to_agree(a, b, expected):
    assert sv.book.compare_spread(a, b, SPREAD) == expected


def test_compare_spread_margin_is_the_noise_allowed():
    assert sv.book.compare_spread([1.0], [0.995], SPREAD) == "beat"
    assert sv.book.compare_spread([1.0], [0.995], SPREAD, margin=0.02) == "overlapped"   # half a point: noise
    assert sv.book.compare_spread([0.95, 0.97], [0.90], SPREAD, margin=0.02) == "beat"
    assert sv.book.compare_spread([0.90], [0.95, 0.97], SPREAD, margin=0.02) == "lost to"
    with pytest.raises(ValueError, match="margin"):
        sv.book.compare_spread([1.0], [0.0], SPREAD, margin=-0.1)


def test_compare_spread_refuses_bad_input():
    with pytest.raises(ValueError, match="three strings"):
        sv.book.compare_spread([1.0], [2.0], ("a", "b"))
    with pytest.raises(ValueError, match="finite"):
        sv.book.compare_spread([], [2.0], SPREAD)
    with pytest.raises(ValueError, match="finite"):
        sv.book.compare_spread([math.nan], [2.0], SPREAD)
