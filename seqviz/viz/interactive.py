"""Plotly figures that keep their interactivity in the static book.

Slider figures precompute one trace set per step, so moving the slider needs no
kernel. In plotly.js 4 a slider step that changes the title must set ``title.text``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.io._base_renderers import MimetypeRenderer

PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}


class BookRenderer(MimetypeRenderer):
    """HTML that draws the figure with a global ``Plotly`` loaded once per site.

    Plain ``plotly_mimetype`` output is dropped by myst-nb, and the ``notebook``
    renderer inlines 4.8 MB of plotly.js into every page; this renderer does neither.
    """

    def to_mimebundle(self, fig_dict):
        html = pio.to_html(fig_dict, include_plotlyjs=False, include_mathjax=False, full_html=False,
                           validate=False, config=PLOTLY_CONFIG, default_width="100%")
        return {"text/html": html}


pio.renderers["seqviz_book"] = BookRenderer()


def use_book_renderer(only_if_env: bool = False) -> bool:
    """Make the book renderer plotly's default (always, or only when ``SEQVIZ_BOOK=1``)."""
    if only_if_env and os.environ.get("SEQVIZ_BOOK", "0") in ("", "0"):
        return False
    pio.renderers.default = "seqviz_book"
    return True


def _np(values):
    return np.asarray(values.detach().cpu() if hasattr(values, "detach") else values, dtype=float)


def heatmap_figure(matrix, x_labels: Sequence[str] | None = None, y_labels: Sequence[str] | None = None, *,
                   title: str = "", xlabel: str = "", ylabel: str = "", colorscale: str = "RdBu",
                   zmid: float | None = 0.0, height: int = 360, hover: str = "value") -> go.Figure:
    """A plotly heatmap of a 2-D array; hovering shows row, column and value."""
    z = _np(matrix)
    if z.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {z.shape}")
    x = list(x_labels) if x_labels is not None else list(range(z.shape[1]))
    y = list(y_labels) if y_labels is not None else list(range(z.shape[0]))
    if len(x) != z.shape[1] or len(y) != z.shape[0]:
        raise ValueError(f"labels ({len(y)} rows, {len(x)} columns) do not match the matrix shape {z.shape}")
    fig = go.Figure(go.Heatmap(z=z, x=_unique(x), y=_unique(y), colorscale=colorscale, zmid=zmid,
                               hovertemplate=f"%{{y}} · %{{x}}<br>{hover} %{{z:.3f}}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title=ylabel, height=height,
                      margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    if x_labels is not None:
        fig.update_xaxes(tickmode="array", tickvals=_unique(x), ticktext=[str(v) for v in x])
    if y_labels is not None:
        fig.update_yaxes(tickmode="array", tickvals=_unique(y), ticktext=[str(v) for v in y], autorange="reversed")
    return fig


def _unique(labels):
    """Repeated tokens ("the ... the") would merge columns; number duplicates invisibly."""
    seen: dict = {}
    out = []
    for label in labels:
        label = str(label)
        seen[label] = seen.get(label, 0) + 1
        out.append(label + "\u200b" * (seen[label] - 1))
    return out


def lines_figure(series: Mapping[str, tuple], *, title: str = "", xlabel: str = "", ylabel: str = "",
                 logy: bool = False, logx: bool = False, height: int = 380, mode: str = "lines+markers") -> go.Figure:
    """One line per entry of ``series`` = {label: (x, y)}."""
    if not series:
        raise ValueError("lines_figure() needs at least one series {label: (x, y)}")
    fig = go.Figure()
    for label, (x, y) in series.items():
        x, y = _np(x), _np(y)
        if x.shape != y.shape:
            raise ValueError(f"series {label!r}: x has {x.size} points but y has {y.size}")
        fig.add_trace(go.Scatter(x=x, y=y, mode=mode, name=label))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title=ylabel, height=height,
                      margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    if logy:
        fig.update_yaxes(type="log")
    if logx:
        fig.update_xaxes(type="log")
    return fig


def slider_figure(frames: Mapping[str, go.Figure], *, title: str = "", slider_label: str = "",
                  active: int = 0) -> go.Figure:
    """Combine figures with the same trace layout into one figure with a slider.

    ``frames`` maps a step label to a figure; every figure must have the same number
    of traces. All traces are stored once, and each slider step shows one figure's
    traces (and its title), so the slider works without a kernel.
    """
    if not frames:
        raise ValueError("slider_figure() needs at least one frame {label: figure}")
    labels = list(frames)
    counts = {label: len(fig.data) for label, fig in frames.items()}
    if len(set(counts.values())) != 1:
        raise ValueError(f"every frame must have the same number of traces, got {counts}")
    per = counts[labels[0]]
    if not 0 <= active < len(labels):
        raise ValueError(f"active must be in 0..{len(labels) - 1}, got {active}")
    first = frames[labels[active]]
    fig = go.Figure(layout=first.layout)
    for i, label in enumerate(labels):
        for trace in frames[label].data:
            trace = go.Figure(trace).data[0]
            trace.visible = i == active
            fig.add_trace(trace)
    steps = []
    for i, label in enumerate(labels):
        visible = [j // per == i for j in range(per * len(labels))]
        frame_title = frames[label].layout.title.text or title
        steps.append(dict(method="update", label=str(label),
                          args=[{"visible": visible}, {"title.text": frame_title}]))
    fig.update_layout(title=first.layout.title.text or title,
                      sliders=[dict(active=active, steps=steps, currentvalue=dict(prefix=f"{slider_label}: "),
                                    pad=dict(t=40))])
    fig.update_layout(height=(first.layout.height or 380) + 60)
    return fig
