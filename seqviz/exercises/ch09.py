"""Exercises of chapter 09, BERT (registered on import).

- ch09.ex1: the 80/10/10 masking rule, checked statistically;
- ch09.ex2: segment ids for a sentence pair;
- ch09.ex3: the parameter count of a BertMini, from its sizes; ch09.ex3b: the token embedding's share of BERT-base.

Each exercise's section holds its checker, reference answer, wrong answers and the hidden test that
grading runs after the check (``@hidden_test``, :mod:`seqviz.exercises.hidden`).
"""

from __future__ import annotations

import torch

from ..data.bert_data import CLS, MASK, PAD, SEP, mask_tokens, segment_ids_for
from ..models.bert import BertMini
from ..measure import count_parameters
from .hidden import agree, hidden_test, randint
from .registry import as_number, as_sequence, exercise

# -- ex1: 80/10/10 ---------------------------------------------------------------------------------------------


def _mask_reference(ids, mask_id, vocab_size, special_ids, generator):
    return mask_tokens(ids, mask_id, vocab_size, special_ids, 0.15, generator)


def _mask_all_masks(ids, mask_id, vocab_size, special_ids, generator):
    special = torch.zeros(vocab_size, dtype=torch.bool)
    special[list(special_ids)] = True
    chosen = (torch.rand(ids.shape, generator=generator) < 0.15) & ~special[ids]
    return torch.where(chosen, mask_id, ids), torch.where(chosen, ids, -100)


def _mask_specials_too(ids, mask_id, vocab_size, special_ids, generator):
    return mask_tokens(ids, mask_id, vocab_size, (), 0.15, generator)


def _mask_labels_everywhere(ids, mask_id, vocab_size, special_ids, generator):
    inputs, _ = mask_tokens(ids, mask_id, vocab_size, special_ids, 0.15, generator)
    return inputs, ids.clone()


def _mask_global_rng(ids, mask_id, vocab_size, special_ids, generator):
    """Right statistics, but every draw comes from the global generator: the generator argument is ignored."""
    return mask_tokens(ids, mask_id, vocab_size, special_ids, 0.15, None)


@exercise("ch09.ex1", "The 80/10/10 rule", reference=lambda: _mask_reference,
          wrong=[lambda: _mask_all_masks, lambda: _mask_specials_too, lambda: _mask_labels_everywhere,
                 lambda: _mask_global_rng])
def check_masking(answer):
    if not callable(answer):
        return False, "answer should be your function my_mask_tokens(ids, mask_id, vocab_size, special_ids, generator)."
    vocab_size, mask_id, special_ids = 50, 4, (0, 1, 2, 3, 4)
    g = torch.Generator().manual_seed(9)
    ids = torch.randint(5, vocab_size, (400, 500), generator=g)  # 200,000 ordinary tokens
    ids[:, 0], ids[:, -1], ids[:, -2] = 2, 3, 0  # [CLS] ... [SEP] [PAD]
    result = as_sequence(answer(ids.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(1)), 2,
                         "your result (inputs, labels)")
    inputs, labels = result
    for name, t in (("inputs", inputs), ("labels", labels)):
        if not isinstance(t, torch.Tensor) or t.shape != ids.shape:
            return False, f"{name} should be a tensor shaped like ids {tuple(ids.shape)}."
    chosen = labels != -100
    if bool((labels[chosen] != ids[chosen]).any()):
        return False, "at a chosen position the label must be the original id."
    if bool((inputs[~chosen] != ids[~chosen]).any()):
        return False, "a position that was not chosen must keep its token (and have label -100)."
    special = (ids <= 4)
    if bool(chosen[special].any()):
        return False, "special tokens ([CLS], [SEP], [PAD] ...) must never be chosen."
    rate = chosen[~special].float().mean().item()
    if abs(rate - 0.15) > 0.01:
        return False, f"{rate:.1%} of the ordinary tokens were chosen; expected 15% (labels are -100 elsewhere)."
    picked_in, picked_orig = inputs[chosen], ids[chosen]
    masked = (picked_in == mask_id).float().mean().item()
    same = (picked_in == picked_orig).float().mean().item()
    other = 1 - masked - same
    if abs(masked - 0.8) > 0.015:
        return False, f"{masked:.1%} of the chosen tokens became [MASK]; expected 80%."
    if abs(other - 0.1) > 0.01 or abs(same - 0.1) > 0.015:
        return False, (f"of the chosen tokens {other:.1%} became another token and {same:.1%} stayed the same; "
                       "expected about 10% each.")
    if bool((picked_in[picked_in != mask_id] <= 4).any()):
        return False, "a random replacement must be an ordinary token, never a special one."
    # The same generator state must give the same masking, whatever the global generator does; another seed,
    # another masking. (The global state is moved here on purpose: run_checker restores the caller's afterwards.)
    small = ids[:20]
    torch.manual_seed(123)
    first = answer(small.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(5))
    torch.manual_seed(456)
    again = answer(small.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(5))
    other_seed = answer(small.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(6))
    if not all(torch.equal(a, b) for a, b in zip(first, again)):
        return False, ("the statistics are right, but the same generator gave two different maskings: draw every "
                       "random number from the generator argument (torch.rand(..., generator=generator)), so that a "
                       "run can be repeated.")
    if all(torch.equal(a, b) for a, b in zip(first, other_seed)):
        return False, "two different generator seeds gave the same masking: are the draws random at all?"
    return True, (f"chosen {rate:.1%}; of those {masked:.1%} [MASK], {other:.1%} random, {same:.1%} unchanged "
                  "(a random draw can hit the original word); the generator alone decides.")


@hidden_test("ch09.ex1")
def _hidden_masking(answer, g):
    vocab_size, mask_id, special_ids = 30, 9, (0, 1, 2, 3, 9)  # other ids than the public check's
    ids = torch.randint(0, vocab_size, (300, 400), generator=g)
    seed = randint(g, 0, 2**31 - 1)
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


# -- ex2: segment ids --------------------------------------------------------------------------------------------


def _segments_all_zero(tokens):
    return [0] * len(tokens)


def _segments_after_every_sep(tokens):
    out, segment = [], 0
    for token in tokens:
        out.append(segment)
        if token == SEP:
            segment = 1
    return out  # pads get 1


def _segments_sep_in_b(tokens):
    out, segment = [], 0
    for token in tokens:
        if token == SEP and segment == 0:
            segment = 1
            out.append(1)
            continue
        out.append(0 if token == PAD else segment)
    return out


_PAIRS = [
    [CLS, "the", "dog", SEP, "it", "barks", SEP],
    [CLS, "a", SEP, "b", "c", "d", SEP, PAD, PAD],
    [CLS, "only", "one", "sentence", SEP, PAD],
    [CLS, "rain", MASK, "today", SEP, "we", "saw", "fog", SEP],
]


@exercise("ch09.ex2", "Segment ids", reference=lambda: segment_ids_for,
          wrong=[lambda: _segments_all_zero, lambda: _segments_after_every_sep, lambda: _segments_sep_in_b])
def check_segments(answer):
    if not callable(answer):
        return False, "answer should be your function segment_ids(tokens) returning a list of 0s and 1s."
    for tokens in _PAIRS:
        got = answer(list(tokens))
        if isinstance(got, torch.Tensor):
            got = got.tolist()
        expected = segment_ids_for(tokens)
        if list(got) != expected:
            return False, f"for {' '.join(tokens)} you gave {list(got)}, expected {expected}."
    return True, "[CLS], sentence A and its [SEP] are segment 0; sentence B and the final [SEP] segment 1; pads 0."


@hidden_test("ch09.ex2")
def _hidden_segments(answer, g):
    cases = []
    for _ in range(6):
        a, b, pads = randint(g, 1, 5), randint(g, 0, 5), randint(g, 0, 3)
        tokens = [CLS] + ["w"] * a + [SEP] + (["v"] * b + [SEP] if b else []) + [PAD] * pads
        cases.append((tokens,))
    return agree(answer, segment_ids_for, cases, "segment_ids")


# -- ex3: parameters ----------------------------------------------------------------------------------------------


def _count(vocab_size, d_model, num_layers, max_len, dim_feedforward):
    return count_parameters(BertMini(vocab_size, d_model, num_layers, 2, max_len, dim_feedforward))


def _formula(vocab_size, d_model, num_layers, max_len, dim_feedforward):
    V, d, L, P, f = vocab_size, d_model, num_layers, max_len, dim_feedforward
    embeddings = V * d + 2 * d + P * d + 2 * d  # token, segment, position, LayerNorm
    layer = (4 * d * d + 4 * d) + (d * f + f + f * d + d) + 2 * 2 * d  # attention, FFN, two LayerNorms
    heads = (d * d + d + 2 * d + V) + (d * d + d + 2 * d + 2)  # MLM transform + norm + bias; pooler + NSP
    return embeddings + L * layer + heads


def _formula_untied(*sizes):
    return _formula(*sizes) + sizes[0] * sizes[1]


def _formula_no_segments(*sizes):
    return _formula(*sizes) - 2 * sizes[1]


@exercise("ch09.ex3", "Counting BertMini's parameters", reference=lambda: _formula,
          wrong=[lambda: _formula_untied, lambda: _formula_no_segments])
def check_parameters(answer):
    if not callable(answer):
        return False, "answer should be your function bert_parameters(vocab_size, d_model, num_layers, max_len, " \
                      "dim_feedforward)."
    for sizes in ((164, 64, 2, 24, 256), (1000, 32, 3, 50, 64), (30522, 8, 1, 512, 16)):
        got, expected = as_number(answer(*sizes), "a number of parameters"), _count(*sizes)
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


def _embedding_share():
    return BERT_BASE[0] * BERT_BASE[1] / _formula(*BERT_BASE)


@exercise("ch09.ex3b", "Counting the parameters: the token embedding's share", reference=_embedding_share,
          wrong=[lambda: 100 * _embedding_share(), lambda: BERT_BASE[0] * BERT_BASE[1] / (2 * _formula(*BERT_BASE)),
                 lambda: 0.5])
def check_embedding_share(answer):
    got = as_number(answer, "a fraction (token embedding parameters / all parameters)")
    expected = _embedding_share()
    if abs(got - expected) < 2e-3:
        return True, (f"{expected:.1%}: about a fifth of BERT-base is one lookup table of {BERT_BASE[0]:,} word "
                      "pieces; a smaller vocabulary is the cheapest way to shrink a small BERT.")
    if abs(got - 100 * expected) < 0.2:
        return False, "Give it as a fraction between 0 and 1, not a percentage."
    return False, (f"{got:.3g} is not it: divide V * d = {BERT_BASE[0] * BERT_BASE[1]:,} by "
                   "bert_parameters(30522, 768, 12, 512, 3072).")


@hidden_test("ch09.ex3")
def _hidden_bert_count(answer, g):
    cases = [(randint(g, 10, 500), 2 * randint(g, 1, 16), randint(g, 1, 3), randint(g, 4, 64),
              randint(g, 4, 64)) for _ in range(2)]
    return agree(answer, _count, cases, "bert_parameters", atol=0.5, rtol=0)
