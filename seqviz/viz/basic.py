"""General building blocks: a heatmap and lines, each as a matplotlib plot and a plotly figure, and the slider figure.

- :func:`heatmap_plot` / :func:`heatmap_figure`: a labelled heatmap of a 2-D array;
  :class:`HeatmapPicture` is the heatmap for a live view (drawn once, blitted);
- :func:`lines_plot` / :func:`lines_figure`: one line per series ``{label: (x, y)}``;
- :func:`slider_figure`: plotly figures with the same traces combined behind one slider
  (precomputed steps: the slider works in the static book, without a kernel).

Used by chapters 1 to 10 (lines and sliders everywhere; heatmaps in chapters 1, 7, 8 and 9).
In plotly.js 4 a slider step that changes the title must set ``title.text``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from ._plumbing import Blitter, as_array, check_series, unique_labels


# -- heatmaps ----------------------------------------------------------------------------------


def heatmap_plot(matrix, x_labels: Sequence[str] | None = None, y_labels: Sequence[str] | None = None, *,
                 title: str = "", xlabel: str = "", ylabel: str = "", cmap: str = "RdBu_r", vmin=None, vmax=None,
                 size=(5.8, 3.5), highlight_column: int | None = None, colorbar: bool = True):
    """A labelled heatmap of a 2-D array (rows = y, columns = x); returns the Figure.

    A live view that redraws a heatmap on every change uses :class:`HeatmapPicture`.
    """
    data = as_array(matrix, "matrix", 2)
    for labels, length, axis in ((x_labels, data.shape[1], "x_labels"), (y_labels, data.shape[0], "y_labels")):
        if labels is not None and len(labels) != length:
            raise ValueError(f"{axis} has {len(labels)} labels for {length} {'columns' if axis[0] == 'x' else 'rows'}")
    if vmin is None and vmax is None and cmap in ("RdBu_r", "coolwarm", "bwr"):
        vmax = float(np.abs(data).max()) or 1.0
        vmin = -vmax
    import matplotlib.pyplot as plt

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
    """:func:`heatmap_plot` for a live view: the figure and its colour bar are drawn once.

    ``picture.show(matrix, x_labels, y_labels, title=...)`` returns a PNG ``Image``; only
    the heatmap's axes (cells, tick labels, title) are redrawn per call, over the saved
    figure (blitting), which halves the time of a new figure. The colour scale is fixed
    (``vmin``, ``vmax``). Chapter 7 draws the still of its live alignment (``seqviz.web.alignment_view``) with it.
    """

    def __init__(self, *, vmin: float, vmax: float, cmap: str = "Blues", size=(5.8, 3.8), xlabel: str = "",
                 ylabel: str = "", colorbar: bool = True):
        from matplotlib.figure import Figure

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
        data = as_array(matrix, "matrix", 2)
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


def heatmap_figure(matrix, x_labels: Sequence[str] | None = None, y_labels: Sequence[str] | None = None, *,
                   title: str = "", xlabel: str = "", ylabel: str = "", colorscale: str = "RdBu",
                   zmid: float | None = 0.0, height: int = 360, hover: str = "value") -> go.Figure:
    """A plotly heatmap of a 2-D array; hovering shows row, column and value."""
    z = as_array(matrix, "matrix")
    if z.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {z.shape}")
    x = list(x_labels) if x_labels is not None else list(range(z.shape[1]))
    y = list(y_labels) if y_labels is not None else list(range(z.shape[0]))
    if len(x) != z.shape[1] or len(y) != z.shape[0]:
        raise ValueError(f"labels ({len(y)} rows, {len(x)} columns) do not match the matrix shape {z.shape}")
    fig = go.Figure(go.Heatmap(z=z, x=unique_labels(x), y=unique_labels(y), colorscale=colorscale, zmid=zmid,
                               hovertemplate=f"%{{y}} · %{{x}}<br>{hover} %{{z:.3f}}<extra></extra>"))
    fig.update_layout(xaxis_title=xlabel, yaxis_title=ylabel, height=height, margin=dict(l=60, r=20, b=50))
    readable_layout(fig, title, legend=False)
    if x_labels is not None:
        fig.update_xaxes(tickmode="array", tickvals=unique_labels(x), ticktext=[str(v) for v in x])
    if y_labels is not None:
        fig.update_yaxes(tickmode="array", tickvals=unique_labels(y), ticktext=[str(v) for v in y],
                         autorange="reversed")
    return fig


# -- layout that reads on a phone ------------------------------------------------------------------


TITLE_CHARS = 72  # characters of a 14-pixel title on one line of a 688-pixel figure (the book's column at 1280 px)
# pauses a long title may break at, strongest first: it then reads as a title and its subtitle
_PAUSES = (r"(?<=[:?!;])\s+", r"(?<=[^\d]\.)\s+", r"\s+(?=\()", r"\s+(?=[—–]\s)", r"(?<=,)\s+")


def wrap_title(title: str, width: int = TITLE_CHARS) -> str:
    """A plotly title broken into lines of at most ``width`` characters (``<br>``) for the desktop page; a title
    already broken by hand is kept. Where a pause (a colon, a question mark, a parenthesis ...) splits it into two
    lines that fit, it breaks there ("Recall accuracy:<br>truncation cannot ..."); otherwise the lines are
    balanced. On a phone the book wraps every title again to the width it has (:data:`.book.NARROW_SCRIPT`)."""

    if not title or "<br>" in title or len(title) <= width:
        return title or ""
    for pause in _PAUSES:
        fits = [m for m in re.finditer(pause, title) if m.start() <= width and len(title) - m.end() <= width]
        if fits:
            best = min(fits, key=lambda m: abs(m.start() - len(title) / 2))
            return title[:best.start()] + "<br>" + title[best.end():]
    lines = -(-len(title) // width)                       # as few lines as fit, then balanced:
    even = -(-len(title) // lines) + 4                    # no short word left alone on the last one
    return "<br>".join(textwrap.wrap(title, min(width, even))) or title


def readable_layout(fig: go.Figure, title: str = "", *, legend: bool = True, top: int = 20) -> go.Figure:
    """The book's plotly layout for a phone and a desktop alike: the title wrapped and at the top left, the legend
    in rows at the bottom of the figure (its margin grows to fit), never over the data or beside a squeezed plot.
    Used by the line, decay, distance and prediction figures (chapters 1 to 10)."""
    text = wrap_title(title)
    lines = text.count("<br>") + 1 if text else 0
    fig.update_layout(title=dict(text=text, font=dict(size=14), x=0.01, xanchor="left"),
                      margin=dict(t=top + 22 * lines + (8 if lines else 0)))
    if legend:
        fig.update_layout(legend=dict(orientation="h", x=0, xanchor="left", y=0, yanchor="bottom", yref="container",
                                      font=dict(size=11)))
    return fig


def log_dtick(*arrays) -> int | None:
    """A decade step for a log axis over these values: every decade up to six of them, then every second or
    third, so the labels never crowd (plotly's own choice labels 2 and 5 inside each decade); None (plotly's
    choice) when the values span less than two decades, where decades alone would leave the axis bare."""
    values = np.concatenate([np.ravel(as_array(a)) for a in arrays]) if arrays else np.array([])
    values = values[np.isfinite(values) & (values > 0)]
    if values.size < 2:
        return None
    decades = np.log10(values.max()) - np.log10(values.min())
    if decades < 2:
        return None                   # within a decade or two, plotly's own ticks label the axis
    return max(1, int(np.ceil(decades / 6)))


# -- lines and sliders --------------------------------------------------------------------------


def lines_plot(series: Mapping[str, tuple], *, title: str = "", xlabel: str = "", ylabel: str = "", logy: bool = False,
               logx: bool = False, size=(5.8, 3.5), markers: bool = True, hline: float | None = None,
               hline_label: str = ""):
    """One line per entry of ``series`` = {label: (x, y)}; returns the Figure."""
    check_series(series, "lines_plot()")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size, layout="constrained")
    for label, (x, y) in series.items():
        x, y = as_array(x, f"x of {label!r}", 1), as_array(y, f"y of {label!r}", 1)
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


def lines_figure(series: Mapping[str, tuple], *, title: str = "", xlabel: str = "", ylabel: str = "",
                 logy: bool = False, logx: bool = False, height: int = 380, mode: str = "lines+markers") -> go.Figure:
    """One line per entry of ``series`` = {label: (x, y)}."""
    check_series(series, "lines_figure()")
    fig = go.Figure()
    xs, ys = [], []
    for label, (x, y) in series.items():
        x, y = as_array(x), as_array(y)
        if x.shape != y.shape:
            raise ValueError(f"series {label!r}: x has {x.size} points but y has {y.size}")
        fig.add_trace(go.Scatter(x=x, y=y, mode=mode, name=label))
        xs.append(x)
        ys.append(y)
    fig.update_layout(xaxis_title=xlabel, yaxis_title=ylabel, height=height, margin=dict(l=60, r=20, b=50))
    readable_layout(fig, title, legend=len(series) > 1)
    if logy:
        fig.update_yaxes(type="log", exponentformat="power", dtick=log_dtick(*ys))
    if logx:
        fig.update_xaxes(type="log", exponentformat="power", dtick=log_dtick(*xs))
        swept = np.unique(np.concatenate([x[np.isfinite(x) & (x > 0)] for x in xs]))
        if swept.size <= 8:  # a sweep over a few values (learning rates): a tick at each, not plotly's 2s and 5s
            fig.update_xaxes(tickmode="array", tickvals=swept.tolist(), ticktext=[f"{v:g}" for v in swept])
    return fig


def _shortened(label: str, budget: int) -> str:
    """``label`` in at most ``budget`` characters: cut after a whole word where it can, then "…"."""
    if len(label) <= budget:
        return label
    cut = label[:budget - 1]
    whole = label[len(cut)] == " " or " " not in cut.strip()  # the cut ends a word, or there is one word
    return (cut if whole else cut.rsplit(" ", 1)[0]).rstrip(" ,;:") + "…"


SLIDER_GAP = 72  # px between the plot area and a slider's label: slanted ticks and the axis title fit between


def slider_figure(frames: Mapping[str, go.Figure], *, title: str = "", slider_label: str = "",
                  active: int = 0, menu: bool = False) -> go.Figure:
    """Combine figures with the same trace layout into one figure with a slider (or, ``menu=True``, a menu).

    ``frames`` maps a step label to a figure; every figure must have the same number
    of traces. All traces are stored once, and each step shows one figure's
    traces (and its title), so the control works without a kernel. Long labels (whole
    sentences) read better in a menu, which names each entry, than under a slider's ticks.
    """
    if not frames:
        raise ValueError("slider_figure() needs at least one frame {label: figure}")
    labels = list(frames)
    counts = {label: len(fig.data) for label, fig in frames.items()}
    if len(set(counts.values())) != 1:
        raise ValueError(f"every frame must have the same number of traces, got {counts}")
    per = counts[labels[0]]
    if not 0 <= active < len(labels):
        raise ValueError(f"active must be in 0..{len(labels) - 1}, got {active}")
    first = frames[labels[active]]
    fig = go.Figure(layout=first.layout)
    for i, label in enumerate(labels):
        for trace in frames[label].data:
            trace = go.Figure(trace).data[0]
            trace.visible = i == active
            fig.add_trace(trace)
    # frames whose axes differ (trees of different sizes, say) carry their own ranges, or the slider would show
    # every frame in the first one's window and cut the rest off
    ranges = {axis: [getattr(frames[label].layout, axis).range for label in labels] for axis in ("xaxis", "yaxis")}
    moving = [axis for axis, values in ranges.items()
              if any(v is not None for v in values) and len({tuple(v) if v is not None else None
                                                              for v in values}) > 1]
    steps = []
    for i, label in enumerate(labels):
        visible = [j // per == i for j in range(per * len(labels))]
        frame_title = frames[label].layout.title.text or wrap_title(title)
        layout = {"title.text": frame_title, **{f"{axis}.range": ranges[axis][i] for axis in moving
                                                 if ranges[axis][i] is not None}}
        steps.append(dict(method="update", label=str(label), args=[{"visible": visible}, layout]))
    fig.update_layout(title_text=first.layout.title.text or wrap_title(title))
    if menu:
        for step in steps:
            step["label"] = step["label"] if len(step["label"]) <= 44 else step["label"][:43].rstrip() + "…"
        top = fig.layout.margin.t or 20
        fig.update_layout(margin_t=top + 45, title_y=1.0, title_yref="paper", title_yanchor="bottom",
                          title_pad_b=8, updatemenus=[dict(type="dropdown", buttons=steps, active=active, x=0,
                                                           xanchor="left", y=1.0, yanchor="bottom",
                                                           pad=dict(b=top + 6), showactive=True)])
        return fig
    # a step named by a whole sentence would overprint its neighbours under the slider: each label is cut to what
    # its share of a phone's width holds (at a word where it can), the frame's title still gives it whole
    budget = max(8, 60 // len(labels))
    for i, step in enumerate(steps):
        step["label"], step["value"] = _shortened(step["label"], budget), str(i)
    # the slider hangs below the x axis: on a phone plotly slants the tick labels, and with the axis title under them
    # they need about 70 px before the slider's own label, or the two print over each other
    fig.update_layout(sliders=[dict(active=active, steps=steps, currentvalue=dict(prefix=f"{slider_label}: "),
                                    pad=dict(t=SLIDER_GAP))])
    tallest = max((frames[label].layout.height or 380) for label in labels)  # the largest frame fits
    fig.update_layout(height=tallest + SLIDER_GAP + 20)
    return fig
