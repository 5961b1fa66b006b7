"""Values as plain JSON data, and back: the expected values the checkers ship, and what grading moves between
processes (never pickle: reading a pickle runs code).

``encode(value)`` turns numbers, strings, booleans, ``None``, lists, tuples, dicts with string keys, torch tensors,
numpy arrays and scalars, and ``torch.Generator`` states into JSON-able data; ``decode`` rebuilds them (tensors as
tensors, numpy arrays as numpy arrays). Anything else becomes ``Unsupported(type name, short repr)``, which no
checker accepts. NaN and infinities survive the round trip (as tagged strings).
"""

from __future__ import annotations

import base64
import math
import numbers
from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True)
class Unsupported:
    """A value that has no plain form (a module, an open file, a class instance): shown, never accepted."""

    type_name: str
    text: str

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>"


_DTYPES = {str(d).removeprefix("torch."): d for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64,
                                                       torch.int8, torch.int16, torch.int32, torch.int64,
                                                       torch.uint8, torch.bool, torch.complex64, torch.complex128)}


def _number(x):
    if isinstance(x, float) and not math.isfinite(x):
        return {"float": repr(x)}
    return x


def encode(value, depth: int = 0):
    """``value`` as JSON-able data (see the module docstring)."""
    if depth > 20:
        return {"unsupported": ["deep", "nested more than 20 levels"]}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return {"np": "bool_", "value": bool(value)}
    if isinstance(value, np.generic) and isinstance(value, numbers.Number):
        return {"np": type(value).__name__, "value": _number(value.item())}
    if isinstance(value, int):
        return value if abs(value) < 2**53 else {"int": str(value)}
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu()
        if t.dtype not in _DTYPES.values():
            return {"unsupported": ["Tensor", f"dtype {t.dtype}"]}
        flat = t.reshape(-1)
        data = flat.to(torch.float64).tolist() if t.dtype in (torch.float16, torch.bfloat16) else flat.tolist()
        if t.is_complex():
            data = [[z.real, z.imag] for z in data]
        return {"tensor": str(t.dtype).removeprefix("torch."), "shape": list(t.shape),
                "data": [_number(x) for x in data] if t.is_floating_point() else data}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            return {"unsupported": ["ndarray", f"dtype {value.dtype}"]}
        return {"ndarray": str(value.dtype), "shape": list(value.shape),
                "data": [_number(x) for x in value.reshape(-1).tolist()]}
    if isinstance(value, torch.Generator):
        return {"generator": base64.b64encode(value.get_state().numpy().tobytes()).decode()}
    if isinstance(value, tuple):
        return {"tuple": [encode(v, depth + 1) for v in value]}
    if isinstance(value, list):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode(v, depth + 1) for k, v in value.items()}}
    text = repr(value) if not callable(value) else getattr(value, "__qualname__", type(value).__name__)
    return {"unsupported": [type(value).__name__, str(text)[:200]]}


def _float(x):
    return float(x["float"]) if isinstance(x, dict) else x


def decode(data):
    """The value that :func:`encode` made ``data`` from."""
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) == 0:
        return Unsupported(type(data).__name__, repr(data)[:200])
    if "float" in data:
        return float(data["float"])
    if "int" in data:
        return int(data["int"])
    if "np" in data:
        return getattr(np, data["np"])(_float(data["value"]))
    if "tensor" in data:
        dtype = _DTYPES[data["tensor"]]
        values = [_float(x) for x in data["data"]]
        if dtype.is_complex:
            values = [complex(*z) for z in values]
        return torch.tensor(values, dtype=dtype).reshape(data["shape"])
    if "ndarray" in data:
        return np.array([_float(x) for x in data["data"]], dtype=data["ndarray"]).reshape(data["shape"])
    if "generator" in data:
        generator = torch.Generator()
        state = np.frombuffer(base64.b64decode(data["generator"]), dtype=np.uint8).copy()
        generator.set_state(torch.from_numpy(state))
        return generator
    if "tuple" in data:
        return tuple(decode(v) for v in data["tuple"])
    if "dict" in data:
        return {k: decode(v) for k, v in data["dict"].items()}
    if "unsupported" in data:
        return Unsupported(*[str(x) for x in data["unsupported"]][:2])
    return Unsupported("dict", repr(data)[:200])
