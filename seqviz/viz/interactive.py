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


# -- chapter 1: who did it, and how far back a model can see ----------------------------------


def prediction_bars_figure(probs: Mapping[str, Sequence[float]], class_labels: Sequence[str], *, title: str = "",
                           xlabel: str = "", ylabel: str = "probability", height: int = 340) -> go.Figure:
    """Grouped bars: one group per class, one bar per model (chapter 1: bag of words vs RNN).

    ``probs`` maps a model's label to its predicted probabilities over ``class_labels``
    (a 1-D tensor or array each). Several of these figures, one per sentence, make a
    slider with :func:`slider_figure`.
    """
    if not probs:
        raise ValueError("prediction_bars_figure() needs at least one model {label: probabilities}")
    labels = [str(c) for c in class_labels]
    fig = go.Figure()
    for name, p in probs.items():
        p = _np(p)
        if p.ndim != 1 or p.size != len(labels):
            raise ValueError(f"probabilities of {name!r} must be 1-D with {len(labels)} entries (one per class), "
                             f"got shape {p.shape}")
        fig.add_trace(go.Bar(x=labels, y=p, name=name,
                             hovertemplate=f"{name}<br>%{{x}}: %{{y:.1%}}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title=ylabel, height=height, barmode="group",
                      yaxis_range=[0, 1.02], margin=dict(l=60, r=20, t=50 if title else 20, b=50),
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1.0, xanchor="right"))
    return fig


def accuracy_vs_distance_figure(distances: Sequence[int], accuracies: Mapping[str, Sequence[float]], *,
                                chance: float | None = None, reach: Mapping[str, int] | None = None,
                                title: str = "", xlabel: str = "distance (tokens back)", ylabel: str = "accuracy",
                                height: int = 400) -> go.Figure:
    """Accuracy against distance, one line per model, with a dashed chance line (chapters 1 and 4).

    ``accuracies`` maps a model's label to its accuracy at each of ``distances``.
    ``reach`` maps some labels to the largest distance that model can see at all (for a
    causal CNN, its receptive field minus one); a dotted line in the model's colour
    marks the edge, halfway to the first distance it cannot see. Clicking a legend
    entry hides a model, so the figure stays readable without a kernel.
    """
    if not accuracies:
        raise ValueError("accuracy_vs_distance_figure() needs at least one model {label: accuracies}")
    x = _np(distances)
    if x.ndim != 1:
        raise ValueError(f"distances must be 1-D, got shape {x.shape}")
    reach = dict(reach or {})
    unknown = sorted(set(reach) - set(accuracies))
    if unknown:
        raise ValueError(f"reach names models that have no accuracies: {unknown}")
    if chance is not None and not 0.0 <= chance <= 1.0:
        raise ValueError(f"chance must be an accuracy in [0, 1], got {chance}")
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
    fig = go.Figure()
    for i, (name, acc) in enumerate(accuracies.items()):
        y = _np(acc)
        if y.shape != x.shape:
            raise ValueError(f"model {name!r} has {y.size} accuracies for {x.size} distances")
        color = palette[i % len(palette)]
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=name, line=dict(color=color),
                                 legendgroup=name,
                                 hovertemplate=f"{name}<br>distance %{{x}}<br>accuracy %{{y:.1%}}<extra></extra>"))
        if name in reach:
            edge = reach[name] + 0.5
            fig.add_trace(go.Scatter(x=[edge, edge], y=[0, 1.05], mode="lines", legendgroup=name, showlegend=False,
                                     line=dict(color=color, dash="dot", width=1.5), name=f"{name}: reach",
                                     hovertemplate=f"{name} sees {reach[name]} tokens back<extra></extra>"))
    if chance is not None:
        fig.add_trace(go.Scatter(x=[x.min(), x.max()], y=[chance, chance], mode="lines", name="chance",
                                 line=dict(color="gray", dash="dash", width=1),
                                 hovertemplate=f"chance {chance:.1%}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title=ylabel, height=height,
                      yaxis=dict(range=[0, 1.05], tickformat=".0%"), xaxis=dict(dtick=1),
                      margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    return fig


def decay_figure(series: Mapping[str, tuple], guides: Mapping[str, tuple] | None = None, *, title: str = "",
                 xlabel: str = "", ylabel: str = "", height: int = 380, y_range: tuple | None = None) -> go.Figure:
    """Measured curves (solid) and predictions (dashed, same colour order) on a log y-axis.

    ``series`` and ``guides`` map a label to ``(x, y)``. Non-positive or non-finite y
    values are left out (a log axis cannot show them). ``y_range`` = (low, high) in data
    units fixes the axis, so that slider frames share one scale. Chapter 3 uses it for
    ||dL/dh_t|| against t and for the norms of Jacobian products.
    """
    if not series:
        raise ValueError("decay_figure() needs at least one series {label: (x, y)}")
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
    fig = go.Figure()
    for kind, entries in (("measured", series), ("guide", guides or {})):
        for i, (label, (x, y)) in enumerate(entries.items()):
            x, y = _np(x), _np(y)
            if x.shape != y.shape:
                raise ValueError(f"{kind} {label!r}: x has {x.size} points but y has {y.size}")
            y = np.where(np.isfinite(y) & (y > 0), y, np.nan)
            line = dict(color=colours[i % len(colours)], width=2 if kind == "measured" else 1.5,
                        dash="solid" if kind == "measured" else "dash")
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=label, line=line,
                                     hovertemplate=f"{label}<br>%{{x}}: %{{y:.3g}}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title=ylabel, height=height,
                      margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    fig.update_yaxes(type="log", exponentformat="power")
    if y_range is not None:
        low, high = y_range
        if not 0 < low < high:
            raise ValueError(f"y_range must be (low, high) with 0 < low < high, got {y_range!r}")
        fig.update_yaxes(range=[np.log10(low), np.log10(high)])
    return fig
