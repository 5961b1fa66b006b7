"""Activation memory: the one way the book measures what a training step keeps for backward.

Backpropagation needs some of the forward pass's tensors again (the input of every matrix product,
the output of every tanh, the attention weights ...). Autograd hands each of them to a
``torch.autograd.graph.saved_tensors_hooks`` pack hook when it saves it; :func:`activation_bytes`
counts them:

- each **storage** once: a tensor saved by two operations (an RNN's h_t is the tanh's output and the
  next step's matrix input) or saved as a view of a larger buffer (the chunks of a fused gate
  tensor) costs memory once, the whole buffer;
- **parameters are not counted**: a saved tensor whose root (itself, or the tensor it is a view of)
  is a leaf that requires grad is a weight, which exists before and after the step whatever the
  length or batch. What is left grows with the batch and the length: the activation memory.

The count does not depend on the device or the allocator, so it reads the same on a CPU and a GPU.
Chapters 3, 8 and 10 and ``benchmarks/`` use it (it replaced two functions that disagreed by 2-4x:
one counted parameters, the other counted a tensor saved twice twice).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

__all__ = ["activation_bytes"]


def _is_parameter(tensor: torch.Tensor) -> bool:
    root = tensor._base if tensor._base is not None else tensor
    return root.is_leaf and root.requires_grad


def activation_bytes(fn: Callable[[], object], *, return_result: bool = False):
    """Bytes of the tensors autograd saves for backward while ``fn()`` runs, parameters excluded,
    each storage counted once (see the module docstring).

    ``fn`` builds the graph (e.g. ``lambda: model(x)[0].pow(2).mean()``); call ``backward`` on its
    result afterwards if you need the gradients. Returns the byte count, or ``(fn's result, bytes)``
    with ``return_result=True``.
    """
    if not callable(fn):
        raise ValueError(f"activation_bytes expects a function that runs the forward pass, got {type(fn).__name__}")
    storages: dict[tuple, int] = {}
    held = []  # keep every saved tensor alive until the count is done, so no address is reused meanwhile

    def pack(tensor):
        if tensor.layout == torch.strided and not _is_parameter(tensor):
            storage = tensor.untyped_storage()
            storages[(tensor.device.type, tensor.device.index, storage.data_ptr())] = storage.nbytes()
            held.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        result = fn()
    total = sum(storages.values())
    held.clear()
    return (result, total) if return_result else total
