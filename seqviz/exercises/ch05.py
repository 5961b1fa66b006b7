"""Exercises of chapter 05, bidirectional RNNs and the encoder-decoder (registered on import).

- ch05.ex1: reverse each padded sequence within its length (what the backward RNN reads);
- ch05.ex2: the decoder's input and output for teacher forcing (shift by one, bos and eos);
- ch05.ex3: the summary vector of a bidirectional encoder on a padded batch;
- ch05.ex4 (predict, then run): BLEU's clipped unigram precision of a repetitive output.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`); the
reference answers and hidden tests are in the instructor's material (``instructor/exercises/ch05.py``).
"""

from __future__ import annotations

import numpy as np
import torch

from .expected import Expected
from .registry import Feedback, as_number, as_sequence, as_tensor, compare_tensors, describe, exercise

EXPECTED = Expected("ch05")

# -- ex1: reversing within the length -----------------------------------------------------------


@exercise("ch05.ex1", "What the backward RNN reads")
def check_reverse(answer):
    if not callable(answer):
        return False, "answer should be your function reverse_within_length(x, lengths)."
    g = torch.Generator().manual_seed(5)
    for B, T, D in ((3, 6, 2), (1, 4, 1), (5, 7, 3)):
        x = torch.randn(B, T, D, generator=g)
        lengths = torch.randint(1, T + 1, (B,), generator=g)
        lengths[0] = T if B > 1 else lengths[0]
        expected = EXPECTED("reverse_within_length", f"{B},{T},{D}", x, lengths)
        got = answer(x.clone(), lengths.clone())
        ok, message = compare_tensors(got, expected, f"the reversed batch ({B}, {T}, {D})")
        if not ok:
            got = as_tensor(got, expected, "the reversed batch")
            if got.shape == x.shape and torch.allclose(got.float(), x.flip(1)):
                message += (" You flipped the padding too: the backward RNN would start on pads. Flip only the "
                            "first lengths[b] steps.")
            return False, message
    return True, ("the real tokens are reversed and the padding stays at the end, so the backward RNN starts at "
                  "the last real word.")


# -- ex2: teacher forcing input and output ------------------------------------------------------


def _token_ids(tokens) -> list:
    """A list, tuple, 1-D tensor or array of token ids as a list of ints (Feedback otherwise)."""
    if isinstance(tokens, (torch.Tensor, np.ndarray)):
        if tokens.ndim != 1:
            raise Feedback(f"decoder_in and decoder_out should be 1-D lists of token ids, got {describe(tokens)}.")
        tokens = tokens.tolist()
    if not isinstance(tokens, (list, tuple)):
        raise Feedback(f"decoder_in and decoder_out should be lists of token ids, got {describe(tokens)}.")
    ids = [as_number(t, "a token id") for t in tokens]
    if any(i != int(i) for i in ids):
        raise Feedback(f"token ids are whole numbers, got {ids}.")
    return [int(i) for i in ids]


@exercise("ch05.ex2", "Feeding the decoder")
def check_shift(answer):
    if not callable(answer):
        return False, ("answer should be your function decoder_io(target, bos, eos) returning "
                       "(decoder_in, decoder_out).")
    for target, bos, eos in (([7, 4, 9], 2, 3), ([5], 2, 3), ([11, 12, 13, 14, 15], 0, 1)):
        got = as_sequence(answer(list(target), bos, eos), 2, "decoder_io's result (decoder_in, decoder_out)")
        got_in, got_out = (_token_ids(g) for g in got)
        exp_in, exp_out = EXPECTED("decoder_io", f"{target},{bos},{eos}", target, bos, eos)
        if (got_in, got_out) != (list(exp_in), list(exp_out)):
            hint = ""
            if (got_in, got_out) == (list(exp_out), list(exp_in)):
                hint = " The two are swapped: the decoder reads bos first and must predict eos last."
            elif len(got_in) != len(got_out):
                hint = (" Input and output must have the same length: at step u the decoder reads in[u] and "
                        "predicts out[u].")
            return False, f"for target {target} you give in={got_in}, out={got_out}.{hint}"
    return True, "at every step the decoder reads the previous gold token and predicts the next: teacher forcing."


# -- ex3: the summary of a bidirectional encoder --------------------------------------------------


@exercise("ch05.ex3", "One vector for the whole sentence")
def check_summary(answer):
    if not callable(answer):
        return False, "answer should be your function summary(out, lengths, hidden_size)."
    g = torch.Generator().manual_seed(6)
    for B, T, H in ((4, 6, 3), (2, 5, 4)):
        out = torch.randn(B, T, 2 * H, generator=g)
        lengths = torch.randint(1, T + 1, (B,), generator=g)
        lengths[0] = 2
        expected = EXPECTED("summary", f"{B},{T},{H}", out, lengths, H)
        ok, message = compare_tensors(answer(out.clone(), lengths.clone(), H), expected, "the summary")
        if not ok:
            return False, message + (" The forward half should come from each sentence's last real token (not the "
                                     "last column, which may be a pad); the backward half from position 0, where "
                                     "the backward RNN finishes.")
    return True, ("forward state at the last real token, backward state at the first: each has read the whole "
                  "sentence.")


# -- ex4: predict BLEU's clipped precision ---------------------------------------------------------

CH05_EX4_OUTPUT, CH05_EX4_REFERENCE = ("le", "le", "le", "le"), ("le", "chat", "dort")


@exercise("ch05.ex4", "Predict BLEU's clipped precision")
def check_clipped_precision(answer):
    value = as_number(answer, "a fraction between 0 and 1 (the clipped unigram precision)")
    expected = EXPECTED("clipped_precision", "le le le le|le chat dort", CH05_EX4_OUTPUT, CH05_EX4_REFERENCE)
    if abs(value - expected) < 0.01:
        return True, ("one of the four words is credited: the reference holds 'le' once, so the output's other "
                      "three count as misses.")
    if abs(value - 100 * expected) < 1:
        return False, "that is the precision as a percentage (sacrebleu prints it so); give it as a fraction."
    if abs(value - 1) < 0.01:
        return False, ("every 'le' of the output occurs in the reference, but BLEU counts each word at most as "
                       "often as the reference holds it: that clipping is what stops 'le le le le' from scoring.")
    if abs(value - 1 / 3) < 0.01:
        return False, "divide the credited words by the number of words in the output (4), not in the reference."
    return False, ("count the output's words that the reference can account for, each reference word used at most "
                   "once, and divide by the four words of the output.")
