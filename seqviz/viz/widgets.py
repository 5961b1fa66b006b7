"""Live ipywidgets views: controls on top, a figure below that is redrawn on every change.

Every live view has a static counterpart (a plotly slider figure) that the book shows.
While the book is built (``seqviz.BOOK``), a view displays a still of its first picture
with a note instead of its controls: a page without a kernel cannot run the Python
behind a slider, and controls that move but change nothing would mislead the reader.
"""

from __future__ import annotations

import base64
import html
import time
from collections.abc import Callable

import ipywidgets as widgets
from IPython.display import display

from .. import config

STILL_NOTE = ("A still of a live view: run this chapter in Colab or Jupyter (the rocket icon at the top) "
              "to move its controls.")


class LiveView(widgets.VBox):
    """Controls and the output of ``render(**values)``; ``update()`` redraws and times it.

    ``render`` returns a matplotlib or plotly figure (or anything displayable). A
    ``ValueError`` from it (a typo in a sentence, say) is shown as a message instead of
    a traceback. ``last_update_ms`` holds the duration of the latest redraw.
    """

    def __init__(self, render: Callable, controls: dict[str, widgets.Widget], title: str = ""):
        if not controls:
            raise ValueError("live() needs at least one control {name: widget}")
        self.render, self.controls = render, dict(controls)
        self.output = widgets.Output()
        self.last_update_ms = float("nan")
        self._still: str | None = None  # HTML of the latest picture, shown instead of the widget in the book
        header = [widgets.HTML(f"<b>{title}</b>")] if title else []
        super().__init__([*header, widgets.HBox(list(self.controls.values())), self.output])
        for control in self.controls.values():
            control.observe(self.update, names="value")
        self.update()

    def values(self) -> dict:
        return {name: control.value for name, control in self.controls.items()}

    def update(self, _change=None):
        start = time.perf_counter()
        with self.output:
            self.output.clear_output(wait=True)
            try:
                figure = self.render(**self.values())
            except ValueError as error:
                display(widgets.HTML(f"<span style='color:#b00'>⚠ {error}</span>"))
            else:
                display(figure)
                if config.BOOK:
                    self._still = _still_html(figure)
                if hasattr(figure, "savefig"):  # matplotlib: shown once, then released
                    import matplotlib.pyplot as plt

                    plt.close(figure)
        self.last_update_ms = (time.perf_counter() - start) * 1000

    def _repr_mimebundle_(self, **kwargs):
        if config.BOOK and self._still is not None:
            values = ", ".join(f"{name} = {value!r}" for name, value in self.values().items())
            note = f"<p class='seqviz-still-note'><em>{STILL_NOTE}</em> ({html.escape(values)})</p>"
            return {"text/html": f"<div class='seqviz-still'>{self._still}{note}</div>",
                    "text/plain": f"LiveView({values})"}
        return super()._repr_mimebundle_(**kwargs)


def _still_html(figure) -> str:
    """The picture of a matplotlib figure (PNG) or a plotly figure (its book HTML), as HTML."""
    if hasattr(figure, "savefig"):
        from io import BytesIO

        buffer = BytesIO()
        figure.savefig(buffer, format="png", bbox_inches="tight", dpi=90)
        data = base64.b64encode(buffer.getvalue()).decode()
        return f"<img alt='live view' src='data:image/png;base64,{data}'/>"
    if hasattr(figure, "to_plotly_json"):
        from .interactive import BookRenderer

        return BookRenderer().to_mimebundle(figure.to_dict())["text/html"]
    bundle = getattr(figure, "_repr_html_", lambda: None)()
    return bundle or f"<pre>{html.escape(repr(figure))}</pre>"


def live(render: Callable, title: str = "", **controls: widgets.Widget) -> LiveView:
    """``live(render, sentence=widgets.Text(...), step=widgets.IntSlider(...))``."""
    return LiveView(render, controls, title)
