"""Attention heads (chapters 8 and 9): the head view as a plotly figure and as a still picture.

- :func:`head_view_figure`: plotly, every layer and head, one heatmap at a time, chosen by a layer
  slider and a head slider (and an "average" head). The two sliders compose without a kernel: the
  head slider chooses which trace is visible, the layer slider rewrites every trace's data (a plotly
  ``restyle``), so any layer and head can be reached in any order;
- :class:`HeadsCanvas`: one sentence's attention (every layer and head) as a matplotlib heatmap drawn
  once; :meth:`HeadsCanvas.show` swaps in another layer's or head's weights and redraws only the
  image and the title over the saved background. It draws the still of the live head view that runs in
  the reader's browser (:func:`seqviz.web.head_view`, which draws the same picture in SVG);
- :func:`to_bertviz`: our tensors in the shape ``bertviz.head_view`` / ``model_view`` take (a list
  over layers of (1, heads, T, T)); :mod:`.bertviz_bridge` draws them with no network.

Like every view here, these take tensors and labels, never models.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import Blitter, as_array, label_columns, label_rows, unique_labels


def _layers(attentions, name="attentions") -> list[np.ndarray]:
    """A list over layers of (heads, Tq, Tk) arrays, from (heads, Tq, Tk) or (1, heads, Tq, Tk) tensors or a
    4-D stack."""
    if hasattr(attentions, "dim") or isinstance(attentions, np.ndarray):
        arr = as_array(attentions)
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
        arr = as_array(layer)
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

    x, y = unique_labels(keys), unique_labels(queries)
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
    # the keys are written along the top, their axis title above them, and the figure's title above that: the
    # top margin holds all three (the title sits at the top of the figure, never on the axis title), with room
    # for the keys turned on end, as plotly turns them where they do not fit side by side (on a phone)
    longest = max(map(len, keys), default=1)
    top = 48 + (34 if title else 0) + 6 * longest
    height = height or max(320, 26 * Tq + top + 120)
    fig.update_layout(
        title=dict(text=title, x=0.01, xanchor="left", y=1, yref="container", yanchor="top", pad=dict(t=10)),
        height=height, margin=dict(l=80, r=20, t=top, b=110),
        xaxis=dict(title=dict(text="key (attended to)", standoff=6), side="top", tickmode="array", tickvals=x,
                   ticktext=keys),
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


class HeadsCanvas:
    """Every layer and head of one sentence's self-attention, shown one at a time."""

    def __init__(self, attentions, tokens: Sequence[str], dpi: int = 90):
        from matplotlib.figure import Figure

        self.layers = np.stack(_layers(attentions))  # (L, H, T, T)
        L, H, T, T_keys = self.layers.shape
        self.tokens = [str(t) for t in tokens]
        if T != T_keys or len(self.tokens) != T:
            raise ValueError(f"the head view needs self-attention over the tokens: weights are ({T} queries x "
                             f"{T_keys} keys) for {len(self.tokens)} tokens")
        self.means = self.layers.mean(1)  # (L, T, T)
        # the margins (inches) follow the longest token, so the slanted key labels and the axis labels stay inside
        size = 9 if T <= 24 else 6
        char = 0.6 * size / 72  # inches per character, roughly
        longest = max(map(len, self.tokens), default=1)
        side = min(max(2.6, 0.3 * T), 7.0)  # the heatmap
        title_h, label_h = 0.32, 0.22  # the title line; an axis label's line
        top = title_h + label_h + char * longest * np.sin(np.radians(60)) + 0.2
        left = label_h + char * longest + 0.15
        right = 0.25 + 0.12 + 0.65  # gap, colour bar, its ticks and its label
        width, height = left + side + right, top + side + 0.12
        self.fig = Figure(figsize=(width, height), dpi=dpi)
        ax = self.fig.add_axes((left / width, 0.12 / height, side / width, side / height))
        self.image = ax.imshow(self.layers[0, 0], cmap="Blues", vmin=0, vmax=1, interpolation="nearest",
                               aspect="auto")
        pad = label_columns(ax, self.tokens, top=True, rotation=60, ha="left", fontsize=size)
        ax.xaxis.set_label_position("top")
        ax.set_xlabel("key (attended to)", fontsize=9, labelpad=pad)
        ax.set_ylabel("query (attending)", fontsize=9, labelpad=label_rows(ax, self.tokens, fontsize=size))
        # the colour bar in fixed axes: a third of the time of fitting it beside the heatmap
        bar_axes = self.fig.add_axes(((left + side + 0.25) / width, 0.12 / height, 0.12 / width, side / height))
        bar = self.fig.colorbar(self.image, cax=bar_axes)
        bar.set_label("weight", fontsize=9)
        self.title = self.fig.suptitle("", fontsize=10, x=0.02, y=1 - 0.06 / height, ha="left", va="top")
        self.blitter = Blitter(self.fig, [self.image, self.title])

    def show(self, layer: int, head: int | None):
        """The weights of ``layer`` and ``head`` (indices from 0; ``head=None`` for the mean) as a PNG Image."""
        L, H = self.layers.shape[:2]
        if not 0 <= layer < L or (head is not None and not 0 <= head < H):
            raise ValueError(f"layer must be in 0..{L - 1} and head in 0..{H - 1} (or None for the mean), "
                             f"got {layer} and {head}")
        weights = self.means[layer] if head is None else self.layers[layer, head]
        self.image.set_data(weights)
        self.title.set_text(f"layer {layer + 1}, head {'mean' if head is None else head + 1}")
        return self.blitter.frame()
