"""Cost against length: measured times on log-log axes with fitted power laws (chapter 8).

- :func:`cost_figure`: plotly, the measured times (markers), each fitted ``c * n^p`` (dashed) and the
  length where two fits cross (dotted). The fits come from :func:`seqviz.measure.fit_power_law`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import as_array


def cost_figure(lengths: Sequence[int], times: Mapping[str, Sequence[float]],
                fits: Mapping[str, tuple[float, float]] | None = None, crossover: float | None = None, *,
                title: str = "", ylabel: str = "seconds per call", unit: str = "s", height: int = 400) -> go.Figure:
    """Measured times (markers) against length on log-log axes, with fitted ``c * n^p`` (dashed) and,
    if given, a dotted vertical line at the crossover length. ``unit`` is what hovering over a point names its
    value in (``"s"`` for times; chapter 8's memory figure passes ``"MiB"``)."""
    if not times:
        raise ValueError("cost_figure() needs at least one series {label: times}")
    if not isinstance(unit, str) or not unit.strip():
        raise ValueError(f"unit must be a non-empty string (what the values are measured in), got {unit!r}")
    x = as_array(lengths)
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    fig = go.Figure()
    for i, (name, t) in enumerate(times.items()):
        y = as_array(t)
        if y.shape != x.shape:
            raise ValueError(f"{name!r}: {y.size} times for {x.size} lengths")
        colour = colours[i % len(colours)]
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers+lines", name=name, line=dict(color=colour, width=1),
                                 hovertemplate=f"{name}<br>n = %{{x}}<br>%{{y:.3g}} {unit}<extra></extra>"))
        if fits and name in fits:
            p, c = fits[name]
            grid = np.geomspace(x.min(), x.max(), 50)
            fig.add_trace(go.Scatter(x=grid, y=c * grid ** p, mode="lines", name=f"{name}: fit n^{p:.2f}",
                                     line=dict(color=colour, dash="dash"), hoverinfo="skip"))
    if crossover is not None:
        fig.add_vline(x=crossover, line=dict(color="gray", dash="dot"))
        fig.add_annotation(x=np.log10(crossover), y=1, yref="paper", text=f"fits cross at n ≈ {crossover:.0f}",
                           showarrow=False, yanchor="bottom")
    fig.update_layout(title=title, height=height, xaxis_title="sequence length n", yaxis_title=ylabel,
                      margin=dict(l=60, r=20, t=60, b=50))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", exponentformat="power")
    return fig
