"""A trained model's weights and vocabulary, written for the page's forward pass (``js/nn.js``).

Weights keep PyTorch's names and layout, float32, so ``nn.js`` reads ``encoder.weight_ih_l0`` where
``model.state_dict()`` has it. Each function checks that the page can compute what the model computes
(a bidirectional or tanh-free RNN would not be) and says so in a ``ValueError`` otherwise.

Used by the views of :mod:`seqviz.web`: ``sticky_note``, ``gates``, ``translation``, ``heads`` (chapters 2, 4, 6-9).
"""

from __future__ import annotations

import re

from torch import nn

from ..models import GRU, LSTM, RNN

CELLS = ((RNN, "rnn"), (LSTM, "lstm"), (GRU, "gru"), (nn.RNN, "rnn"), (nn.LSTM, "lstm"), (nn.GRU, "gru"))


def cell_kind(module) -> str:
    """``"rnn"``, ``"lstm"`` or ``"gru"`` for a one-direction recurrent module the page can run."""
    kind = next((name for cls, name in CELLS if isinstance(module, cls)), None)
    if kind is None:
        raise ValueError(f"expected an RNN, LSTM or GRU (seqviz.models or torch.nn), got {type(module).__name__}")
    if getattr(module, "bidirectional", False):
        raise ValueError("the page's views read left to right: expected bidirectional=False")
    if kind == "rnn" and getattr(module, "nonlinearity", "tanh") != "tanh":
        raise ValueError(f"the page's RNN uses tanh, got nonlinearity={module.nonlinearity!r}")
    if getattr(module, "proj_size", 0):
        raise ValueError("the page's LSTM has no projection: expected proj_size=0")
    if not getattr(module, "bias", True):
        raise ValueError("the page's recurrent layers have biases: expected bias=True")
    return kind


def weights(module: nn.Module, prefix: str = "") -> dict:
    """Every parameter of ``module`` under its ``state_dict`` name (with ``prefix``), detached."""
    return {f"{prefix}{name}": value.detach() for name, value in module.state_dict().items()}


def classifier(model) -> tuple[dict, dict]:
    """A ``SequenceClassifier`` with a recurrent encoder: ``(weights, model info)`` for ``nn.classifierReading``."""
    for part in ("embedding", "encoder", "head"):
        if not hasattr(model, part):
            raise ValueError(f"expected a seqviz.models.SequenceClassifier (with .{part}), got {type(model).__name__}")
    kind = cell_kind(model.encoder)
    return weights(model), {"cell": kind, "num_layers": int(model.encoder.num_layers),
                            "hidden_size": int(model.encoder.hidden_size)}


def vocabulary(vocab, pattern: str = r"\S+", lower: bool = True, max_tokens: int = 100) -> dict:
    """A ``Vocab`` for the page: its words in id order, its specials, and how a typed text is split into
    tokens (a JavaScript regular expression ``pattern`` matched globally, after lower-casing)."""
    if not hasattr(vocab, "itos"):
        raise ValueError(f"expected a seqviz.data.Vocab (with .itos), got {type(vocab).__name__}")
    return {"itos": list(vocab.itos), "specials": list(getattr(vocab, "specials", ())), "pattern": pattern,
            "lower": bool(lower), "max_tokens": int(max_tokens)}


def known_ids(sentence: str, vocab, pattern: str = r"\S+") -> list[int] | None:
    """The ids of ``sentence`` split as the page splits it (``re.findall(pattern, sentence.lower())``), or None
    when it is empty or has a word the model does not know (special tokens included): then the page shows its
    message and there are no seqviz numbers to compare."""
    tokens = re.findall(pattern, sentence.lower())
    if not tokens or any(t not in vocab.stoi or t in vocab.specials for t in tokens):
        return None
    return vocab.encode(tokens)
