"""Every registered checker accepts its reference answer and rejects its wrong answers,
with feedback and without raising."""

import pytest

from seqviz.exercises import EXERCISES, check, normalise_id, run_checker

IDS = sorted(EXERCISES)


def test_every_chapter_with_exercises_has_at_least_three():
    chapters = {}
    for key in EXERCISES:
        chapters.setdefault(key.split(".")[0], []).append(key)
    assert chapters, "no exercises registered"
    for chapter, keys in chapters.items():
        assert len(keys) >= 3, f"{chapter} has {len(keys)} exercises"


@pytest.mark.parametrize("key", IDS)
def test_reference_is_accepted(key, capsys):
    ok, message = run_checker(key, EXERCISES[key].reference())
    assert ok, f"{key}: the reference answer was rejected: {message}"
    assert check(key, EXERCISES[key].reference()) is True
    assert "Correct" in capsys.readouterr().out


@pytest.mark.parametrize("key", IDS)
def test_wrong_answers_are_rejected_with_feedback(key, capsys):
    wrong = EXERCISES[key].wrong
    assert len(wrong) >= 2, f"{key} lists {len(wrong)} wrong answers; at least 2 are needed"
    for make in wrong:
        ok, message = run_checker(key, make())
        assert not ok, f"{key}: a wrong answer was accepted"
        assert isinstance(message, str) and len(message) > 10, f"{key}: feedback too thin: {message!r}"
        assert check(key, make()) is False
    assert "Not yet" in capsys.readouterr().out


@pytest.mark.parametrize("key", IDS)
def test_junk_answers_give_feedback_not_tracebacks(key):
    for junk in (None, ..., "nonsense", 3.5, [1, 2], lambda *a, **k: 1 / 0):
        ok, message = run_checker(key, junk)
        assert isinstance(ok, bool) and isinstance(message, str) and message


def test_ids_are_normalised_and_unknown_ids_are_clear_errors():
    assert normalise_id("ch1-ex2") == normalise_id("CH01.EX2") == "ch01.ex2"
    with pytest.raises(ValueError, match="unknown exercise 'ch01.ex99'; known: ch01.ex1"):
        check("ch01.ex99", 1)
    with pytest.raises(ValueError, match="look like 'ch03.ex2'"):
        check("exercise one", 1)


# -- the problems of issue 14: each must stay fixed ---------------------------------------------------------

import math  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from seqviz.exercises.grading import HIDDEN, grade, points  # noqa: E402


def _ch08_scaled_by_dv(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    return weights @ v, weights


def _ch09_ignores_generator(ids, mask_id, vocab_size, special_ids, generator):
    from seqviz.data import mask_tokens
    return mask_tokens(ids, mask_id, vocab_size, special_ids, 0.15, None)


def _ch06_worst_first(live, next_log_probs, beam_size):
    parents, tokens, totals = EXERCISES["ch06.ex2"].reference()(live, next_log_probs, beam_size)
    return parents.flip(0), tokens.flip(0), totals.flip(0)


def _ch04_batch_of_five_only(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """Right for the single (5, 3) -> 4 batch the old checker used, wrong at any other size."""
    if x.shape != (5, 3):
        return torch.zeros_like(h)
    return EXERCISES["ch04.ex1"].reference()(x, h, weight_ih, weight_hh, bias_ih, bias_hh)


NAN = float("nan")
WRONG_BEFORE = {  # accepted by the checkers before the fix
    "nan, ch02.ex4": ("ch02.ex4", lambda w, xs: NAN),
    "nan, ch06.ex1": ("ch06.ex1", lambda lp, n, a: NAN),
    "nan, ch10.ex1": ("ch10.ex1", lambda *a, **k: NAN),
    "nan, ch10.ex2": ("ch10.ex2", lambda x, y: NAN),
    "nan, ch10.ex3": ("ch10.ex3", lambda n, cache: NAN),
    "inf, ch10.ex1": ("ch10.ex1", lambda *a, **k: float("inf")),
    "characters, ch01.ex2": ("ch01.ex2", lambda a, b: sorted(a) == sorted(b)),
    "worst first, ch06.ex2": ("ch06.ex2", _ch06_worst_first),
    "sqrt(d_v), ch08.ex1": ("ch08.ex1", _ch08_scaled_by_dv),
    "ignores the generator, ch09.ex1": ("ch09.ex1", _ch09_ignores_generator),
    "one batch only, ch04.ex1": ("ch04.ex1", _ch04_batch_of_five_only),
}


@pytest.mark.parametrize("name", sorted(WRONG_BEFORE))
def test_wrong_answers_once_accepted_are_rejected(name):
    key, answer = WRONG_BEFORE[name]
    ok, message = run_checker(key, answer)
    assert not ok, f"{name}: accepted ({message})"
    assert grade(key, answer, seed=0)[0] == 0


RIGHT_BEFORE_REJECTED = {  # rejected by the checkers before the fix
    "np.int64, ch01.ex1": ("ch01.ex1", np.int64(60)),
    "np.float64, ch01.ex4": ("ch01.ex4", np.float64(25.0)),
    "np.bool_, ch01.ex2": ("ch01.ex2", lambda a, b: np.bool_(sorted(a.split()) == sorted(b.split()))),
    "list pair, ch05.ex2": ("ch05.ex2", lambda target, bos, eos: [[bos, *target], [*target, eos]]),
    "list triple, ch06.ex2": ("ch06.ex2", lambda *a: list(EXERCISES["ch06.ex2"].reference()(*a))),
    "list pair, ch08.ex1": ("ch08.ex1", lambda *a: list(EXERCISES["ch08.ex1"].reference()(*a))),
    "list pair, ch09.ex1": ("ch09.ex1", lambda *a: list(EXERCISES["ch09.ex1"].reference()(*a))),
    "np.int64 count, ch04.ex2": ("ch04.ex2", lambda *a: np.int64(EXERCISES["ch04.ex2"].reference()(*a))),
    "np.int64 count, ch09.ex3": ("ch09.ex3", lambda *a: np.int64(EXERCISES["ch09.ex3"].reference()(*a))),
}


@pytest.mark.parametrize("name", sorted(RIGHT_BEFORE_REJECTED))
def test_right_values_in_other_types_are_accepted(name):
    key, answer = RIGHT_BEFORE_REJECTED[name]
    ok, message = run_checker(key, answer)
    assert ok, f"{name}: rejected ({message})"


@pytest.mark.parametrize("key", IDS)
def test_nan_and_inf_are_always_wrong(key):
    for bad in (NAN, float("inf"), np.float64("nan"), torch.tensor(float("nan"))):
        assert run_checker(key, bad)[0] is False
        assert run_checker(key, lambda *a, **k: bad)[0] is False


@pytest.mark.parametrize("key", IDS)
def test_checking_never_moves_the_callers_random_numbers(key):
    for answer in (EXERCISES[key].reference(), EXERCISES[key].wrong[0]()):
        torch.manual_seed(1234)
        np.random.seed(1234)
        expected = torch.rand(3), np.random.rand(3)
        torch.manual_seed(1234)
        np.random.seed(1234)
        run_checker(key, answer)
        assert torch.equal(torch.rand(3), expected[0]), f"{key} moved torch's global generator"
        assert np.array_equal(np.random.rand(3), expected[1]), f"{key} moved numpy's global generator"


FOLLOW_UPS = ("ch02.ex2b", "ch04.ex2b", "ch06.ex1b", "ch08.ex4b", "ch09.ex3b", "ch10.ex1b")


def test_every_follow_up_question_is_checked():
    for key in FOLLOW_UPS:
        assert key in EXERCISES and points(key) == 1
        assert run_checker(key, EXERCISES[key].reference())[0]
    assert normalise_id("CH2-EX2B") == "ch02.ex2b"


@pytest.mark.parametrize("key", sorted(HIDDEN))
def test_hidden_tests_pass_the_reference_at_any_seed_and_fail_wrong_answers(key):
    for seed in (0, 1, 2):
        earned, lines = grade(key, EXERCISES[key].reference(), seed=seed)
        assert earned == points(key), lines
    for make in EXERCISES[key].wrong:
        assert grade(key, make(), seed=0)[0] == 0


def test_hidden_tests_catch_answers_tuned_to_the_public_check():
    def special_ids_hard_coded(ids, mask_id, vocab_size, special_ids, generator):  # the public check's specials
        from seqviz.data import mask_tokens
        return mask_tokens(ids, mask_id, vocab_size, (0, 1, 2, 3, 4), 0.15, generator)

    assert run_checker("ch09.ex1", special_ids_hard_coded)[0]
    assert grade("ch09.ex1", special_ids_hard_coded, seed=0)[0] == 0

    def decoder_io_needs_a_target(target, bos, eos):
        return ([bos, *target], [*target, eos]) if target else ([], [])

    assert run_checker("ch05.ex2", decoder_io_needs_a_target)[0]
    assert grade("ch05.ex2", decoder_io_needs_a_target, seed=0)[0] == 0
