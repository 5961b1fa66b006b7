"""Greedy decoding and beam search over any next-token model (chapters 6 and 7).

Both take ``log_prob_fn(prefixes) -> log_probs``: ``prefixes`` is a LongTensor (k, t)
of token ids, bos first, and the answer is (k, V), the log-probabilities of the next
token after each prefix. Nothing here knows about models: a trained decoder, an n-gram
table or a hand-written toy distribution all plug in the same way.

Beam search (as used by Sutskever et al., 2014, and Wu et al., 2016, for the length
penalty) keeps the ``beam_size`` best prefixes at each step, all expanded in one call
to ``log_prob_fn``. A candidate that ends in eos is set aside as finished; the others
stay live. A hypothesis is ranked by

    score = log_prob / (number of generated tokens) ** length_penalty,

where the generated tokens count eos and not bos. Within one step every candidate has
the same length, so pruning by score and by log-probability agree; the penalty matters
when finished hypotheses of different lengths are compared. ``max_len`` caps the
generated tokens (eos included); a hypothesis still live at ``max_len`` is kept as it is.

Sampling (temperature, top-k, greedy as top-k = 1) lives in :mod:`seqviz.sampling` and is re-exported here:
``seqviz.decode.sample`` (chapter 4b).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from .sampling import Sample, sample

__all__ = ["Hypothesis", "Sample", "SearchRecord", "beam_search", "exhaustive_search", "greedy_decode",
           "length_score", "sample", "score_sequence"]


@dataclass
class Hypothesis:
    """One output sequence: ``tokens`` (bos first), its total ``log_prob`` and its ``score``."""

    tokens: list[int]
    log_prob: float
    score: float
    finished: bool = True  # False: cut off at max_len without eos

    def __len__(self) -> int:  # generated tokens (eos counts, bos does not)
        return len(self.tokens) - 1


@dataclass
class SearchRecord:
    """What a beam search did, for a tree view.

    ``nodes`` is a list of dicts, one per candidate that was ranked high enough to be
    recorded: ``id``, ``parent`` (the id of the prefix it extends; the root, bos, is 0
    and has parent None), ``token``, ``step`` (1 = first generated token), ``log_prob``,
    ``score`` and ``status``: "root", "kept" (stays in the beam),"finished" (ended
    with eos and was set aside), "cut" (reached ``max_len`` without eos: also set aside)
    or "pruned" (dropped; at most ``pruned_per_step`` of the best dropped candidates per
    step are recorded).
    ``steps[s]`` summarises step s+1: how many candidates were considered, and the ids
    kept, finished and pruned. ``best`` lists the ids of the returned hypotheses' last
    nodes, best first.
    """

    nodes: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)
    best: list[int] = field(default_factory=list)

    def path(self, node_id: int) -> list[int]:
        """The ids from the root to ``node_id``."""
        by_id = {n["id"]: n for n in self.nodes}
        out = []
        while node_id is not None:
            out.append(node_id)
            node_id = by_id[node_id]["parent"]
        return out[::-1]


def length_score(log_prob: float, length: int, length_penalty: float = 0.0) -> float:
    """``log_prob / length ** length_penalty``: the ranking of beam search (Wu et al., 2016, in its simplest form)."""
    if isinstance(length, bool) or not isinstance(length, numbers.Integral) or length < 1:
        raise ValueError(f"length must count at least one generated token (an int >= 1), got {length!r}")
    if isinstance(log_prob, bool) or not isinstance(log_prob, numbers.Real) or math.isnan(log_prob) or log_prob > 1e-4:
        raise ValueError(f"log_prob must be a log-probability (a number <= 0, or -inf), got {log_prob!r}")
    if isinstance(length_penalty, bool) or not isinstance(length_penalty, numbers.Real) \
            or not math.isfinite(length_penalty) or length_penalty < 0:
        raise ValueError(f"length_penalty must be a finite number >= 0, got {length_penalty!r}")
    return log_prob / (length ** length_penalty)


def _check_args(bos_id, eos_id, max_len, beam_size=1, length_penalty=0.0):
    for name, value in (("bos_id", bos_id), ("eos_id", eos_id)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be a non-negative int (a token id), got {value!r}")
    if not isinstance(max_len, int) or isinstance(max_len, bool) or max_len < 1:
        raise ValueError(f"max_len must be an int >= 1 (the most tokens generated after bos), got {max_len!r}")
    if not isinstance(beam_size, int) or isinstance(beam_size, bool) or beam_size < 1:
        raise ValueError(f"beam_size must be an int >= 1, got {beam_size!r}")
    if not isinstance(length_penalty, (int, float)) or isinstance(length_penalty, bool) \
            or not math.isfinite(length_penalty) or length_penalty < 0:
        raise ValueError(f"length_penalty must be a finite number >= 0 (e.g. 0.7), got {length_penalty!r}")


def _call(log_prob_fn, prefixes: torch.Tensor, ids: tuple[int, ...] = ()) -> torch.Tensor:
    """``log_prob_fn(prefixes)``, checked: (k, V) log-probabilities (no NaN, none above 0), and every id of
    ``ids`` (bos, eos) inside the vocabulary of V tokens (an eos the model cannot emit never ends a search)."""
    if not callable(log_prob_fn):
        raise ValueError(f"log_prob_fn must be a function prefixes (k, t) -> log-probabilities (k, V), got "
                         f"{type(log_prob_fn).__name__}")
    log_probs = log_prob_fn(prefixes)
    k = prefixes.shape[0]
    if not isinstance(log_probs, torch.Tensor) or log_probs.dim() != 2 or log_probs.shape[0] != k:
        got = tuple(log_probs.shape) if isinstance(log_probs, torch.Tensor) else type(log_probs).__name__
        raise ValueError(f"log_prob_fn must return a tensor (k, V) with k = {k} rows (one per prefix), got {got}")
    log_probs = log_probs.detach().float().cpu()  # (k, V)
    if torch.isnan(log_probs).any() or log_probs.max() > 1e-4:
        raise ValueError(f"log_prob_fn must return log-probabilities (finite or -inf, all <= 0), got values up to "
                         f"{log_probs.max().item():.3g}; apply log_softmax to the logits")
    V = log_probs.shape[1]
    for name, value in zip(("bos_id", "eos_id"), ids):
        if value >= V:
            raise ValueError(f"{name} = {value} is not a token of log_prob_fn's vocabulary of {V} (ids 0..{V - 1})")
    return log_probs


def greedy_decode(log_prob_fn: Callable, bos_id: int, eos_id: int, max_len: int,
                  length_penalty: float = 0.0) -> Hypothesis:
    """Take the most likely next token until eos or ``max_len`` generated tokens.

    Ties go to the lowest token id. The score uses ``length_penalty`` like beam search's.
    """
    _check_args(bos_id, eos_id, max_len, 1, length_penalty)
    tokens, total = [bos_id], 0.0
    for _ in range(max_len):
        log_probs = _call(log_prob_fn, torch.tensor([tokens]), (bos_id, eos_id))[0]  # (V,)
        token = int(log_probs.argmax())  # the first maximum: the lowest id on ties
        if log_probs[token] == -math.inf:
            raise ValueError(f"every next token after {tokens} has log-probability -inf: greedy decoding cannot go on")
        tokens.append(token)
        total += float(log_probs[token])
        if token == eos_id:
            break
    return Hypothesis(tokens, total, length_score(total, len(tokens) - 1, length_penalty), tokens[-1] == eos_id)


def beam_search(log_prob_fn: Callable, bos_id: int, eos_id: int, beam_size: int, max_len: int,
                length_penalty: float = 0.0, return_record: bool = False, pruned_per_step: int | None = None):
    """Keep the ``beam_size`` most likely prefixes at each step; return hypotheses best first.

    One call to ``log_prob_fn`` per step on all live prefixes (k, t). The search stops
    when no prefix is live, at ``max_len``, or when no live prefix can still beat the
    ``beam_size``-th finished hypothesis (log-probabilities only fall as a prefix grows,
    so ``log_prob / max_len ** length_penalty`` bounds any descendant's score). Returns
    at most ``beam_size`` hypotheses; with ``return_record=True`` also a
    :class:`SearchRecord` (``pruned_per_step`` defaults to ``beam_size``). ``beam_size=1``
    is exactly :func:`greedy_decode`.
    """
    _check_args(bos_id, eos_id, max_len, beam_size, length_penalty)
    pruned_per_step = beam_size if pruned_per_step is None else pruned_per_step
    record = SearchRecord() if return_record else None
    if record is not None:
        record.nodes.append(dict(id=0, parent=None, token=bos_id, step=0, log_prob=0.0, score=0.0, status="root"))
    live_tokens = torch.tensor([[bos_id]])  # (k, t): every live prefix, bos first
    live_lp = torch.zeros(1)  # (k,): their log-probabilities
    live_ids = [0]  # their node ids in the record
    finished: list[tuple[Hypothesis, int]] = []
    for step in range(1, max_len + 1):
        log_probs = _call(log_prob_fn, live_tokens, (bos_id, eos_id))  # (k, V)
        V = log_probs.shape[1]
        candidates = (live_lp[:, None] + log_probs).flatten()  # (k*V,): row-major, so ties favour low parent, token
        order = torch.sort(candidates, descending=True, stable=True).indices
        chosen = order[:beam_size]
        keep_rows, step_info = [], dict(step=step, considered=int(candidates.numel()), kept=[], finished=[], pruned=[])
        for flat in chosen.tolist():
            parent, token, lp = flat // V, flat % V, float(candidates[flat])
            if lp == -math.inf:
                continue  # an impossible continuation is never kept
            tokens = live_tokens[parent].tolist() + [token]
            node = len(record.nodes) if record is not None else -1
            score = length_score(lp, step, length_penalty)
            if token == eos_id:
                finished.append((Hypothesis(tokens, lp, score), node))
                status = "finished"
            elif step == max_len:  # out of room: kept as an unfinished hypothesis
                finished.append((Hypothesis(tokens, lp, score, finished=False), node))
                status = "cut"
            else:
                keep_rows.append((parent, token, lp, node))
                status = "kept"
            if record is not None:
                record.nodes.append(dict(id=node, parent=live_ids[parent], token=token, step=step, log_prob=lp,
                                         score=score, status=status))
                step_info["kept" if status == "kept" else "finished"].append(node)
        if record is not None:
            for flat in order[beam_size: beam_size + pruned_per_step].tolist():
                parent, token, lp = flat // V, flat % V, float(candidates[flat])
                if lp == -math.inf:
                    break
                node = len(record.nodes)
                record.nodes.append(dict(id=node, parent=live_ids[parent], token=token, step=step, log_prob=lp,
                                         score=length_score(lp, step, length_penalty), status="pruned"))
                step_info["pruned"].append(node)
            record.steps.append(step_info)
        if not keep_rows:
            break
        parents = torch.tensor([r[0] for r in keep_rows])
        live_tokens = torch.cat([live_tokens[parents], torch.tensor([[r[1]] for r in keep_rows])], dim=1)  # (k', t+1)
        live_lp = torch.tensor([r[2] for r in keep_rows])  # (k',)
        live_ids = [r[3] for r in keep_rows]
        if len(finished) >= beam_size:  # can any live prefix still enter the top beam_size?
            kth = sorted((h.score for h, _ in finished), reverse=True)[beam_size - 1]
            if float(live_lp.max()) / (max_len ** length_penalty) <= kth:
                break
    if not finished:
        raise ValueError("every continuation has log-probability -inf: beam search found no hypothesis")
    finished.sort(key=lambda pair: -pair[0].score)  # stable: equal scores keep the order they were found in
    best = finished[:beam_size]
    hypotheses = [h for h, _ in best]
    if record is not None:
        record.best = [node for _, node in best]
        return hypotheses, record
    return hypotheses


def exhaustive_search(log_prob_fn: Callable, bos_id: int, eos_id: int, max_len: int,
                      length_penalty: float = 0.0) -> list[Hypothesis]:
    """Every sequence up to ``max_len`` tokens, scored, best first: V**max_len of them, for tiny V only."""
    _check_args(bos_id, eos_id, max_len, 1, length_penalty)
    frontier, out = [([bos_id], 0.0)], []
    for step in range(1, max_len + 1):
        if len(frontier) > 200_000:
            raise ValueError(f"exhaustive search reached {len(frontier):,} prefixes at step {step}: too big; "
                             f"use a smaller vocabulary or max_len")
        log_probs = _call(log_prob_fn, torch.tensor([p for p, _ in frontier]), (bos_id, eos_id))  # (k, V)
        nxt = []
        for (prefix, lp), row in zip(frontier, log_probs.tolist()):
            for token, token_lp in enumerate(row):
                if token_lp == -math.inf:
                    continue
                total = lp + token_lp
                if token == eos_id:
                    out.append(Hypothesis(prefix + [token], total, length_score(total, step, length_penalty)))
                elif step == max_len:
                    out.append(Hypothesis(prefix + [token], total, length_score(total, step, length_penalty), False))
                else:
                    nxt.append((prefix + [token], total))
        frontier = nxt
        if not frontier:
            break
    if not out:
        raise ValueError("every sequence has log-probability -inf: exhaustive search found no hypothesis")
    return sorted(out, key=lambda h: -h.score)


def score_sequence(log_prob_fn: Callable, tokens, length_penalty: float = 0.0) -> Hypothesis:
    """The :class:`Hypothesis` for a given sequence (bos first), e.g. the gold answer, scored like beam search's."""
    if isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
        raise ValueError(f"tokens must be a list of token ids, bos first, got {tokens!r}")
    tokens = list(tokens.tolist() if isinstance(tokens, torch.Tensor) else tokens)
    if not all(isinstance(t, numbers.Integral) and not isinstance(t, bool) for t in tokens):
        raise ValueError(f"tokens must be ints (token ids), got {tokens!r}")
    tokens = [int(t) for t in tokens]
    if len(tokens) < 2:
        raise ValueError(f"tokens must hold bos and at least one generated token, got {tokens}")
    _check_args(tokens[0], 0, len(tokens) - 1, 1, length_penalty)
    total = 0.0
    for t in range(1, len(tokens)):  # one call per prefix, in order, as a search would make them
        log_probs = _call(log_prob_fn, torch.tensor([tokens[:t]]), (tokens[0],))  # (1, V)
        if not 0 <= tokens[t] < log_probs.shape[1]:
            raise ValueError(f"token {tokens[t]} is not in log_prob_fn's vocabulary of {log_probs.shape[1]}")
        total += float(log_probs[0, tokens[t]])
    return Hypothesis(tokens, total, length_score(total, len(tokens) - 1, length_penalty))
