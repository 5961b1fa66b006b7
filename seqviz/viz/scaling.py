"""Why Transformers won, drawn: repeated timings with their spread, loss by position in the context, and loss
against compute with fitted power laws (chapter 9b).

- :func:`spread_figure`: plotly, the median of repeated measurements against x (log axes by default), with bars
  from the fastest to the slowest repeat, one line per series;
- :func:`position_loss_figure`: plotly, the mean loss at each context length (a thin line) and its means over
  ranges that double (markers with standard errors), on a log x axis, as Kaplan et al. (2020, Fig. 7) plot it;
- :func:`frontier_figure`: plotly, loss against compute: each family's points (faint), its frontier, its fitted
  ``c * x^p`` and, if given, the crossing of two fits.

Every figure has the book's layout (:func:`seqviz.viz.readable_layout`): the title wrapped, the legend in rows
under the plot, so a figure keeps its width on a phone. Data in, figure out: nothing here
reads a model.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import as_array
from .basic import readable_layout

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def _layout(fig, title, xlabel, ylabel, height, logx, logy):
    # the book's layout (readable_layout): the title wrapped for a phone, the legend in rows under the plot, so
    # that neither runs into the other however many rows a narrow screen needs
    fig.update_layout(height=height, xaxis_title=xlabel, yaxis_title=ylabel, margin=dict(l=60, r=20, b=50))
    readable_layout(fig, title)
    if logx:
        fig.update_xaxes(type="log")
    if logy:
        fig.update_yaxes(type="log")
    return fig


def spread_figure(series: Mapping[str, tuple], *, transform: Callable[[float, float], float] | None = None,
                  title: str = "", xlabel: str = "", ylabel: str = "", logx: bool = True, logy: bool = True,
                  height: int = 420, unit: str = "") -> go.Figure:
    """``series`` = {label: (x, samples)}: at each x a list of repeated measurements; ``transform(x, value)`` maps
    a measurement to what is drawn (e.g. seconds to tokens per second). The median is drawn, with a bar from the
    smallest to the largest transformed repeat."""
    if not series:
        raise ValueError("spread_figure() needs at least one series {label: (x, samples)}")
    transform = transform or (lambda x, v: v)
    fig = go.Figure()
    for i, (label, (xs, samples)) in enumerate(series.items()):
        xs = list(as_array(xs))
        if len(xs) != len(samples) or not all(len(s) >= 1 for s in samples):
            raise ValueError(f"series {label!r}: {len(xs)} x values but {len(samples)} lists of samples")
        values = [[transform(x, v) for v in s] for x, s in zip(xs, samples)]
        mid = [statistics.median(v) for v in values]
        colour = COLOURS[i % len(COLOURS)]
        fig.add_trace(go.Scatter(
            x=xs, y=mid, mode="lines+markers", name=label, line=dict(color=colour),
            error_y=dict(type="data", symmetric=False, array=[max(v) - m for v, m in zip(values, mid)],
                         arrayminus=[m - min(v) for v, m in zip(values, mid)], thickness=1, width=3),
            hovertemplate=f"{label}<br>%{{x}}<br>%{{y:.3g}} {unit}<extra></extra>"))
    return _layout(fig, title, xlabel, ylabel, height, logx, logy)


def position_loss_figure(curves: Mapping[str, tuple], bins: Mapping[str, Sequence[Mapping]] | None = None, *,
                         title: str = "", ylabel: str = "loss per token (nats)",
                         xlabel: str = "tokens of context before the predicted token", height: int = 420) -> go.Figure:
    """``curves`` = {label: (mean (T,), se (T,))}: the loss at context lengths 1 .. T, or {label: (x (T,), mean,
    se)} at the context lengths ``x`` (characters of context, say); ``bins`` = {label: rows with ``start, end,
    mean, se``} drawn as markers at the middle of each range."""
    if not curves:
        raise ValueError("position_loss_figure() needs at least one curve {label: (mean, se)} or (x, mean, se)")
    fig = go.Figure()
    for i, (label, curve) in enumerate(curves.items()):
        if len(curve) not in (2, 3):
            raise ValueError(f"{label!r}: a curve is (mean, se) or (x, mean, se), got {len(curve)} parts")
        mean, se = as_array(curve[-2], f"mean of {label!r}", 1), as_array(curve[-1], f"se of {label!r}", 1)
        x = as_array(curve[0], f"x of {label!r}", 1) if len(curve) == 3 else np.arange(1, mean.size + 1)
        if mean.shape != se.shape or x.shape != mean.shape:
            raise ValueError(f"{label!r}: x, mean and se must have one value per position, got {x.size}, "
                             f"{mean.size} and {se.size}")
        colour = COLOURS[i % len(COLOURS)]
        fig.add_trace(go.Scatter(x=x, y=mean, mode="lines", name=f"{label}, each position", opacity=0.25,
                                 line=dict(color=colour, width=1), hovertemplate="context %{x:.0f}: %{y:.2f}<extra></extra>"))
        rows = (bins or {}).get(label)
        if rows:
            middle = [np.sqrt(r["start"] * r["end"]) for r in rows]
            fig.add_trace(go.Scatter(
                x=middle, y=[r["mean"] for r in rows], mode="lines+markers", name=f"{label}, mean of each range",
                line=dict(color=colour, width=2), error_y=dict(type="data", array=[r["se"] for r in rows]),
                customdata=[[r["start"], r["end"]] for r in rows],
                hovertemplate="context %{customdata[0]}-%{customdata[1]}: %{y:.2f}<extra></extra>"))
    if bins:  # the ranges' means set the scale; single noisy positions may run off the top
        top = max(r["mean"] + r["se"] for rows in bins.values() for r in rows)
        fig.update_yaxes(range=[0, 1.15 * top])
    return _layout(fig, title, xlabel, ylabel, height, True, False)


def frontier_figure(families: Mapping[str, Mapping], *, crossover: float | None = None, title: str = "",
                    xlabel: str = "training compute (FLOPs)", ylabel: str = "validation loss (nats per token)",
                    height: int = 440) -> go.Figure:
    """``families`` = {label: {"points": [(x, y)...] (every evaluation, drawn faint), "frontier": [(x, y)...],
    "fit": (exponent, coefficient), "fit_range": (low, high) (optional: the compute the law was fitted over;
    the frontier's by default)}}; a dotted vertical line at ``crossover`` if given."""
    if not families:
        raise ValueError("frontier_figure() needs at least one family {label: {points, frontier, fit}}")
    fig = go.Figure()
    for i, (label, family) in enumerate(families.items()):
        missing = {"points", "frontier", "fit"} - set(family)
        if missing:
            raise ValueError(f"family {label!r} lacks {sorted(missing)}")
        colour = COLOURS[i % len(COLOURS)]
        px, py = zip(*family["points"]) if family["points"] else ((), ())
        fig.add_trace(go.Scatter(x=px, y=py, mode="markers", name=f"{label}: every evaluation", opacity=0.3,
                                 marker=dict(color=colour, size=4)))
        fx, fy = zip(*family["frontier"])
        fig.add_trace(go.Scatter(x=fx, y=fy, mode="lines+markers", name=f"{label}: frontier",
                                 line=dict(color=colour, width=2)))
        p, c = family["fit"]
        low, high = family.get("fit_range") or (min(fx), max(fx))
        grid = np.geomspace(low, high, 50)
        fig.add_trace(go.Scatter(x=grid, y=c * grid ** p, mode="lines", name=f"{label}: power law, exponent {p:.3f}",
                                 line=dict(color=colour, dash="dash"), hoverinfo="skip"))
    if crossover is not None:
        fig.add_vline(x=crossover, line=dict(color="gray", dash="dot"))
    return _layout(fig, title, xlabel, ylabel, height, True, True)
