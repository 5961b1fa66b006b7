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
from .data import GATE_COLORSCALE, SIGMOID_GATES, VALUE_COLORSCALE, belt_floor, check_gates, forget_survival


# -- gates over a sentence ------------------------------------------------------------------------

_GATE_TITLES = {"forget": "forget gate f", "input": "input gate i", "candidate": "candidate g",
                "output": "output gate o", "update": "update gate z", "reset": "reset gate r", "c": "cell state c",
                "h": "hidden state h"}


def _short(label: str, limit: int = 44) -> str:
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"


def _panel_traces(tokens, arrays, units, unit_names):
    """One heatmap per gate: columns = tokens (reading left to right), rows = hidden units."""
    traces = []
    signed = [a for k, a in arrays.items() if k not in SIGMOID_GATES]
    vmax = max((float(np.abs(a).max()) for a in signed), default=1.0) or 1.0
    for name, array in arrays.items():
        gate = name in SIGMOID_GATES
        custom = np.array([[f"after '{t}', {u}" for t in tokens] for u in unit_names])  # (H', T)
        traces.append(go.Heatmap(
            z=array.T, x=list(range(len(tokens))), y=list(range(len(units))), customdata=custom,
            coloraxis="coloraxis" if gate else "coloraxis2", name=name,
            hovertemplate=f"{name}<br>%{{customdata}}: %{{z:.3f}}<extra></extra>"))
    return traces, vmax


def _unit_names(units, unit_labels):
    return [str(unit_labels[i]) if unit_labels is not None else f"unit {u}" for i, u in enumerate(units)]


def _panels_layout(fig, names, tokens, units, vmax, height, unit_names):
    """Rows of panels, tokens along every panel's x axis, every unit named; one colour bar per scale."""
    rows = len(names)
    gate_rows = [r for r, n in enumerate(names) if n in SIGMOID_GATES]
    value_rows = [r for r, n in enumerate(names) if n not in SIGMOID_GATES]

    def span(r):  # the y-domain of row r (make_subplots: row 0 on top)
        axis = fig.layout["yaxis" if r == 0 else f"yaxis{r + 1}"]
        return axis.domain

    def bar(rows_, title):
        run = [rows_[0]] + [r for a, r in zip(rows_, rows_[1:]) if r == a + 1]  # the first adjacent rows
        run = run[: len(run) if len(run) == len(rows_) or len(run) > 1 else 1]
        lo, hi = min(span(r)[0] for r in run), max(span(r)[1] for r in run)
        return dict(title=dict(text=title, side="right"), len=hi - lo, y=(lo + hi) / 2, yanchor="middle",
                    x=1.01, thickness=12)

    layout = dict(height=height, margin=dict(l=70, r=70, t=40, b=60))  # b: the rotated tokens
    if gate_rows:
        layout["coloraxis"] = dict(colorscale=GATE_COLORSCALE, cmin=0, cmax=1,
                                   colorbar=bar(gate_rows, "gate: 0 closed, 1 open"))
    if value_rows:
        layout["coloraxis2"] = dict(colorscale=VALUE_COLORSCALE, cmin=-vmax, cmax=vmax,
                                    colorbar=bar(value_rows, "value"))
    fig.update_layout(**layout)
    T = len(tokens)
    fig.update_xaxes(tickmode="array", tickvals=list(range(T)), ticktext=tokens, tickangle=-45, showticklabels=True,
                     range=[-0.5, T - 0.5], tickfont=dict(size=10))
    fig.update_yaxes(tickmode="array", tickvals=list(range(len(units))), ticktext=unit_names, autorange="reversed",
                     tickfont=dict(size=9), title=dict(text="unit", font=dict(size=10), standoff=2))
    for r in range(rows):  # the panel titles, above each panel on the left
        fig.layout.annotations[r].update(x=0, xanchor="left", font=dict(size=12))


def _gate_rows_figure(names, unit_count, token_count, height):
    per_row = 28 + 11 * unit_count + 48  # title, units, rotated token labels
    fig = make_subplots(rows=len(names), cols=1, vertical_spacing=min(0.3 / len(names), 60 / (per_row * len(names))),
                        subplot_titles=[_GATE_TITLES.get(n, n) for n in names])
    return fig, height or 60 + per_row * len(names)


def _title_text(label, tokens):
    return html.escape(label) if label else html.escape(" ".join(tokens))


def gate_heatmaps_figure(tokens: Sequence[str], gates: Mapping[str, object], *, units=None, unit_labels=None,
                         title: str = "", height: int | None = None) -> go.Figure:
    """Gates over one sentence, one panel per gate (stacked): the tokens along x, hidden units down y.

    ``gates`` maps a gate name to its values (T, H) for this sentence; ``units`` picks some
    hidden units (all by default) and ``unit_labels`` names them (every unit is labelled). Gates
    in 0..1 share one colour scale, signed values (candidate, c, h) another.
    """
    tokens, arrays, units = check_gates(gates, tokens, units)
    if unit_labels is not None and len(unit_labels) != len(units):
        raise ValueError(f"{len(unit_labels)} unit labels for {len(units)} units")
    names = list(arrays)
    fig, height = _gate_rows_figure(names, len(units), len(tokens), height)
    unit_names = _unit_names(units, unit_labels)
    traces, vmax = _panel_traces(tokens, arrays, units, unit_names)
    for row, trace in enumerate(traces, start=1):
        fig.add_trace(trace, row=row, col=1)
    _panels_layout(fig, names, tokens, units, vmax, height, unit_names)
    if title:
        fig.update_layout(title=dict(text=_title_text(title, tokens), font=dict(size=13)), margin_t=70)
    return fig


def gate_slider_figure(samples: Mapping[str, tuple], *, units=None, unit_labels=None,
                       height: int | None = None) -> go.Figure:
    """Several sentences' gates in one figure; a menu that names each sentence (precomputed, no kernel) picks one.

    ``samples`` maps a label (the sentence, say: it names the menu entry) to ``(tokens, gates)`` as for
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
    unit_names = _unit_names(chosen, unit_labels)
    vmax = max(_panel_traces(it[1], it[2], it[3], unit_names)[1] for it in items)
    fig, height = _gate_rows_figure(names, len(chosen), max(len(it[1]) for it in items), height)
    per = len(names)
    for k, (label, tokens, arrays, units_k) in enumerate(items):
        traces, _ = _panel_traces(tokens, arrays, units_k, unit_names)
        for row, trace in enumerate(traces, start=1):
            trace.visible = k == 0
            fig.add_trace(trace, row=row, col=1)
    _panels_layout(fig, names, items[0][1], chosen, vmax, height, unit_names)
    buttons = []
    for k, (label, tokens, _, _) in enumerate(items):
        T = len(tokens)
        layout = {}
        for r in range(per):
            axis = "xaxis" if r == 0 else f"xaxis{r + 1}"
            layout.update({f"{axis}.tickvals": list(range(T)), f"{axis}.ticktext": tokens,
                           f"{axis}.range": [-0.5, T - 0.5]})
        buttons.append(dict(method="update", label=html.escape(_short(label)),
                            args=[{"visible": [j // per == k for j in range(per * len(items))]}, layout]))
    fig.update_layout(margin_t=75, updatemenus=[dict(type="dropdown", buttons=buttons, active=0, x=0, xanchor="left",
                                                     y=1.0, yanchor="bottom", pad=dict(b=22), showactive=True)])
    return fig


# -- the conveyor belt --------------------------------------------------------------------------------


def conveyor_belt_figure(tokens: Sequence[str], forget, *, units=None, unit_labels=None, start: int | None = None,
                         title: str = "", height: int = 420) -> go.Figure:
    """What survives on the belt: from a start token on, the product of forget gates per unit.

    One line per unit in ``units`` (default: all), plus the mean over all units (dashed grey).
    A slider picks the start token t; each frame shows ``S[t, s]`` for s >= t (see
    :func:`forget_survival`). The y axis is linear from 0 to 1 when every share drawn stays above 5%,
    and logarithmic down to the smallest share otherwise, so the lines never sit flat against an edge.
    All frames are precomputed.
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
    drawn = np.concatenate([survival[t, t:][:, chosen].ravel() for t in range(T)]
                           + [survival[t, t:].mean(-1) for t in range(T)])
    floor = belt_floor(drawn)
    log_axis = floor > 0
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

    def frame_title(t):  # the slider's label names the start token; without a title the frame's own names it
        return html.escape(title) if title else f"Share left on the belt since '{html.escape(tokens[t], quote=False)}'"

    steps = []
    for t in range(T):
        visible = [j // per == t for j in range(per * T)]
        showlegend = [j // per == t for j in range(per * T)]
        steps.append(dict(method="update", label=html.escape(tokens[t]),
                          args=[{"visible": visible, "showlegend": showlegend}, {"title.text": frame_title(t)}]))
    yaxis = (dict(type="log", range=[np.log10(floor), 0.05], title="share still on the belt (log scale)",
                  exponentformat="power", dtick=1) if log_axis else
             dict(range=[0, 1.05], title="share still on the belt", tickformat=".0%"))
    # the title at the top left, the legend right under it, above the plot: no empty band between them
    fig.update_layout(title=dict(text=frame_title(start), font=dict(size=14), x=0.01, xanchor="left", y=1.0,
                                 yref="container", yanchor="top", pad=dict(t=12)), height=height,
                      margin=dict(l=70, r=20, t=76, b=40), yaxis=yaxis,
                      legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom", font=dict(size=11)),
                      xaxis=dict(tickmode="array", tickvals=list(range(T)), ticktext=tokens, range=[-0.5, T - 0.5],
                                 tickangle=-45),
                      sliders=[dict(active=start, steps=steps, currentvalue=dict(prefix="on the belt since: "),
                                    pad=dict(t=70))])
    return fig
