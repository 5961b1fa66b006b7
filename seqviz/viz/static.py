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
