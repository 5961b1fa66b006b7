"""An emulated accelerator for a CPU-only machine: device mistakes fail here as they would on CUDA.

Inside ``emulated_accelerator()``, a request for ``"cuda"`` (``pick_device()``, ``model.to("cuda")``,
``torch.zeros(..., device="cuda")``) gives tensors of a wrapper class that hold their numbers on the CPU but
report the device ``meta:1`` (meta is the one non-CPU device whose autograd machinery a CPU-only build of PyTorch
has; index 1 keeps it apart from plain ``meta``, which libraries use for empty tensors and which stays as it is).
Every operation runs on the CPU, so results are exact and data-dependent code (``.item()``, ``bool(t)``) runs;
but an operation that mixes such a tensor with an ordinary CPU tensor of one or more dimensions raises
``RuntimeError: Expected all tensors to be on the same device``, the check CUDA makes (a 0-dimensional CPU
tensor is accepted, as CUDA accepts it; so are CPU indices in ``t[index]``). ``.numpy()`` on it raises as on
CUDA; ``.cpu()``, ``.item()``, ``.tolist()`` and ``print`` work.

Used by ``tests/test_devices.py`` (every model method and runner, with inputs left on the CPU) and by
``scripts/emulated_gpu_notebooks.py`` (every chapter, with ``pick_device()`` answering "cuda").
Built on PyTorch's documented extension points: a ``__torch_dispatch__`` wrapper subclass (as
``torch.testing._internal.logging_tensor``), a ``TorchDispatchMode`` and a ``TorchFunctionMode``.
"""

from __future__ import annotations

import contextlib

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._mode_utils import no_dispatch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

REPORTED = torch.device("meta", 1)  # what an emulated tensor's .device says (index 1: plain "meta" stays meta)
REQUESTED = "cuda"  # a request for this device type (any index) means "the accelerator"


class _State:
    """``syncs``: how many times a value was read back from the emulated accelerator (``.item()``, ``bool(t)``,
    ``.cpu()``, ``.tolist()``): each is a host-device synchronisation on a real GPU."""

    syncs = 0
    ops = 0  # operations run on the emulated accelerator


STATE = _State()


class AcceleratorTensor(torch.Tensor):
    """A tensor "on the accelerator": its numbers live on the CPU in ``.elem``."""

    @staticmethod
    def __new__(cls, elem, requires_grad=False):
        r = torch.Tensor._make_wrapper_subclass(cls, elem.size(), strides=elem.stride(),
                                                storage_offset=elem.storage_offset(), dtype=elem.dtype,
                                                layout=elem.layout, device=REPORTED, requires_grad=requires_grad)
        r.elem = elem.detach()
        return r

    def untyped_storage(self):  # the numbers' own storage, so memory counters see real bytes
        return self.elem.untyped_storage()

    def __repr__(self, **kwargs):
        return repr(self.elem)[:-1] + ", device='emulated accelerator')"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return NotImplemented  # the dispatch mode below handles every operation


def _accelerator(device) -> bool:
    if device is None or isinstance(device, bool):
        return False
    if isinstance(device, int):
        return True  # torch.device(0) is cuda:0
    device = torch.device(device)
    return device.type == REQUESTED or device == REPORTED  # plain "meta" (empty tensors) stays meta


class _ToAccelerator(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return AcceleratorTensor(x.detach())

    @staticmethod
    def backward(ctx, grad):
        return grad.elem if isinstance(grad, AcceleratorTensor) else grad


class _ToCPU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        STATE.syncs += 1
        return x.elem.clone()

    @staticmethod
    def backward(ctx, grad):
        return AcceleratorTensor(grad)


def _target(args, kwargs):
    """(device, dtype) of a ``Tensor.to(...)`` call."""
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    for a in args:
        if a is None or isinstance(a, bool):
            continue
        if isinstance(a, (str, torch.device, int)):
            device = a
        elif isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, torch.Tensor):
            device, dtype = a.device, a.dtype
    return device, dtype


def _wrap(out):
    return tree_map(lambda e: AcceleratorTensor(e, e.requires_grad)
                    if isinstance(e, torch.Tensor) and not isinstance(e, AcceleratorTensor) else e, out)


class _Functions(TorchFunctionMode):
    """Moves between devices and factories with ``device=``: seen before PyTorch's C++ looks for a CUDA build."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        first = args[0] if args else None
        on_accelerator = isinstance(first, AcceleratorTensor)
        if func is torch.Tensor.to:
            device, dtype = _target(args[1:], kwargs)
            x = first if dtype is None or dtype == first.dtype else func(first, dtype)
            if _accelerator(device) and not isinstance(x, AcceleratorTensor):
                return _ToAccelerator.apply(x)
            if device is not None and not _accelerator(device) and isinstance(x, AcceleratorTensor):
                return _ToCPU.apply(x)
            return x
        if func is torch.Tensor.cuda:
            return first if on_accelerator else _ToAccelerator.apply(first)
        if func is torch.Tensor.cpu:
            return _ToCPU.apply(first) if on_accelerator else first
        if func is torch.Tensor.__format__ and on_accelerator and first.dim() == 0:  # f"{loss:.3f}", as on CUDA
            STATE.syncs += 1
            return first.elem.item().__format__(*args[1:])
        if func is torch.Tensor.tolist and on_accelerator:
            STATE.syncs += 1
            return first.elem.tolist()
        if func in (torch.Tensor.numpy, torch.Tensor.__array__) and on_accelerator:
            raise TypeError("can't convert the emulated accelerator's tensor to numpy. Use Tensor.cpu() to copy "
                            "the tensor to host memory first.")
        if _accelerator(kwargs.get("device")):
            kwargs["device"] = "cpu"
            return _wrap(func(*args, **kwargs))
        return func(*args, **kwargs)


# operations that CUDA lets a CPU tensor take part in
_MIXING_ALLOWED = ("_to_copy", "copy_", "index.Tensor", "index_put", "_index_put_impl", "_local_scalar_dense",
                   "lift_fresh", "set_", "_has_compatible_shallow_copy_type")


# in-place operations that change sizes or strides rather than values
_METADATA_IN_PLACE = {"transpose_", "t_", "squeeze_", "unsqueeze_", "as_strided_", "resize_", "swapdims_",
                      "swapaxes_", "resize_as_"}


class _Dispatch(TorchDispatchMode):
    """Every operation: refuse a mix of devices, compute on the CPU, wrap the results."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        flat, _ = tree_flatten((args, kwargs))
        tensors = [t for t in flat if isinstance(t, torch.Tensor)]
        on_accelerator = any(isinstance(t, AcceleratorTensor) for t in tensors)
        name = func.__name__
        if on_accelerator and not name.startswith(_MIXING_ALLOWED):
            if any(not isinstance(t, AcceleratorTensor) and t.dim() > 0 for t in tensors):
                raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                                   f"{REPORTED} (emulated accelerator) and cpu! (in {func})")
        if name.startswith("index.Tensor") and on_accelerator and not isinstance(args[0], AcceleratorTensor):
            raise RuntimeError("indices should be either on cpu or on the same device as the indexed tensor (cpu)")
        unwrap = lambda e: e.elem if isinstance(e, AcceleratorTensor) else e  # noqa: E731
        args2, kwargs2 = tree_map(unwrap, args), tree_map(unwrap, kwargs)
        to_accelerator = _accelerator(kwargs.get("device"))
        if kwargs2.get("device") is not None and (to_accelerator or on_accelerator):
            kwargs2["device"] = torch.device("cpu")
        out = func(*args2, **kwargs2)
        if on_accelerator and (name.startswith("_local_scalar_dense") or (
                name.startswith("_to_copy") and kwargs.get("device") is not None and not to_accelerator)):
            STATE.syncs += 1  # a value read back to the host: on a GPU, the host waits for the device
        if name.startswith("_local_scalar_dense") or (name.startswith("_to_copy") and "device" in kwargs
                                                          and not to_accelerator):
            return out
        if not (on_accelerator or to_accelerator):
            return out
        STATE.ops += 1
        if (name.split(".")[0].endswith("_") or "out" in kwargs) and isinstance(args[0], AcceleratorTensor):
            if name.split(".")[0] in _METADATA_IN_PLACE:  # the wrapper's own sizes change too: the meta kernel
                with no_dispatch():
                    func(args[0], *args[1:], **kwargs)
            return args[0]  # in place: the same wrapper
        return tree_map(lambda e: AcceleratorTensor(e) if isinstance(e, torch.Tensor) else e, out)


class _NoAutocast:
    """``torch.autocast`` for the emulated device type: a no-op (PyTorch has no autocast for ``meta``)."""

    def __init__(self, real):
        self.real = real

    def __call__(self, device_type, *args, **kwargs):
        if device_type in (REQUESTED, REPORTED.type):
            return contextlib.nullcontext()
        return self.real(device_type, *args, **kwargs)


@contextlib.contextmanager
def emulated_accelerator():
    """Run the block as if a CUDA GPU were present (see the module docstring)."""
    cuda = torch.cuda
    saved = (cuda.is_available, cuda.synchronize, cuda._lazy_init, cuda.device_count, torch.autocast)
    cuda.is_available = lambda: True
    cuda.synchronize = lambda *a, **k: None
    cuda._lazy_init = lambda: None
    cuda.device_count = lambda: 1
    STATE.syncs = STATE.ops = 0
    torch.autocast = _NoAutocast(saved[-1])
    try:
        with _Dispatch(), _Functions():
            yield STATE
    finally:
        cuda.is_available, cuda.synchronize, cuda._lazy_init, cuda.device_count, torch.autocast = saved


def start():
    """Enter :func:`emulated_accelerator` for the rest of the process (a notebook kernel)."""
    global _RUNNING
    _RUNNING = emulated_accelerator()
    return _RUNNING.__enter__()


_RUNNING = None
