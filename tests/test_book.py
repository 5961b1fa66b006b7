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


# --- say / compare / compare_runs / compare_times: whole sentences chosen from the run -------------------------

SENTENCES = {"higher": "Clipping helped: {gain:.0%} more sentences came out right.",
             "similar": "Clipping made no difference here.",
             "lower": "Clipping hurt here, by {gain:.0%}."}


def test_say_glues_the_whole_sentence_for_the_outcome():
    text = sv.book.say("clip_verdict", sv.book.compare(0.9, 0.7), SENTENCES, gain=0.2)
    assert text == "Clipping helped: 20% more sentences came out right."
    assert sv.book.say("v", sv.book.compare(0.7, 0.71), SENTENCES) == "Clipping made no difference here."


def test_say_refuses_a_missing_outcome_or_value():
    with pytest.raises(ValueError, match="no sentence for the outcome 'overlap'"):
        sv.book.say("v", "overlap", SENTENCES)
    with pytest.raises(ValueError, match=r"names \['gain'\]"):
        sv.book.say("v", "higher", SENTENCES)
    with pytest.raises(ValueError, match="non-empty dict"):
        sv.book.say("v", "higher", {})
    with pytest.raises(ValueError, match="non-empty string"):
        sv.book.say("v", "higher", {"higher": ""})


def test_say_takes_tensor_and_numpy_values():
    assert sv.book.say("v", "lower", SENTENCES, gain=torch.tensor(0.5)) == "Clipping hurt here, by 50%."
    assert sv.book.say("v", "lower", SENTENCES, gain=np.float64(0.25)) == "Clipping hurt here, by 25%."


def test_say_goes_through_the_translator_of_the_language(capsys):
    try:
        sv.book.register_translator("zh", {"Clipping hurt here, by {gain:.0%}.": "裁剪在这里有害,差 {gain:.0%}。"}.get)
        sv.book.set_language("zh")  # a translator registered first is kept: the packaged catalogue is not loaded
        assert sv.book.say("v", "lower", SENTENCES, gain=0.5) == "裁剪在这里有害,差 50%。"
        assert sv.book.language() == "zh"
        assert sv.book.say("v", "similar", SENTENCES) == "Clipping made no difference here."  # no translation
        assert "no zh translation of 'Clipping made no difference here.'" in capsys.readouterr().err
    finally:
        sv.book.set_language("en")
        sv.book._TRANSLATORS.clear()
    sv.book.set_language("zh")  # without one, the packaged catalogue (seqviz.i18n)
    try:
        assert sv.book.translate("accuracy") == "准确率"
    finally:
        sv.book.set_language("en")
        sv.book._TRANSLATORS.clear()
    with pytest.raises(ValueError, match="language must be one of"):
        sv.book.set_language("fr")


@pytest.mark.parametrize("a, b, expected", [(2.0, 1.0, "higher"), (1.0, 2.0, "lower"), (1.04, 1.0, "similar"),
                                            (0.0, 0.0, "similar")])
def test_compare(a, b, expected):
    assert sv.book.compare(a, b) == expected


@pytest.mark.parametrize("a, b, expected", [
    ([1.0, 1.1, 1.05], [2.0, 2.1, 2.2], "faster"),
    ([2.0, 2.1, 2.2], [1.0, 1.1, 1.05], "slower"),
    ([1.0, 3.0], [1.5, 1.6], "similar"),            # the ranges overlap: timing noise is not a verdict
    ([1.05, 1.06], [1.0, 1.01], "similar"),         # apart, but less than 10 % apart
])
def test_compare_times_judges_only_beyond_the_spread(a, b, expected):
    assert sv.book.compare_times(a, b) == expected


@pytest.mark.parametrize("a, b, match", [([1.0], [1.0, 2.0], "at least two repeats"),
                                         ([0.0, 1.0], [1.0, 2.0], "positive"),
                                         ([math.nan, 1.0], [1.0, 2.0], "finite")])
def test_compare_times_refuses_bad_input(a, b, match):
    with pytest.raises(ValueError, match=match):
        sv.book.compare_times(a, b)


def test_compare_runs_outcomes():
    assert sv.book.compare_runs([0.9, 0.95], [0.7, 0.8]) == "higher"
    assert sv.book.compare_runs([0.7, 0.95], [0.8, 0.9]) == "overlap"
    assert sv.book.compare_runs([0.7], [0.8, 0.9], margin=0.05) == "lower"


def test_span_writes_a_range_once_and_equal_runs_as_one_number():
    assert sv.book.span([0.24, 0.92, 0.5]) == "24% to 92%"
    assert sv.book.span(torch.tensor([1.0, 0.9999, 1.0])) == "100%"  # never "100% to 100%"
    assert sv.book.span([3.0, 12.5], ".1f", joiner="–") == "3.0–12.5"
    with pytest.raises(ValueError, match="non-empty"):
        sv.book.span([])
    with pytest.raises(ValueError, match="finite"):
        sv.book.span([0.5, float("nan")])


def test_readable_writes_any_size_of_number_as_a_sentence_does():
    readable = sv.book.readable
    assert readable(5e32, 1) == "5 × 10³²" and readable(1.02e32) == "10³²" and readable(4.54e-5) == "4.5 × 10⁻⁵"
    assert readable(0.0) == "0" and readable(0.0012) == "0.0012" and readable(3.5) == "3.5"
    assert readable(123456) == "120,000" and readable(0.5) == "0.5" and readable(-2e-9) == "−2 × 10⁻⁹"
    assert readable(9.96e7) == "10⁸"  # the leading figure rounds up to 10: one more power of ten
    assert readable(torch.tensor(2.0)) == "2"
    # one figure, as chapters 2 and 4 glue differences and ratios: the plain decimal ends at 10⁻³, below it the
    # power of ten; a ratio above one rounds like any number (46 to one figure is 50, not "5e+01")
    assert [readable(x, 1) for x in (46.44, 0.0011, 0.00096, 3.19e-4, 2.98e-8)] == [
        "50", "0.001", "0.001", "3 × 10⁻⁴", "3 × 10⁻⁸"]
    # two figures, as chapter 4b's table gives a short training time: "0.043" seconds, never "0.0"
    assert [readable(x, 2) for x in (0.043, 0.1, 123.4)] == ["0.043", "0.1", "120"]
    assert not any("e" in readable(x) for x in (1e-30, 7e-7, 3e9, 1e300))
    with pytest.raises(ValueError, match="finite"):
        readable(float("inf"))
    with pytest.raises(ValueError, match="digits"):
        readable(3.0, 0)


def test_wrap_fits_the_output_column_in_both_languages():
    import unicodedata

    from seqviz.data.real import SOURCES

    def columns(line):
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)

    english = sv.book.wrap(SOURCES["book"]["attribution"])
    assert english.count("\n") >= 1 and all(len(line) <= 77 for line in english.splitlines())
    assert english.replace("\n", " ") == SOURCES["book"]["attribution"]  # nothing lost, words whole
    chinese = sv.book.wrap("这个模型从没见过 'teh'；它只认识 75 个词，例如 " + "the, my, " * 12 + "。" * 3 + "词" * 60)
    assert all(columns(line) <= 77 for line in chinese.splitlines()[:-1]) and chinese.count("\n") >= 2
    assert not any(line.startswith(("，", "。")) for line in chinese.splitlines())  # no line starts with a stop
    assert sv.book.wrap("short\nsecond line") == "short\nsecond line"
    with pytest.raises(ValueError, match="columns must be an int"):
        sv.book.wrap("text", columns=3)
    with pytest.raises(ValueError, match="wrap expects a string"):
        sv.book.wrap(None)


def test_series_lists_parts_as_a_sentence_does_in_each_language():
    assert sv.book.series(["50 → 100"]) == "50 → 100"
    assert sv.book.series(["50 → 100", "200 → 400"]) == "50 → 100 and 200 → 400"
    assert sv.book.series("abc") == "a, b and c"
    sv.book.set_language("zh")
    try:
        assert sv.book.series(["甲", "乙", "丙"]) == "甲、乙和丙"
        assert sv.book.series(["甲", "乙"]) == "甲和乙"
    finally:
        sv.book.set_language("en")
    with pytest.raises(ValueError, match="at least one part"):
        sv.book.series([])
