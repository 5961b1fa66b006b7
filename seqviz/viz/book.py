"""Plotly figures in the built book: the renderer every chapter (1 to 10) switches on in its imports cell.

``sv.viz.use_book_renderer()`` is called explicitly by each chapter's imports cell; importing
``seqviz.viz`` changes no global state (neither plotly's renderer nor matplotlib's backend).
While the book is built (``SEQVIZ_BOOK=1``, set by ``make book``; :data:`seqviz.config.BOOK`) it
makes plotly draw every figure as HTML that expects one site-wide copy of plotly.js, which the
book serves itself; anywhere else (Jupyter, Colab, the tests) it does nothing, so plotly keeps
its own default there. :func:`book_html` is that HTML for one figure (a live view's still).
"""

from __future__ import annotations

import plotly.io as pio
from plotly.io._base_renderers import MimetypeRenderer

PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}
RENDERER = "seqviz_book"


def book_html(figure) -> str:
    """A plotly figure (or its dict) as the book's HTML: a ``div`` and a script, no plotly.js, no MathJax; its
    labels in the book's language (:func:`seqviz.book.set_language`)."""
    from ._language import localize_figure

    fig_dict = localize_figure(figure.to_dict() if hasattr(figure, "to_dict") else figure)
    return pio.to_html(fig_dict, include_plotlyjs=False, include_mathjax=False, full_html=False,
                       validate=False, config=PLOTLY_CONFIG, default_width="100%")


class BookRenderer(MimetypeRenderer):
    """HTML that draws the figure with a global ``Plotly`` loaded once per site.

    Plain ``plotly_mimetype`` output is dropped by myst-nb, and the ``notebook``
    renderer inlines 4.8 MB of plotly.js into every page; this renderer does neither.
    """

    def to_mimebundle(self, fig_dict):
        return {"text/html": book_html(fig_dict)}


def use_book_renderer(force: bool = False) -> bool:
    """Make the book renderer plotly's default while the book is built (or always, with ``force=True``).

    Returns whether it did. Outside a book build it changes nothing, so a chapter can call
    it unconditionally: in Jupyter and Colab plotly keeps its own renderer.
    """
    from .. import config

    if not (force or config.BOOK):
        return False
    pio.renderers[RENDERER] = BookRenderer()
    pio.renderers.default = RENDERER
    return True
