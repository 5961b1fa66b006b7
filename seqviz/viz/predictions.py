"""Prediction bars: a model's probabilities over the classes, several models side by side (chapters 1 and 5).

- :func:`prediction_bars_plot`: matplotlib, one horizontal bar panel per model, its top class darker;
- :class:`PredictionBarsPicture`: the same picture for a live view (axes drawn once, bars blitted);
- :func:`prediction_bars_figure`: plotly, grouped bars; several make a slider with :func:`.basic.slider_figure`.

Each takes ``probs`` = ``{model label: probabilities over class_labels}`` (1-D tensors or arrays).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import Blitter, as_array
from .basic import readable_layout


def _bar_arrays(probs, class_labels):
    if not probs:
        raise ValueError("prediction_bars_plot() needs at least one model {label: probabilities}")
    labels = [str(c) for c in class_labels]
    arrays = {name: as_array(p, f"probabilities of {name!r}", 1) for name, p in probs.items()}
    for name, p in arrays.items():
        if p.size != len(labels):
            raise ValueError(f"probabilities of {name!r} have {p.size} entries for {len(labels)} classes")
    return labels, arrays


def _bars_figure(names, labels, size, titled: bool):
    """The panels of :func:`prediction_bars_plot` with empty bars: (Figure, bar containers, panel titles, suptitle)."""
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
        ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])  # side by side, five ticks a panel ran "1.0" into "0.0"
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


def prediction_bars_plot(probs: Mapping[str, Sequence[float]], class_labels: Sequence[str], *, title: str = "",
                         size=(6.0, 2.6)):
    """One horizontal bar panel per model, its top class in a darker colour (chapters 1 and 5).

    ``probs`` maps a model's label to its probabilities over ``class_labels``; each
    panel's title names the model and its answer. Returns the Figure. A live view that
    redraws bars on every change uses :class:`PredictionBarsPicture` (the same picture, blitted).
    """
    labels, arrays = _bar_arrays(probs, class_labels)
    fig, bars, titles, suptitle = _bars_figure(list(arrays), labels, size, bool(title))
    _set_bars(arrays, labels, bars, titles, suptitle, title)
    return fig


class PredictionBarsPicture:
    """:func:`prediction_bars_plot` for a live view: the axes and labels are drawn once per set of classes.

    ``bars.show(probs, class_labels, title=...)`` returns the picture as a PNG ``Image``;
    a new set of models or classes draws a new background (the latest few are kept), the
    same set only moves the bars and rewrites the titles (blitting). Used by chapters 1 and 5.
    """

    def __init__(self, size=(6.0, 2.6), keep: int = 8):
        self.size, self.keep = size, keep
        self._drawn: dict = {}

    def show(self, probs: Mapping[str, Sequence[float]], class_labels: Sequence[str], *, title: str = ""):
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


def prediction_bars_figure(probs: Mapping[str, Sequence[float]], class_labels: Sequence[str], *, title: str = "",
                           xlabel: str = "", ylabel: str = "probability", height: int = 340) -> go.Figure:
    """Grouped bars: one group per class, one bar per model (chapter 1: bag of words vs RNN).

    ``probs`` maps a model's label to its predicted probabilities over ``class_labels``
    (a 1-D tensor or array each). Several of these figures, one per sentence, make a
    slider with :func:`slider_figure`.
    """
    if not probs:
        raise ValueError("prediction_bars_figure() needs at least one model {label: probabilities}")
    labels = [str(c) for c in class_labels]
    fig = go.Figure()
    for name, p in probs.items():
        p = as_array(p)
        if p.ndim != 1 or p.size != len(labels):
            raise ValueError(f"probabilities of {name!r} must be 1-D with {len(labels)} entries (one per class), "
                             f"got shape {p.shape}")
        fig.add_trace(go.Bar(x=labels, y=p, name=name,
                             hovertemplate=f"{name}<br>%{{x}}: %{{y:.1%}}<extra></extra>"))
    fig.update_layout(xaxis_title=xlabel, yaxis_title=ylabel, height=height, barmode="group",
                      yaxis_range=[0, 1.02], margin=dict(l=60, r=20, b=50))
    return readable_layout(fig, title, legend=len(probs) > 1)
