"""The evaluator (instructor/grader/evaluator.py) and the judge, without a kernel: every exercise's reference
answer, sent through a real evaluator process with its exercise's tripwires on, earns full points; an answer
that calls the library function its exercise re-implements earns nothing, whether the call is seen in its
source or only when it runs; the book's own solutions name no forbidden function."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import cloudpickle
import pytest
import torch

import instructor.exercises as material
from instructor.exercises import SOLUTIONS
from instructor.grader import evaluator as evaluator_module
from instructor.grader.judge import forbidden_names_in, judge, points
from instructor.grader.remote import Evaluator, EvaluatorFailed

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[1]
sys.modules.setdefault("test_evaluator_cheats", sys.modules[__name__])


def _pe(P, d):
    import seqviz.models

    return seqviz.models.positional_encoding(P, d)


def _clip(grads, max_norm):
    params = [torch.nn.Parameter(g.clone()) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    return [p.grad for p in params]


def _clip_by_norm(grads, max_norm):
    import seqviz.gradients

    return seqviz.gradients.clip_by_norm(grads, max_norm)[0]


def _reverse(x, lengths):
    from seqviz.models.seq2seq import reverse_padded

    return reverse_padded(x, lengths)


def _bigram(train, test, V):
    from seqviz.experiments.language import ngram_perplexity

    return ngram_perplexity(torch.tensor(train), torch.tensor(test), V)


def _attention(q, k, v, mask=None):
    from seqviz.models import scaled_dot_product_attention as sdpa  # an alias does not help

    return sdpa(q, k, v, mask)


def _grad_w(w, xs):
    w_t = torch.tensor(float(w), dtype=torch.float64, requires_grad=True)
    h = torch.zeros((), dtype=torch.float64)
    for x in xs:
        h = w_t * h + float(x)
    h.backward()
    return w_t.grad.item()


def _mask(ids, mask_id, vocab_size, special_ids, generator):
    from seqviz.data import mask_tokens

    return mask_tokens(ids, mask_id, vocab_size, special_ids, 0.15, generator)


def _rnn_count(i, h):
    return sum(p.numel() for p in torch.nn.RNN(i, h).parameters())


def _sample(logits, temperature, u):
    from seqviz.sampling import choose, distribution

    return choose(distribution(logits, temperature), u)


CHEATS = {"ch08.ex3": _pe, "ch03.ex4": _clip, "ch08.ex1": _attention, "ch02.ex4": _grad_w, "ch09.ex1": _mask,
          "ch02.ex2": _rnn_count, "ch04b.ex2": _sample, "ch05.ex1": _reverse, "ch04b.ex3": _bigram}
CHEATS_TOO = {"ch03.ex4": _clip_by_norm}  # a second library function for the same exercise


@pytest.fixture(scope="module")
def evaluator(tmp_path_factory):
    folder = tmp_path_factory.mktemp("answers")
    for module in [sys.modules[__name__], *(sys.modules[f"instructor.exercises.{c}"] for c in material.CHAPTERS)]:
        cloudpickle.register_pickle_by_value(module)  # the references travel by value, as a student's code does
    for key, solution in SOLUTIONS.items():
        (folder / f"{key}.pkl").write_bytes(cloudpickle.dumps(solution.reference()))
    for key, cheat in CHEATS.items():
        (folder / f"cheat-{key}.pkl").write_bytes(cloudpickle.dumps(cheat))
    for key, cheat in CHEATS_TOO.items():
        (folder / f"cheat2-{key}.pkl").write_bytes(cloudpickle.dumps(cheat))
    (folder / "spins.pkl").write_bytes(cloudpickle.dumps(lambda *a: [None for _ in iter(int, 1)]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    running = Evaluator(folder, [], env, call_timeout=30)
    yield running
    running.close()


def test_every_forbidden_name_exists_in_the_library():
    for key, solution in SOLUTIONS.items():
        for name in solution.tripwires:
            assert evaluator_module.resolve(name) is not None, f"{key}: {name} resolves to nothing"


@pytest.mark.parametrize("key", sorted(SOLUTIONS))
def test_each_reference_earns_full_points_through_the_evaluator_with_its_tripwires(evaluator, key):
    evaluator.tripped = set()
    try:
        answer = evaluator.load(key, SOLUTIONS[key].tripwires)
        earned, lines = judge(key, answer, seed=3, tripped=evaluator.tripped)
    finally:
        evaluator.finish()
    assert earned == points(key), lines


@pytest.mark.parametrize("key,name", [(k, f"cheat-{k}") for k in sorted(CHEATS)] +
                         [(k, f"cheat2-{k}") for k in sorted(CHEATS_TOO)])
def test_calling_the_library_function_earns_nothing_even_unseen(evaluator, key, name):
    evaluator.tripped = set()
    try:
        answer = evaluator.load(key, SOLUTIONS[key].tripwires, name=name)
        earned, lines = judge(key, answer, seed=3, tripped=evaluator.tripped)
    finally:
        evaluator.finish()
    assert earned == 0 and evaluator.tripped & set(SOLUTIONS[key].forbidden), lines
    assert any("asks you to write yourself" in line for line in lines), lines


def test_a_function_that_never_returns_is_stopped_and_the_next_exercise_is_graded(evaluator):
    spins = evaluator.load("spins", ())
    evaluator.call_timeout = 3
    try:
        with pytest.raises(EvaluatorFailed, match="time limit"):
            spins(1)
    finally:
        evaluator.call_timeout = 30
    answer = evaluator.load("ch01.ex3", ())  # a fresh evaluator process
    assert judge("ch01.ex3", answer, seed=0)[0] == 2
    evaluator.finish()


def _solution_cells(path: Path) -> dict[str, str]:
    import re

    found, label = {}, ""
    for cell in json.loads(path.read_text())["cells"]:
        text = "".join(cell["source"])
        gate = re.search(r"\{solution-start\}\s*(ch\d\d[a-z]?-ex\d+)", text)
        if cell["cell_type"] == "markdown" and gate:
            label = gate[1].replace("-", ".")
        if "solution" in cell.get("metadata", {}).get("tags", []):
            found[label] = found.get(label, "") + text + "\n"
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_the_books_solutions_name_no_forbidden_function(path):
    for label, code in _solution_cells(path).items():
        for key in (k for k in SOLUTIONS if k == label or k.startswith(label) and k[len(label):].isalpha()):
            assert forbidden_names_in(code, SOLUTIONS[key].forbidden) == [], (key, code)


def test_the_source_scan_sees_imports_aliases_and_paths_but_not_comments_or_other_words():
    forbidden = ("torch.nn.utils.clip_grad_norm_", "torch.autograd.grad", "torch.nn.RNN.__init__")
    assert forbidden_names_in("from torch.nn.utils import clip_grad_norm_ as shrink", forbidden) == \
        ["torch.nn.utils.clip_grad_norm_"]
    assert forbidden_names_in("g = torch.autograd.grad(y, x)", forbidden) == ["torch.autograd.grad"]
    assert forbidden_names_in("m = nn.RNN(3, 4)", forbidden) == ["torch.nn.RNN.__init__"]
    assert forbidden_names_in("# clip_grad_norm_ would do it\ngrad = 1\ns = 'torch.autograd.grad'", forbidden) == []
    assert forbidden_names_in("%timeit f()\nclip_grad_norm_(p, 1)", forbidden) == ["torch.nn.utils.clip_grad_norm_"]
