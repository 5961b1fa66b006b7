"""Chapter 10's language-model race: a Transformer and recurrent language models on the same text, the same clock.

- :func:`race_models`: a :class:`~seqviz.models.TransformerLM` and :class:`~seqviz.models.GRULM` s ("gru",
  "lstm") whose hidden sizes are chosen so that their parameter counts match the Transformer's
  (:func:`seqviz.measure.match_parameters`);
- :func:`race`: every model trained for the same number of seconds on random windows of the same text. The
  models take turns, a slice of the budget at a time, so a busy moment on a shared machine slows all of them
  alike; after each slice the validation perplexity is recorded against the seconds trained so far (evaluation
  off the clock), as :class:`~seqviz.experiments.language.LMRun` curves;
- :func:`context_perplexity`: the perplexity of the *same* target tokens, each predicted from exactly ``L`` tokens
  of history, for each ``L`` in ``contexts``: a fair way to ask how much a longer context helps, since the
  average over every position of a window mixes histories from 1 to ``L`` tokens long.

Used by chapter 10 (closing the loop of chapter 4b's language models on Moby-Dick).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch
import torch.nn.functional as F

from ..config import model_device, pick_device, progress as progress_bar
from ..measure import Stopwatch, check_ints, count_parameters, match_parameters
from ..models import GRULM, TransformerLM
from ..train import fit
from .language import LMRun, perplexity, windows

__all__ = ["context_perplexity", "race", "race_models"]


def _next_token_loss(logits, targets):
    return F.cross_entropy(logits.transpose(1, 2), targets)  # logits (B, T, V), targets (B, T)


def _matched_hidden_size(vocab_size: int, cell: str, target: int, step: int = 4, largest: int = 1024) -> int:
    """The multiple of ``step`` (up to ``largest``) whose ``GRULM`` has the parameter count nearest ``target``: a
    bisection for the first size at or above it (a few models built, not hundreds), then
    :func:`~seqviz.measure.match_parameters` between it and the one before."""
    def make(size):
        return GRULM(vocab_size, size, cell=cell)

    lo, hi = 1, largest // step  # the count grows with the size: find the first k with count(step * k) >= target
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if count_parameters(make(step * mid)) < target else (lo, mid)
    return match_parameters(make, target, [step * k for k in (lo - 1, lo) if k >= 1])[0]


def race_models(vocab_size: int, *, d_model: int = 64, num_layers: int = 2, num_heads: int = 4,
                dim_feedforward: int | None = None, cells: Sequence[str] = ("gru", "lstm"), max_len: int = 512,
                seed: int = 0) -> dict[str, torch.nn.Module]:
    """``{"Transformer": ..., "GRU": ..., "LSTM": ...}``: a pre-LN decoder-only Transformer of width ``d_model``
    and one-layer recurrent LMs, each ``hidden_size`` picked (a multiple of 4) so that its parameter count is the
    nearest to the Transformer's. Built on the CPU with seed ``seed``; :func:`race` moves them."""
    check_ints([vocab_size, d_model, num_layers, num_heads, max_len], "sizes", 1)
    torch.manual_seed(seed)
    models = {"Transformer": TransformerLM(vocab_size, d_model, num_heads, num_layers,
                                           dim_feedforward or 4 * d_model, max_len=max_len, norm_first=True)}
    target = count_parameters(models["Transformer"])
    for cell in cells:
        size = _matched_hidden_size(vocab_size, cell, target)
        torch.manual_seed(seed)
        models[cell.upper()] = GRULM(vocab_size, size, cell=cell)
    return models


def race(models: Mapping[str, torch.nn.Module], train_ids: torch.Tensor, valid_ids: torch.Tensor, *,
         seconds: float, slices: int = 6, seq_len: int = 128, batch_size: int = 32, lr: float = 3e-3,
         clip_norm: float = 1.0, device=None, seed: int = 0, progress: bool = True) -> dict[str, LMRun]:
    """Train every model of ``models`` for ``seconds`` of wall-clock time, in ``slices`` turns each.

    Returns ``{name: LMRun}``; each curve starts at step 0 (the untrained model) and has one row
    ``{"step", "seconds", "valid_ppl"}`` per slice. A slice ends at the first step past its share of the
    clock, so a model may overrun by at most one step; the recorded seconds are the ones it really trained.
    In turn ``k`` every model draws the same batches (seed ``seed + k``) and keeps its own Adam state.
    ``device`` (default :func:`~seqviz.config.pick_device`) is where every model trains; the clock is a
    :class:`seqviz.measure.Stopwatch`, read after the device has finished, so GPU time is counted in full.
    """
    if not isinstance(models, Mapping) or not models:
        raise ValueError(f"models must be a dict of at least one model, e.g. {{'GRU': GRULM(...)}}, got "
                         f"{type(models).__name__}")
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive number (the training budget per model), got {seconds!r}")
    slices, seq_len = check_ints([slices, seq_len], "slices and seq_len", 1)
    inputs, targets = windows(train_ids, seq_len, stride=max(1, seq_len // 2))  # (M, seq_len) each
    device = torch.device(device) if device is not None else pick_device()
    runs, optimizers = {}, {}
    clocks = {name: Stopwatch(device) for name in models}   # seconds trained, read after the device finished
    for name, model in models.items():
        model.to(device)
        runs[name] = LMRun(model, [{"step": 0, "seconds": 0.0, "valid_ppl": perplexity(model, valid_ids, seq_len)}])
        optimizers[name] = torch.optim.Adam(model.parameters(), lr=lr)
    bar = progress_bar(total=slices * len(models), desc="language-model race", disable=not progress, leave=False)
    for turn in range(1, slices + 1):
        for name, model in models.items():
            run, clock = runs[name], clocks[name]
            until = seconds * turn / slices

            def out_of_time(step, trained, record, clock=clock, until=until):
                return clock.elapsed() >= until

            clock.start()
            history = fit(model, (inputs, targets), _next_token_loss, steps=10**9, batch_size=batch_size,
                          optimizer=optimizers[name], clip_norm=clip_norm, device=device, seed=seed + turn,
                          progress=False, callbacks=[out_of_time])
            spent = clock.stop()   # evaluation below is off the clock
            steps = run.curve[-1]["step"] + history.records[-1]["step"]
            run.curve.append({"step": steps, "seconds": spent, "valid_ppl": perplexity(model, valid_ids, seq_len)})
            bar.update(1)
    bar.close()
    for run in runs.values():
        run.valid_ppl, run.train_seconds = run.curve[-1]["valid_ppl"], run.curve[-1]["seconds"]
    return runs


@torch.no_grad()
def context_perplexity(model, ids: torch.Tensor, contexts: Sequence[int], *, every: int = 16,
                       batch_size: int = 256) -> dict[int, float]:
    """``{L: perplexity}``: the same target tokens, each predicted from exactly the ``L`` tokens before it.

    The targets are every ``every``-th token of ``ids`` from position ``max(contexts)`` on (so that every
    context fits before each of them); for each ``L`` the model reads the window ``ids[t - L : t]`` from an
    empty state and its last prediction is scored against ``ids[t]``. Runs where the model is. A Transformer
    should have been trained on windows at least ``max(contexts)`` long.
    """
    contexts = sorted(set(check_ints(contexts, "contexts", 1)))
    (every,) = check_ints([every], "every", 1)
    if not isinstance(ids, torch.Tensor) or ids.dim() != 1 or ids.dtype != torch.long:
        raise ValueError(f"ids must be a 1-D LongTensor of token ids, got {getattr(ids, 'shape', type(ids))}")
    longest = contexts[-1]
    if ids.numel() <= longest:
        raise ValueError(f"ids has {ids.numel()} tokens: too few to score a target after {longest} tokens of "
                         f"context (at least {longest + 1} needed)")
    targets = torch.arange(longest, ids.numel(), every)                         # (N,) positions of the targets
    device = model_device(model)
    was_training = model.training
    model.eval()
    result = {}
    for L in contexts:
        total = 0.0
        for i in range(0, len(targets), batch_size):
            t = targets[i:i + batch_size]                                       # (b,)
            x = ids[t[:, None] - L + torch.arange(L)].to(device)               # (b, L): the L tokens before each
            logits = model(x)[:, -1]                                            # (b, V): the prediction after them
            total += F.cross_entropy(logits, ids[t].to(device), reduction="sum").item()
        result[L] = math.exp(total / len(targets))
    model.train(was_training)
    return result
