"""Live ipywidgets views: controls on top, a figure below that is redrawn on every change.

Every live view has a static counterpart (a plotly slider figure) that the book shows.
The figure is drawn with matplotlib into an ``Output`` widget, so the saved widget
state of an executed notebook also shows the first picture in the static book.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import ipywidgets as widgets
from IPython.display import display


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
                if hasattr(figure, "savefig"):  # matplotlib: shown once, then released
                    import matplotlib.pyplot as plt

                    plt.close(figure)
        self.last_update_ms = (time.perf_counter() - start) * 1000


def live(render: Callable, title: str = "", **controls: widgets.Widget) -> LiveView:
    """``live(render, sentence=widgets.Text(...), step=widgets.IntSlider(...))``."""
    return LiveView(render, controls, title)
