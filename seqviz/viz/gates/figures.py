"""Chapter 4's gates as plotly figures (precomputed sliders: they work in the static book).

- :func:`gate_heatmaps_figure`: one panel per gate (tokens down, hidden units across);
- :func:`gate_slider_figure`: the same for several sentences, a slider picks one;
- :func:`conveyor_belt_figure`: survival on the belt from a chosen token onwards, a slider picks the token.

Every view of the family takes ``(tokens, gates)`` in that order (as :func:`.pictures.gates_plot`
does), gates as ``{name: (T, H)}`` for one sentence: ``trace[name][layer, b]`` of a seqviz
LSTM or GRU (Hochreiter & Schmidhuber, 1997; Gers et al., 2000, for the forget gate; Cho et al.,
2014, for the GRU).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .._plumbing import as_array
from .data import GATE_COLORSCALE, SIGMOID_GATES, VALUE_COLORSCALE, check_gates, forget_survival


# -- gates over a sentence ------------------------------------------------------------------------


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


def gate_heatmaps_figure(tokens: Sequence[str], gates: Mapping[str, object], *, units=None, unit_labels=None,
                         title: str = "", height: int | None = None) -> go.Figure:
    """Gates over one sentence, one panel per gate: tokens down the side, hidden units across.

    ``gates`` maps a gate name to its values (T, H) for this sentence; ``units`` picks some
    hidden units (all by default) and ``unit_labels`` names them. Gates in 0..1 share one
    colour scale, signed values (candidate, c, h) another.
    """
    tokens, arrays, units = check_gates(gates, tokens, units)
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
        tokens, arrays, chosen = check_gates(sample[1], sample[0], units)
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
    # the slider and its label take about 120 px more than gate_heatmaps_figure's; plotly.js 2 (Colab's plotly 5)
    # draws nothing at all, "Something went wrong with axis scaling", when they leave the panels too little height
    _panels_layout(fig, names, items[0][1], chosen, vmax, height or 240 + 16 * longest, unit_labels)
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


# -- the conveyor belt --------------------------------------------------------------------------------


def conveyor_belt_figure(tokens: Sequence[str], forget, *, units=None, unit_labels=None, start: int | None = None,
                         title: str = "", height: int = 400) -> go.Figure:
    """What survives on the belt: from a start token on, the product of forget gates per unit.

    One line per unit in ``units`` (default: all), plus the mean over all units (dashed grey).
    A slider picks the start token t; each frame shows ``S[t, s]`` for s >= t (see
    :func:`forget_survival`), on a log scale. All frames are precomputed.
    """
    tokens, arrays, chosen = check_gates({"forget": forget}, tokens, units)
    full = as_array(forget)
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
