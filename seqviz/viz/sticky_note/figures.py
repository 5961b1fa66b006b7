"""Chapter 2's sticky note as plotly figures (precomputed sliders: they work in the static book).

- :func:`reading_figure`: one sentence, a slider over the step t; the heatmap fills in as the sentence is read;
- :func:`sentences_figure`: several sentences, each read to the end; a slider picks the sentence.

Top panel: the hidden state after each token (units x tokens). Bottom: how much each token changed
the note and, if ``probs`` is given, the probability of the tracked class.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .data import NOTE_COLORSCALE, check_reading, class_name, step_changes, step_title, tracked_class


def _frame(tokens, states, probs, upto, track, class_names, vmax):
    """Traces of one picture: the heatmap up to step ``upto`` (1-based), the changes, the tracked probability."""
    T, H = states.shape
    z = states.T.copy()  # (H, T): one row per unit, one column per token
    z[:, upto:] = np.nan  # not read yet
    changes = step_changes(states)
    changes[upto:] = np.nan
    x = list(range(T))
    traces = [
        go.Heatmap(z=z, x=x, y=list(range(H)), colorscale=NOTE_COLORSCALE, zmin=-vmax, zmax=vmax, zmid=0,
                   colorbar=dict(title="h", len=0.6, y=0.68), customdata=np.array([tokens] * H),
                   hovertemplate="after '%{customdata}'<br>unit %{y}: %{z:.3f}<extra></extra>"),
        go.Bar(x=x, y=changes, marker_color=["#d62728" if i == upto - 1 else "#7f7f7f" for i in x],
               name="‖h_t − h_(t−1)‖", customdata=tokens,
               hovertemplate="'%{customdata}' changed the note by %{y:.3f}<extra></extra>"),
    ]
    if probs is not None:
        p = probs[:, track].copy()
        p[upto:] = np.nan
        traces.append(go.Scatter(x=x, y=p, mode="lines+markers", name=f"P({class_name(class_names, track)})",
                                 yaxis="y3", line=dict(color="#1f77b4"),
                                 hovertemplate="P = %{y:.2f}<extra></extra>"))
    return traces


def _layout(fig, tokens, probs, track, class_names, height):
    ticks = dict(tickmode="array", tickvals=list(range(len(tokens))), ticktext=tokens)
    fig.update_layout(height=height, margin=dict(l=60, r=70, t=60, b=40), showlegend=probs is not None,
                      legend=dict(orientation="h", y=-0.12, x=0), bargap=0.25, title_font_size=14)
    fig.update_xaxes(**ticks, row=1, col=1)
    fig.update_xaxes(**ticks, row=2, col=1)
    fig.update_yaxes(title_text="hidden unit", autorange="reversed", row=1, col=1)
    fig.update_yaxes(title_text="change", row=2, col=1)
    if probs is not None:
        fig.update_layout(yaxis3=dict(overlaying="y2", anchor="x2", side="right", range=[0, 1.02],
                                      tickvals=[0, 0.5, 1],
                                      title=f"P({class_name(class_names, track)})", showgrid=False))


def _highlight(column):
    """A black frame around the column of the current step, in the heatmap panel."""
    return [dict(type="rect", xref="x", yref="y domain", x0=column - 0.5, x1=column + 0.5, y0=0, y1=1,
                 line=dict(color="black", width=2), fillcolor="rgba(0,0,0,0)")]


def _sentence_title(label, probs, class_names):
    """The prediction after the whole sentence (the menu above names the sentence)."""
    if probs is None:
        return ""
    c = int(probs[-1].argmax())
    return f"read to the end: predicts {html.escape(class_name(class_names, c))} ({probs[-1, c]:.0%})"


def _short(label: str, limit: int = 44) -> str:
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"


def _stack(frames, active):
    """Every frame's traces in one figure (the heatmap on top, the rest below), only frame ``active`` visible."""
    fig = make_subplots(rows=2, cols=1, row_heights=[0.65, 0.35], vertical_spacing=0.12)
    for k, traces in enumerate(frames):
        for i, trace in enumerate(traces):
            trace.visible = k == active
            fig.add_trace(trace, row=1 if i == 0 else 2, col=1)
    per = len(frames[0])
    if per == 3:  # add_trace(row=2) put the probability line on y2; move it to its own axis
        for trace in fig.data[2::per]:
            trace.yaxis = "y3"
    return fig, per


def reading_figure(tokens, states, probs=None, *, class_names=None, track=None, height=460,
                   active=None) -> go.Figure:
    """One sentence read step by step: a slider over t (precomputed, works without a kernel).

    Top: the hidden state after each token read so far (units x tokens; the column of the
    current step is framed). Bottom: how much each token changed the note and, if ``probs``
    is given, the probability of class ``track`` (default: the final prediction) so far.
    """
    tokens, states, probs = check_reading(tokens, states, probs, class_names)
    T, H = states.shape
    track = tracked_class(probs, track)
    vmax = float(np.abs(states).max()) or 1.0
    active = T - 1 if active is None else active
    if not 0 <= active < T:
        raise ValueError(f"active must be a step index in 0..{T - 1}, got {active}")
    frames = [_frame(tokens, states, probs, t, track, class_names, vmax) for t in range(1, T + 1)]
    for traces in frames:
        for i, trace in enumerate(traces):
            trace.showlegend = i > 0
    fig, per = _stack(frames, active)
    _layout(fig, tokens, probs, track, class_names, height)
    steps = []
    for t in range(1, T + 1):
        visible = [j // per == t - 1 for j in range(per * T)]
        steps.append(dict(method="update", label=tokens[t - 1],
                          args=[{"visible": visible}, {"title.text": step_title(tokens, states, probs, t, class_names),
                                                       "shapes": _highlight(t - 1)}]))
    fig.update_layout(title=step_title(tokens, states, probs, active + 1, class_names), shapes=_highlight(active),
                      sliders=[dict(active=active, steps=steps, currentvalue=dict(prefix="read up to: "),
                                    pad=dict(t=50))])
    return fig


def sentences_figure(readings: Mapping[str, tuple], *, class_names=None, track=None, height=460) -> go.Figure:
    """Several sentences, each read to the end; a menu that names each sentence picks one.

    ``readings`` maps a label (the sentence, say: it names the menu entry) to ``(tokens, states, probs)``
    (probs may be None for all); the title gives the prediction after the whole sentence.
    ``track`` fixes the class whose probability is drawn (default: each sentence's prediction).
    """
    if not readings:
        raise ValueError("sentences_figure() needs at least one reading {label: (tokens, states, probs)}")
    items = []
    for label, reading in readings.items():
        if len(reading) not in (2, 3):
            raise ValueError(f"reading {label!r} must be (tokens, states) or (tokens, states, probs)")
        tokens, states, probs = check_reading(*reading, class_names=class_names)
        items.append((str(label), tokens, states, probs))
    if len({it[3] is None for it in items}) != 1:
        raise ValueError("give probs for every reading or for none")
    H = {it[2].shape[1] for it in items}
    if len(H) != 1:
        raise ValueError(f"every reading must have the same number of hidden units, got {sorted(H)}")
    vmax = max(float(np.abs(it[2]).max()) for it in items) or 1.0
    frames = []
    for label, tokens, states, probs in items:
        c = tracked_class(probs, track)
        frames.append(_frame(tokens, states, probs, len(tokens), c, class_names, vmax))
        frames[-1][1].marker.color = "#7f7f7f"
        if probs is not None:  # every sentence draws the same class if ``track`` is fixed, else its own
            frames[-1][2].name = f"P({class_name(class_names, c)})"
    fig, per = _stack(frames, 0)
    steps = []
    first = items[0]
    _layout(fig, first[1], first[3], tracked_class(first[3], track), class_names, height)
    for k, (label, tokens, states, probs) in enumerate(items):
        visible = [j // per == k for j in range(per * len(items))]
        ticks = dict(tickvals=list(range(len(tokens))), ticktext=tokens)
        layout = {"title.text": _sentence_title(label, probs, class_names),
                  "xaxis.tickvals": ticks["tickvals"], "xaxis.ticktext": ticks["ticktext"],
                  "xaxis2.tickvals": ticks["tickvals"], "xaxis2.ticktext": ticks["ticktext"]}
        if probs is not None:
            layout["yaxis3.title.text"] = f"P({class_name(class_names, tracked_class(probs, track))})"
        steps.append(dict(method="update", label=html.escape(_short(label)), args=[{"visible": visible}, layout]))
    fig.update_layout(title=dict(text=_sentence_title(first[0], first[3], class_names), yref="paper", y=1.0,
                                 yanchor="bottom", pad=dict(b=10), x=0, xref="paper"),
                      margin_t=100, updatemenus=[dict(type="dropdown", buttons=steps, active=0, x=0, xanchor="left",
                                                      y=1.0, yanchor="bottom", pad=dict(b=42), showactive=True)])
    return fig
