"""Per-step gradients of the hidden state (chapters 3 and 4): the stable public path of
:func:`seqviz.gradients.hidden_grads`, :func:`~seqviz.gradients.hidden_grad_norms` and
:func:`~seqviz.gradients.as_seqviz`, which live with the rest of chapter 3's gradients."""

from .gradients import as_seqviz, hidden_grad_norms, hidden_grads

__all__ = ["as_seqviz", "hidden_grad_norms", "hidden_grads"]
