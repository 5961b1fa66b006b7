"""Sequence classifiers built around any encoder, and the order-blind baselines of chapter 1.

- :class:`SequenceClassifier`: token ids -> embedding -> recurrent encoder -> the state at
  each sequence's last real token -> linear layer (chapters 1-4, 10).
- :class:`BagOfWords`: the mean of the word embeddings; blind to order by construction.
- :class:`CausalCNN`: stacked causal convolutions read out at the last position; it sees
  exactly ``receptive_field`` tokens back (chapter 1).
- :class:`WindowMLP`: the embeddings of exactly ``window`` tokens, concatenated, then an MLP: a
  network without a loop whose size grows with the length it reads (chapters 1 and 2).
"""

from __future__ import annotations

import torch
from torch import nn

from ..config import check_device, value_checks
from ._checks import check_ids, check_positive_int


def last_step(out: torch.Tensor, lengths: torch.Tensor | None) -> torch.Tensor:
    """The output at each sequence's last real token: ``out`` (B, T, D) -> (B, D)."""
    if lengths is None:
        return out[:, -1]
    if lengths.shape != (out.shape[0],):
        raise ValueError(f"lengths must have shape ({out.shape[0]},), got {tuple(lengths.shape)}")
    if value_checks(lengths) and (int(lengths.min()) < 1 or int(lengths.max()) > out.shape[1]):
        raise ValueError(f"lengths must lie in 1..{out.shape[1]}, got {int(lengths.min())}..{int(lengths.max())}")
    index = (lengths.to(out.device) - 1).view(-1, 1, 1).expand(-1, 1, out.shape[2])  # (B, 1, D)
    return out.gather(1, index).squeeze(1)


def _check_ids(ids, vocab_size, name, weight, lengths=None):
    check_ids(ids, vocab_size, name, weight)
    if lengths is not None and lengths.device.type != "cpu":  # lengths may stay on the CPU (as pack_padded_sequence's)
        check_device(ids, name, lengths=lengths)


class SequenceClassifier(nn.Module):
    """Embedding, then ``encoder`` (any seqviz or torch recurrent model), then a linear head.

    ``forward(ids, lengths=None)`` returns logits (B, num_classes). For a bidirectional
    encoder the head reads the forward state at the last token and the backward state at
    the first, as the final states of ``torch.nn`` do.
    """

    def __init__(self, vocab_size: int, embed_size: int, encoder: nn.Module, num_classes: int):
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.encoder = encoder
        directions = 2 if getattr(encoder, "bidirectional", False) else 1
        self.head = nn.Linear(directions * encoder.hidden_size, num_classes)

    def features(self, ids, lengths=None, return_trace=False):
        _check_ids(ids, self.vocab_size, type(self).__name__, self.embedding.weight, lengths)
        x = self.embedding(ids)  # (B, T, E)
        result = self.encoder(x, return_trace=True) if return_trace else self.encoder(x)
        out = result[0]  # (B, T, D*H)
        H = self.encoder.hidden_size
        feats = last_step(out[..., :H], lengths)  # forward direction: last real token
        if out.shape[-1] > H:
            feats = torch.cat([feats, out[:, 0, H:]], dim=-1)  # backward direction: it ends at token 0
        return (feats, result[2]) if return_trace else feats

    def forward(self, ids, lengths=None):
        return self.head(self.features(ids, lengths))


class BagOfWords(nn.Module):
    """Average the word embeddings, then an MLP: the same answer for every word order."""

    def __init__(self, vocab_size: int, embed_size: int, num_classes: int, hidden_size: int = 64, pad_id: int = 0):
        super().__init__()
        self.vocab_size, self.pad_id = vocab_size, pad_id
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.mlp = nn.Sequential(nn.Linear(embed_size, hidden_size), nn.ReLU(), nn.Linear(hidden_size, num_classes))

    def forward(self, ids, lengths=None):
        _check_ids(ids, self.vocab_size, type(self).__name__, self.embedding.weight)
        mask = (ids != self.pad_id).unsqueeze(-1).float()  # (B, T, 1)
        mean = (self.embedding(ids) * mask).sum(1) / mask.sum(1).clamp(min=1)  # (B, E)
        return self.mlp(mean)


class CausalCNN(nn.Module):
    """``num_layers`` causal 1-D convolutions; the logits come from the last position only.

    Each layer looks ``kernel_size - 1`` tokens further back, so the last position sees
    ``receptive_field = 1 + num_layers * (kernel_size - 1)`` tokens.
    """

    def __init__(self, vocab_size: int, embed_size: int, channels: int, kernel_size: int, num_layers: int,
                 num_classes: int):
        super().__init__()
        if kernel_size < 1 or num_layers < 1:
            raise ValueError(f"kernel_size and num_layers must be >= 1, got {kernel_size}, {num_layers}")
        self.vocab_size, self.kernel_size, self.num_layers = vocab_size, kernel_size, num_layers
        self.embedding = nn.Embedding(vocab_size, embed_size)
        sizes = [embed_size] + [channels] * num_layers
        self.convs = nn.ModuleList(nn.Conv1d(a, b, kernel_size) for a, b in zip(sizes, sizes[1:]))
        self.head = nn.Linear(channels, num_classes)

    @property
    def receptive_field(self) -> int:
        return 1 + self.num_layers * (self.kernel_size - 1)

    def forward(self, ids, lengths=None):
        _check_ids(ids, self.vocab_size, type(self).__name__, self.embedding.weight, lengths)
        h = self.embedding(ids).transpose(1, 2)  # (B, E, T)
        for conv in self.convs:
            h = torch.relu(conv(nn.functional.pad(h, (self.kernel_size - 1, 0))))  # (B, C, T): causal
        return self.head(last_step(h.transpose(1, 2), lengths))


class WindowMLP(nn.Module):
    """Concatenate the embeddings of exactly ``window`` tokens, then an MLP (chapters 1 and 2).

    Its first layer has a weight for every position in the window, so its size grows with
    ``window`` and it cannot read any other length: the contrast to a recurrent network, which
    reads any length with the same weights. ``forward(ids, lengths=None)`` -> logits (B, num_classes);
    ``activation`` is ``"relu"`` or ``"tanh"``.
    """

    def __init__(self, vocab_size: int, embed_size: int, window: int, hidden_size: int, num_classes: int,
                 activation: str = "relu"):
        super().__init__()
        if activation not in ("relu", "tanh"):
            raise ValueError(f"activation must be 'relu' or 'tanh', got {activation!r}")
        self.window = check_positive_int("window", window)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.mlp = nn.Sequential(nn.Linear(window * embed_size, hidden_size),
                                 nn.ReLU() if activation == "relu" else nn.Tanh(), nn.Linear(hidden_size, num_classes))

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor | None = None) -> torch.Tensor:
        if ids.dim() != 2 or ids.shape[1] != self.window:
            raise ValueError(f"WindowMLP reads exactly {self.window} tokens: ids must be (B, {self.window}), "
                             f"got shape {tuple(ids.shape)}")
        check_ids(ids, self.embedding.num_embeddings, "WindowMLP", self.embedding.weight)
        return self.mlp(self.embedding(ids).flatten(1))  # (B, window * E) -> (B, num_classes)
