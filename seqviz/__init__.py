"""seqviz: from-scratch sequence models, with the plots and widgets of the book
*Sequence Models, Made Visible*.

Importing ``seqviz`` is cheap: torch, plotly and ipywidgets load only when a
submodule that needs them is first used (``sv.models``, ``sv.viz`` ...).
"""

from __future__ import annotations

import importlib

from .book import compare_word, glue
from .config import BOOK, QUICK, pick_device, progress, scaled, seed_everything

__version__ = "0.5.17"

_SUBMODULES = ("book", "config", "data", "models", "trace", "gradients", "train", "viz", "exercises", "decode",
               "sampling", "measure", "experiments", "guide", "real_bert", "real_gpt", "web", "checkpoints",
               "i18n")

__all__ = ["BOOK", "QUICK", "compare_word", "glue", "pick_device", "progress", "scaled", "seed_everything", "__version__", *_SUBMODULES]


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'seqviz' has no attribute {name!r}")
