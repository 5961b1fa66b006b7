"""A trained model's weights and vocabulary, written for the page's forward pass (``js/nn/``).

Weights keep PyTorch's names and layout, float32. Which names the page reads is written once, in
``names.json`` (:data:`NAMES`, by model family and role): :func:`named_weights` ships exactly those, and the
page's script reads the same table (``page.bundle`` inlines it as ``NAMES``), so an exporter and the
JavaScript cannot disagree on a name. Each function checks that the page can compute what the model computes
(a bidirectional or tanh-free RNN could not be) and says so in a ``ValueError`` otherwise.

Used by the views of :mod:`seqviz.web`: ``sticky_note``, ``gates``, ``generate``, ``translation``, ``heads``
(chapters 2, 4, 4b and 6-9).
"""

from __future__ import annotations

import json
import numbers
import re
from pathlib import Path

import torch
from torch import nn

from ..models import GRU, LSTM, RNN, seqviz_twin

CELLS = ((RNN, "rnn"), (LSTM, "lstm"), (GRU, "gru"), (nn.RNN, "rnn"), (nn.LSTM, "lstm"), (nn.GRU, "gru"))
NAMES: dict = {family: roles for family, roles in json.loads((Path(__file__).parent / "names.json").read_text()).items()
               if not family.startswith("_")}


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


def name(family: str, role: str, **fields) -> str:
    """The state_dict name (or prefix) of ``role`` in ``family``, from :data:`NAMES` (``{layer}`` filled in)."""
    return NAMES[family][role].format(**fields)


def recurrent_names(prefix: str, num_layers: int) -> list[str]:
    """The names of layers ``0 .. num_layers - 1`` of a recurrent module whose names start with ``prefix``."""
    return [prefix + name("recurrent", role, layer=layer) for layer in range(num_layers) for role in NAMES["recurrent"]]


def named_weights(model: nn.Module, names) -> dict:
    """``{name: tensor}`` for exactly ``names`` from ``model.state_dict()``, detached; a ``ValueError`` names any the
    model lacks (a model the page's forward pass was not written for)."""
    state = model.state_dict()
    missing = [n for n in names if n not in state]
    if missing:
        raise ValueError(f"the page reads {missing} (seqviz/web/names.json), which this {type(model).__name__} does "
                         f"not have: expected the model the view was written for")
    return {n: state[n].detach() for n in names}


def weights(module: nn.Module, prefix: str = "") -> dict:
    """Every parameter of ``module`` under its ``state_dict`` name (with ``prefix``), detached."""
    return {f"{prefix}{name}": value.detach() for name, value in module.state_dict().items()}


def classifier(model, num_layers: int | None = None) -> tuple[dict, dict]:
    """A ``SequenceClassifier`` with a recurrent encoder: ``(weights, model info)`` for ``nn.classifierReading``.

    ``num_layers`` (default: all) keeps the embedding and the first layers only, and then no head (chapter 4's
    gates view reads no further)."""
    for part in ("embedding", "encoder", "head"):
        if not hasattr(model, part):
            raise ValueError(f"expected a seqviz.models.SequenceClassifier (with .{part}), got {type(model).__name__}")
    kind = cell_kind(model.encoder)
    layers = int(model.encoder.num_layers)
    roles = NAMES["classifier"]
    names = [roles["embedding"], *recurrent_names(roles["encoder"], layers if num_layers is None else num_layers)]
    if num_layers is None:
        names += [roles["head_weight"], roles["head_bias"]]
    return named_weights(model, names), {"cell": kind, "num_layers": layers,
                                         "hidden_size": int(model.encoder.hidden_size)}


def vocabulary(vocab, pattern: str = r"\S+", lower: bool = True, max_tokens: int = 100) -> dict:
    """A ``Vocab`` for the page: its words in id order, its specials, and how a typed text is split into
    tokens (a JavaScript regular expression ``pattern`` matched globally, after lower-casing when ``lower``)."""
    if not hasattr(vocab, "itos") or not hasattr(vocab, "stoi"):
        raise ValueError(f"expected a seqviz.data.Vocab (with .itos and .stoi), got {type(vocab).__name__}")
    if not isinstance(pattern, str) or not pattern:   # a JavaScript regular expression (it may use \p{L})
        raise ValueError(f"pattern must be a regular expression (a non-empty str), got {pattern!r}")
    if not isinstance(lower, bool):
        raise ValueError(f"lower must be True or False, got {lower!r}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens (the most tokens a view reads) must be an int >= 1, got {max_tokens!r}")
    return {"itos": list(vocab.itos), "specials": list(getattr(vocab, "specials", ())), "pattern": pattern,
            "lower": lower, "max_tokens": max_tokens}


def known_ids(sentence: str, vocab, pattern: str = r"\S+") -> list[int] | None:
    """The ids of ``sentence`` split as the page splits it (``re.findall(pattern, sentence.lower())``), or None
    when it is empty or has a word the model does not know (special tokens included): then the page shows its
    message and there are no seqviz numbers to compare."""
    if not isinstance(sentence, str):
        raise ValueError(f"the first sentence must be a str, got {type(sentence).__name__}")
    tokens = re.findall(pattern, sentence.lower())
    if not tokens or any(t not in vocab.stoi or t in vocab.specials for t in tokens):
        return None
    return vocab.encode(tokens)


def check_names(values, what: str) -> list[str]:
    """``values`` as a list of strings: a list or tuple of str (a lone string is a mistake, not its letters)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise ValueError(f"{what} must be a list of strings, got {values!r}")
    if not all(isinstance(v, str) for v in values):
        raise ValueError(f"{what} must be a list of strings, got {values!r}")
    return list(values)


def check_int(value, what: str, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``low .. high`` (a bool, a float or a string is refused, not rounded)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low or \
            (high is not None and value > high):
        span = f"in {low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{what} must be an int {span}, got {value!r}")
    return int(value)


def check_title(title, what: str = "title") -> str:
    if not isinstance(title, str):
        raise ValueError(f"{what} must be a str, got {type(title).__name__}")
    return title


def classifier_trace(model, ids) -> dict:
    """seqviz's trace of a ``SequenceClassifier`` reading one sentence ``ids`` (a list): ``model.features``'s,
    with a ``torch.nn`` encoder read through its seqviz twin (same weights), which records the gates."""
    device = model.embedding.weight.device
    with torch.no_grad():
        x = model.embedding(torch.tensor([ids], device=device))   # (1, T, E)
        return seqviz_twin(model.encoder)(x, return_trace=True)[2]
