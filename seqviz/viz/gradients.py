"""Chapter 3's decay curves: gradient norms and Jacobian products against the step, on a log axis.

- :func:`decay_plot`: matplotlib, measured curves (solid) and predictions (dashed, same colour order);
- :class:`DecayPicture`: the same picture for a live view (one figure, its curves replaced per call);
- :func:`decay_figure`: plotly, the same curves; ``y_range`` fixes the axis so slider frames share a scale.

Each takes ``series`` and ``guides`` = ``{label: (x, y)}``; non-positive or non-finite y values are
left out (a log axis cannot show them). Used by chapters 3 and 4 (the gates' gradient norms).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from ._plumbing import Blitter, as_array, check_series, plain_log_axis
from .basic import log_dtick, readable_layout


def _decay_axes(fig, titled: bool):
    """The log-y axes of :func:`decay_plot`: fixed margins, at most six labelled decades, no minor ticks."""
    ax = fig.add_subplot()
    # 6 inches wide with 10-point text: >= 8 px on a 390 px phone (tests/test_phone_figures.py)
    fig.subplots_adjust(left=0.14, right=0.98, top=0.9 if titled else 0.97, bottom=0.15)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    ax.grid(alpha=0.3)
    return ax


def _decay_curves(ax, series, guides, y_range):
    if not series:
        raise ValueError("decay_plot() needs at least one series {label: (x, y)}")
    for kind, entries in (("measured", series), ("guide", guides or {})):
        for i, (label, (x, y)) in enumerate(entries.items()):
            x, y = as_array(x, f"x of {label!r}", 1), as_array(y, f"y of {label!r}", 1)
            if x.shape != y.shape:
                raise ValueError(f"{kind} {label!r}: x has {x.size} points but y has {y.size}")
            y = np.where(np.isfinite(y) & (y > 0), y, np.nan)
            ax.plot(x, y, color=f"C{i}", ls="-" if kind == "measured" else "--", lw=2 if kind == "measured" else 1.2,
                    label=label)
    if y_range is not None:
        ax.set_ylim(*y_range)
    ax.legend(frameon=False, fontsize=10)


def decay_plot(series: Mapping[str, tuple], guides: Mapping[str, tuple] | None = None, *, title: str = "",
               xlabel: str = "", ylabel: str = "", size=(6.0, 3.6), y_range: tuple | None = None):
    """Measured curves (solid) and predictions (dashed, same colour order) on a log y-axis; returns the Figure.

    The matplotlib twin of :func:`decay_figure`, drawn for speed:
    fixed margins and at most six labelled decades (a constrained layout and a label per
    decade tripled the drawing time). Non-positive or non-finite y values are left out. A
    live view that redraws on every change uses :class:`DecayPicture`.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)  # outside pyplot: nothing to close
    ax = _decay_axes(fig, bool(title))
    _decay_curves(ax, series, guides, y_range)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    return fig


class DecayPicture:
    """:func:`decay_plot` for a live view (chapter 3): one figure, its curves replaced on every call.

    ``picture.show(series, guides, title=...)`` returns a PNG ``Image``. The figure is
    made once and only its axes are redrawn (blitting), which saves building a figure per
    change; the axes' limits follow the curves as in :func:`decay_plot`.
    """

    def __init__(self, *, xlabel: str = "", ylabel: str = "", size=(6.0, 3.6)):
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=size)
        self.ax = _decay_axes(self.figure, True)
        self.ax.set(xlabel=xlabel, ylabel=ylabel)
        self.blitter = Blitter(self.figure, [self.ax])

    def show(self, series: Mapping[str, tuple], guides: Mapping[str, tuple] | None = None, *, title: str = "",
             y_range: tuple | None = None):
        for line in list(self.ax.lines):
            line.remove()
        self.ax.relim()
        self.ax.set_autoscale_on(True)
        _decay_curves(self.ax, series, guides, y_range)
        self.ax.set_title(title)
        return self.blitter.frame()


def decay_figure(series: Mapping[str, tuple], guides: Mapping[str, tuple] | None = None, *, title: str = "",
                 xlabel: str = "", ylabel: str = "", height: int = 380, y_range: tuple | None = None) -> go.Figure:
    """Measured curves (solid) and predictions (dashed, same colour order) on a log y-axis.

    ``series`` and ``guides`` map a label to ``(x, y)``. Non-positive or non-finite y
    values are left out (a log axis cannot show them). ``y_range`` = (low, high) in data
    units fixes the axis, so that slider frames share one scale. Chapter 3 uses it for
    ||dL/dh_t|| against t and for the norms of Jacobian products.
    """
    check_series(series, "decay_figure()")
    if guides is not None:
        check_series(guides, "decay_figure()'s guides")
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    fig = go.Figure()
    drawn = []
    for kind, entries in (("measured", series), ("guide", guides or {})):
        for i, (label, (x, y)) in enumerate(entries.items()):
            x, y = as_array(x), as_array(y)
            if x.shape != y.shape:
                raise ValueError(f"{kind} {label!r}: x has {x.size} points but y has {y.size}")
            y = np.where(np.isfinite(y) & (y > 0), y, np.nan)
            drawn.append(y)
            line = dict(color=colours[i % len(colours)], width=2 if kind == "measured" else 1.5,
                        dash="solid" if kind == "measured" else "dash")
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=label, line=line,
                                     hovertemplate=f"{label}<br>%{{x}}: %{{y:.3g}}<extra></extra>"))
    fig.update_layout(xaxis_title=xlabel, yaxis_title=ylabel, height=height, margin=dict(l=60, r=20, b=50))
    readable_layout(fig, title, legend=len(fig.data) > 1)
    fig.update_yaxes(type="log", exponentformat="power", dtick=log_dtick(*drawn))
    if y_range is not None:
        low, high = y_range
        if not 0 < low < high:
            raise ValueError(f"y_range must be (low, high) with 0 < low < high, got {y_range!r}")
        fig.update_yaxes(range=[np.log10(low), np.log10(high)], dtick=log_dtick([low, high]))
    return fig
