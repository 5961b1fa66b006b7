"""Truncated backpropagation through time as a wrapper module (chapter 3; Williams & Peng, 1990).

:class:`TruncatedBPTT` runs any recurrent encoder so that gradients flow back at most ``window``
steps from the end. Its memory and time are measured by :func:`seqviz.gradients.tbptt_cost`.
"""

from __future__ import annotations

import torch
from torch import nn

from ._checks import check_positive_int


class TruncatedBPTT(nn.Module):
    """Wrap a recurrent ``encoder`` so that gradients flow back at most ``window`` steps from the end.

    The first T - window steps run under ``torch.no_grad()`` (nothing is kept for
    backward); the last ``window`` start from that state, detached, and are recorded.
    The outputs are the same as the encoder's; only the gradient is cut. For a loss read
    at the last step this is truncated BPTT: memory and backward time grow with
    ``window`` instead of T, and a dependency longer than ``window`` gets no learning
    signal. (Sequences must not be padded: the loss must be read at step T.)
    """

    def __init__(self, encoder: nn.Module, window: int):
        super().__init__()
        check_positive_int("window", window)
        self.encoder, self.window = encoder, window
        self.hidden_size = encoder.hidden_size
        self.bidirectional = getattr(encoder, "bidirectional", False)
        if self.bidirectional:
            raise ValueError("truncated BPTT reads left to right: a bidirectional encoder cannot be truncated")

    def forward(self, x: torch.Tensor, state=None, return_trace: bool = False):
        if return_trace:
            raise ValueError("TruncatedBPTT does not record traces; trace the wrapped encoder instead")
        cut = x.shape[1] - self.window
        if cut <= 0:
            return self.encoder(x, state)
        with torch.no_grad():
            early, state = self.encoder(x[:, :cut], state)  # (B, cut, H): not recorded
        late, final = self.encoder(x[:, cut:], state)  # (B, window, H): recorded
        return torch.cat([early, late], dim=1), final
