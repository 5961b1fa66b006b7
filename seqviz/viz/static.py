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
    """A labelled heatmap of a 2-D array (rows = y, columns = x); returns the Figure."""
    data = _array(matrix, "matrix", 2)
    for labels, length, axis in ((x_labels, data.shape[1], "x_labels"), (y_labels, data.shape[0], "y_labels")):
        if labels is not None and len(labels) != length:
            raise ValueError(f"{axis} has {len(labels)} labels for {length} {'columns' if axis[0] == 'x' else 'rows'}")
    if vmin is None and vmax is None and cmap in ("RdBu_r", "coolwarm", "bwr"):
        vmax = float(np.abs(data).max()) or 1.0
        vmin = -vmax
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    image = ax.imshow(data, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    if x_labels is not None:
        ax.set_xticks(range(len(x_labels)), x_labels, rotation=45 if max(map(len, x_labels), default=0) > 3 else 0,
                      ha="right" if max(map(len, x_labels), default=0) > 3 else "center")
    if y_labels is not None:
        ax.set_yticks(range(len(y_labels)), y_labels)
    if highlight_column is not None:
        ax.axvline(highlight_column - 0.5, color="k", lw=1.5)
        ax.axvline(highlight_column + 0.5, color="k", lw=1.5)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    if colorbar:
        fig.colorbar(image, ax=ax, shrink=0.85)
    return fig


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


def prediction_bars(probs: Mapping[str, Sequence[float]], class_labels: Sequence[str], *, title: str = "",
                    size=(7.5, 2.6)):
    """One horizontal bar panel per model, its top class in a darker colour (chapter 1's live view).

    ``probs`` maps a model's label to its probabilities over ``class_labels``; each
    panel's title names the model and its answer. Returns the Figure.
    """
    if not probs:
        raise ValueError("prediction_bars() needs at least one model {label: probabilities}")
    labels = [str(c) for c in class_labels]
    arrays = {name: _array(p, f"probabilities of {name!r}", 1) for name, p in probs.items()}
    for name, p in arrays.items():
        if p.size != len(labels):
            raise ValueError(f"probabilities of {name!r} have {p.size} entries for {len(labels)} classes")
    # fixed margins, not a constrained layout: drawn in a live view on every change, it halves the time
    fig, axes = plt.subplots(1, len(arrays), figsize=size, sharey=True, squeeze=False)
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=min(0.35, (0.3 + 0.085 * max(map(len, labels), default=1)) / width), right=0.97,
                        top=1 - (0.7 if title else 0.4) / height, bottom=0.5 / height, wspace=0.12)
    for ax, (name, p) in zip(axes[0], arrays.items()):
        best = int(p.argmax())
        colors = ["#1f4e79" if i == best else "#9ecae1" for i in range(len(labels))]
        ax.barh(range(len(labels)), p, color=colors)
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlim(0, 1)
        ax.set_title(f"{name}: {labels[best]} ({p[best]:.0%})", fontsize=10)
        ax.set_xlabel("probability")
        ax.grid(axis="x", alpha=0.3)
    axes[0][0].invert_yaxis()  # first class on top; the axes share y, so invert once
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def decay(series: Mapping[str, tuple], guides: Mapping[str, tuple] | None = None, *, title: str = "",
          xlabel: str = "", ylabel: str = "", size=(6.5, 3.5), y_range: tuple | None = None):
    """Measured curves (solid) and predictions (dashed, same colour order) on a log y-axis; returns the Figure.

    The matplotlib twin of :func:`seqviz.viz.interactive.decay_figure`, for live widgets
    (chapter 3), so it is drawn for speed: fixed margins and at most six labelled decades
    (a constrained layout and a label per decade tripled the drawing time). Non-positive
    or non-finite y values are left out.
    """
    if not series:
        raise ValueError("decay() needs at least one series {label: (x, y)}")
    from matplotlib.ticker import LogLocator, NullLocator

    fig, ax = plt.subplots(figsize=size)
    fig.subplots_adjust(left=0.12, right=0.98, top=0.9 if title else 0.97, bottom=0.15)
    for kind, entries in (("measured", series), ("guide", guides or {})):
        for i, (label, (x, y)) in enumerate(entries.items()):
            x, y = _array(x, f"x of {label!r}", 1), _array(y, f"y of {label!r}", 1)
            if x.shape != y.shape:
                raise ValueError(f"{kind} {label!r}: x has {x.size} points but y has {y.size}")
            y = np.where(np.isfinite(y) & (y > 0), y, np.nan)
            ax.plot(x, y, color=f"C{i}", ls="-" if kind == "measured" else "--", lw=2 if kind == "measured" else 1.2,
                    label=label)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(numticks=6))
    ax.yaxis.set_minor_locator(NullLocator())
    if y_range is not None:
        ax.set_ylim(*y_range)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False, fontsize=8)
    return fig
