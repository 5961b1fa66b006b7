"""Chapter 4's views of gated recurrent networks: gates over a sentence and the cell state as a conveyor belt.

Everything here takes tensors and token labels, never a model (Hochreiter & Schmidhuber, 1997;
Gers et al., 2000, for the forget gate; Cho et al., 2014, for the GRU):

- :func:`forget_survival`: how much of the cell state after step t is still on the belt at step s,
  the product of the forget gates in between;
- :func:`gate_heatmaps_figure`: plotly, one panel per gate (tokens down, hidden units across);
- :func:`gate_slider_figure`: the same for several sentences, a slider picks one (precomputed);
- :func:`conveyor_belt_figure`: plotly, survival from a chosen token onwards, a slider picks the token;
- :func:`accuracy_spread_figure`: accuracy against distance, mean line and the range over seeds;
- the live view for a typed sentence (matplotlib) is in :mod:`.gates_live`.

Gates are passed as ``{name: (T, H)}`` for one sentence: ``trace[name][layer, b]`` of a seqviz
LSTM or GRU. Gate names in :data:`SIGMOID_GATES` are drawn on a fixed 0..1 scale.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .interactive import _np

SIGMOID_GATES = ("forget", "input", "output", "update", "reset")
GATE_COLORSCALE = "Viridis"  # gates in [0, 1]
VALUE_COLORSCALE = "RdBu_r"  # candidate, c and h: signed


# -- checks and the survival product ------------------------------------------------------------


def _gates(gates: Mapping[str, object], tokens: Sequence[str], units=None):
    """Validate one sentence's gates; return (tokens, {name: (T, H') array}, unit indices)."""
    if not isinstance(gates, Mapping) or not gates:
        raise ValueError("gates must be a non-empty dict {name: (T, H) tensor}, e.g. {'forget': trace['forget'][0, 0]}")
    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("the sentence is empty: give at least one token")
    arrays = {}
    for name, values in gates.items():
        array = _np(values)
        if array.ndim != 2:
            raise ValueError(f"gate {name!r} must be (T, H) = (tokens, hidden units) for one sentence, "
                             f"got shape {array.shape}; pick one layer and one sentence, e.g. trace[{name!r}][0, 0]")
        if array.shape[0] != len(tokens):
            raise ValueError(f"gate {name!r} has {array.shape[0]} time steps but there are {len(tokens)} tokens; "
                             "expected one row per token")
        arrays[str(name)] = array
    widths = {a.shape[1] for a in arrays.values()}
    if len(widths) != 1:
        raise ValueError(f"every gate must have the same number of hidden units, got {sorted(widths)}")
    H = widths.pop()
    units = list(range(H)) if units is None else [int(u) for u in units]
    if not units or min(units) < 0 or max(units) >= H:
        raise ValueError(f"units must be a non-empty list of indices in 0..{H - 1}, got {units}")
    return tokens, {k: a[:, units] for k, a in arrays.items()}, units


def forget_survival(forget):
    """The conveyor belt: ``S[t, s, u] = f[t+1, u] * ... * f[s, u]`` for s >= t, NaN for s < t.

    ``forget`` is (T, H), the forget gates of one sentence (or (..., T, H) for a batch). Since
    ``c_s = f_s * c_{s-1} + i_s * g_s``, ``S[t, s]`` is the share of the cell state after step
    t that is still in the cell state after step s (``S[t, t] = 1``). Returns (..., T, T, H).
    """
    import torch  # here, not at the top: importing seqviz.viz stays free of torch

    f = torch.as_tensor(forget, dtype=torch.float64) if not isinstance(forget, torch.Tensor) else forget.detach()
    if f.dim() < 2:
        raise ValueError(f"forget must be (T, H) (or (..., T, H)), got shape {tuple(f.shape)}")
    if f.numel() and (f.min() < 0 or f.max() > 1):
        raise ValueError("forget gates lie in [0, 1] (they come out of a sigmoid); got values outside")
    T = f.shape[-2]
    out = torch.full((*f.shape[:-2], T, T, f.shape[-1]), float("nan"), dtype=f.dtype, device=f.device)
    for t in range(T):
        out[..., t, t, :] = 1.0
        if t + 1 < T:
            out[..., t, t + 1 :, :] = torch.cumprod(f[..., t + 1 :, :], dim=-2)  # (..., T-t-1, H)
    return out


# -- plotly: gates over a sentence ----------------------------------------------------------------


def _panel_traces(tokens, arrays, units):
    """One heatmap per gate: rows = tokens (time runs down), columns = hidden units."""
    traces = []
    signed = [a for k, a in arrays.items() if k not in SIGMOID_GATES]
    vmax = max((float(np.abs(a).max()) for a in signed), default=1.0) or 1.0
    for name, array in arrays.items():
        gate = name in SIGMOID_GATES
        custom = np.array([tokens] * len(units)).T  # (T, H'): the token of each cell
        traces.append(go.Heatmap(
            z=array, x=list(range(len(units))), y=list(range(len(tokens))), customdata=custom,
            coloraxis="coloraxis" if gate else "coloraxis2", name=name,
            hovertemplate=f"{name}<br>after '%{{customdata}}'<br>unit %{{x}}: %{{z:.3f}}<extra></extra>"))
    return traces, vmax


def _panels_layout(fig, names, tokens, units, vmax, height, unit_labels):
    T = len(tokens)
    fig.update_layout(
        height=height, margin=dict(l=90, r=20, t=70, b=40),
        coloraxis=dict(colorscale=GATE_COLORSCALE, cmin=0, cmax=1,
                       colorbar=dict(title="gate", len=0.45, y=0.75, x=1.02)),
        coloraxis2=dict(colorscale=VALUE_COLORSCALE, cmin=-vmax, cmax=vmax,
                        colorbar=dict(title="value", len=0.45, y=0.22, x=1.02)))
    fig.update_yaxes(tickmode="array", tickvals=list(range(T)), ticktext=tokens, range=[T - 0.5, -0.5])
    ticks = [i for i in range(len(units)) if len(units) <= 16 or i % max(1, len(units) // 8) == 0]
    labels = [str(unit_labels[i]) if unit_labels is not None else str(units[i]) for i in ticks]
    fig.update_xaxes(tickmode="array", tickvals=ticks, ticktext=labels, title_text="unit")
    if not any(n in SIGMOID_GATES for n in names):
        fig.update_layout(coloraxis_showscale=False)
    if all(n in SIGMOID_GATES for n in names):
        fig.update_layout(coloraxis2_showscale=False)


def _title_text(label, tokens):
    return html.escape(label) if label else html.escape(" ".join(tokens))


def gate_heatmaps_figure(gates: Mapping[str, object], tokens: Sequence[str], *, units=None, unit_labels=None,
                         title: str = "", height: int | None = None) -> go.Figure:
    """Gates over one sentence, one panel per gate: tokens down the side, hidden units across.

    ``gates`` maps a gate name to its values (T, H) for this sentence; ``units`` picks some
    hidden units (all by default) and ``unit_labels`` names them. Gates in 0..1 share one
    colour scale, signed values (candidate, c, h) another.
    """
    tokens, arrays, units = _gates(gates, tokens, units)
    if unit_labels is not None and len(unit_labels) != len(units):
        raise ValueError(f"{len(unit_labels)} unit labels for {len(units)} units")
    names = list(arrays)
    fig = make_subplots(rows=1, cols=len(names), shared_yaxes=True, horizontal_spacing=0.02,
                        subplot_titles=names)
    traces, vmax = _panel_traces(tokens, arrays, units)
    for col, trace in enumerate(traces, start=1):
        fig.add_trace(trace, row=1, col=col)
    _panels_layout(fig, names, tokens, units, vmax, height or 120 + 16 * len(tokens), unit_labels)
    fig.update_layout(title=_title_text(title, tokens))
    return fig


def gate_slider_figure(samples: Mapping[str, tuple], *, units=None, unit_labels=None,
                       height: int | None = None) -> go.Figure:
    """Several sentences' gates in one figure; a slider (precomputed, no kernel) picks the sentence.

    ``samples`` maps a label (it becomes the title) to ``(tokens, gates)`` as for
    :func:`gate_heatmaps_figure`. Every sentence must have the same gate names and units.
    """
    if not samples:
        raise ValueError("gate_slider_figure() needs at least one sample {label: (tokens, gates)}")
    items = []
    for label, sample in samples.items():
        if not isinstance(sample, tuple) or len(sample) != 2:
            raise ValueError(f"sample {label!r} must be a tuple (tokens, gates)")
        tokens, arrays, chosen = _gates(sample[1], sample[0], units)
        items.append((str(label), tokens, arrays, chosen))
    names = list(items[0][2])
    for label, _, arrays, _ in items:
        if list(arrays) != names:
            raise ValueError(f"sample {label!r} has gates {list(arrays)}, the first has {names}")
    widths = {len(it[3]) for it in items}
    if len({it[2][names[0]].shape[1] for it in items}) != 1 or len(widths) != 1:
        raise ValueError("every sample must have the same number of hidden units")
    chosen = items[0][3]
    if unit_labels is not None and len(unit_labels) != len(chosen):
        raise ValueError(f"{len(unit_labels)} unit labels for {len(chosen)} units")
    longest = max(len(it[1]) for it in items)
    vmax = max(_panel_traces(it[1], it[2], it[3])[1] for it in items)
    fig = make_subplots(rows=1, cols=len(names), shared_yaxes=True, horizontal_spacing=0.02, subplot_titles=names)
    per = len(names)
    for k, (label, tokens, arrays, units_k) in enumerate(items):
        traces, _ = _panel_traces(tokens, arrays, units_k)
        for col, trace in enumerate(traces, start=1):
            trace.visible = k == 0
            fig.add_trace(trace, row=1, col=col)
    _panels_layout(fig, names, items[0][1], chosen, vmax, height or 120 + 16 * longest, unit_labels)
    steps = []
    for k, (label, tokens, _, _) in enumerate(items):
        T = len(tokens)
        layout = {"title.text": _title_text(label, tokens), "yaxis.tickvals": list(range(T)),
                  "yaxis.ticktext": tokens, "yaxis.range": [T - 0.5, -0.5]}
        steps.append(dict(method="update", label=str(k + 1),
                          args=[{"visible": [j // per == k for j in range(per * len(items))]}, layout]))
    fig.update_layout(title=_title_text(items[0][0], items[0][1]),
                      sliders=[dict(active=0, steps=steps, currentvalue=dict(prefix="sentence: "), pad=dict(t=40))])
    return fig


# -- plotly: the conveyor belt ----------------------------------------------------------------------


def conveyor_belt_figure(forget, tokens: Sequence[str], *, units=None, unit_labels=None, start: int | None = None,
                         title: str = "", height: int = 400) -> go.Figure:
    """What survives on the belt: from a start token on, the product of forget gates per unit.

    One line per unit in ``units`` (default: all), plus the mean over all units (dashed grey).
    A slider picks the start token t; each frame shows ``S[t, s]`` for s >= t (see
    :func:`forget_survival`), on a log scale. All frames are precomputed.
    """
    tokens, arrays, chosen = _gates({"forget": forget}, tokens, units)
    full = _np(forget)
    if unit_labels is not None and len(unit_labels) != len(chosen):
        raise ValueError(f"{len(unit_labels)} unit labels for {len(chosen)} units")
    T = len(tokens)
    start = 0 if start is None else int(start)
    if not 0 <= start < T:
        raise ValueError(f"start must be a token index in 0..{T - 1}, got {start}")
    survival = forget_survival(full.astype(np.float64)).numpy()  # (T, T, H)
    floor = 1e-6
    fig = go.Figure()
    palette = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
    names = [str(unit_labels[i]) if unit_labels is not None else f"unit {u}" for i, u in enumerate(chosen)]
    per = len(chosen) + 1
    for t in range(T):
        x = list(range(t, T))
        for i, u in enumerate(chosen):
            y = np.maximum(survival[t, t:, u], floor)
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=names[i], legendgroup=names[i],
                                     showlegend=t == start, visible=t == start,
                                     line=dict(color=palette[i % len(palette)]), customdata=tokens[t:],
                                     hovertemplate=f"{names[i]}<br>left after '%{{customdata}}': %{{y:.3f}}"
                                                   "<extra></extra>"))
        mean = np.maximum(survival[t, t:].mean(-1), floor)
        fig.add_trace(go.Scatter(x=x, y=mean, mode="lines", name="mean of all units", legendgroup="mean",
                                 showlegend=t == start, visible=t == start,
                                 line=dict(color="gray", dash="dash"),
                                 hovertemplate="mean over units: %{y:.3f}<extra></extra>"))

    def frame_title(t):
        return title or f"what is on the belt after '{html.escape(tokens[t])}' (step {t + 1}), at every later step"

    steps = []
    for t in range(T):
        visible = [j // per == t for j in range(per * T)]
        showlegend = [j // per == t for j in range(per * T)]
        steps.append(dict(method="update", label=tokens[t],
                          args=[{"visible": visible, "showlegend": showlegend}, {"title.text": frame_title(t)}]))
    fig.update_layout(title=frame_title(start), height=height, margin=dict(l=60, r=20, t=60, b=40),
                      yaxis=dict(type="log", range=[np.log10(floor), 0.1], title="share still on the belt",
                                 exponentformat="power"),
                      xaxis=dict(tickmode="array", tickvals=list(range(T)), ticktext=tokens, range=[-0.5, T - 0.5]),
                      sliders=[dict(active=start, steps=steps, currentvalue=dict(prefix="from token: "),
                                    pad=dict(t=60))])
    return fig


def accuracy_spread_figure(distances: Sequence[int], runs: Mapping[str, object], *, chance: float | None = 0.5,
                           title: str = "", xlabel: str = "distance between subject and verb (tokens)",
                           height: int = 420) -> go.Figure:
    """Accuracy against distance: per model the mean over seeds (line), the range (band) and each seed (dots).

    ``runs`` maps a model's label to accuracies (seeds, distances). Chapters 4 and 10.
    """
    if not runs:
        raise ValueError("accuracy_spread_figure() needs at least one model {label: (seeds, distances) accuracies}")
    x = _np(distances)
    if x.ndim != 1:
        raise ValueError(f"distances must be 1-D, got shape {x.shape}")
    palette = ("#7f7f7f", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e")
    fig = go.Figure()
    for i, (name, values) in enumerate(runs.items()):
        acc = _np(values)
        if acc.ndim == 1:
            acc = acc[None]
        if acc.ndim != 2 or acc.shape[1] != x.size:
            raise ValueError(f"model {name!r}: accuracies must be (seeds, {x.size} distances), got shape {acc.shape}")
        color = palette[i % len(palette)]
        low, high, mean = acc.min(0), acc.max(0), acc.mean(0)
        fig.add_trace(go.Scatter(x=np.concatenate([x, x[::-1]]), y=np.concatenate([high, low[::-1]]), fill="toself",
                                 fillcolor=color, opacity=0.18, line=dict(width=0), legendgroup=name,
                                 showlegend=False, hoverinfo="skip", name=f"{name} range"))
        seeds_x = np.repeat(x[None], acc.shape[0], 0).ravel()
        fig.add_trace(go.Scatter(x=seeds_x, y=acc.ravel(), mode="markers", marker=dict(color=color, size=5,
                                 opacity=0.6), legendgroup=name, showlegend=False, name=f"{name} seeds",
                                 hovertemplate=f"{name}, one seed<br>distance %{{x}}: %{{y:.1%}}<extra></extra>"))
        fig.add_trace(go.Scatter(x=x, y=mean, mode="lines+markers", name=f"{name} (mean of {acc.shape[0]})",
                                 legendgroup=name, line=dict(color=color, width=2.5),
                                 customdata=np.stack([low, high], -1),
                                 hovertemplate=f"{name}<br>distance %{{x}}: mean %{{y:.1%}}<br>"
                                               "range %{customdata[0]:.1%} – %{customdata[1]:.1%}<extra></extra>"))
    if chance is not None:
        fig.add_trace(go.Scatter(x=[x.min(), x.max()], y=[chance, chance], mode="lines", name="chance",
                                 line=dict(color="black", dash="dot", width=1), hoverinfo="skip"))
    fig.update_layout(title=title, xaxis_title=xlabel, yaxis_title="test accuracy", height=height,
                      yaxis=dict(range=[0.4, 1.02], tickformat=".0%"), margin=dict(l=60, r=20, t=50 if title else 20,
                                                                                     b=50))
    return fig
