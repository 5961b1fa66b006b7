"""Bridges between a running notebook and the rendered book.

``glue(name, value)`` hands a computed number to the prose: the notebook's markdown
writes ``{glue:text}`name:.1%``` and the book shows the value this run produced, so no
figure in the text is ever typed by hand. Outside a book build (Colab, JupyterLab) it
prints ``name = value`` so the reader still sees the number.
"""

from __future__ import annotations


def glue(name: str, value, display: bool = False):
    """Store ``value`` under ``name`` for ``{glue:text}`` / ``{glue:figure}`` in the book.

    Returns nothing, so a cell ending in ``glue(...)`` does not echo the value twice.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"glue name must be an identifier like 'acc_bow', got {name!r}")
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()  # 0-d tensors and numpy scalars become Python numbers
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        if not display:
            print(f"{name} = {value!r}" if not isinstance(value, float) else f"{name} = {value:.4g}")
        else:
            from IPython.display import display as show

            show(value)
        return None
    myst_glue(name, value, display=display)
    return None
