"""The one table of recurrent cells: a name, the from-scratch model, and ``torch.nn``'s twin.

``CELLS["lstm"]`` is :class:`~seqviz.models.LSTM`; its ``.builtin`` is ``torch.nn.LSTM``. Every
place that builds a recurrent network by name (the encoders of chapters 5-7 and 10, the language
models, the exercises) goes through :func:`make_recurrent` (named like ``make_encoder`` and ``make_block``, so
that ``seqviz.models.recurrent`` stays the module of ``RecurrentBase``); :func:`seqviz_twin` goes the other way,
from a ``torch.nn`` module to the seqviz model with the same weights (chapters 3-4 trace them).
"""

from __future__ import annotations

from torch import nn

from .gru import GRU
from .lstm import LSTM
from .recurrent import RecurrentBase
from .rnn import RNN

CELLS: dict[str, type[RecurrentBase]] = {"rnn": RNN, "gru": GRU, "lstm": LSTM}


def make_recurrent(kind: str, input_size: int, hidden_size: int, *, builtin: bool = True, **kwargs) -> nn.Module:
    """A batch-first recurrent network of ``kind`` ("rnn", "gru" or "lstm", any case): ``torch.nn``'s
    (fast, the default) or, with ``builtin=False``, the from-scratch model (traceable). ``kwargs``
    (num_layers, bidirectional ...) go to the constructor."""
    cls = CELLS.get(kind.lower()) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"cell must be one of {sorted(CELLS)} (any case), got {kind!r}")
    if builtin:
        return cls.builtin(input_size, hidden_size, batch_first=True, **kwargs)
    return cls(input_size, hidden_size, **kwargs)


recurrent = make_recurrent   # the name it had before; import make_recurrent (seqviz.models exports only that)


def seqviz_twin(module: nn.Module) -> RecurrentBase:
    """``module`` itself if it is a seqviz recurrent model; a ``torch.nn`` RNN/LSTM/GRU becomes the seqviz
    model with the same weights, on the same device and dtype, in the same train/eval mode."""
    if isinstance(module, RecurrentBase):
        return module
    if isinstance(module, nn.RNNBase):
        if not module.batch_first:
            raise ValueError(f"{type(module).__name__} must be built with batch_first=True (seqviz is batch-first)")
        if getattr(module, "proj_size", 0):
            raise ValueError("LSTMs with proj_size > 0 have no seqviz counterpart")
        cls = next((c for c in CELLS.values() if isinstance(module, c.builtin)), None)
        if cls is None:
            raise ValueError(f"{type(module).__name__} is none of torch.nn.RNN, LSTM, GRU")
        kwargs = dict(num_layers=module.num_layers, bias=module.bias, dropout=module.dropout,
                      bidirectional=module.bidirectional)
        if cls is RNN:
            kwargs["nonlinearity"] = module.nonlinearity
        first = next(module.parameters())
        ours = cls(module.input_size, module.hidden_size, **kwargs).to(first.device, first.dtype)
        return ours.copy_from(module).train(module.training)
    raise ValueError(f"expected a recurrent model from seqviz.models (or a torch.nn RNN/LSTM/GRU), "
                     f"got {type(module).__name__}")
