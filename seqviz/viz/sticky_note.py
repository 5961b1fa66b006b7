"""The "sticky note" views of chapter 2: a recurrent network's hidden state, rewritten token by token.

Everything here takes data, never a model (Elman, 1990, for the network being watched):

- :func:`step_changes`: how much the note changed at each step, ``||h_t - h_{t-1}||`` with ``h_0 = 0``;
- :func:`reading_figure`: plotly, a slider over the step t; the heatmap fills in as the sentence is read;
- :func:`sentences_figure`: plotly, a slider over several sentences, each read to the end;
- :func:`sticky_note_widget`: the live view; the reader types a sentence and moves a step slider;
- :func:`require_known_words`: a friendly ``ValueError`` for words a model has never seen;
- :func:`loop_diagram`: matplotlib, the loop folded and unrolled (one picture of "the same weights");
- :class:`NoteCanvas`: the widget's picture, built once per sentence and redrawn per step.

A reading is ``(tokens, states, probs)``: ``states`` (T, H) is the hidden state after each token and
``probs`` (T, C) the model's class probabilities at each step (or None).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._canvas import Blitter, label_columns
from .interactive import _np

NOTE_COLORSCALE = "RdBu_r"


# -- checks and small computations --------------------------------------------------------------


def _reading(tokens, states, probs=None, class_names=None):
    """Validate one reading; return (tokens list, states (T, H) array, probs (T, C) array or None)."""
    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("the sentence is empty: type at least one word")
    states = _np(states)
    if states.ndim != 2:
        raise ValueError(f"states must be (T, H) = (tokens, hidden units), got shape {states.shape}")
    if states.shape[0] != len(tokens):
        raise ValueError(f"states has {states.shape[0]} rows but there are {len(tokens)} tokens; "
                         "expected one hidden state per token")
    if probs is not None:
        probs = _np(probs)
        if probs.ndim == 1:  # (T,): the probability of one class
            probs = probs[:, None]
        if probs.ndim != 2 or probs.shape[0] != len(tokens):
            raise ValueError(f"probs must be (T, C) with T = {len(tokens)} tokens, got shape {probs.shape}")
        if class_names is not None and len(class_names) != probs.shape[1]:
            raise ValueError(f"{len(class_names)} class names for {probs.shape[1]} classes")
    return tokens, states, probs


def step_changes(states) -> np.ndarray:
    """``||h_t - h_{t-1}||`` for each step t (T,), with ``h_0 = 0``: how much each token rewrote the note."""
    states = _np(states)
    if states.ndim != 2:
        raise ValueError(f"states must be (T, H), got shape {states.shape}")
    previous = np.vstack([np.zeros((1, states.shape[1])), states[:-1]])  # (T, H): h_{t-1}
    return np.linalg.norm(states - previous, axis=1)  # (T,)


def require_known_words(tokens: Sequence[str], known: Iterable[str], show: int = 12) -> None:
    """Raise a friendly ``ValueError`` if a token is not in ``known`` (a vocabulary's words).

    The message names the unknown words and shows some words the model does know, so a
    live widget can print it instead of a traceback.
    """
    known = list(known)
    known_set = set(known)
    if not tokens:
        raise ValueError("the sentence is empty: type a few words, for example 'the keys near the old cabinet'")
    unknown = [t for t in dict.fromkeys(tokens) if t not in known_set]
    if unknown:
        words = ", ".join(f"'{w}'" for w in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        sample = ", ".join(known[:show])
        raise ValueError(f"this model has never seen {words}; it only knows {len(known)} words, "
                         f"such as {sample} ...")


def _track(probs, track):
    """The class whose probability the views plot: ``track``, or the prediction at the last step."""
    if probs is None:
        return None
    if track is None:
        return int(probs[-1].argmax())
    if not 0 <= int(track) < probs.shape[1]:
        raise ValueError(f"track must be a class index in 0..{probs.shape[1] - 1}, got {track}")
    return int(track)


def _class_name(class_names, c):
    return str(class_names[c]) if class_names is not None else f"class {c}"


# -- plotly: the static-interactive views ---------------------------------------------------------


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
        traces.append(go.Scatter(x=x, y=p, mode="lines+markers", name=f"P({_class_name(class_names, track)})",
                                 yaxis="y3", line=dict(color="#1f77b4"),
                                 hovertemplate="P = %{y:.2f}<extra></extra>"))
    return traces


def _layout(fig, tokens, probs, track, class_names, height):
    ticks = dict(tickmode="array", tickvals=list(range(len(tokens))), ticktext=tokens)
    fig.update_layout(height=height, margin=dict(l=60, r=70, t=60, b=40), showlegend=probs is not None,
                      legend=dict(orientation="h", y=-0.12, x=0), bargap=0.25)
    fig.update_xaxes(**ticks, row=1, col=1)
    fig.update_xaxes(**ticks, row=2, col=1)
    fig.update_yaxes(title_text="hidden unit", autorange="reversed", row=1, col=1)
    fig.update_yaxes(title_text="change", row=2, col=1)
    if probs is not None:
        fig.update_layout(yaxis3=dict(overlaying="y2", anchor="x2", side="right", range=[0, 1.02],
                                      tickvals=[0, 0.5, 1],
                                      title=f"P({_class_name(class_names, track)})", showgrid=False))


def _highlight(column):
    """A black frame around the column of the current step, in the heatmap panel."""
    return [dict(type="rect", xref="x", yref="y domain", x0=column - 0.5, x1=column + 0.5, y0=0, y1=1,
                 line=dict(color="black", width=2), fillcolor="rgba(0,0,0,0)")]


def _title(tokens, states, probs, upto, class_names):
    changes = step_changes(states)
    text = f"step {upto}/{len(tokens)}: read '{html.escape(tokens[upto - 1])}', the note changed by " \
           f"{changes[upto - 1]:.2f}"
    if probs is not None:
        c = int(probs[upto - 1].argmax())
        text += f"; prediction: {_class_name(class_names, c)} ({probs[upto - 1, c]:.0%})"
    return text


def _sentence_title(label, probs, class_names):
    if probs is None:
        return html.escape(label)
    c = int(probs[-1].argmax())
    return f"{html.escape(label)} → {_class_name(class_names, c)} ({probs[-1, c]:.0%})"


def reading_figure(tokens, states, probs=None, *, class_names=None, track=None, height=460,
                   active=None) -> go.Figure:
    """One sentence read step by step: a slider over t (precomputed, works without a kernel).

    Top: the hidden state after each token read so far (units x tokens; the column of the
    current step is framed). Bottom: how much each token changed the note and, if ``probs``
    is given, the probability of class ``track`` (default: the final prediction) so far.
    """
    tokens, states, probs = _reading(tokens, states, probs, class_names)
    T, H = states.shape
    track = _track(probs, track)
    vmax = float(np.abs(states).max()) or 1.0
    active = T - 1 if active is None else active
    if not 0 <= active < T:
        raise ValueError(f"active must be a step index in 0..{T - 1}, got {active}")
    fig = make_subplots(rows=2, cols=1, row_heights=[0.65, 0.35], vertical_spacing=0.12)
    per = None
    for t in range(1, T + 1):
        traces = _frame(tokens, states, probs, t, track, class_names, vmax)
        per = len(traces)
        for i, trace in enumerate(traces):
            trace.visible = t - 1 == active
            trace.showlegend = i > 0
            fig.add_trace(trace, row=1 if i == 0 else 2, col=1)
    if probs is not None:  # add_trace(row=2) put the probability line on y2; move it to its own axis
        for trace in fig.data[2::per]:
            trace.yaxis = "y3"
    _layout(fig, tokens, probs, track, class_names, height)
    steps = []
    for t in range(1, T + 1):
        visible = [j // per == t - 1 for j in range(per * T)]
        steps.append(dict(method="update", label=tokens[t - 1],
                          args=[{"visible": visible}, {"title.text": _title(tokens, states, probs, t, class_names),
                                                       "shapes": _highlight(t - 1)}]))
    fig.update_layout(title=_title(tokens, states, probs, active + 1, class_names), shapes=_highlight(active),
                      sliders=[dict(active=active, steps=steps, currentvalue=dict(prefix="read up to: "),
                                    pad=dict(t=50))])
    return fig


def sentences_figure(readings: Mapping[str, tuple], *, class_names=None, track=None, height=460) -> go.Figure:
    """Several sentences, each read to the end; a slider picks the sentence.

    ``readings`` maps a label (the sentence, say; it becomes the title) to ``(tokens, states, probs)``
    (probs may be None for all); the slider steps are numbered 1, 2, ...
    ``track`` fixes the class whose probability is drawn (default: each sentence's prediction).
    """
    if not readings:
        raise ValueError("sentences_figure() needs at least one reading {label: (tokens, states, probs)}")
    items = []
    for label, reading in readings.items():
        if len(reading) not in (2, 3):
            raise ValueError(f"reading {label!r} must be (tokens, states) or (tokens, states, probs)")
        tokens, states, probs = _reading(*reading, class_names=class_names)
        items.append((str(label), tokens, states, probs))
    if len({it[3] is None for it in items}) != 1:
        raise ValueError("give probs for every reading or for none")
    H = {it[2].shape[1] for it in items}
    if len(H) != 1:
        raise ValueError(f"every reading must have the same number of hidden units, got {sorted(H)}")
    vmax = max(float(np.abs(it[2]).max()) for it in items) or 1.0
    fig = make_subplots(rows=2, cols=1, row_heights=[0.65, 0.35], vertical_spacing=0.12)
    per, steps = None, []
    for k, (label, tokens, states, probs) in enumerate(items):
        c = _track(probs, track)
        traces = _frame(tokens, states, probs, len(tokens), c, class_names, vmax)
        if probs is not None:  # every sentence draws the same class if ``track`` is fixed, else its own
            traces[2].name = f"P({_class_name(class_names, c)})"
        per = len(traces)
        for i, trace in enumerate(traces):
            trace.visible = k == 0
            if i == 1:
                trace.marker.color = "#7f7f7f"
            fig.add_trace(trace, row=1 if i == 0 else 2, col=1)
    if items[0][3] is not None:
        for trace in fig.data[2::per]:
            trace.yaxis = "y3"
    first = items[0]
    _layout(fig, first[1], first[3], _track(first[3], track), class_names, height)
    for k, (label, tokens, states, probs) in enumerate(items):
        visible = [j // per == k for j in range(per * len(items))]
        ticks = dict(tickvals=list(range(len(tokens))), ticktext=tokens)
        layout = {"title.text": _sentence_title(label, probs, class_names),
                  "xaxis.tickvals": ticks["tickvals"], "xaxis.ticktext": ticks["ticktext"],
                  "xaxis2.tickvals": ticks["tickvals"], "xaxis2.ticktext": ticks["ticktext"]}
        if probs is not None:
            layout["yaxis3.title.text"] = f"P({_class_name(class_names, _track(probs, track))})"
        steps.append(dict(method="update", label=str(k + 1), args=[{"visible": visible}, layout]))
    fig.update_layout(title=_sentence_title(first[0], first[3], class_names),
                      sliders=[dict(active=0, steps=steps, currentvalue=dict(prefix="sentence: "), pad=dict(t=50))])
    return fig


# -- the live widget ----------------------------------------------------------------------------


class NoteCanvas:
    """The matplotlib picture of the live view, built once per sentence and updated per step.

    The axes, ticks and labels are drawn once; moving the slider changes only the data (the
    heatmap, the frame, the bars, the line and the title), redraws just those artists over
    the saved background (blitting) and encodes one PNG, which keeps a redraw fast.
    """

    def __init__(self, tokens, states, probs=None, class_names=None, track=None):
        import matplotlib.pyplot as plt
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle

        self.tokens, self.states, self.probs = _reading(tokens, states, probs, class_names)
        self.class_names, self.track = class_names, _track(self.probs, track)
        T, H = self.states.shape
        self.changes = step_changes(self.states)  # (T,)
        vmax = float(np.abs(self.states).max()) or 1.0
        # a Figure outside pyplot: nothing to close, nothing shown twice by the inline backend
        self.fig = fig = Figure(figsize=(min(3 + 0.55 * T, 11), 3.9), dpi=72)
        top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw=dict(height_ratios=[3, 1.2], hspace=0.08))
        cmap = plt.get_cmap(NOTE_COLORSCALE).with_extremes(bad="#f2f2f2")  # grey: tokens not read yet
        self.image = top.imshow(self.states.T, aspect="auto", cmap=cmap, vmin=-vmax, vmax=vmax,
                                interpolation="nearest")
        self.frame = top.add_patch(Rectangle((-0.5, -0.5), 1, H, fill=False, lw=2, ec="black"))
        top.set_ylabel("hidden unit")
        self.title = top.set_title("", fontsize=10)
        self.bars = bottom.bar(range(T), self.changes, color="#7f7f7f", width=0.7)
        bottom.set_xlim(-0.5, T - 0.5)
        bottom.set_ylim(0, float(self.changes.max()) * 1.1 or 1.0)
        bottom.set_ylabel("change")
        top.set_xticks([])
        label_columns(bottom, self.tokens, rotation=40, ha="right", fontsize=10)
        self.line = None
        if self.probs is not None:
            right = bottom.twinx()
            (self.line,) = right.plot([], [], "o-", color="#1f77b4", ms=3)
            right.set_ylim(0, 1.02)
            right.set_ylabel(f"P({_class_name(class_names, self.track)})", color="#1f77b4")
        fig.subplots_adjust(left=0.09, right=0.9, top=0.9, bottom=0.24)
        self.blitter = Blitter(fig, [self.image, self.frame, *self.bars, *([self.line] if self.line else []),
                                     self.title])

    def show(self, step: int):
        """Update the picture to "read up to ``step``" (1-based, clamped) and return it as a PNG Image."""
        T = len(self.tokens)
        step = min(max(int(step), 1), T)
        read = np.arange(T) < step
        self.image.set_data(np.ma.masked_array(self.states.T, mask=~read[None, :].repeat(self.states.shape[1], 0)))
        self.frame.set_x(step - 1.5)
        for i, bar in enumerate(self.bars):
            bar.set_height(self.changes[i] if read[i] else 0.0)
            bar.set_color("#d62728" if i == step - 1 else "#7f7f7f")
        if self.line is not None:
            self.line.set_data(np.arange(step), self.probs[:step, self.track])
        self.title.set_text(html.unescape(_title(self.tokens, self.states, self.probs, step, self.class_names)))
        return self.blitter.frame()


def sticky_note_widget(states_fn: Callable, sentence: str = "", *, class_names=None, track=None,
                       title: str = "The sticky note, rewritten token by token"):
    """A live view: type a sentence, move the step slider, watch the hidden state being rewritten.

    ``states_fn(sentence)`` returns ``(tokens, states (T, H), probs (T, C) or None)`` (or just
    ``(tokens, states)``); a ``ValueError`` from it (an unknown word, say) is shown as a message.
    ``track`` picks the class whose probability is drawn (default: the prediction at the end).
    Readings are cached, so moving the slider only redraws. Returns the ``LiveView``
    (``view.update()``, ``view.last_update_ms``, ``view.controls``).
    """
    from .widgets import sentence_view

    if not callable(states_fn):
        raise ValueError(f"states_fn must be a function sentence -> (tokens, states, probs), got {type(states_fn)}")

    def read(text):
        result = states_fn(text)
        if not isinstance(result, tuple) or len(result) not in (2, 3):
            raise ValueError("states_fn must return (tokens, states) or (tokens, states, probs)")
        tokens, states, probs = (*result, None) if len(result) == 2 else result
        return NoteCanvas(tokens, states, probs, class_names, track)

    # a new sentence: the slider spans its tokens and jumps to the end (the whole sentence read)
    return sentence_view(read, sentence, slider="step", description="step t", title=title,
                         span=lambda n: (1, max(n, 1), n))


# -- one picture of the loop ----------------------------------------------------------------------


def loop_diagram(tokens: Sequence[str] = ("the", "keys", "near", "the", "cabinet"), size=(10, 3.0)):
    """The recurrent cell drawn folded (a loop) and unrolled (one copy per token, the same weights)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("loop_diagram needs at least one token")
    fig = plt.figure(figsize=size)
    plt.close(fig)  # not left open in pyplot: a notebook shows it once, as the cell's value
    ax = fig.subplots()
    ax.set_axis_off()
    cell = "#fde9a9"  # the colour of a sticky note: every copy is the same cell

    def box(x, y, text, w=1.0, h=0.62, color=cell):
        ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0.04", fc=color, ec="#7a6a1a"))
        ax.text(x, y, text, ha="center", va="center", fontsize=9)

    def arrow(a, b, **kw):
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=11, lw=1.2, color="#333", **kw))

    # folded: one cell with a loop on itself
    box(0.6, 1.0, "$W_{xh}, W_{hh}, b$", w=1.25)
    arrow((0.6, 0.0), (0.6, 0.67))
    ax.text(0.6, -0.12, "$x_t$", ha="center", va="top", fontsize=10)
    arrow((0.6, 1.33), (0.6, 1.85))
    ax.text(0.6, 1.95, "$y_t$", ha="center", va="bottom", fontsize=10)
    arrow((1.24, 1.18), (1.24, 0.82), connectionstyle="arc3,rad=-1.9")  # the loop: h goes back in
    ax.text(1.68, 1.0, "$h$", ha="left", va="center", fontsize=10)
    ax.text(2.15, 1.0, "=", ha="center", va="center", fontsize=20)
    ax.text(0.6, 2.45, "folded: one cell, a loop", ha="center", fontsize=9, style="italic")
    # unrolled: one copy per token
    x0, dx = 3.5, 1.55
    ax.text(2.62, 1.0, "$h_0$", ha="center", va="center", fontsize=10)
    for t, token in enumerate(tokens):
        x = x0 + t * dx
        box(x, 1.0, "same\n$W_{xh}, W_{hh}, b$", w=1.05, h=0.7)
        arrow((x - dx + 0.55 if t else 2.85, 1.0), (x - 0.55, 1.0))
        ax.text(x - dx / 2 - 0.02, 1.12, f"$h_{t}$" if t else "", ha="center", fontsize=9)
        arrow((x, 0.05), (x, 0.63))
        ax.text(x, -0.05, f"$x_{t + 1}$\n'{token}'", ha="center", va="top", fontsize=9)
        arrow((x, 1.37), (x, 1.85))
        ax.text(x, 1.95, f"$y_{t + 1}$", ha="center", va="bottom", fontsize=9)
    last = x0 + (len(tokens) - 1) * dx
    arrow((last + 0.55, 1.0), (last + 1.05, 1.0))
    ax.text(last + 1.1, 1.0, f"$h_{len(tokens)}$", ha="left", va="center", fontsize=10)
    ax.text((x0 + last) / 2, 2.45, "unrolled: one copy per token, all sharing the same weights",
            ha="center", fontsize=9, style="italic")
    ax.set_xlim(-0.4, last + 1.5)
    ax.set_ylim(-0.75, 2.7)
    fig.tight_layout()
    return fig
