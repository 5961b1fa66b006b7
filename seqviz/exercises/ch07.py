"""Exercises of chapter 07, Bahdanau attention (registered on import).

- ch07.ex1: additive attention weights by hand, with a padding mask;
- ch07.ex2: the context vector from weights and encoder states;
- ch07.ex3: how many parameters additive attention adds;
- ch07.ex4 (predict, then run): where the reversing translator looks for its first digit.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch07.py``).
"""

from __future__ import annotations

import torch

from .expected import Expected
from .registry import as_choice, as_number, as_tensor, compare_tensors, exercise

EXPECTED = Expected("ch07")

# -- ex1: the weights ---------------------------------------------------------------------------


@exercise("ch07.ex1", "Additive attention by hand")
def check_weights(answer):
    if not callable(answer):
        return False, ("answer should be your function additive_weights(query, keys, mask, W_query, W_key, b_key, "
                       "v).")
    g = torch.Generator().manual_seed(9)  # its own generator: the caller's random numbers stay as they were
    for B, S, Hq, Hk, A in ((3, 5, 4, 6, 7), (2, 3, 2, 2, 3)):
        W_query = torch.randn(A, Hq, generator=g) * 0.5
        W_key, b_key = torch.randn(A, Hk, generator=g) * 0.5, torch.randn(A, generator=g) * 0.5
        v = torch.randn(A, generator=g) * 0.5
        query, keys = torch.randn(B, Hq, generator=g), torch.randn(B, S, Hk, generator=g)
        lengths = torch.tensor([S, *([max(1, S - 2)] * (B - 1))])
        mask = torch.arange(S)[None, :] < lengths[:, None]  # (B, S): True on real tokens
        expected = EXPECTED("additive_weights", f"{B},{S},{Hq},{Hk},{A}", query, keys, mask, W_query, W_key, b_key, v)
        with torch.no_grad():
            got = answer(query, keys, mask, W_query, W_key, b_key, v)
        ok, message = compare_tensors(got, expected, "the attention weights")
        if not ok:
            got = as_tensor(got, expected, "the attention weights")
            if got.shape == expected.shape and (got[~mask] > 0).any():
                message += " Padding gets weight: set the scores of masked positions to -inf before the softmax."
            return False, message
    return True, "your weights equal AdditiveAttention's, and padding gets exactly zero."


# -- ex2: the context ---------------------------------------------------------------------------


@exercise("ch07.ex2", "The context vector")
def check_context(answer):
    if not callable(answer):
        return False, "answer should be your function context(weights, keys)."
    g = torch.Generator().manual_seed(10)
    for B, S, H in ((3, 5, 4), (1, 2, 6)):
        weights = torch.randn(B, S, generator=g).softmax(-1)
        keys = torch.randn(B, S, H, generator=g)
        expected = EXPECTED("context", f"{B},{S},{H}", weights, keys)
        ok, message = compare_tensors(answer(weights.clone(), keys.clone()), expected, "the context")
        if not ok:
            return False, message + " The context is the weighted average: sum over j of weights[:, j] * keys[:, j]."
    return True, "the context is the average of the encoder states, weighted by the attention."


# -- ex3: parameters ----------------------------------------------------------------------------


@exercise("ch07.ex3", "What attention costs")
def check_count(answer):
    if not callable(answer):
        return False, "answer should be your function attention_parameters(query_size, key_size, attention_size)."
    for q, k, a in ((1, 1, 1), (64, 128, 64), (5, 7, 3)):
        expected = EXPECTED("attention_parameters", f"{q},{k},{a}", q, k, a)  # of AdditiveAttention(q, k, a)
        got = as_number(answer(q, k, a), "an int")
        if got != expected:
            return False, (f"AdditiveAttention({q}, {k}, {a}) has {expected} parameters, you count {got:g}. Count "
                           "W_query, W_key with its bias b, and v.")
    return True, "a few thousand parameters buy the decoder a look at every source word; none depends on the length."


# -- ex4: predict where the reversing translator looks ----------------------------------------------

CH07_EX4_CHOICES = ("a) on the first source word", "b) on the last source word",
                    "c) spread evenly over the source words")


@exercise("ch07.ex4", "Predict where the reversing translator looks")
def check_reverse_look(answer):
    choice = as_choice(answer, CH07_EX4_CHOICES, "where you predict the largest weight falls")
    if choice == EXPECTED("reverse_look", "choice", CH07_EX4_CHOICES):
        return True, ("the first digit written is the last word's: attention fetches it from where it is, so the "
                      "weights run along the anti-diagonal.")
    if choice.startswith("a)"):
        return False, ("the first word is where the copying translator looks first. Which word's digit does the "
                       "reversing translator write first? Look at the top row of its heatmap in section 7.4.")
    return False, ("evenly spread weights would average the words' states, and one digit cannot be read from an "
                   "average; look at the top row of the reversing translator's heatmap in section 7.4.")
