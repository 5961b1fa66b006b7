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
from .data import SIGMOID_GATES, belt_floor, check_gates, forget_survival


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


WIDTH = 6.2  # inches: the picture's width; its 10-point text then shows >= 8 px on a 390 px phone
TEXT_PT = 10  # points: every text of the picture
ROW_IN = 0.2  # inches per token (a row of each panel)


def _picture(tokens, arrays, start, belt_units, unit_labels, dpi, animated):
    """Draw the live view's picture; return the Figure and the artists that depend on ``start``.

    The gates' heatmaps side by side on top, the belt below them (two rows: one row of five panels was
    12 inches wide, which a phone shrinks to 3-pixel text). Margins are fixed in inches.
    """
    from matplotlib.figure import Figure

    T = len(tokens)
    names = list(arrays)
    belt = "forget" in arrays
    n_lines = len(belt_units) + 1 if belt else 0
    legend_rows = -(-n_lines // 3)
    left = 0.25 + 0.085 * max(map(len, tokens))  # inches: the token labels left of the rows
    top_in, panel_in, under_in = 0.35, ROW_IN * T + 0.1, 0.3  # gate names above, the heatmaps, "units" below
    belt_in = (0.4 + ROW_IN * T + 0.1 + 0.55 + 0.24 * legend_rows) if belt else 0.0  # title, panel, axis, legend
    height = top_in + panel_in + under_in + belt_in + 0.1
    fig = Figure(figsize=(WIDTH, height), dpi=dpi)
    frac_w = (WIDTH - left - 0.15) / WIDTH

    def box(top_from_top, tall):
        return [left / WIDTH, 1 - (top_from_top + tall) / height, frac_w, tall / height]

    ax = fig.add_axes(box(top_in, panel_in))
    image, spans = _panels_rgb(arrays)
    ax.imshow(image, aspect="auto", interpolation="nearest")
    for name, (lo, hi) in zip(names, spans):
        ax.text((lo + hi - 1) / 2, -0.6, name, ha="center", va="bottom", fontsize=TEXT_PT)
        ax.text((lo + hi - 1) / 2, T - 0.4, "units", ha="center", va="top", fontsize=TEXT_PT)
    ax.set_xticks([])
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    label_rows(ax, tokens, fontsize=TEXT_PT)
    dynamic = {"marks": [ax.axhline(start - 0.5, color="white", lw=1.2, animated=animated)], "lines": []}
    if belt:
        ax = fig.add_axes(box(top_in + panel_in + under_in + 0.4, ROW_IN * T + 0.1))
        survival = forget_survival(arrays["forget"][:, belt_units].astype(np.float64)).numpy()  # (T, T, U)
        mean_survival = forget_survival(arrays["forget"].astype(np.float64)).numpy().mean(-1)  # (T, T)
        for i, u in enumerate(belt_units):
            label = str(unit_labels[i]) if unit_labels is not None else f"unit {u}"
            (line,) = ax.plot([], [], "o-", ms=3, label=label, animated=animated)
            dynamic["lines"].append(line)
        (mean_line,) = ax.plot([], [], "--", color="gray", label="mean", animated=animated)
        dynamic["lines"].append(mean_line)
        # the axis follows the sentence, as conveyor_belt_figure's does: every start's shares, fixed once
        floor = belt_floor(np.concatenate([survival.ravel(), mean_survival.ravel()]))
        if floor > 0:
            ax.set_xscale("log")
            plain_log_axis(ax.xaxis, numticks=4)
            ax.set_xlim(floor, 1.5)
        else:
            from matplotlib.ticker import PercentFormatter

            ax.set_xticks([0, 0.5, 1])
            ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
            ax.set_xlim(0, 1.05)
        ax.tick_params(labelsize=TEXT_PT)
        ax.set_ylim(T - 0.5, -0.5)
        label_rows(ax, tokens, fontsize=TEXT_PT)
        dynamic["title"] = ax.set_title("", fontsize=TEXT_PT, animated=animated)
        ax.set_xlabel("share left on the belt", fontsize=TEXT_PT)
        ax.legend(handles=dynamic["lines"], fontsize=TEXT_PT, loc="upper left", ncol=3, frameon=False,
                  bbox_to_anchor=(0, -0.55 / (ROW_IN * T + 0.1)), borderaxespad=0, columnspacing=1.2,
                  handlelength=1.6)
        dynamic["survival"], dynamic["floor"] = (survival, mean_survival), floor
    _move(tokens, dynamic, start)
    return fig, dynamic


def _move(tokens, dynamic, start):
    """Point the picture's start-dependent artists at token ``start``."""
    T = len(tokens)
    for mark in dynamic["marks"]:
        mark.set_ydata([start - 0.5, start - 0.5])
    if "survival" in dynamic:
        survival, mean_survival = dynamic["survival"]
        floor, steps = dynamic["floor"], np.arange(start, T)   # a share below a log axis's floor sits on it
        for i, line in enumerate(dynamic["lines"][:-1]):
            line.set_data(np.maximum(survival[start, start:, i], floor), steps)
        dynamic["lines"][-1].set_data(np.maximum(mean_survival[start, start:], floor), steps)
        dynamic["title"].set_text(f"on the belt since '{tokens[start]}'")


def gates_plot(tokens: Sequence[str], gates: Mapping[str, object], *, start: int = 0, units=None,
               unit_labels=None, dpi: int = 100):
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

    def __init__(self, tokens, gates, units=None, unit_labels=None, dpi: int = 100):
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
