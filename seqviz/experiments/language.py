"""Language models on real text: vocabularies, training with a clock, perplexity and n-gram baselines.

- :func:`text_vocab`, :func:`encode_text`, :func:`windows`: characters or words as ids, and training windows
  (they live in :mod:`seqviz.data.text`; this module re-exports them);
- :func:`train_lm`: any language model ``model(ids (B, T)) -> logits (B, T, V)`` (``GRULM``, ``TransformerLM``)
  trained on random windows of a text with :func:`seqviz.train.fit`; every ``eval_every`` steps the validation
  perplexity and the seconds spent training so far are recorded (:class:`LMRun`);
- :func:`perplexity`: ``exp`` of the mean negative log-likelihood per predicted token, over contiguous windows;
  :func:`loss_by_position`: that loss at each position of the window (how much a longer context helps);
- :func:`ngram_perplexity`: the unigram (``n=1``) and bigram (``n=2``) baselines, add-``k`` smoothed, counted on
  the training ids and scored on held-out ids: the numbers a neural model must beat;
- :func:`text_features`, :func:`lm_trace`, :func:`readable_units`: the sticky note on real text, i.e. which
  hidden unit or gate of a recurrent LM follows a readable property of the text (inside quotes, position in the
  line, start of a word), measured as a correlation over held-out text;
- :func:`known_word_share`: how many of a generated text's words are words of the book.

Used by chapter 4b (language models on Moby-Dick) and chapter 10.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from ..data.real import tokenize
from ..data.text import LEVELS, check_token_ids as _check_ids, encode_text, text_vocab, tokens_of, windows
from ..measure import Stopwatch
from ..models.cells import seqviz_twin
from ..train import fit

__all__ = ["FEATURES", "LEVELS", "LMRun", "ReadableUnit", "encode_text", "known_word_share", "lm_trace",
           "loss_by_position", "ngram_perplexity", "perplexity", "readable_units", "text_features", "text_vocab",
           "tokens_of", "train_lm", "unit_correlations", "windows", "mean_loss"]

def _token_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def _check_lm(model, name: str = "model") -> torch.device:
    if not isinstance(model, torch.nn.Module) or next(model.parameters(), None) is None:
        raise ValueError(f"{name} must be a language model (an nn.Module with parameters, ids (B, T) -> logits "
                         f"(B, T, V)), got {type(model).__name__}")
    return next(model.parameters()).device


def _check_positive(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


@torch.no_grad()
def _window_losses(model, ids: torch.Tensor, seq_len: int, batch_size: int) -> torch.Tensor:
    """(M, seq_len) losses in nats of every predicted token of the contiguous windows of ``ids``."""
    device = _check_lm(model)
    _check_positive("seq_len", seq_len)
    _check_positive("batch_size", batch_size)
    inputs, targets = windows(ids, seq_len)
    was_training = model.training
    model.eval()
    rows = []
    for i in range(0, len(inputs), batch_size):
        x, y = inputs[i:i + batch_size].to(device), targets[i:i + batch_size].to(device)
        logits = model(x)  # (b, T, V)
        rows.append(F.cross_entropy(logits.transpose(1, 2), y, reduction="none").double().cpu())  # (b, T)
    model.train(was_training)
    return torch.cat(rows)


def mean_loss(model, ids: torch.Tensor, seq_len: int = 128, batch_size: int = 64) -> float:
    """The mean loss in nats per predicted token over the contiguous windows of ``ids`` (``log`` of
    :func:`perplexity`); runs where the model is."""
    return _window_losses(model, ids, seq_len, batch_size).mean().item()


def perplexity(model, ids: torch.Tensor, seq_len: int = 128, batch_size: int = 64) -> float:
    """``exp(mean -log p(next token))`` over the contiguous windows of ``ids``; runs where the model is.
    Each window starts from an empty state, as in training."""
    return math.exp(mean_loss(model, ids, seq_len, batch_size))


def loss_by_position(model, ids: torch.Tensor, seq_len: int, batch_size: int = 64) -> torch.Tensor:
    """(seq_len,) float64: the mean loss (nats) at each position of the contiguous windows of ``ids``, position
    0 predicted from one token, position ``seq_len - 1`` from the whole window. How much a model gains from a
    longer context (Kaplan et al., 2020, Fig. 7); runs where the model is, returns on the CPU."""
    return _window_losses(model, ids, seq_len, batch_size).mean(0)


def ngram_perplexity(train_ids: torch.Tensor, test_ids: torch.Tensor, vocab_size: int, n: int = 2,
                     add: float = 1.0) -> float:
    """The perplexity on ``test_ids`` of a unigram (``n=1``) or bigram (``n=2``) model counted on ``train_ids``,
    with add-``add`` smoothing (every count + ``add``, so an unseen token or pair keeps some probability)."""
    if n not in (1, 2) or isinstance(n, bool):
        raise ValueError(f"n must be 1 (unigram) or 2 (bigram), got {n!r}")
    if isinstance(add, bool) or not isinstance(add, (int, float)) or not add > 0 or not math.isfinite(add):
        raise ValueError(f"add must be a finite number > 0 (the smoothing count), got {add!r}")
    train_ids, test_ids = _check_ids(train_ids, "train_ids", 1), _check_ids(test_ids, "test_ids", 1)
    V = _check_positive("vocab_size", vocab_size)
    if int(train_ids.max()) >= V or int(test_ids.max()) >= V or int(train_ids.min()) < 0 or int(test_ids.min()) < 0:
        raise ValueError(f"token ids must lie in 0..{V - 1} (vocab_size {V}), got train ids "
                         f"{int(train_ids.min())}..{int(train_ids.max())}, test ids "
                         f"{int(test_ids.min())}..{int(test_ids.max())}")
    if n == 1:
        counts = torch.bincount(train_ids, minlength=V).double() + add
        log_p = (counts / counts.sum()).log()
        return math.exp(-log_p[test_ids].mean().item())
    pairs = torch.bincount(train_ids[:-1] * V + train_ids[1:], minlength=V * V).double().view(V, V) + add
    log_p = (pairs / pairs.sum(1, keepdim=True)).log()
    return math.exp(-log_p[test_ids[:-1], test_ids[1:]].mean().item())


@dataclass
class LMRun:
    """One trained language model: ``curve`` rows ``{"step", "seconds", "valid_ppl"}`` (seconds of training,
    evaluation excluded), the final ``valid_ppl`` and the whole ``train_seconds``."""

    model: torch.nn.Module
    curve: list[dict] = field(default_factory=list)
    valid_ppl: float = float("nan")
    train_seconds: float = 0.0


def train_lm(model, train_ids: torch.Tensor, valid_ids: torch.Tensor, *, steps: int, seq_len: int = 64,
             batch_size: int = 32, lr: float = 3e-3, eval_every: int | None = None, clip_norm: float = 1.0,
             device=None, seed: int = 0, progress: bool = True, desc: str = "language model") -> LMRun:
    """Train ``model`` on windows of ``train_ids`` (every ``seq_len // 2`` tokens) and record the validation
    perplexity against training time every ``eval_every`` steps (default: 5 points) and at the end."""
    _check_lm(model)
    _check_positive("steps", steps)
    inputs, targets = windows(train_ids, seq_len, stride=max(1, seq_len // 2))
    _check_ids(valid_ids, "valid_ids", seq_len)
    if eval_every is not None:
        _check_positive("eval_every", eval_every)
    eval_every = eval_every or max(1, steps // 5)
    run = LMRun(model)
    clock = Stopwatch(running=True)  # training time: paused while the validation text is scored

    def evaluate(step, trained, record):
        if step % eval_every and step != steps:
            return False
        clock.pause()
        run.curve.append({"step": step, "seconds": clock.wall, "valid_ppl": perplexity(trained, valid_ids, seq_len)})
        trained.train()
        clock.resume()
        return False

    fit(model, (inputs, targets), _token_loss, steps=steps, batch_size=batch_size, lr=lr, clip_norm=clip_norm,
        device=device, seed=seed, progress=progress, callbacks=[evaluate], desc=desc)
    run.valid_ppl, run.train_seconds = run.curve[-1]["valid_ppl"], run.curve[-1]["seconds"]
    return run


# -- the sticky note on real text ----------------------------------------------------------------------------

FEATURES = ("inside quotes", "position in line", "start of word")


def text_features(text: str) -> dict[str, torch.Tensor]:
    """Readable properties of ``text`` after each character (float tensors of ``len(text)``), as a reader who
    has just read character ``t`` knows them:

    - ``"inside quotes"``: 1 when the last quotation mark so far (character ``t`` included) opens a quote
      (“ or "), 0 after one that closes it (”) and before any; a straight ``"`` toggles;
    - ``"position in line"``: characters read since the last line break (0 on the break itself);
    - ``"start of word"``: 1 on a letter that follows a non-letter (or starts the text)."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"text must be a non-empty string, got {type(text).__name__} of length {len(text or '')}")
    inside, position, start = [], [], []
    quoted, column, previous_letter = 0.0, 0, False
    for char in text:
        if char == "“":
            quoted = 1.0
        elif char == "”":
            quoted = 0.0
        elif char == '"':
            quoted = 1.0 - quoted
        column = 0 if char == "\n" else column + 1
        letter = char.isalpha()
        inside.append(quoted)
        position.append(float(column))
        start.append(float(letter and not previous_letter))
        previous_letter = letter
    return {name: torch.tensor(values) for name, values in zip(FEATURES, (inside, position, start))}


@torch.no_grad()
def lm_trace(model, ids: torch.Tensor, chunk: int = 256, layer: int = -1) -> dict[str, torch.Tensor]:
    """Every hidden state and gate of a recurrent LM (``GRULM``: ``embedding``, ``rnn``) over ``ids``, read in
    contiguous chunks of ``chunk`` tokens, each from a blank state (a ragged end is dropped). The ``torch.nn``
    layer is copied into seqviz's own model (``copy_from``), which returns the trace; runs where ``model`` is.
    Returns ``{name: (T, H)}`` for layer ``layer`` ("h", and "c", "forget", "input", "output", "candidate"
    for an LSTM; "update", "reset", "candidate" for a GRU), on the CPU, ``T = (len(ids) // chunk) * chunk``."""
    if not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}")
    if not hasattr(model, "embedding") or not hasattr(model, "rnn"):
        raise ValueError(f"lm_trace needs a recurrent LM with .embedding and .rnn (GRULM), got {type(model).__name__}")
    ids = _check_ids(ids, "ids", chunk - 1)
    layers = getattr(model.rnn, "num_layers", 1)
    if isinstance(layer, bool) or not isinstance(layer, int) or not -layers <= layer < layers:
        raise ValueError(f"layer must be an int in {-layers}..{layers - 1} (the model has {layers} layer(s)), "
                         f"got {layer!r}")
    twin = seqviz_twin(model.rnn).eval()
    device = model.embedding.weight.device
    rows = ids[: (ids.numel() // chunk) * chunk].view(-1, chunk).to(device)  # (B, chunk)
    _, _, trace = twin(model.embedding(rows), return_trace=True)             # trace[name]: (layers, B, chunk, H)
    return {name: values[layer].reshape(-1, values.shape[-1]).float().cpu() for name, values in trace.items()}


def unit_correlations(activations: torch.Tensor, feature: torch.Tensor) -> torch.Tensor:
    """Pearson's r of each column of ``activations`` (T, H) with ``feature`` (T,); 0 for a constant column."""
    if not isinstance(activations, torch.Tensor) or not isinstance(feature, torch.Tensor):
        raise ValueError(f"expected two tensors, activations (T, H) and feature (T,), got "
                         f"{type(activations).__name__} and {type(feature).__name__}")
    if activations.dim() != 2 or feature.dim() != 1 or activations.shape[0] != feature.shape[0]:
        raise ValueError(f"expected activations (T, H) and feature (T,), got {tuple(activations.shape)} and "
                         f"{tuple(feature.shape)}")
    a = activations.double() - activations.double().mean(0)                  # (T, H)
    f = feature.double() - feature.double().mean()                            # (T,)
    scale = a.norm(dim=0) * f.norm()                                          # (H,)
    return torch.where(scale > 0, (f @ a) / scale.clamp_min(1e-300), torch.zeros_like(scale)).float()


@dataclass
class ReadableUnit:
    """The unit that best follows ``feature``: ``quantity`` ("h", "c", a gate), its index and Pearson's ``r``."""

    feature: str
    quantity: str
    unit: int
    r: float


def readable_units(trace: dict[str, torch.Tensor], features: dict[str, torch.Tensor]) -> list[ReadableUnit]:
    """For each feature, the unit (of any traced quantity) whose activation correlates most strongly with it,
    either sign; ``trace`` from :func:`lm_trace`, ``features`` from :func:`text_features` (cut to the same T)."""
    if not isinstance(trace, dict) or not isinstance(features, dict) or not trace or not features:
        raise ValueError("readable_units needs a non-empty trace and non-empty features (dicts of tensors: lm_trace, "
                         "text_features)")
    bad = [k for k, v in [*trace.items(), *features.items()] if not isinstance(v, torch.Tensor)]
    if bad:
        raise ValueError(f"trace and features must hold tensors; {bad[0]!r} holds a "
                         f"{type(({**trace, **features})[bad[0]]).__name__}")
    found = []
    for name, values in features.items():
        best = None
        for quantity, activations in trace.items():
            r = unit_correlations(activations, values[: activations.shape[0]])
            unit = int(r.abs().argmax())
            if best is None or abs(r[unit]) > abs(best.r):
                best = ReadableUnit(name, quantity, unit, float(r[unit]))
        found.append(best)
    return found


def known_word_share(text: str, words) -> float:
    """The share of the words of ``text`` (letters only, lower-cased) found in ``words``; NaN without words."""
    found = [w for w in tokenize(text) if w.isalpha()]
    if isinstance(words, str) or not hasattr(words, "__iter__"):
        raise ValueError(f"words must be a collection of words (a set, a list), got {type(words).__name__}")
    if not found:
        return float("nan")
    words = set(words)
    return sum(w in words for w in found) / len(found)
