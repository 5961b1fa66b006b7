"""Every checker accepts its reference answer and rejects each registered wrong answer with the hint written for
that mistake; junk, NaN and absurd answers get feedback about the answer (never the checker's own crash); the
shipped expected values are what the references give; no reference or hidden test is in the package."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
import torch

import seqviz.exercises as exercises
from seqviz.exercises import CHAPTERS, EXERCISES, check, normalise_id, run_checker
from seqviz.exercises.expected import HERE

from instructor.exercises import SOLUTIONS
from instructor.probe_checkers import ABSURD, FALSE_ACCEPTS, other_containers
from instructor.record_expected import record

IDS = sorted(EXERCISES)
ROOT = Path(__file__).resolve().parents[1]


def grade(key, answer, seed=0):
    """The hidden test of ``key`` on ``answer``, called directly (the grader calls it through a sandbox)."""
    from instructor.grader.judge import run_hidden

    return run_hidden(key, answer, seed)


def test_every_chapter_has_at_least_three_exercises_and_every_exercise_a_solution():
    chapters = {}
    for key in EXERCISES:
        chapters.setdefault(key.split(".")[0], []).append(key)
    assert set(chapters) == set(CHAPTERS) and len(chapters) >= 11
    for chapter, keys in chapters.items():
        assert len(keys) >= 3, f"{chapter} has {len(keys)} exercises"
    assert set(SOLUTIONS) == set(EXERCISES), "every exercise has its instructor's solution, and only those"


@pytest.mark.parametrize("key", IDS)
def test_reference_is_accepted(key, capsys):
    ok, message = run_checker(key, SOLUTIONS[key].reference())
    assert ok, f"{key}: the reference answer was rejected: {message}"
    verdict = check(key, SOLUTIONS[key].reference())
    assert verdict and verdict.ok is True
    out = capsys.readouterr().out
    assert "Correct" in out
    feedback = out.split("Correct!", 1)[1].strip()
    assert not feedback[:1].islower() or not feedback.split()[0].isalpha(), f"{key}: feedback starts in lower case: {out}"


@pytest.mark.parametrize("key", IDS)
def test_each_wrong_answer_gets_the_hint_written_for_it(key):
    wrong = SOLUTIONS[key].wrong
    assert len(wrong) >= 2, f"{key} lists {len(wrong)} wrong answers; at least 2 are needed"
    for name, (make, words) in wrong.items():
        ok, message = run_checker(key, make())
        assert not ok, f"{key}: the wrong answer '{name}' was accepted"
        assert words in message, f"{key}, '{name}': the feedback does not name the mistake ({words!r}): {message}"


def test_the_hint_names_the_mistake_not_another():
    """A wrong softmax axis is not told to divide by sqrt(d_k) (it did)."""
    make, _ = SOLUTIONS["ch08.ex1"].wrong["softmax over the queries"]
    ok, message = run_checker("ch08.ex1", make())
    assert not ok and "sqrt(d_k)" not in message and "dim=-1" in message


@pytest.mark.parametrize("key", IDS)
def test_junk_and_absurd_answers_give_feedback_about_the_answer(key):
    for junk in (None, ..., "nonsense", 3.5, [1, 2], lambda *a, **k: 1 / 0, *ABSURD):
        ok, message = run_checker(key, junk)
        assert ok is False and isinstance(message, str) and message
        assert "Checking your answer raised" not in message and "could not make sense" not in message, message


def test_an_absurd_number_is_explained():
    ok, message = run_checker("ch01.ex1", 10**400)
    assert not ok and "too large to be a whole number of word orders" in message
    ok, message = run_checker("ch01.ex3", lambda k, n: 1 / 0)
    assert not ok and message.startswith("Your function raised ZeroDivisionError")


@pytest.mark.parametrize("name", sorted(FALSE_ACCEPTS))
def test_wrong_answers_once_accepted_are_rejected(name):
    ok, message = run_checker(name, FALSE_ACCEPTS[name])
    assert not ok, f"{name}: accepted ({message})"


@pytest.mark.parametrize("key", IDS)
def test_the_right_value_in_a_list_or_numpy_array_is_accepted(key):
    for container, answer in other_containers(key).items():
        ok, message = run_checker(key, answer)
        assert ok, f"{key} as {container}: rejected ({message})"


@pytest.mark.parametrize("key", IDS)
def test_nan_and_inf_are_always_wrong(key):
    for bad in (math.nan, math.inf, np.float64("nan"), torch.tensor(math.nan)):
        assert run_checker(key, bad)[0] is False
        assert run_checker(key, lambda *a, **k: bad)[0] is False


@pytest.mark.parametrize("key", IDS)
def test_checking_never_moves_the_callers_random_numbers(key):
    wrong = next(iter(SOLUTIONS[key].wrong.values()))[0]
    for answer in (SOLUTIONS[key].reference(), wrong()):
        torch.manual_seed(1234)
        np.random.seed(1234)
        expected = torch.rand(3), np.random.rand(3)
        torch.manual_seed(1234)
        np.random.seed(1234)
        run_checker(key, answer)
        assert torch.equal(torch.rand(3), expected[0]), f"{key} moved torch's global generator"
        assert np.array_equal(np.random.rand(3), expected[1]), f"{key} moved numpy's global generator"


def test_a_verdict_is_true_or_false_and_draws_nothing_after_the_feedback(capsys):
    from seqviz.exercises.registry import Verdict, _sentence_case

    right, wrong_one = check("ch01.ex1", SOLUTIONS["ch01.ex1"].reference()), check("ch01.ex1", -1)
    assert bool(right) is True and bool(wrong_one) is False and right == True and wrong_one == False
    assert right == Verdict(True) and right != wrong_one and repr(wrong_one) == "Verdict(ok=False)"
    # the notebook shows nothing for a cell ending in check(...): IPython's formatter defers to this hook
    assert right._ipython_display_() is None
    from IPython.core.formatters import DisplayFormatter

    assert DisplayFormatter().format(right) == ({}, {})
    assert _sentence_case("your formula matches") == "Your formula matches"
    assert _sentence_case("none: W_ih is reused") == "None: W_ih is reused"
    for code_first in ("rnn_step equals torch.nn.RNNCell", "log(rho) = -0.08", "h_4 = 0.5"):
        assert _sentence_case(code_first) == code_first


def test_ids_are_normalised_and_unknown_ids_are_clear_errors():
    assert normalise_id("ch1-ex2") == normalise_id("CH01.EX2") == "ch01.ex2"
    assert normalise_id("CH2-EX2B") == "ch02.ex2b" and normalise_id("ch9b.ex1") == "ch09b.ex1"
    with pytest.raises(ValueError, match="unknown exercise 'ch01.ex99'; known: ch01.ex1"):
        check("ch01.ex99", 1)
    with pytest.raises(ValueError, match="look like 'ch03.ex2'"):
        check("exercise one", 1)


@pytest.mark.parametrize("key", sorted(k for k in SOLUTIONS if SOLUTIONS[k].hidden))
def test_hidden_tests_pass_the_reference_at_any_seed_and_fail_wrong_answers(key):
    for seed in (0, 1, 2):
        ok, message = grade(key, SOLUTIONS[key].reference(), seed)
        assert ok, message
    for name, (make, _) in SOLUTIONS[key].wrong.items():
        assert not grade(key, make(), seed=0)[0], f"{key}: the hidden test passed the wrong answer '{name}'"


def test_hidden_tests_catch_answers_tuned_to_the_public_check():
    def special_ids_hard_coded(ids, mask_id, vocab_size, special_ids, generator):  # the public check's specials
        return SOLUTIONS["ch09.ex1"].reference()(ids, mask_id, vocab_size, (0, 1, 2, 3, 4), generator)

    assert run_checker("ch09.ex1", special_ids_hard_coded)[0]
    assert not grade("ch09.ex1", special_ids_hard_coded)[0]

    def decoder_io_needs_a_target(target, bos, eos):
        return ([bos, *target], [*target, eos]) if target else ([], [])

    assert run_checker("ch05.ex2", decoder_io_needs_a_target)[0]
    assert not grade("ch05.ex2", decoder_io_needs_a_target)[0]


def test_the_shipped_expected_values_are_what_the_references_give():
    recorded = record()
    for chapter in CHAPTERS:
        shipped = json.loads((HERE / f"{chapter}.json").read_text())
        assert set(shipped) == set(recorded.get(chapter, {})), f"{chapter}: run python instructor/record_expected.py"
        for key, value in shipped.items():
            assert _close(value, recorded[chapter][key]), f"{chapter} {key}: run python instructor/record_expected.py"


def _close(a, b):
    if isinstance(a, dict) and isinstance(b, dict) and "data" in a and "data" in b:
        x, y = np.array(a["data"], dtype=float), np.array(b["data"], dtype=float)
        # float32 results of a matrix product differ by a few units in the last place from one CPU to another (the
        # kernel that sums them depends on the instruction set: 2.4e-7 seen on values near 0.1): 8 ulps of slack
        rtol, atol = (1e-6, 1e-9) if a.get("tensor") != "float32" else (8 * 2.0 ** -23, 8 * 2.0 ** -23)
        return a.get("shape") == b.get("shape") and x.shape == y.shape and np.allclose(x, y, rtol=rtol, atol=atol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def test_the_package_holds_no_reference_answer_and_no_hidden_test():
    """The reference answers and hidden tests are the instructor's: nothing a student's code could call."""
    package = Path(exercises.__file__).parent
    text = "\n".join(p.read_text() for p in package.glob("*.py"))
    for word in ("hidden_test", "HIDDEN:", "reference=", "_reference(", "def _formula", "def _longest"):
        assert word not in text, f"{word!r} is in seqviz/exercises"
    assert not any(hasattr(e, "reference") or hasattr(e, "wrong") for e in EXERCISES.values())
    assert "instructor" not in (ROOT / "pyproject.toml").read_text().split("[tool.setuptools.packages.find]")[1] \
        .split("\n\n")[0]


def test_the_conceptual_question_of_contributing_md_works_as_written():
    """CONTRIBUTING.md's worked example (a choice, predict then run), run as printed under a spare id."""
    import re

    from seqviz.exercises.expected import Expected, use_source
    from seqviz.exercises.registry import as_choice, exercise

    import instructor.exercises as material
    from instructor.exercises import Source
    from instructor.grader.judge import judge

    text = (ROOT / "CONTRIBUTING.md").read_text().split("**A conceptual question**")[1]
    checker_code, solution_code = re.findall(r"```python\n(.*?)```", text, re.DOTALL)[:2]
    spare = lambda code: code.replace("ch08.ex9", "ch99.ex4").replace('"ch08"', '"ch99"')  # noqa: E731
    exec(spare(checker_code), {"exercise": exercise, "as_choice": as_choice, "EXPECTED": Expected("ch99")})
    exec(spare(solution_code), {"values": material.values, "solution": material.solution})
    try:
        with use_source(Source()):
            assert run_checker("ch99.ex4", "a")[0] and run_checker("ch99.ex4", "A) every row sums to 1")[0]
            for name, (make, words) in SOLUTIONS["ch99.ex4"].wrong.items():
                ok, message = run_checker("ch99.ex4", make())
                assert not ok and words in message, (name, message)
            assert "is not one of" in run_checker("ch99.ex4", "d")[1]
        assert judge("ch99.ex4", "a", seed=0)[0] == 2 and judge("ch99.ex4", "b", seed=0)[0] == 0
    finally:
        EXERCISES.pop("ch99.ex4", None)
        SOLUTIONS.pop("ch99.ex4", None)
        material.VALUES.pop(("ch99", "attention_sums"), None)


def test_feedback_is_wrapped_to_the_output_width_and_keeps_every_word():
    from seqviz.exercises.registry import FEEDBACK_COLUMNS, wrap_feedback

    english = ("❌ Not yet. Your rnn_step returns a tensor of shape (3, 5), but the next step expects the new hidden "
               "state h_t with shape (3, 8): multiply W_hh by h_prev, not by x_t, and add both biases before the tanh.")
    chinese = ("❌ 还不对。你的 rnn_step 返回的张量形状是 (3, 5)，但下一步需要形状为 (3, 8) 的新隐状态 h_t："
               "应当用 W_hh 乘 h_prev 而不是 x_t，并在 tanh 之前加上两个偏置。" * 2)
    for text in (english, chinese, "short\nsecond paragraph"):
        wrapped = wrap_feedback(text)
        widths = [sum(2 if __import__("unicodedata").east_asian_width(c) in "WF" else 1 for c in line)
                  for line in wrapped.splitlines()]
        assert max(widths) <= FEEDBACK_COLUMNS, (max(widths), wrapped)
        assert "".join(wrapped.split()) == "".join(text.split()), "a character was lost or added"
        assert not any(line != line.strip() for line in wrapped.splitlines())
    assert wrap_feedback(english).count("\n") >= 2
    assert "rnn_step" in wrap_feedback(chinese).replace("\n", "|")   # a Latin word is never cut
    assert wrap_feedback("short\nsecond paragraph") == "short\nsecond paragraph"
