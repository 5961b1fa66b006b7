"""Chapter 4's gates as a matplotlib picture for a typed sentence.

- :func:`gates_plot`: one heatmap per gate and, with a "forget" gate, what survives on the belt;
- :class:`GatesCanvas`: the same picture drawn once per sentence; :meth:`GatesCanvas.show` moves the belt's start.
  It draws the still of the chapter's live view (:func:`seqviz.web.gates_view`, which draws the same picture
  in the reader's browser).

Takes tensors and token labels, never a model; the plotly views are in :mod:`.figures`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .._plumbing import Blitter, label_rows, plain_log_axis
from .data import SIGMOID_GATES, check_gates, forget_survival


def _panels_rgb(arrays, gap: int = 2):
    """Every gate as one RGB image, side by side with white gaps: (T, W, 3) and each panel's column span.

    One image in one axes draws several times faster than one axes per gate (a live view
    draws a new picture for every typed sentence). Gates use viridis on 0..1, the signed
    values RdBu on a shared symmetric scale, as in :func:`.figures.gate_heatmaps_figure`.
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


def gates_plot(tokens: Sequence[str], gates: Mapping[str, object], *, start: int = 0, units=None,
               unit_labels=None, dpi: int = 72):
    """A matplotlib Figure (outside pyplot): one heatmap per gate, and the belt from token ``start``.

    ``units`` (with ``unit_labels``) picks the units drawn in the belt panel, which needs a
    "forget" gate; without one, only the heatmaps are drawn.
    """
    tokens, arrays, chosen = check_gates(gates, tokens, None)
    if not 0 <= start < len(tokens):
        raise ValueError(f"start must be a token index in 0..{len(tokens) - 1}, got {start}")
    belt_units = chosen if units is None else [int(u) for u in units]
    if unit_labels is not None and len(unit_labels) != len(belt_units):
        raise ValueError(f"{len(unit_labels)} unit labels for {len(belt_units)} units")
    return _picture(tokens, arrays, start, belt_units, unit_labels, dpi, animated=False)[0]


class GatesCanvas:
    """The picture for one sentence, drawn once; :meth:`show` moves the belt's start.

    The heatmaps are drawn once and saved; a new start redraws only the belt lines and the
    marks over the saved background (blitting) and encodes one PNG, which keeps it fast.
    """

    def __init__(self, tokens, gates, units=None, unit_labels=None, dpi: int = 72):
        self.tokens, arrays, chosen = check_gates(gates, tokens, None)
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
