"""Chapter 5's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch05.py``)."""

from __future__ import annotations

import torch

from . import hidden, solution, values
from .helpers import agree, randint


def _reverse_reference(x, lengths):
    out = x.clone()
    for b, n in enumerate(lengths.tolist()):
        out[b, :n] = x[b, :n].flip(0)
    return out  # (B, T, ...)


def _shift_reference(target, bos, eos):
    return [bos, *target], [*target, eos]


def _summary_reference(out, lengths, hidden_size):
    forward = out[torch.arange(out.shape[0]), lengths - 1, :hidden_size]  # (B, H): last real token
    backward = out[:, 0, hidden_size:]  # (B, H): the backward RNN ends at token 0
    return torch.cat([forward, backward], dim=-1)  # (B, 2H)


def _clipped_precision(output, reference):
    from collections import Counter

    counts, allowed = Counter(output), Counter(reference)
    return sum(min(n, allowed[w]) for w, n in counts.items()) / len(output)


values("ch05", reverse_within_length=_reverse_reference, decoder_io=_shift_reference, summary=_summary_reference,
       clipped_precision=_clipped_precision)

solution("ch05.ex1", lambda: _reverse_reference, forbidden=("seqviz.models.seq2seq.reverse_padded",), wrong={
    "flips the pads": (lambda: (lambda x, lengths: x.flip(1)), "flipped the padding too"),
    "unchanged": (lambda: (lambda x, lengths: x.clone()), "differs from the reference")})
solution("ch05.ex2", lambda: _shift_reference, wrong={
    "swapped": (lambda: (lambda t, bos, eos: ([*t, eos], [bos, *t])), "The two are swapped"),
    "both ends": (lambda: (lambda t, bos, eos: ([bos, *t, eos], [bos, *t, eos])), "you give in=")})
solution("ch05.ex3", lambda: _summary_reference, wrong={
    "last column": (lambda: (lambda out, lengths, H: out[:, -1]), "last real token"),
    "all of the last real token": (lambda: (lambda out, lengths, H: out[torch.arange(out.shape[0]), lengths - 1]),
                                   "from position 0")})


@hidden("ch05.ex1")
def _hidden_reverse(answer, g):
    cases = []
    for _ in range(3):
        B, T, D = randint(g, 1, 5), randint(g, 1, 8), randint(g, 1, 3)
        cases.append((torch.randn(B, T, D, generator=g), torch.randint(1, T + 1, (B,), generator=g)))
    return agree(answer, _reverse_reference, cases, "reverse_within_length")


@hidden("ch05.ex2")
def _hidden_decoder_io(answer, g):
    cases = [([], 1, 2), (torch.randint(3, 50, (randint(g, 1, 20),), generator=g).tolist(), 0, 1)]
    return agree(answer, _shift_reference, cases, "decoder_io")


@hidden("ch05.ex3")
def _hidden_summary(answer, g):
    cases = []
    for _ in range(2):
        B, T, H = randint(g, 1, 5), randint(g, 1, 7), randint(g, 1, 4)
        cases.append((torch.randn(B, T, 2 * H, generator=g), torch.randint(1, T + 1, (B,), generator=g), H))
    return agree(answer, _summary_reference, cases, "summary")

solution("ch05.ex4", lambda: 0.25, wrong={"unclipped": (lambda: 1.0, "clipping"),
                                          "by the reference": (lambda: 1 / 3, "not in the reference"),
                                          "a percentage": (lambda: 25.0, "as a fraction")})
