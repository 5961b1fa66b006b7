"""Chapter 9's reference answers, wrong answers and hidden tests (the checkers: ``seqviz/exercises/ch09.py``)."""

from __future__ import annotations

import torch

from seqviz.data.bert_data import CLS, PAD, SEP, mask_tokens, segment_ids_for
from seqviz.exercises.ch09 import CH09_EX4_CHOICES
from seqviz.exercises.registry import as_sequence
from seqviz.measure import count_parameters
from seqviz.models.bert import BertMini

from . import hidden, solution, values
from .helpers import agree, randint, same_choice


def _mask_reference(ids, mask_id, vocab_size, special_ids, generator):
    special = torch.zeros(vocab_size, dtype=torch.bool)
    special[list(special_ids)] = True
    chosen = (torch.rand(ids.shape, generator=generator) < 0.15) & ~special[ids]
    fate = torch.rand(ids.shape, generator=generator)
    ordinary = (~special).nonzero().flatten()
    random_ids = ordinary[torch.randint(len(ordinary), ids.shape, generator=generator)]
    inputs = torch.where(chosen & (fate < 0.8), mask_id, ids)
    inputs = torch.where(chosen & (fate >= 0.8) & (fate < 0.9), random_ids, inputs)
    return inputs, torch.where(chosen, ids, -100)


def _mask_prob(prob):
    def masking(ids, mask_id, vocab_size, special_ids, generator):
        return mask_tokens(ids, mask_id, vocab_size, special_ids, prob, generator)
    return masking


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


def _segments_reference(tokens):
    out, segment = [], 0
    for token in tokens:
        out.append(0 if token == PAD else segment)
        if token == SEP:
            segment = 1
    return out


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


def _count(vocab_size, d_model, num_layers, max_len, dim_feedforward):
    return count_parameters(BertMini(vocab_size, d_model, num_layers, 2, max_len, dim_feedforward))


def _formula(vocab_size, d_model, num_layers, max_len, dim_feedforward):
    V, d, L, P, f = vocab_size, d_model, num_layers, max_len, dim_feedforward
    embeddings = V * d + 2 * d + P * d + 2 * d  # token, segment, position, LayerNorm
    layer = (4 * d * d + 4 * d) + (d * f + f + f * d + d) + 2 * 2 * d  # attention, FFN, two LayerNorms
    heads = (d * d + d + 2 * d + V) + (d * d + d + 2 * d + 2)  # MLM transform + norm + bias; pooler + NSP
    return embeddings + L * layer + heads


BERT_BASE = (30522, 768, 12, 512, 3072)


def _embedding_share(*sizes):
    return sizes[0] * sizes[1] / _formula(*sizes)


values("ch09", segment_ids=segment_ids_for, bert_parameters=_count, embedding_share=_embedding_share)

solution("ch09.ex1", lambda: _mask_reference, forbidden=("seqviz.data.bert_data.mask_tokens",),
         wrong={"all masks": (lambda: _mask_all_masks, "became [MASK]; expected 80%"),
                "specials too": (lambda: _mask_specials_too, "must never be chosen"),
                "labels everywhere": (lambda: _mask_labels_everywhere, "gets label -100"),
                "global generator": (lambda: _mask_global_rng, "draw every random number from the generator"),
                "probability 0.16": (lambda: _mask_prob(0.16), "expected 15%")})
solution("ch09.ex2", lambda: _segments_reference, forbidden=("seqviz.data.bert_data.segment_ids_for",), wrong={
    "all zero": (lambda: _segments_all_zero, "expected [0, 0, 0, 0, 1, 1, 1]"),
    "pads in B": (lambda: _segments_after_every_sep, "expected"),
    "first SEP in B": (lambda: _segments_sep_in_b, "expected")})
solution("ch09.ex3", lambda: _formula,
         forbidden=("seqviz.models.bert.BertMini.__init__", "seqviz.measure.count_parameters"), wrong={
    "untied": (lambda: (lambda *s: _formula(*s) + s[0] * s[1]), "(tied): count it once"),
    "no segments": (lambda: (lambda *s: _formula(*s) - 2 * s[1]), "forget the segment embeddings")})
solution("ch09.ex3b", lambda: _embedding_share(*BERT_BASE), wrong={
    "percentage": (lambda: 100 * _embedding_share(*BERT_BASE), "not a percentage"),
    "half": (lambda: _embedding_share(*BERT_BASE) / 2, "is not it"), "0.5": (lambda: 0.5, "is not it")})


@hidden("ch09.ex1")
def _hidden_masking(answer, g):
    vocab_size, mask_id, special_ids = 30, 9, (0, 1, 2, 3, 9)  # other ids than the public check's
    ids = torch.randint(0, vocab_size, (300, 400), generator=g)
    seed = randint(g, 0, 2**31 - 1)
    inputs, labels = (torch.as_tensor(t).long() for t in as_sequence(
        answer(ids.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(seed)), 2,
        "your result (inputs, labels)"))
    if inputs.shape != ids.shape or labels.shape != ids.shape:
        return False, "inputs and labels should be shaped like ids."
    special = torch.isin(ids, torch.tensor(special_ids))
    chosen = labels != -100
    if bool(chosen[special].any()) or bool((labels[chosen] != ids[chosen]).any()):
        return False, f"with special_ids={special_ids} a special token was chosen, or a label is not the original id."
    if bool((inputs[~chosen] != ids[~chosen]).any()):
        return False, "a position that was not chosen changed."
    rate = chosen[~special].float().mean().item()
    masked = (inputs[chosen] == mask_id).float().mean().item()
    if abs(rate - 0.15) > 0.005 or abs(masked - 0.8) > 0.015:  # about five standard deviations each
        return False, f"with mask_id={mask_id}: {rate:.1%} chosen and {masked:.1%} of those masked (15% and 80%)."
    replaced = inputs[chosen & (inputs != mask_id) & (inputs != ids)]
    if bool(torch.isin(replaced, torch.tensor(special_ids)).any()):
        return False, "a random replacement was a special token."
    torch.manual_seed(seed + 1)  # moving the global generator must change nothing
    again = answer(ids.clone(), mask_id, vocab_size, special_ids, torch.Generator().manual_seed(seed))
    if not all(torch.equal(torch.as_tensor(a).long(), b) for a, b in zip(again, (inputs, labels))):
        return False, "the same generator seed gave another masking: every draw must come from the generator argument."
    return True, "the rule holds with other special ids and mask id, and the generator alone decides"


@hidden("ch09.ex2")
def _hidden_segments(answer, g):
    cases = []
    for _ in range(6):
        a, b, pads = randint(g, 1, 5), randint(g, 0, 5), randint(g, 0, 3)
        tokens = [CLS] + ["w"] * a + [SEP] + (["v"] * b + [SEP] if b else []) + [PAD] * pads
        cases.append((tokens,))
    return agree(answer, segment_ids_for, cases, "segment_ids")


@hidden("ch09.ex3")
def _hidden_bert_count(answer, g):
    cases = [(randint(g, 10, 500), 2 * randint(g, 1, 16), randint(g, 1, 3), randint(g, 4, 64),
              randint(g, 4, 64)) for _ in range(2)]
    return agree(answer, _count, cases, "bert_parameters", atol=0.5, rtol=0)


# ex4: labels hold the original id at every chosen position (masked, replaced or kept), -100 elsewhere
values("ch09", scored_positions=lambda choices: choices[1])
solution("ch09.ex4", lambda: "b", wrong={"every token": (lambda: "a", "the leak of section 9.1"),
                                        "only [MASK]": (lambda: "c", "would teach nothing")})


@hidden("ch09.ex4")
def _hidden_scored_positions(answer, g):
    return same_choice(answer, CH09_EX4_CHOICES, CH09_EX4_CHOICES[1])
