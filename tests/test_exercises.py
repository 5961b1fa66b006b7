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
