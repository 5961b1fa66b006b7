"""Exercises of chapter 09, BERT (registered on import).

- ch09.ex1: the 80/10/10 masking rule, checked statistically (15% chosen, within 0.4 points: five standard
  deviations at 200,000 tokens);
- ch09.ex2: segment ids for a sentence pair;
- ch09.ex3: the parameter count of a BertMini, from its sizes; ch09.ex3b: the token embedding's share of BERT-base;
- ch09.ex4 (a conceptual question, a choice): which positions the masked-language-model loss scores.

The checkers compare with the chapter's shipped expected values (:mod:`seqviz.exercises.expected`) or with the
rule's own statistics; the reference answers and hidden tests are in the instructor's material
(``instructor/exercises/ch09.py``).
"""

from __future__ import annotations

import numpy as np
import torch

from ..data.bert_data import CLS, MASK, PAD, SEP
from .expected import Expected
from .registry import as_choice, as_number, as_sequence, as_tensor, describe, exercise

EXPECTED = Expected("ch09")

# -- ex1: 80/10/10 ---------------------------------------------------------------------------------------------


def _pair(result, ids, what="your result (inputs, labels)"):
    inputs, labels = as_sequence(result, 2, what)
    out = []
    for name, t in (("inputs", inputs), ("labels", labels)):
        t = as_tensor(t, ids, name)
        if t.shape != ids.shape or t.is_floating_point() or t.is_complex() or t.dtype == torch.bool:
            return None, f"{name} should be an integer tensor shaped like ids {tuple(ids.shape)}, got {describe(t)}."
        out.append(t.long())
    return out, ""


@exercise("ch09.ex1", "The 80/10/10 rule")
def check_masking(answer):
    if not callable(answer):
        return False, ("answer should be your function my_mask_tokens(ids, mask_id, vocab_size, special_ids, "
                       "generator).")
    vocab_size, mask_id, special_ids = 50, 4, (0, 1, 2, 3, 4)
    g = torch.Generator().manual_seed(9)
    ids = torch.randint(5, vocab_size, (400, 500), generator=g)  # 200,000 ordinary tokens
    ids[:, 0], ids[:, -1], ids[:, -2] = 2, 3, 0  # [CLS] ... [SEP] [PAD]
    pair, message = _pair(answer(ids.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(1)),
                          ids)
    if pair is None:
        return False, message
    inputs, labels = pair
    chosen = labels != -100
    if chosen.float().mean().item() > 0.5:
        return False, (f"{chosen.float().mean().item():.0%} of the positions have a label: a position that was not "
                       "chosen gets label -100, so that the loss ignores it.")
    if bool((labels[chosen] != ids[chosen]).any()):
        return False, "at a chosen position the label must be the original id."
    if bool((inputs[~chosen] != ids[~chosen]).any()):
        return False, "a position that was not chosen must keep its token (and have label -100)."
    special = (ids <= 4)
    if bool(chosen[special].any()):
        return False, "special tokens ([CLS], [SEP], [PAD] ...) must never be chosen."
    rate = chosen[~special].float().mean().item()
    if abs(rate - 0.15) > 0.004:  # the standard deviation of the rate is 0.0008 here
        return False, f"{rate:.1%} of the ordinary tokens were chosen; expected 15% (labels are -100 elsewhere)."
    picked_in, picked_orig = inputs[chosen], ids[chosen]
    masked = (picked_in == mask_id).float().mean().item()
    same = (picked_in == picked_orig).float().mean().item()
    other = 1 - masked - same
    if abs(masked - 0.8) > 0.012:  # about five standard deviations for ~25,000 chosen tokens
        return False, f"{masked:.1%} of the chosen tokens became [MASK]; expected 80%."
    if abs(other - 0.1) > 0.01 or abs(same - 0.1) > 0.012:
        return False, (f"of the chosen tokens {other:.1%} became another token and {same:.1%} stayed the same; "
                       "expected about 10% each.")
    if bool((picked_in[picked_in != mask_id] <= 4).any()):
        return False, "a random replacement must be an ordinary token, never a special one."
    # The same generator state must give the same masking, whatever the global generator does; another seed,
    # another masking. (The global state is moved here on purpose: run_checker restores the caller's afterwards.)
    small = ids[:20]
    torch.manual_seed(123)
    first = _pair(answer(small.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(5)), small)[0]
    torch.manual_seed(456)
    again = _pair(answer(small.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(5)), small)[0]
    other_seed = _pair(answer(small.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(6)),
                       small)[0]
    if first is None or again is None or other_seed is None:
        return False, "on a smaller batch your function did not return (inputs, labels) shaped like ids."
    if not all(torch.equal(a, b) for a, b in zip(first, again)):
        return False, ("the statistics are right, but the same generator gave two different maskings: draw every "
                       "random number from the generator argument (torch.rand(..., generator=generator)), so that a "
                       "run can be repeated.")
    if all(torch.equal(a, b) for a, b in zip(first, other_seed)):
        return False, "two different generator seeds gave the same masking: are the draws random at all?"
    return True, (f"chosen {rate:.1%}; of those {masked:.1%} [MASK], {other:.1%} random, {same:.1%} unchanged "
                  "(a random draw can hit the original word); the generator alone decides.")


# -- ex2: segment ids --------------------------------------------------------------------------------------------

_PAIRS = [
    [CLS, "the", "dog", SEP, "it", "barks", SEP],
    [CLS, "a", SEP, "b", "c", "d", SEP, PAD, PAD],
    [CLS, "only", "one", "sentence", SEP, PAD],
    [CLS, "rain", MASK, "today", SEP, "we", "saw", "fog", SEP],
]


@exercise("ch09.ex2", "Segment ids")
def check_segments(answer):
    if not callable(answer):
        return False, "answer should be your function segment_ids(tokens) returning a list of 0s and 1s."
    for i, tokens in enumerate(_PAIRS):
        got = answer(list(tokens))
        if isinstance(got, (torch.Tensor, np.ndarray)):
            got = got.tolist()
        expected = EXPECTED("segment_ids", i, tokens)
        if not isinstance(got, (list, tuple)) or list(got) != expected:
            shown = got if isinstance(got, (list, tuple)) else describe(got)
            return False, f"for {' '.join(tokens)} you gave {shown}, expected {expected}."
    return True, "[CLS], sentence A and its [SEP] are segment 0; sentence B and the final [SEP] segment 1; pads 0."


# -- ex3: parameters ----------------------------------------------------------------------------------------------


@exercise("ch09.ex3", "Counting BertMini's parameters")
def check_parameters(answer):
    if not callable(answer):
        return False, "answer should be your function bert_parameters(vocab_size, d_model, num_layers, max_len, " \
                      "dim_feedforward)."
    for sizes in ((164, 64, 2, 24, 256), (1000, 32, 3, 50, 64), (30522, 8, 1, 512, 16)):
        got = as_number(answer(*sizes), "a number of parameters")
        expected = EXPECTED("bert_parameters", ",".join(map(str, sizes)), *sizes)  # of BertMini at these sizes
        if got != expected:
            hint = ""
            if got == expected + sizes[0] * sizes[1]:
                hint = " The MLM decoder's weight is the token embedding (tied): count it once."
            elif got == expected - 2 * sizes[1]:
                hint = " Did you forget the segment embeddings?"
            return False, (f"for (V, d, layers, max_len, ff) = {sizes} you gave {got:,.0f}, the model has "
                           f"{expected:,}.{hint}")
    return True, "every embedding, layer and head counted, the tied decoder once."


BERT_BASE = (30522, 768, 12, 512, 3072)


@exercise("ch09.ex3b", "Counting the parameters: the token embedding's share")
def check_embedding_share(answer):
    got = as_number(answer, "a fraction (token embedding parameters / all parameters)")
    expected = EXPECTED("embedding_share", "bert-base", *BERT_BASE)
    if abs(got - expected) < 2e-3:
        return True, (f"{expected:.1%}: about a fifth of BERT-base is one lookup table of {BERT_BASE[0]:,} word "
                      "pieces; a smaller vocabulary is the cheapest way to shrink a small BERT.")
    if abs(got - 100 * expected) < 0.2:
        return False, "Give it as a fraction between 0 and 1, not a percentage."
    return False, (f"{got:.3g} is not it: divide V * d = {BERT_BASE[0] * BERT_BASE[1]:,} by "
                   "bert_parameters(30522, 768, 12, 512, 3072).")


# -- ex4: what the MLM loss scores (predict, then run) ---------------------------------------------------------

CH09_EX4_CHOICES = ("a) every token of the sentence",
                    "b) every chosen token, whether it became [MASK], a random word or stayed unchanged",
                    "c) only the tokens that show [MASK]")


@exercise("ch09.ex4", "What the masked-language-model loss scores")
def check_scored_positions(answer):
    choice = as_choice(answer, CH09_EX4_CHOICES, "the positions you predict")
    if choice == EXPECTED("scored_positions", "choice", CH09_EX4_CHOICES):
        return True, ("labels holds the original id at every chosen position and -100 (ignored) everywhere else, "
                      "so the loss scores the 15% chosen, the unchanged and the replaced ones included. That is "
                      "what the 80/10/10 rule is for: a word that looks ordinary may be tested, so the model cannot "
                      "simply trust, and copy, every word that is not [MASK].")
    if choice.startswith("a)"):
        return False, ("A loss on every token is the leak of section 9.1: most tokens are in plain sight, so the "
                       "model learns to copy them. labels is -100 wherever a token was not chosen, and the loss "
                       "ignores those positions.")
    return False, ("Then the 10% replaced at random and the 10% left unchanged would teach nothing, and the model "
                   "could trust every word that is not [MASK]. labels holds the original id at every chosen "
                   "position, whatever became of it.")
