"""Chapter 4's live view of the gates (matplotlib, for a typed sentence) and a picture of the LSTM cell.

- :func:`gates_picture` and :class:`GatesCanvas`: every gate per token and what survives on the belt;
- :func:`gates_widget`: the live view, built on :func:`seqviz.viz.widgets.sentence_view`;
- :func:`lstm_cell_diagram`: the cell, drawn once.

Takes tensors and token labels, never a model; the static (plotly) views are in :mod:`.gates`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ._canvas import Blitter, label_rows, plain_log_axis
from .gates import SIGMOID_GATES, _gates, forget_survival

# -- the live view ------------------------------------------------------------------------------------


def _panels_rgb(arrays, gap: int = 2):
    """Every gate as one RGB image, side by side with white gaps: (T, W, 3) and each panel's column span.

    One image in one axes draws several times faster than one axes per gate (a live view
    draws a new picture for every typed sentence). Gates use viridis on 0..1, the signed
    values RdBu on a shared symmetric scale, as in :func:`.gates.gate_heatmaps_figure`.
    """
    import matplotlib

    signed = [a for k, a in arrays.items() if k not in SIGMOID_GATES]
    vmax = max((float(np.abs(a).max()) for a in signed), default=1.0) or 1.0
    T = next(iter(arrays.values())).shape[0]
    blocks, spans, column = [], [], 0
    for name, array in arrays.items():
        if name in SIGMOID_GATES:
            rgb = matplotlib.colormaps["viridis"](np.clip(array, 0, 1))[..., :3]
        else:
            rgb = matplotlib.colormaps["RdBu_r"]((array / vmax + 1) / 2)[..., :3]
        if blocks:
            blocks.append(np.ones((T, gap, 3)))
            column += gap
        blocks.append(rgb)
        spans.append((column, column + array.shape[1]))
        column += array.shape[1]
    return np.concatenate(blocks, axis=1), spans


def _picture(tokens, arrays, start, belt_units, unit_labels, dpi, animated):
    """Draw the live view's picture; return the Figure and the artists that depend on ``start``."""
    from matplotlib.figure import Figure

    T = len(tokens)
    names = list(arrays)
    belt = "forget" in arrays
    fig = Figure(figsize=(2.1 * len(names) + (3.6 if belt else 0) + 0.8, 0.9 + 0.2 * T), dpi=dpi)
    widths = [len(names)] + ([1.7] if belt else [])
    axes = np.atleast_1d(fig.subplots(1, len(widths), gridspec_kw=dict(width_ratios=widths, wspace=0.08)))
    image, spans = _panels_rgb(arrays)
    ax = axes[0]
    ax.imshow(image, aspect="auto", interpolation="nearest")
    for name, (left, right) in zip(names, spans):
        ax.text((left + right - 1) / 2, -0.6, name, ha="center", va="bottom", fontsize=10)
        ax.text((left + right - 1) / 2, T - 0.4, "units", ha="center", va="top", fontsize=8)
    ax.set_xticks([])
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    label_rows(ax, tokens, fontsize=8)
    dynamic = {"marks": [ax.axhline(start - 0.5, color="white", lw=1.2, animated=animated)], "lines": []}
    if belt:
        ax = axes[-1]
        survival = forget_survival(arrays["forget"][:, belt_units].astype(np.float64)).numpy()  # (T, T, U)
        mean_survival = forget_survival(arrays["forget"].astype(np.float64)).numpy().mean(-1)  # (T, T)
        for i, u in enumerate(belt_units):
            label = str(unit_labels[i]) if unit_labels is not None else f"unit {u}"
            (line,) = ax.plot([], [], "o-", ms=3, label=label, animated=animated)
            dynamic["lines"].append(line)
        (mean_line,) = ax.plot([], [], "--", color="gray", label="mean", animated=animated)
        dynamic["lines"].append(mean_line)
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis, numticks=4)
        ax.set_xlim(1e-6, 1.5)
        ax.set_ylim(T - 0.5, -0.5)
        ax.set_yticks([])
        dynamic["title"] = ax.set_title("", fontsize=10, animated=animated)
        ax.set_xlabel("share left on the belt", fontsize=8)
        ax.legend(handles=dynamic["lines"], fontsize=7, loc="lower left")
        dynamic["survival"] = (survival, mean_survival)
    fig.subplots_adjust(left=0.14 if max(map(len, tokens)) > 6 else 0.1, right=0.98, top=0.9,
                        bottom=max(0.04, 0.45 / (0.9 + 0.2 * T)))
    _move(tokens, dynamic, start)
    return fig, dynamic


def _move(tokens, dynamic, start):
    """Point the picture's start-dependent artists at token ``start``."""
    T = len(tokens)
    for mark in dynamic["marks"]:
        mark.set_ydata([start - 0.5, start - 0.5])
    if "survival" in dynamic:
        survival, mean_survival = dynamic["survival"]
        steps = np.arange(start, T)
        for i, line in enumerate(dynamic["lines"][:-1]):
            line.set_data(np.maximum(survival[start, start:, i], 1e-6), steps)
        dynamic["lines"][-1].set_data(np.maximum(mean_survival[start, start:], 1e-6), steps)
        dynamic["title"].set_text(f"on the belt since '{tokens[start]}'")


def gates_picture(tokens: Sequence[str], gates: Mapping[str, object], *, start: int = 0, units=None,
                  unit_labels=None, dpi: int = 72):
    """A matplotlib Figure (outside pyplot): one heatmap per gate, and the belt from token ``start``.

    ``units`` (with ``unit_labels``) picks the units drawn in the belt panel, which needs a
    "forget" gate; without one, only the heatmaps are drawn.
    """
    tokens, arrays, chosen = _gates(gates, tokens, None)
    if not 0 <= start < len(tokens):
        raise ValueError(f"start must be a token index in 0..{len(tokens) - 1}, got {start}")
    belt_units = chosen if units is None else [int(u) for u in units]
    if unit_labels is not None and len(unit_labels) != len(belt_units):
        raise ValueError(f"{len(unit_labels)} unit labels for {len(belt_units)} units")
    return _picture(tokens, arrays, start, belt_units, unit_labels, dpi, animated=False)[0]


class GatesCanvas:
    """The live view's picture for one sentence, drawn once; :meth:`show` moves the belt's start.

    The heatmaps are drawn once and saved; a new start redraws only the belt lines and the
    marks over the saved background (blitting) and encodes one PNG, which keeps it fast.
    """

    def __init__(self, tokens, gates, units=None, unit_labels=None, dpi: int = 72):
        self.tokens, arrays, chosen = _gates(gates, tokens, None)
        belt_units = chosen if units is None else [int(u) for u in units]
        if unit_labels is not None and len(unit_labels) != len(belt_units):
            raise ValueError(f"{len(unit_labels)} unit labels for {len(belt_units)} units")
        self.fig, self.dynamic = _picture(self.tokens, arrays, 0, belt_units, unit_labels, dpi, animated=True)
        self.blitter = Blitter(self.fig, [*self.dynamic["marks"], *self.dynamic["lines"],
                                          *([self.dynamic["title"]] if "title" in self.dynamic else [])])

    def show(self, start: int):
        """The picture with the belt measured from token ``start`` (clamped), as a PNG Image."""
        start = min(max(int(start), 0), len(self.tokens) - 1)
        _move(self.tokens, self.dynamic, start)
        return self.blitter.frame()


def gates_widget(read_fn: Callable, sentence: str = "", *, units=None, unit_labels=None,
                 title: str = "Gates and the conveyor belt, live"):
    """A live view: type a sentence, see every gate per token and what survives on the belt.

    ``read_fn(sentence)`` returns ``(tokens, gates)`` with gates ``{name: (T, H)}`` (a
    ``ValueError`` from it, an unknown word say, is shown as a message). ``units`` (and
    ``unit_labels``) pick the units drawn in the belt panel; a slider picks the start token,
    counting tokens from 1 as every slider in the book does (``view.controls["start"]``).
    Returns the ``LiveView`` (``view.update()``, ``view.last_update_ms``, ``view.controls``).
    """
    from .widgets import sentence_view

    if not callable(read_fn):
        raise ValueError(f"read_fn must be a function sentence -> (tokens, gates), got {type(read_fn).__name__}")

    def read(text):
        result = read_fn(text)
        if not isinstance(result, tuple) or len(result) != 2:
            raise ValueError("read_fn must return (tokens, gates)")
        return _CountedFromOne(GatesCanvas(*result, units=units, unit_labels=unit_labels))

    # the belt starts at the subject (token 2 in the agreement sentences) by default
    return sentence_view(read, sentence, slider="start", description="from token", title=title,
                         span=lambda n: (1, n, min(2, n)), continuous_update=False)


class _CountedFromOne:
    """A canvas whose ``show(k)`` takes the token's number from 1 (the slider's), not its index."""

    def __init__(self, canvas: GatesCanvas):
        self.canvas, self.tokens = canvas, canvas.tokens

    def show(self, number: int):
        return self.canvas.show(number - 1)


# -- one picture of the cell ----------------------------------------------------------------------------


def lstm_cell_diagram(size=(9.5, 4.2)):
    """Matplotlib: one LSTM step, the cell state drawn as a conveyor belt across the top (chapter 4)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyBboxPatch

    fig, ax = plt.subplots(figsize=size, layout="constrained")
    ax.set(xlim=(0, 10.6), ylim=(-0.55, 4.3), aspect="equal")
    ax.axis("off")
    belt, bottom = 3.4, 0.15
    arrow = dict(arrowstyle="-|>", color="#444", lw=1.3, shrinkA=0, shrinkB=0, mutation_scale=12)

    def line(x0, y0, x1, y1, **kw):
        ax.annotate("", (x1, y1), (x0, y0), arrowprops={**arrow, **kw})

    def box(x, y, text, color):
        ax.add_patch(FancyBboxPatch((x - 0.42, y - 0.27), 0.84, 0.54, boxstyle="round,pad=0.04", fc=color,
                                    ec="#333", lw=1))
        ax.text(x, y, text, ha="center", va="center", fontsize=11)

    def node(x, y, text):
        ax.add_patch(Circle((x, y), 0.22, fc="white", ec="#333", lw=1.2, zorder=3))
        ax.text(x, y, text, ha="center", va="center", fontsize=12, zorder=4)

    # the belt
    ax.annotate("", (10.3, belt), (0.2, belt), arrowprops=dict(arrowstyle="-|>", lw=5, color="#e6a23c",
                                                              mutation_scale=22))
    ax.text(0.2, belt + 0.32, "$c_{t-1}$", fontsize=12)
    ax.text(10.0, belt + 0.32, "$c_t$", fontsize=12)
    ax.text(4.4, belt + 0.55, "cell state: the conveyor belt", fontsize=10, color="#a0661a", ha="center")
    gates = {"f": (2.6, "$\\sigma$", "#cfe2f3", "forget $f_t$"), "i": (4.4, "$\\sigma$", "#cfe2f3", "input $i_t$"),
             "g": (5.9, "tanh", "#f4cccc", "candidate $g_t$"), "o": (7.5, "$\\sigma$", "#cfe2f3", "output $o_t$")}
    gate_y = 1.3
    for x, text, color, label in gates.values():
        box(x, gate_y, text, color)
        ax.text(x, gate_y - 0.5, label, ha="center", va="top", fontsize=9)
        line(x, bottom, x, gate_y - 0.3)
    # input rail: [h_{t-1}, x_t] feeds every gate
    ax.plot([0.2, 7.5], [bottom, bottom], color="#444", lw=1.3)
    ax.text(0.2, bottom - 0.35, "$h_{t-1}$ and $x_t$", fontsize=11)
    # forget: multiply the belt
    node(2.6, belt, "×")
    line(2.6, gate_y + 0.3, 2.6, belt - 0.22)
    # input and candidate: multiply, then add onto the belt
    node(5.15, 2.45, "×")
    line(4.4, gate_y + 0.3, 5.0, 2.3)
    line(5.9, gate_y + 0.3, 5.3, 2.3)
    node(5.15, belt, "+")
    line(5.15, 2.67, 5.15, belt - 0.22)
    # output: tanh of the belt, times the output gate, is h_t
    box(8.7, 2.45, "tanh", "#f4cccc")
    line(8.7, belt, 8.7, 2.75)
    node(8.7, 1.3, "×")
    line(8.7, 2.18, 8.7, 1.52)
    line(7.92, gate_y, 8.48, 1.3)
    line(8.92, 1.3, 10.3, 1.3)
    ax.text(9.75, 1.45, "$h_t$", fontsize=12)
    ax.text(3.4, 2.55, "keep", fontsize=9, color="#555", ha="center")
    ax.text(6.05, 2.9, "write", fontsize=9, color="#555", ha="center")
    ax.text(9.3, 2.0, "show", fontsize=9, color="#555", ha="left")
    return fig
