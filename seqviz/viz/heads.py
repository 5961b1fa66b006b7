"""Chapter 8's views: attention heads, positional encodings and cost against length.

- :func:`head_view_figure`: a plotly head view with a layer slider and a head slider (and
  an "average" head), token labels on both axes. The two sliders compose without a kernel:
  the head slider chooses which trace is visible, the layer slider rewrites every trace's
  data (a plotly ``restyle``), so any layer and head can be reached in any order (its live
  counterpart, :func:`seqviz.viz.heads_live.head_view_widget`, numbers them the same way);
- :func:`to_bertviz`: our tensors in the shape ``bertviz.head_view`` / ``model_view`` take
  (a list over layers of (1, heads, T, T)); :mod:`.bertviz_bridge` draws them with no network;
- :func:`positional_encoding_figure` and :func:`position_similarity_figure`: the sinusoid
  table and how alike the codes of two positions are;
- :func:`cost_figure`: measured times on log-log axes with fitted power laws and their crossover.

Like every view here, these take tensors and labels, never models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from .interactive import _np, _unique


def _layers(attentions, name="attentions") -> list[np.ndarray]:
    """A list over layers of (heads, Tq, Tk) arrays, from (heads, Tq, Tk) or (1, heads, Tq, Tk) tensors or a 4-D stack."""
    if hasattr(attentions, "dim") or isinstance(attentions, np.ndarray):
        arr = _np(attentions)
        if arr.ndim == 3:
            attentions = [arr]
        elif arr.ndim == 4:
            attentions = list(arr)
        else:
            raise ValueError(f"{name}: a tensor must be (heads, Tq, Tk) or (layers, heads, Tq, Tk), got {arr.shape}")
    if not isinstance(attentions, Sequence) or len(attentions) == 0:
        raise ValueError(f"{name} must be a non-empty list over layers of (heads, Tq, Tk) tensors")
    out = []
    for i, layer in enumerate(attentions):
        arr = _np(layer)
        if arr.ndim == 4 and arr.shape[0] == 1:
            arr = arr[0]
        if arr.ndim != 3:
            raise ValueError(f"{name}[{i}] must be (heads, Tq, Tk) or (1, heads, Tq, Tk), got shape {arr.shape}")
        if out and arr.shape != out[0].shape:
            raise ValueError(f"{name}[{i}] has shape {arr.shape}, layer 0 has {out[0].shape}: all layers must agree")
        out.append(arr)
    return out


def head_view_figure(attentions, tokens: Sequence[str], query_tokens: Sequence[str] | None = None, *,
                     title: str = "", layer: int = 0, head: int = 0, average: bool = True,
                     height: int | None = None, layer_names: Sequence[str] | None = None) -> go.Figure:
    """Attention weights of every layer and head, one heatmap at a time, chosen by two sliders.

    ``attentions``: a list over layers of (heads, Tq, Tk) or (1, heads, Tq, Tk) tensors (what
    ``MultiHeadAttention`` and the Transformer layers return, batch index taken). Rows are
    queries (``query_tokens``, default ``tokens``), columns keys (``tokens``): row i shows
    where position i looks. ``average`` adds a head "mean" that averages the heads.
    ``layer`` and ``head`` are Python indices of the first picture (head index ``heads`` is
    the mean); the sliders label layers and heads from 1.
    """
    layers = _layers(attentions)
    H, Tq, Tk = layers[0].shape
    keys = [str(t) for t in tokens]
    queries = [str(t) for t in (query_tokens if query_tokens is not None else tokens)]
    if len(keys) != Tk or len(queries) != Tq:
        raise ValueError(f"the weights are ({Tq} queries x {Tk} keys) but got {len(queries)} query tokens and "
                         f"{len(keys)} key tokens")
    names = list(layer_names) if layer_names is not None else [str(i + 1) for i in range(len(layers))]
    if len(names) != len(layers):
        raise ValueError(f"{len(names)} layer_names for {len(layers)} layers")
    if not (0 <= layer < len(layers) and 0 <= head < H + average):
        raise ValueError(f"layer must be in 0..{len(layers) - 1} and head in 0..{H - 1 + average}")

    def mats(arr):  # the z of every trace for one layer: each head, then the mean
        return [np.round(m, 4).tolist() for m in arr] + ([np.round(arr.mean(0), 4).tolist()] if average else [])

    x, y = _unique(keys), _unique(queries)
    head_names = [str(h + 1) for h in range(H)] + (["mean"] if average else [])
    fig = go.Figure()
    for h, z in enumerate(mats(layers[layer])):
        fig.add_trace(go.Heatmap(z=z, x=x, y=y, zmin=0, zmax=1, colorscale="Blues", visible=h == head,
                                 colorbar=dict(title="weight"), name=f"head {head_names[h]}",
                                 hovertemplate="query %{y} → key %{x}<br>weight %{z:.3f}<extra></extra>"))
    traces = list(range(len(head_names)))
    layer_steps = [dict(method="restyle", label=names[i], args=[{"z": mats(arr)}, traces])
                   for i, arr in enumerate(layers)]
    head_steps = [dict(method="restyle", label=name, args=[{"visible": [j == h for j in traces]}, traces])
                  for h, name in enumerate(head_names)]
    height = height or max(320, 26 * Tq + 220)
    fig.update_layout(
        title=title, height=height, margin=dict(l=80, r=20, t=50 if title else 20, b=150),
        xaxis=dict(title="key (attended to)", side="top", tickmode="array", tickvals=x, ticktext=keys),
        yaxis=dict(title="query (attending)", autorange="reversed", tickmode="array", tickvals=y, ticktext=queries),
        sliders=[dict(active=layer, steps=layer_steps, currentvalue=dict(prefix="layer: "), y=0, pad=dict(t=10),
                      len=0.45, x=0.0),
                 dict(active=head, steps=head_steps, currentvalue=dict(prefix="head: "), y=0, pad=dict(t=10),
                      len=0.45, x=0.55)])
    return fig


def to_bertviz(attentions, tokens: Sequence[str], batch_index: int = 0) -> list:
    """Our attention weights as ``bertviz.head_view(attention, tokens)`` wants them: a list over
    layers of float tensors (1, heads, T, T). Accepts per-layer (B, heads, T, T) or (heads, T, T)."""
    import torch

    if not isinstance(attentions, (list, tuple)) or not attentions:
        raise ValueError("attentions must be a non-empty list over layers of (B, heads, T, T) tensors")
    out = []
    for i, a in enumerate(attentions):
        a = torch.as_tensor(a).detach().cpu().float()
        if a.dim() == 3:
            a = a[None]
        if a.dim() != 4 or not 0 <= batch_index < a.shape[0]:
            raise ValueError(f"attentions[{i}] must be (B, heads, T, T) with B > {batch_index}, got {tuple(a.shape)}")
        a = a[batch_index : batch_index + 1]  # (1, heads, T, T)
        if a.shape[-1] != len(tokens) or a.shape[-2] != len(tokens):
            raise ValueError(f"attentions[{i}] is {tuple(a.shape[-2:])} but there are {len(tokens)} tokens "
                             "(bertviz's head_view needs square self-attention)")
        out.append(a.contiguous())
    return out


def positional_encoding_figure(pe, *, title: str = "", height: int = 360) -> go.Figure:
    """The (positions, d_model) table as a heatmap: position down, dimension across."""
    z = _np(pe)
    if z.ndim != 2:
        raise ValueError(f"pe must be (positions, d_model), got shape {z.shape}")
    fig = go.Figure(go.Heatmap(z=np.round(z, 3), colorscale="RdBu", zmid=0, zmin=-1, zmax=1,
                               hovertemplate="position %{y}, dim %{x}<br>%{z:.3f}<extra></extra>"))
    fig.update_layout(title=title, height=height, xaxis_title="dimension i", yaxis_title="position",
                      yaxis_autorange="reversed", margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    return fig


def position_similarity_figure(pe, *, title: str = "", height: int = 380) -> go.Figure:
    """Cosine similarity between the codes of every two positions (positions x positions)."""
    z = _np(pe)
    if z.ndim != 2:
        raise ValueError(f"pe must be (positions, d_model), got shape {z.shape}")
    unit = z / np.linalg.norm(z, axis=1, keepdims=True).clip(1e-12)
    sim = unit @ unit.T
    fig = go.Figure(go.Heatmap(z=np.round(sim, 3), colorscale="Viridis",
                               hovertemplate="positions %{y} and %{x}<br>cosine %{z:.3f}<extra></extra>"))
    fig.update_layout(title=title, height=height, xaxis_title="position", yaxis_title="position",
                      yaxis_autorange="reversed", margin=dict(l=60, r=20, t=50 if title else 20, b=50))
    return fig


def cost_figure(lengths: Sequence[int], times: Mapping[str, Sequence[float]],
                fits: Mapping[str, tuple[float, float]] | None = None, crossover: float | None = None, *,
                title: str = "", ylabel: str = "seconds per call", height: int = 400) -> go.Figure:
    """Measured times (markers) against length on log-log axes, with fitted ``c * n^p`` (dashed) and,
    if given, a dotted vertical line at the crossover length."""
    if not times:
        raise ValueError("cost_figure() needs at least one series {label: times}")
    x = _np(lengths)
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    fig = go.Figure()
    for i, (name, t) in enumerate(times.items()):
        y = _np(t)
        if y.shape != x.shape:
            raise ValueError(f"{name!r}: {y.size} times for {x.size} lengths")
        colour = colours[i % len(colours)]
        fig.add_trace(go.Scatter(x=x, y=y, mode="markers+lines", name=name, line=dict(color=colour, width=1),
                                 hovertemplate=f"{name}<br>n = %{{x}}<br>%{{y:.3g}} s<extra></extra>"))
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
