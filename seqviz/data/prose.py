"""This book's own prose, as a text for language models: written in 2026, after every pretrained model the book
loads was released, so none of them can have trained on it (chapter 9b).

:func:`book_prose` returns the prose of chapters 1-4 (their markdown without numbers of a run, directives,
maths, tables and headings), shipped as ``real/book_prose.txt`` and written by ``scripts/make_prose.py``.
"""

from __future__ import annotations

import functools

from .real import FOLDER

__all__ = ["book_prose"]


@functools.lru_cache(maxsize=None)
def book_prose() -> str:
    """The prose of this book's chapters 1-4 (about 40,000 characters)."""
    return (FOLDER / "book_prose.txt").read_text(encoding="utf-8")
