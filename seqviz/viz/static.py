"""Matplotlib figures: small helpers that take arrays and labels and return a Figure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use(matplotlib.get_backend())  # keep the notebook's backend; never force a GUI
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def _array(values, name, dims):
    array = np.asarray(values.detach().cpu() if hasattr(values, "detach") else values, dtype=float)
    if array.ndim != dims:
        raise ValueError(f"{name} must be {dims}-D, got shape {array.shape}")
    return array


def heatmap(matrix, x_labels: Sequence[str] | None = None, y_labels: Sequence[str] | None = None, *,
            title: str = "", xlabel: str = "", ylabel: str = "", cmap: str = "RdBu_r", vmin=None, vmax=None,
            size=(7, 3.5), highlight_column: int | None = None, colorbar: bool = True):
    """A labelled heatmap of a 2-D array (rows = y, columns = x); returns the Figure.

    A live view that redraws a heatmap on every change uses :class:`HeatmapPicture`.
    """
    data = _array(matrix, "matrix", 2)
    for labels, length, axis in ((x_labels, data.shape[1], "x_labels"), (y_labels, data.shape[0], "y_labels")):
        if labels is not None and len(labels) != length:
            raise ValueError(f"{axis} has {len(labels)} labels for {length} {'columns' if axis[0] == 'x' else 'rows'}")
    if vmin is None and vmax is None and cmap in ("RdBu_r", "coolwarm", "bwr"):
        vmax = float(np.abs(data).max()) or 1.0
        vmin = -vmax
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    image = ax.imshow(data, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    _label_ticks(ax, x_labels, y_labels)
    if highlight_column is not None:
        ax.axvline(highlight_column - 0.5, color="k", lw=1.5)
        ax.axvline(highlight_column + 0.5, color="k", lw=1.5)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    if colorbar:
        fig.colorbar(image, ax=ax, shrink=0.85)
    return fig


def _fixed_boxes(figure, x_labels, y_labels, title: bool, xlabel: bool, ylabel: bool, colorbar: bool):
    """Figure-fraction boxes of a heatmap's axes and its colour bar (None without one), with margins in
    inches from the longest labels (8-point text)."""
    width, height = figure.get_size_inches()
    char = 0.075  # inches per character of a tick label, roughly
    longest_x = max(map(len, x_labels), default=1) if x_labels is not None else 1
    longest_y = max(map(len, y_labels), default=1) if y_labels is not None else 1
    left = 0.2 + char * longest_y + (0.25 if ylabel else 0)
    bottom = 0.25 + (char * longest_x * 0.75 if longest_x > 3 else 0.15) + (0.25 if xlabel else 0)
    top = 0.35 if title else 0.12
    right = 0.85 if colorbar else 0.15
    box = [left / width, bottom / height, 1 - (left + right) / width, 1 - (bottom + top) / height]
    bar = [(width - right + 0.15) / width, box[1], 0.15 / width, box[3]]
    return box, bar if colorbar else None


def _label_ticks(ax, x_labels, y_labels):
    if x_labels is not None:
        slanted = max(map(len, x_labels), default=0) > 3
        ax.set_xticks(range(len(x_labels)), x_labels, rotation=45 if slanted else 0,
                      ha="right" if slanted else "center")
    if y_labels is not None:
        ax.set_yticks(range(len(y_labels)), y_labels)


class HeatmapPicture:
    """:func:`heatmap` for a live view: the figure and its colour bar are drawn once.

    ``picture.show(matrix, x_labels, y_labels, title=...)`` returns a PNG ``Image``; only
    the heatmap's axes (cells, tick labels, title) are redrawn per call, over the saved
    figure (blitting), which halves the time of a new figure. The colour scale is fixed
    (``vmin``, ``vmax``). Used by chapter 7's live alignment.
    """

    def __init__(self, *, vmin: float, vmax: float, cmap: str = "Blues", size=(6.5, 3.8), xlabel: str = "",
                 ylabel: str = "", colorbar: bool = True):
        from matplotlib.figure import Figure

        from ._canvas import Blitter

        self.figure = Figure(figsize=size)
        self.labels, self.colorbar = (xlabel, ylabel), colorbar
        box, bar = _fixed_boxes(self.figure, None, None, True, bool(xlabel), bool(ylabel), colorbar)
        self.ax = self.figure.add_axes(box)
        self.image = self.ax.imshow(np.zeros((1, 1)), aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax,
                                    interpolation="nearest")
        self.ax.set(xlabel=xlabel, ylabel=ylabel)
        if bar:
            self.figure.colorbar(self.image, cax=self.figure.add_axes(bar))
        self.blitter = Blitter(self.figure, [self.ax])

    def show(self, matrix, x_labels: Sequence[str], y_labels: Sequence[str], *, title: str = ""):
        data = _array(matrix, "matrix", 2)
        if len(x_labels) != data.shape[1] or len(y_labels) != data.shape[0]:
            raise ValueError(f"a ({data.shape[0]}, {data.shape[1]}) matrix needs {data.shape[1]} x labels and "
                             f"{data.shape[0]} y labels, got {len(x_labels)} and {len(y_labels)}")
        box, _ = _fixed_boxes(self.figure, x_labels, y_labels, True, bool(self.labels[0]), bool(self.labels[1]),
                              self.colorbar)
        self.ax.set_position(box)
        self.image.set_data(data)
        self.image.set_extent((-0.5, data.shape[1] - 0.5, data.shape[0] - 0.5, -0.5))
        _label_ticks(self.ax, x_labels, y_labels)
        self.ax.set_title(title)
        return self.blitter.frame()


def lines(series: Mapping[str, tuple], *, title: str = "", xlabel: str = "", ylabel: str = "", logy: bool = False,
          logx: bool = False, size=(6.5, 3.5), markers: bool = True, hline: float | None = None, hline_label: str = ""):
    """One line per entry of ``series`` = {label: (x, y)}; returns the Figure."""
    if not series:
        raise ValueError("lines() needs at least one series {label: (x, y)}")
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    for label, (x, y) in series.items():
        x, y = _array(x, f"x of {label!r}", 1), _array(y, f"y of {label!r}", 1)
        if x.shape != y.shape:
            raise ValueError(f"series {label!r}: x has {x.size} points but y has {y.size}")
        ax.plot(x, y, marker="o" if markers else None, ms=3, label=label)
    if hline is not None:
        ax.axhline(hline, color="gray", ls="--", lw=1, label=hline_label or None)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    if logy:
        ax.set_yscale("log")
    if logx:
        ax.set_xscale("log")
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)
    return fig


# -- chapter 1 ---------------------------------------------------------------------------------


def _bar_arrays(probs, class_labels):
    if not probs:
        raise ValueError("prediction_bars() needs at least one model {label: probabilities}")
    labels = [str(c) for c in class_labels]
    arrays = {name: _array(p, f"probabilities of {name!r}", 1) for name, p in probs.items()}
    for name, p in arrays.items():
        if p.size != len(labels):
            raise ValueError(f"probabilities of {name!r} have {p.size} entries for {len(labels)} classes")
    return labels, arrays


def _bars_figure(names, labels, size, titled: bool):
    """The panels of :func:`prediction_bars` with empty bars: (Figure, bar containers, panel titles, suptitle)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)  # fixed margins, not a constrained layout, and outside pyplot: drawn fast
    axes = fig.subplots(1, len(names), sharey=True, squeeze=False)[0]
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=min(0.35, (0.3 + 0.085 * max(map(len, labels), default=1)) / width), right=0.97,
                        top=1 - (0.7 if titled else 0.4) / height, bottom=0.5 / height, wspace=0.12)
    bars, titles = [], []
    for ax in axes:
        bars.append(ax.barh(range(len(labels)), np.zeros(len(labels)), color="#9ecae1"))
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlim(0, 1)
        titles.append(ax.set_title(" ", fontsize=10))
        ax.set_xlabel("probability")
        ax.grid(axis="x", alpha=0.3)
    axes[0].invert_yaxis()  # first class on top; the axes share y, so invert once
    suptitle = fig.suptitle(" ", fontsize=11) if titled else None
    return fig, bars, titles, suptitle


def _set_bars(arrays, labels, bars, titles, suptitle, title):
    for container, heading, (name, p) in zip(bars, titles, arrays.items()):
        best = int(p.argmax())
        for i, bar in enumerate(container):
            bar.set_width(p[i])
            bar.set_color("#1f4e79" if i == best else "#9ecae1")
        heading.set_text(f"{name}: {labels[best]} ({p[best]:.0%})")
    if suptitle is not None:
        suptitle.set_text(title)


def prediction_bars(probs: Mapping[str, Sequence[float]], class_labels: Sequence[str], *, title: str = "",
                    size=(7.5, 2.6)):
    """One horizontal bar panel per model, its top class in a darker colour (chapters 1 and 5).

    ``probs`` maps a model's label to its probabilities over ``class_labels``; each
    panel's title names the model and its answer. Returns the Figure. A live view that
    redraws bars on every change uses :class:`PredictionBars` (the same picture, blitted).
    """
    labels, arrays = _bar_arrays(probs, class_labels)
    fig, bars, titles, suptitle = _bars_figure(list(arrays), labels, size, bool(title))
    _set_bars(arrays, labels, bars, titles, suptitle, title)
    return fig


class PredictionBars:
    """:func:`prediction_bars` for a live view: the axes and labels are drawn once per set of classes.

    ``bars.show(probs, class_labels, title=...)`` returns the picture as a PNG ``Image``;
    a new set of models or classes draws a new background (the latest few are kept), the
    same set only moves the bars and rewrites the titles (blitting). Used by chapters 1 and 5.
    """

    def __init__(self, size=(7.5, 2.6), keep: int = 8):
        self.size, self.keep = size, keep
        self._drawn: dict = {}

    def show(self, probs: Mapping[str, Sequence[float]], class_labels: Sequence[str], *, title: str = ""):
        from ._canvas import Blitter

        labels, arrays = _bar_arrays(probs, class_labels)
        key = (tuple(arrays), tuple(labels), bool(title))
        if key not in self._drawn:
            if len(self._drawn) >= self.keep:
                self._drawn.pop(next(iter(self._drawn)))
            fig, bars, titles, suptitle = _bars_figure(list(arrays), labels, self.size, bool(title))
            dynamic = [bar for container in bars for bar in container] + titles + ([suptitle] if title else [])
            self._drawn[key] = (Blitter(fig, dynamic), bars, titles, suptitle)
        blitter, bars, titles, suptitle = self._drawn[key]
        _set_bars(arrays, labels, bars, titles, suptitle, title)
        return blitter.frame()


def _decay_axes(fig, titled: bool):
    """The log-y axes of :func:`decay`: fixed margins, at most six labelled decades, no minor ticks."""
    from ._canvas import plain_log_axis

    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.12, right=0.98, top=0.9 if titled else 0.97, bottom=0.15)
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    ax.grid(alpha=0.3)
    return ax


def _decay_curves(ax, series, guides, y_range):
    if not series:
        raise ValueError("decay() needs at least one series {label: (x, y)}")
    for kind, entries in (("measured", series), ("guide", guides or {})):
        for i, (label, (x, y)) in enumerate(entries.items()):
            x, y = _array(x, f"x of {label!r}", 1), _array(y, f"y of {label!r}", 1)
            if x.shape != y.shape:
                raise ValueError(f"{kind} {label!r}: x has {x.size} points but y has {y.size}")
            y = np.where(np.isfinite(y) & (y > 0), y, np.nan)
            ax.plot(x, y, color=f"C{i}", ls="-" if kind == "measured" else "--", lw=2 if kind == "measured" else 1.2,
                    label=label)
    if y_range is not None:
        ax.set_ylim(*y_range)
    ax.legend(frameon=False, fontsize=8)


def decay(series: Mapping[str, tuple], guides: Mapping[str, tuple] | None = None, *, title: str = "",
          xlabel: str = "", ylabel: str = "", size=(6.5, 3.5), y_range: tuple | None = None):
    """Measured curves (solid) and predictions (dashed, same colour order) on a log y-axis; returns the Figure.

    The matplotlib twin of :func:`seqviz.viz.interactive.decay_figure`, drawn for speed:
    fixed margins and at most six labelled decades (a constrained layout and a label per
    decade tripled the drawing time). Non-positive or non-finite y values are left out. A
    live view that redraws on every change uses :class:`DecayPicture`.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)  # outside pyplot: nothing to close
    ax = _decay_axes(fig, bool(title))
    _decay_curves(ax, series, guides, y_range)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    return fig


class DecayPicture:
    """:func:`decay` for a live view (chapter 3): one figure, its curves replaced on every call.

    ``picture.show(series, guides, title=...)`` returns a PNG ``Image``. The figure is
    made once and only its axes are redrawn (blitting), which saves building a figure per
    change; the axes' limits follow the curves as in :func:`decay`.
    """

    def __init__(self, *, xlabel: str = "", ylabel: str = "", size=(6.5, 3.5)):
        from matplotlib.figure import Figure

        from ._canvas import Blitter

        self.figure = Figure(figsize=size)
        self.ax = _decay_axes(self.figure, True)
        self.ax.set(xlabel=xlabel, ylabel=ylabel)
        self.blitter = Blitter(self.figure, [self.ax])

    def show(self, series: Mapping[str, tuple], guides: Mapping[str, tuple] | None = None, *, title: str = "",
             y_range: tuple | None = None):
        for line in list(self.ax.lines):
            line.remove()
        self.ax.relim()
        self.ax.set_autoscale_on(True)
        _decay_curves(self.ax, series, guides, y_range)
        self.ax.set_title(title)
        return self.blitter.frame()
