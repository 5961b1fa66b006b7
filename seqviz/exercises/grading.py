"""Hidden tests: what grading runs on a submitted answer, beyond the student's own ``check``.

``make grade`` (``scripts/grade.py``, on nbgrader) restores after every check cell of a
submission a locked grading cell that calls :func:`grade_cell`. It runs the public checker
again and then this module's hidden cases: other sizes and shapes (d_v != d_k, one-row
batches, float64), edge cases (an empty target, a window wider than the sequence), numpy
scalars and the ``generator`` argument. The cases are drawn from a fresh random seed at every
grading run, so reading this file does not let anyone hard-code an answer. NaN and infinities
are wrong everywhere (:func:`seqviz.exercises.registry.as_number`).

Points: 2 per exercise, 1 per follow-up question (an id with a letter, ``ch02.ex2b``); an
exercise earns its points when every test passes, and nothing otherwise.
"""

from __future__ import annotations

import contextlib
import io
import secrets
import textwrap
import warnings
from collections import Counter
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from ..measure import count_parameters
from .registry import (EXERCISES, Feedback, as_number, as_sequence, cell_cases, compare_tensors, keep_random_state,
                       run_checker)

HIDDEN: dict[str, Callable] = {}


def points(key: str) -> int:
    """The most an exercise earns: 2, or 1 for a follow-up question (``ch02.ex2b``)."""
    return 1 if key[-1].isalpha() else 2


def hidden(key: str):
    """Register ``test(answer, generator) -> (ok, message)`` as the hidden test of ``key``."""

    def register(test):
        HIDDEN[key] = test
        return test

    return register


def grade(key: str, answer, seed: int | None = None) -> tuple[float, list[str]]:
    """(points earned, feedback lines) for one answer: the public checker, then the hidden test."""
    if key not in EXERCISES:
        raise ValueError(f"unknown exercise {key!r}; known: {', '.join(sorted(EXERCISES))}")
    seed = secrets.randbits(32) if seed is None else seed
    ok, message = run_checker(key, answer)
    lines = [f"check: {message}"]
    if ok and key in HIDDEN:
        ok, message = _run_hidden(key, answer, seed)
        lines.append(f"hidden tests (seed {seed}): {message}")
    return (float(points(key)) if ok else 0.0), lines


def grade_cell(key: str, answer) -> float:
    """What a grading cell runs: print the feedback (stdout only) and return the points, shown as the result.

    nbgrader reads the cell's result as the points earned; warnings and anything the answer writes to
    stderr are kept out of the cell, because nbgrader gives zero to a cell with output on stderr.
    """
    captured = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stderr(captured), contextlib.redirect_stdout(captured):
        warnings.simplefilter("ignore")
        earned, lines = grade(key, answer)
    print(f"{key}: {earned:g} / {points(key)} point{'s' if points(key) > 1 else ''}")
    for line in lines:  # wrapped: a feedback page does not wrap long output lines
        print(textwrap.fill(line, width=100, initial_indent="  ", subsequent_indent="    "))
    return earned


def _run_hidden(key, answer, seed):
    generator = torch.Generator().manual_seed(seed)
    try:
        with keep_random_state():
            ok, message = HIDDEN[key](answer, generator)
    except Feedback as error:
        return False, str(error)
    except Exception as error:  # noqa: BLE001 - feedback, not a traceback
        return False, f"your answer raised {type(error).__name__}: {error}"
    return bool(ok), message


# -- helpers ---------------------------------------------------------------------------------------------


def _randint(generator, low, high) -> int:
    """An int in [low, high], drawn from ``generator``."""
    return int(torch.randint(low, high + 1, (), generator=generator))


def _same(got, expected, what, atol=1e-5, rtol=1e-4):
    """(ok, message) comparing numbers, tensors, lists or tuples of them with the reference."""
    if isinstance(expected, torch.Tensor):
        return compare_tensors(got, expected, what, atol=atol, rtol=rtol)
    if isinstance(expected, (list, tuple)):
        got = as_sequence(got, len(expected), what)
        for i, (g, e) in enumerate(zip(got, expected)):
            ok, message = _same(g, e, f"{what}[{i}]", atol, rtol)
            if not ok:
                return ok, message
        return True, f"{what} matches"
    if isinstance(expected, bool):
        ok = isinstance(got, (bool, np.bool_)) and bool(got) == expected
        return ok, f"{what} is {got!r}, expected {expected}"
    value = as_number(got, what)
    return abs(value - expected) <= atol + rtol * abs(expected), f"{what} is {value:.6g}, expected {expected:.6g}"


def _agree(answer, reference, cases, name, **tolerance):
    """Call answer and reference on each argument tuple; the first disagreement is the message."""
    for args in cases:
        expected = reference(*args)
        ok, message = _same(answer(*args), expected, f"{name}{_show(args)}", **tolerance)
        if not ok:
            return False, message
    return True, f"{len(cases)} further cases agree with the reference"


def _show(args):
    parts = [f"tensor{tuple(a.shape)}" if isinstance(a, torch.Tensor) else repr(a) for a in args]
    text = ", ".join(parts)
    return f"({text[:120]}{'...' if len(text) > 120 else ''})"


def _reference(key):
    return EXERCISES[key].reference()


# -- chapter 1 -------------------------------------------------------------------------------------------

_WORDS = "the dog bites man a god cat sat on mat".split()


@hidden("ch01.ex2")
def _same_bag(answer, g):
    cases = []
    for _ in range(40):
        a = [_WORDS[i] for i in torch.randint(len(_WORDS), (_randint(g, 1, 7),), generator=g)]
        kind = _randint(g, 0, 2)
        if kind == 0:  # a permutation: the same bag
            b = [a[i] for i in torch.randperm(len(a), generator=g)]
        elif kind == 1:  # one word replaced
            b = list(a)
            b[_randint(g, 0, len(b) - 1)] = _WORDS[_randint(g, 0, len(_WORDS) - 1)]
        else:  # one word repeated
            b = a + [a[0]]
        cases.append((" ".join(a), " ".join(b)))
    return _agree(answer, lambda a, b: Counter(a.split()) == Counter(b.split()), cases, "same_bag")


@hidden("ch01.ex3")
def _receptive_field(answer, g):
    cases = [(_randint(g, 1, 9), _randint(g, 1, 30)) for _ in range(20)] + [(np.int64(3), np.int64(5))]
    return _agree(answer, lambda k, n: 1 + int(n) * (int(k) - 1), cases, "receptive_field")


# -- chapter 2 -------------------------------------------------------------------------------------------


def _agrees_with_cell(answer, cell_type, name, sizes, g, where, squash_state=False):
    """(ok, message): ``answer(x, h, weight_ih, weight_hh, bias_ih, bias_hh)`` against ``cell_type`` on the
    :func:`~seqviz.exercises.registry.cell_cases` of ``sizes`` (``where`` says which, in the message of a pass)."""
    for (B, D, H, dtype), x, h, weights, expected in cell_cases(cell_type, sizes, g, squash_state=squash_state):
        with torch.no_grad():
            ok, message = _same(answer(x, h, *weights), expected, f"{name} with B={B}, D={D}, H={H}, {dtype}")
        if not ok:
            return ok, message
    return True, f"{name} agrees with nn.{cell_type.__name__} {where}"


@hidden("ch02.ex1")
def _rnn_step(answer, g):
    sizes = [(_randint(g, 1, 6), _randint(g, 1, 9), _randint(g, 1, 9), dtype) for dtype in (torch.float32,
                                                                                            torch.float64)]
    return _agrees_with_cell(answer, nn.RNNCell, "rnn_step", sizes, g, "in float32 and float64, at other sizes",
                             squash_state=True)


@hidden("ch02.ex2")
def _rnn_count(answer, g):
    cases = [(_randint(g, 1, 300), _randint(g, 1, 300)) for _ in range(10)]
    return _agree(answer, lambda i, h: count_parameters(nn.RNN(i, h)), cases, "rnn_parameters")


@hidden("ch02.ex4")
def _grad_w(answer, g):
    cases = [(float(torch.rand((), generator=g) * 2.4 - 1.2), torch.randn(_randint(g, 1, 12), generator=g).tolist())
             for _ in range(8)]
    reference = EXERCISES["ch02.ex4"].reference()
    return _agree(answer, reference, cases, "grad_w", atol=1e-6, rtol=1e-6)


# -- chapter 3 -------------------------------------------------------------------------------------------


@hidden("ch03.ex2")
def _closed_form(answer, g):
    cases = []
    for _ in range(3):
        B, H, T = _randint(g, 1, 4), _randint(g, 1, 6), _randint(g, 1, 12)
        w = torch.randn(H, H, generator=g, dtype=torch.float64) / H ** 0.5
        cases.append((w, torch.randn(B, H, generator=g, dtype=torch.float64), T))
    return _agree(answer, _reference("ch03.ex2"), cases, "closed_form_norms", atol=1e-8, rtol=1e-6)


@hidden("ch03.ex3")
def _jacobian(answer, g):
    cases = []
    for H in (1, _randint(g, 2, 9)):
        cases.append((torch.randn(H, H, generator=g, dtype=torch.float64), torch.rand(H, generator=g,
                                                                                      dtype=torch.float64) * 2 - 1))
    return _agree(answer, _reference("ch03.ex3"), cases, "step_jacobian", atol=1e-9, rtol=1e-7)


@hidden("ch03.ex4")
def _clip(answer, g):
    cases = []
    for scale in (0.01, 100.0):
        grads = [torch.randn(*shape, generator=g) * scale for shape in ((3,), (2, 5), (4, 1, 2))]
        cases.append((grads, float(torch.rand((), generator=g) + 0.5)))
    return _agree(answer, _reference("ch03.ex4"), cases, "clip_norm")


# -- chapter 4 -------------------------------------------------------------------------------------------


@hidden("ch04.ex1")
def _gru_step(answer, g):
    sizes = [(1, 1, 1, torch.float64), (_randint(g, 2, 9), _randint(g, 1, 9), 5, torch.float32)]
    return _agrees_with_cell(answer, nn.GRUCell, "gru_step", sizes, g, "for one unit in float64 and at another size")


@hidden("ch04.ex2")
def _gate_count(answer, g):
    from ..models import CELLS

    cases = [(kind, _randint(g, 1, 200), _randint(g, 1, 200)) for kind in CELLS for _ in range(2)]
    return _agree(answer, lambda k, i, h: count_parameters(CELLS[k].builtin(i, h)), cases, "n_params")


# -- chapter 5 -------------------------------------------------------------------------------------------


@hidden("ch05.ex1")
def _reverse(answer, g):
    cases = []
    for _ in range(3):
        B, T, D = _randint(g, 1, 5), _randint(g, 1, 8), _randint(g, 1, 3)
        cases.append((torch.randn(B, T, D, generator=g), torch.randint(1, T + 1, (B,), generator=g)))
    return _agree(answer, _reference("ch05.ex1"), cases, "reverse_within_length")


@hidden("ch05.ex2")
def _decoder_io(answer, g):
    cases = [([], 1, 2), (torch.randint(3, 50, (_randint(g, 1, 20),), generator=g).tolist(), 0, 1)]
    return _agree(answer, _reference("ch05.ex2"), cases, "decoder_io")


@hidden("ch05.ex3")
def _summary(answer, g):
    cases = []
    for _ in range(2):
        B, T, H = _randint(g, 1, 5), _randint(g, 1, 7), _randint(g, 1, 4)
        cases.append((torch.randn(B, T, 2 * H, generator=g), torch.randint(1, T + 1, (B,), generator=g), H))
    return _agree(answer, _reference("ch05.ex3"), cases, "summary")


# -- chapter 6 -------------------------------------------------------------------------------------------


@hidden("ch06.ex1")
def _score(answer, g):
    cases = [(float(-torch.rand((), generator=g) * 20), _randint(g, 1, 40), float(torch.rand((), generator=g) * 2))
             for _ in range(8)]
    cases.append((np.float64(-3.0), np.int64(6), np.float32(0.5)))
    return _agree(answer, lambda lp, n, a: float(lp) / float(n) ** float(a), cases, "score", atol=1e-6)


@hidden("ch06.ex2")
def _beam_step(answer, g):
    for k, V, beam in ((1, 3, 3), (_randint(g, 2, 4), 5, 7)):
        live = -torch.rand(k, generator=g) * 3
        nxt = torch.randn(k, V, generator=g).log_softmax(-1)
        got = as_sequence(answer(live, nxt, beam), 3, "beam_step's result")
        parents, tokens, totals = (torch.as_tensor(t) for t in got)
        expected = _reference("ch06.ex2")(live, nxt, beam)[2]
        if totals.shape != expected.shape or not torch.allclose(totals.float(), expected, atol=1e-5):
            return False, f"with k={k}, V={V}, beam_size={beam} the totals are not the best {beam}, best first."
        if not torch.allclose(live[parents.long()] + nxt[parents.long(), tokens.long()], expected, atol=1e-5):
            return False, f"with k={k}, V={V}, beam_size={beam} parents and tokens do not give those totals."
    return True, "beam_step keeps the best candidates, best first, with one prefix and with beam_size > V"


@hidden("ch06.ex3")
def _log_prob(answer, g):
    probs = torch.rand(5000, generator=g) * 0.9 + 1e-30  # (5000,) float32, some tiny
    return _agree(answer, lambda p: float(torch.log(p.double()).sum()), [(probs,)], "sequence_log_prob",
                  atol=1e-3, rtol=1e-5)


# -- chapter 7 -------------------------------------------------------------------------------------------


@hidden("ch07.ex1")
def _additive(answer, g):
    from ..models.attention import AdditiveAttention, padding_mask

    B, S, Hq, Hk, A = _randint(g, 1, 4), _randint(g, 1, 6), _randint(g, 1, 5), _randint(g, 1, 5), _randint(g, 1, 6)
    att = AdditiveAttention(Hq, Hk, A)
    query, keys = torch.randn(B, Hq, generator=g), torch.randn(B, S, Hk, generator=g)
    mask = padding_mask(torch.randint(1, S + 1, (B,), generator=g), S)
    with torch.no_grad():
        _, expected = att(query, keys, mask)
        got = answer(query, keys, mask, att.query_proj.weight, att.key_proj.weight, att.key_proj.bias, att.v.weight[0])
    return _same(got, expected, f"additive_weights with B={B}, S={S}, Hq={Hq}, Hk={Hk}, A={A}")


@hidden("ch07.ex2")
def _context(answer, g):
    B, S, H = _randint(g, 1, 4), _randint(g, 1, 6), _randint(g, 1, 5)
    case = (torch.randn(B, S, generator=g).softmax(-1), torch.randn(B, S, H, generator=g))
    return _agree(answer, _reference("ch07.ex2"), [case], "context")


@hidden("ch07.ex3")
def _attention_count(answer, g):
    from ..models.attention import AdditiveAttention

    cases = [(_randint(g, 1, 100), _randint(g, 1, 100), _randint(g, 1, 100)) for _ in range(4)]
    return _agree(answer, lambda q, k, a: count_parameters(AdditiveAttention(q, k, a)), cases,
                  "attention_parameters")


# -- chapter 8 -------------------------------------------------------------------------------------------


@hidden("ch08.ex1")
def _attention(answer, g):
    from ..models.mha import scaled_dot_product_attention

    for dtype in (torch.float64, torch.float32):
        B, Tq, Tk, d_k, d_v = _randint(g, 1, 3), _randint(g, 1, 6), _randint(g, 2, 6), _randint(g, 2, 9), 0
        while d_v in (0, d_k):
            d_v = _randint(g, 1, 9)  # d_v != d_k: scaling by sqrt(d_v) is caught
        q, k = torch.randn(B, Tq, d_k, generator=g, dtype=dtype), torch.randn(B, Tk, d_k, generator=g, dtype=dtype)
        v = torch.randn(B, Tk, d_v, generator=g, dtype=dtype)
        mask = torch.rand(B, Tq, Tk, generator=g) < 0.7
        mask[..., 0] = True  # every query sees at least one key
        expected = scaled_dot_product_attention(q, k, v, mask)
        ok, message = _same(answer(q, k, v, mask), expected, f"attention with Tq={Tq}, Tk={Tk}, d_k={d_k}, d_v={d_v}")
        if not ok:
            return ok, message
    return True, "attention agrees with a random mask, Tq != Tk and d_v != d_k, in float64 and float32"


@hidden("ch08.ex2")
def _window(answer, g):
    for T, w in ((1, 0), (_randint(g, 2, 12), _randint(g, 0, 4)), (3, 7)):
        got, expected = answer(T, w), _reference("ch08.ex2")(T, w)
        if not isinstance(got, torch.Tensor) or got.shape != expected.shape or not torch.equal(got.bool(), expected):
            return False, f"sliding_window_mask({T}, {w}) differs from |i - j| <= window."
    return True, "the window mask is right for T = 1, a window of 0 and a window wider than the sequence"


@hidden("ch08.ex3")
def _sinusoidal(answer, g):
    from ..models.mha import positional_encoding

    for P, d in ((1, 2), (_randint(g, 2, 80), 2 * _randint(g, 1, 32))):
        got = answer(P, d)
        ok, message = _same(got.float() if isinstance(got, torch.Tensor) else got, positional_encoding(P, d),
                            f"sinusoidal({P}, {d})", atol=1e-4)
        if not ok:
            return ok, message
    return True, "the table is right for one position and at another size"


@hidden("ch08.ex4")
def _bytes(answer, g):
    cases = [(_randint(g, 1, 64), _randint(g, 1, 32), _randint(g, 1, 100_000)) for _ in range(5)]
    return _agree(answer, lambda B, h, n: B * h * n * n * 4, cases, "attention_bytes", atol=0.5, rtol=0)


# -- chapter 9 -------------------------------------------------------------------------------------------


@hidden("ch09.ex1")
def _masking(answer, g):
    vocab_size, mask_id, special_ids = 30, 9, (0, 1, 2, 3, 9)  # other ids than the public check's
    ids = torch.randint(0, vocab_size, (300, 400), generator=g)
    seed = _randint(g, 0, 2**31 - 1)
    inputs, labels = as_sequence(answer(ids.clone(), mask_id, vocab_size, special_ids,
                                        torch.Generator().manual_seed(seed)), 2, "your result (inputs, labels)")
    special = torch.isin(ids, torch.tensor(special_ids))
    chosen = labels != -100
    if bool(chosen[special].any()) or bool((labels[chosen] != ids[chosen]).any()):
        return False, f"with special_ids={special_ids} a special token was chosen, or a label is not the original id."
    if bool((inputs[~chosen] != ids[~chosen]).any()):
        return False, "a position that was not chosen changed."
    rate = chosen[~special].float().mean().item()
    masked = (inputs[chosen] == mask_id).float().mean().item()
    if abs(rate - 0.15) > 0.01 or abs(masked - 0.8) > 0.02:
        return False, f"with mask_id={mask_id}: {rate:.1%} chosen and {masked:.1%} of those masked (15% and 80%)."
    replaced = inputs[chosen & (inputs != mask_id) & (inputs != ids)]
    if bool(torch.isin(replaced, torch.tensor(special_ids)).any()):
        return False, "a random replacement was a special token."
    torch.manual_seed(seed + 1)  # moving the global generator must change nothing
    again = answer(ids.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(seed))
    if not all(torch.equal(a, b) for a, b in zip((inputs, labels), again)):
        return False, "the same generator seed gave another masking: every draw must come from the generator argument."
    return True, "the rule holds with other special ids and mask id, and the generator alone decides"


@hidden("ch09.ex2")
def _segments(answer, g):
    from ..data.bert_data import CLS, PAD, SEP, segment_ids_for

    cases = []
    for _ in range(6):
        a, b, pads = _randint(g, 1, 5), _randint(g, 0, 5), _randint(g, 0, 3)
        tokens = [CLS] + ["w"] * a + [SEP] + (["v"] * b + [SEP] if b else []) + [PAD] * pads
        cases.append((tokens,))
    return _agree(answer, lambda t: segment_ids_for(t), cases, "segment_ids")


@hidden("ch09.ex3")
def _bert_count(answer, g):
    from ..models.bert import BertMini

    def count(V, d, L, P, f):
        return count_parameters(BertMini(V, d, L, 2, P, f))

    cases = [(_randint(g, 10, 500), 2 * _randint(g, 1, 16), _randint(g, 1, 3), _randint(g, 4, 64),
              _randint(g, 4, 64)) for _ in range(2)]
    return _agree(answer, count, cases, "bert_parameters", atol=0.5, rtol=0)


# -- chapter 10 ------------------------------------------------------------------------------------------


@hidden("ch10.ex1")
def _cache(answer, g):
    for _ in range(4):
        L, h, hs, n = _randint(g, 1, 48), _randint(g, 1, 64), _randint(g, 1, 256), _randint(g, 1, 10**5)
        B, b = _randint(g, 1, 16), _randint(g, 1, 4)
        expected = 2 * L * B * h * hs * n * b
        ok, message = _same(answer(L, h, hs, n, batch=B, bytes_per_value=b), expected,
                            f"kv_cache_bytes({L}, {h}, {hs}, {n}, batch={B}, bytes_per_value={b})", atol=0.5, rtol=0)
        if not ok:
            return ok, message
    return True, "the cache size is right at other sizes, with batch and bytes_per_value given by keyword"


@hidden("ch10.ex2")
def _persistence(answer, g):
    cases = []
    for m, length in ((1, 1), (_randint(g, 2, 40), _randint(g, 2, 20))):
        x = torch.randn(m, length, 1, generator=g).cumsum(1)
        cases.append((x, x[:, -1] + torch.randn(m, 1, generator=g)))
    return _agree(answer, lambda x, y: float((x[:, -1] - y).pow(2).mean()), cases, "persistence_mse")


@hidden("ch10.ex3")
def _products(answer, g):
    cases = [(n, cache) for n in (_randint(g, 3, 300), _randint(g, 3, 300)) for cache in (True, False)]
    return _agree(answer, _reference("ch10.ex3"), cases, "query_key_products", atol=0.5, rtol=0)
