"""Figures and widgets. Plotting takes tensors and labels, never models.

- :mod:`.static`: matplotlib figures (for print and for widgets' output);
- :mod:`.interactive`: plotly figures that stay interactive in the static book
  (slider steps are precomputed);
- :mod:`.widgets`: ipywidgets views that recompute live in a kernel.

Under ``SEQVIZ_BOOK=1`` (set by ``make book``) plotly figures render as HTML that
expects one site-wide copy of plotly.js, which the book serves itself.
"""

from .interactive import heatmap_figure, lines_figure, slider_figure, use_book_renderer
from .static import heatmap, lines
from .widgets import live

use_book_renderer(only_if_env=True)

__all__ = ["heatmap", "heatmap_figure", "lines", "lines_figure", "live", "slider_figure", "use_book_renderer"]
