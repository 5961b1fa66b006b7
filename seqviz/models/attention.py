"""Attention as a soft lookup over the encoder's states (chapter 7).

- :func:`padding_mask`: which positions of a right-padded batch hold real tokens;
- :func:`masked_softmax`: a softmax that gives padding exactly zero weight;
- :class:`AdditiveAttention`: Bahdanau et al. (2015), "Neural machine translation by
  jointly learning to align and translate": the decoder's previous state ``s`` scores
  every encoder state ``h_j`` with a one-hidden-layer network,

      e_j = v^T tanh(W_query s + W_key h_j + b),   alpha = softmax(e),   c = sum_j alpha_j h_j,

  and the context ``c`` is what the decoder reads at this step, beside its own state.
"""

from __future__ import annotations

import torch
from torch import nn

from ..config import check_device, value_checks
from ._checks import check_positive_int


def padding_mask(lengths: torch.Tensor, T: int) -> torch.Tensor:
    """(B, T) bool, True on the first ``lengths[b]`` positions of row b (the real tokens)."""
    if not isinstance(lengths, torch.Tensor) or lengths.dim() != 1:
        raise ValueError(f"lengths must be a 1-D tensor (B,), got "
                         f"{tuple(lengths.shape) if isinstance(lengths, torch.Tensor) else type(lengths).__name__}")
    check_positive_int("T", T, "the padded length")
    if lengths.numel() and value_checks(lengths) and (int(lengths.min()) < 1 or int(lengths.max()) > T):
        raise ValueError(f"lengths must lie in 1..{T}, got {int(lengths.min())}..{int(lengths.max())}")
    return torch.arange(T, device=lengths.device)[None, :] < lengths[:, None]  # (B, T)


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
    """Softmax over the last dimension where ``mask`` is True; exactly 0 where it is False.

    A row whose mask is all False has no weights (its softmax would be NaN): a ``ValueError`` (checked on the CPU,
    or anywhere under ``SEQVIZ_DEBUG=1``)."""
    if not isinstance(scores, torch.Tensor) or not scores.is_floating_point():
        raise ValueError(f"scores must be a float tensor, got {getattr(scores, 'dtype', type(scores).__name__)}")
    if mask is None:
        return scores.softmax(-1)
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        raise ValueError(f"mask must be a bool tensor (True = a real position), got "
                         f"{getattr(mask, 'dtype', type(mask).__name__)}")
    if mask.dim() > scores.dim() or (mask.shape != scores.shape[-mask.dim():] and mask.shape != scores.shape):
        raise ValueError(f"mask of shape {tuple(mask.shape)} does not fit scores of shape {tuple(scores.shape)}")
    if value_checks(mask) and not bool(mask.any(-1).all()):
        raise ValueError("a row of the mask has no True position (nothing to attend to, e.g. a sentence of length 0): "
                         "its softmax is undefined")
    return scores.masked_fill(~mask, float("-inf")).softmax(-1)


class AdditiveAttention(nn.Module):
    """Bahdanau's additive attention. ``forward(query (B, Hq), keys (B, S, Hk), mask (B, S))``
    returns ``(context (B, Hk), weights (B, S))``; each row of ``weights`` sums to 1 over the
    real positions and is exactly 0 on padding.

    ``project_keys(keys)`` computes ``W_key h_j + b`` once per source sentence; pass the
    result as ``projected_keys`` at every decoder step to avoid recomputing it.
    """

    def __init__(self, query_size: int, key_size: int, attention_size: int):
        super().__init__()
        for name, value in (("query_size", query_size), ("key_size", key_size), ("attention_size", attention_size)):
            check_positive_int(name, value)
        self.query_size, self.key_size, self.attention_size = query_size, key_size, attention_size
        self.query_proj = nn.Linear(query_size, attention_size, bias=False)  # W_query
        self.key_proj = nn.Linear(key_size, attention_size)  # W_key and b
        self.v = nn.Linear(attention_size, 1, bias=False)  # v

    def project_keys(self, keys: torch.Tensor) -> torch.Tensor:
        return self.key_proj(keys)  # (B, S, A)

    def scores(self, query: torch.Tensor, keys: torch.Tensor | None = None,
               projected_keys: torch.Tensor | None = None) -> torch.Tensor:
        """The unnormalised scores e (B, S)."""
        projected = (self.key_proj(keys) if projected_keys is None
                     else projected_keys)  # (B, S, A)
        query_part = self.query_proj(query)[:, None, :]  # (B, 1, A)
        hidden = torch.tanh(projected + query_part)  # (B, S, A)
        return self.v(hidden).squeeze(-1)  # (B, S)

    def forward(self, query: torch.Tensor, keys: torch.Tensor,
                mask: torch.Tensor | None = None,
                projected_keys: torch.Tensor | None = None):
        self._check(query, keys, mask)
        scores = self.scores(query, keys, projected_keys)  # (B, S)
        weights = masked_softmax(scores, mask)  # (B, S)
        # (B, Hk): the weighted average of the keys
        context = torch.bmm(weights[:, None, :], keys).squeeze(1)
        return context, weights

    def _check(self, query, keys, mask) -> None:
        """A ``ValueError`` naming the expected and the given shapes (or devices) when the inputs do not fit."""
        expected = f"query (B, {self.query_size}) and keys (B, S, {self.key_size})"
        if not isinstance(query, torch.Tensor) or not isinstance(keys, torch.Tensor):
            raise ValueError(f"AdditiveAttention expects tensors {expected}, got {type(query).__name__} and "
                             f"{type(keys).__name__}")
        if (query.dim() != 2 or keys.dim() != 3 or query.shape[0] != keys.shape[0]
                or query.shape[1] != self.query_size or keys.shape[2] != self.key_size):
            raise ValueError(f"AdditiveAttention expects {expected}, got {tuple(query.shape)} and {tuple(keys.shape)}")
        if mask is not None and mask.shape != keys.shape[:2]:
            raise ValueError(f"mask must have shape {tuple(keys.shape[:2])} (B, S), got {tuple(mask.shape)}")
        check_device(self.v.weight, type(self).__name__, query=query, keys=keys, mask=mask)
