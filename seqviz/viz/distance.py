"""How far back a model can see: accuracy against distance, one line per model (chapters 1, 3 and 4).

- :func:`accuracy_vs_distance_figure`: plotly, one run per model, a chance line and each model's reach;
- :func:`accuracy_spread_figure`: plotly, several seeds per model: the mean, the range and each seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import as_array
from .basic import readable_layout


def accuracy_vs_distance_figure(distances: Sequence[int], accuracies: Mapping[str, Sequence[float]], *,
                                chance: float | None = None, reach: Mapping[str, int] | None = None,
                                title: str = "", xlabel: str = "distance (tokens back)", ylabel: str = "accuracy",
                                height: int = 400) -> go.Figure:
    """Accuracy against distance, one line per model, with a dashed chance line (chapters 1 and 3).

    ``accuracies`` maps a model's label to its accuracy at each of ``distances``.
    ``reach`` maps some labels to the largest distance that model can see at all (for a
    causal CNN, its receptive field minus one); a dotted line in the model's colour
    marks the edge, halfway to the first distance it cannot see. Clicking a legend
    entry hides a model, so the figure stays readable without a kernel.
    """
    if not accuracies:
        raise ValueError("accuracy_vs_distance_figure() needs at least one model {label: accuracies}")
    x = as_array(distances)
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
        y = as_array(acc)
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
    fig.update_layout(xaxis_title=xlabel, yaxis_title=ylabel, height=height,
                      yaxis=dict(range=[0, 1.05], tickformat=".0%"), xaxis=dict(dtick=1),
                      margin=dict(l=60, r=20, b=50))
    return readable_layout(fig, title)


def accuracy_spread_figure(distances: Sequence[int], runs: Mapping[str, object], *, chance: float | None = 0.5,
                           title: str = "", xlabel: str = "distance between subject and verb (tokens)",
                           height: int = 420) -> go.Figure:
    """Accuracy against distance: per model the mean over seeds (line), the range (band) and each seed (dots).

    ``runs`` maps a model's label to accuracies (seeds, distances). Chapter 4.
    """
    if not runs:
        raise ValueError("accuracy_spread_figure() needs at least one model {label: (seeds, distances) accuracies}")
    x = as_array(distances)
    if x.ndim != 1:
        raise ValueError(f"distances must be 1-D, got shape {x.shape}")
    palette = ("#7f7f7f", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e")
    # each model its own dashes and markers, the later ones smaller: two models with the same means (both at
    # 100 %, say) still show both lines, one through the other's gaps, and the legend says they coincide
    dashes, symbols = ("solid", "dash", "dot", "dashdot"), ("circle", "square", "diamond", "triangle-up")
    fig = go.Figure()
    means: dict[str, np.ndarray] = {}
    for i, (name, values) in enumerate(runs.items()):
        acc = as_array(values)
        if acc.ndim == 1:
            acc = acc[None]
        if acc.ndim != 2 or acc.shape[1] != x.size:
            raise ValueError(f"model {name!r}: accuracies must be (seeds, {x.size} distances), got shape {acc.shape}")
        same = next((other for other, m in means.items() if np.allclose(m, acc.mean(0), atol=1e-9)), None)
        means[name] = acc.mean(0)
        color = palette[i % len(palette)]
        low, high, mean = acc.min(0), acc.max(0), acc.mean(0)
        fig.add_trace(go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([high, low[::-1]]), fill="toself",
                                 fillcolor=color, opacity=0.18, line=dict(width=0), legendgroup=name,
                                 showlegend=False, hoverinfo="skip", name=f"{name} range"))
        seeds_x = np.repeat(x[None], acc.shape[0], 0).ravel()
        fig.add_trace(go.Scatter(x=seeds_x, y=acc.ravel(), mode="markers", marker=dict(color=color, size=5,
                                 opacity=0.6), legendgroup=name, showlegend=False, name=f"{name} seeds",
                                 hovertemplate=f"{name}, one seed<br>distance %{{x}}: %{{y:.1%}}<extra></extra>"))
        label = (f"{name} (mean of {acc.shape[0]})" if same is None else
                 f"{name} (mean of {acc.shape[0]}; the same line as {same})")
        fig.add_trace(go.Scatter(x=x, y=mean, mode="lines+markers", name=label, legendgroup=name,
                                 line=dict(color=color, width=2.5, dash=dashes[i % len(dashes)]),
                                 marker=dict(symbol=symbols[i % len(symbols)], size=max(5, 10 - 2 * i)),
                                 customdata=np.stack([low, high], -1),
                                 hovertemplate=f"{name}<br>distance %{{x}}: mean %{{y:.1%}}<br>"
                                               "range %{customdata[0]:.1%} – %{customdata[1]:.1%}<extra></extra>"))
    if chance is not None:
        fig.add_trace(go.Scatter(x=[x.min(), x.max()], y=[chance, chance], mode="lines", name="chance",
                                 line=dict(color="black", dash="dot", width=1), hoverinfo="skip"))
    fig.update_layout(xaxis_title=xlabel, yaxis_title="test accuracy", height=height,
                      yaxis=dict(range=[0.4, 1.02], tickformat=".0%"), margin=dict(l=60, r=20, b=50))
    return readable_layout(fig, title)
