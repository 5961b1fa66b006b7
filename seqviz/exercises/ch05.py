"""Exercises of chapter 05, bidirectional RNNs and the encoder-decoder (registered on import).

- ch05.ex1: reverse each padded sequence within its length (what the backward RNN reads);
- ch05.ex2: the decoder's input and output for teacher forcing (shift by one, bos and eos);
- ch05.ex3: the summary vector of a bidirectional encoder on a padded batch.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import torch

from .hidden import agree, hidden_test, randint
from .registry import Feedback, as_number, as_sequence, compare_tensors, exercise

# -- ex1: reversing within the length -----------------------------------------------------------


def _reverse_reference(x, lengths):
    out = x.clone()
    for b, n in enumerate(lengths.tolist()):
        out[b, :n] = x[b, :n].flip(0)
    return out  # (B, T, ...)


@exercise("ch05.ex1", "What the backward RNN reads", reference=lambda: _reverse_reference,
          wrong=[lambda: (lambda x, lengths: x.flip(1)), lambda: (lambda x, lengths: x.clone())])
def check_reverse(answer):
    if not callable(answer):
        return False, "answer should be your function reverse_within_length(x, lengths)."
    g = torch.Generator().manual_seed(5)
    for B, T, D in ((3, 6, 2), (1, 4, 1), (5, 7, 3)):
        x = torch.randn(B, T, D, generator=g)
        lengths = torch.randint(1, T + 1, (B,), generator=g)
        lengths[0] = T if B > 1 else lengths[0]
        ok, message = compare_tensors(answer(x, lengths), _reverse_reference(x, lengths), f"the reversed batch ({B}, {T}, {D})")
        if not ok:
            got = answer(x, lengths)
            if isinstance(got, torch.Tensor) and got.shape == x.shape and torch.allclose(got, x.flip(1)):
                message += " You flipped the padding too: the backward RNN would start on pads. Flip only the first lengths[b] steps."
            return False, message
    return True, "the real tokens are reversed and the padding stays at the end, so the backward RNN starts at the last real word."


@hidden_test("ch05.ex1")
def _hidden_reverse(answer, g):
    cases = []
    for _ in range(3):
        B, T, D = randint(g, 1, 5), randint(g, 1, 8), randint(g, 1, 3)
        cases.append((torch.randn(B, T, D, generator=g), torch.randint(1, T + 1, (B,), generator=g)))
    return agree(answer, _reverse_reference, cases, "reverse_within_length")


# -- ex2: teacher forcing input and output ------------------------------------------------------


def _token_ids(tokens) -> list:
    """A list, tuple or 1-D tensor of token ids as a list of ints (Feedback otherwise)."""
    if isinstance(tokens, torch.Tensor):
        tokens = tokens.tolist()
    if not isinstance(tokens, (list, tuple)):
        raise Feedback(f"decoder_in and decoder_out should be lists of token ids, got {type(tokens).__name__}.")
    ids = [as_number(t, "a token id") for t in tokens]
    if any(i != int(i) for i in ids):
        raise Feedback(f"token ids are whole numbers, got {ids}.")
    return [int(i) for i in ids]


def _shift_reference(target, bos, eos):
    return [bos, *target], [*target, eos]


@exercise("ch05.ex2", "Feeding the decoder", reference=lambda: _shift_reference,
          wrong=[lambda: (lambda t, bos, eos: ([*t, eos], [bos, *t])),
                 lambda: (lambda t, bos, eos: ([bos, *t, eos], [bos, *t, eos]))])
def check_shift(answer):
    if not callable(answer):
        return False, "answer should be your function decoder_io(target, bos, eos) returning (decoder_in, decoder_out)."
    for target, bos, eos in (([7, 4, 9], 2, 3), ([5], 2, 3), ([11, 12, 13, 14, 15], 0, 1)):
        got = as_sequence(answer(list(target), bos, eos), 2, "decoder_io's result (decoder_in, decoder_out)")
        got_in, got_out = (_token_ids(g) for g in got)
        exp_in, exp_out = _shift_reference(target, bos, eos)
        if (got_in, got_out) != (exp_in, exp_out):
            hint = ""
            if (got_in, got_out) == (exp_out, exp_in):
                hint = " The two are swapped: the decoder reads bos first and must predict eos last."
            elif len(got_in) != len(got_out):
                hint = " Input and output must have the same length: at step u the decoder reads in[u] and predicts out[u]."
            return False, f"for target {target} you give in={got_in}, out={got_out}.{hint}"
    return True, "at every step the decoder reads the previous gold token and predicts the next: teacher forcing."


@hidden_test("ch05.ex2")
def _hidden_decoder_io(answer, g):
    cases = [([], 1, 2), (torch.randint(3, 50, (randint(g, 1, 20),), generator=g).tolist(), 0, 1)]
    return agree(answer, _shift_reference, cases, "decoder_io")


# -- ex3: the summary of a bidirectional encoder --------------------------------------------------


def _summary_reference(out, lengths, hidden_size):
    forward = out[torch.arange(out.shape[0]), lengths - 1, :hidden_size]  # (B, H): last real token
    backward = out[:, 0, hidden_size:]  # (B, H): the backward RNN ends at token 0
    return torch.cat([forward, backward], dim=-1)  # (B, 2H)


@exercise("ch05.ex3", "One vector for the whole sentence", reference=lambda: _summary_reference,
          wrong=[lambda: (lambda out, lengths, H: out[:, -1]),
                 lambda: (lambda out, lengths, H: out[torch.arange(out.shape[0]), lengths - 1])])
def check_summary(answer):
    if not callable(answer):
        return False, "answer should be your function summary(out, lengths, hidden_size)."
    g = torch.Generator().manual_seed(6)
    for B, T, H in ((4, 6, 3), (2, 5, 4)):
        out = torch.randn(B, T, 2 * H, generator=g)
        lengths = torch.randint(1, T + 1, (B,), generator=g)
        lengths[0] = 2
        ok, message = compare_tensors(answer(out, lengths, H), _summary_reference(out, lengths, H), "the summary")
        if not ok:
            return False, message + (" The forward half should come from each sentence's last real token (not the last "
                                     "column, which may be a pad); the backward half from position 0, where the "
                                     "backward RNN finishes.")
    return True, "forward state at the last real token, backward state at the first: each has read the whole sentence."


@hidden_test("ch05.ex3")
def _hidden_summary(answer, g):
    cases = []
    for _ in range(2):
        B, T, H = randint(g, 1, 5), randint(g, 1, 7), randint(g, 1, 4)
        cases.append((torch.randn(B, T, 2 * H, generator=g), torch.randint(1, T + 1, (B,), generator=g), H))
    return agree(answer, _summary_reference, cases, "summary")
