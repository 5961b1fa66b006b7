"""Private plumbing shared by every view family: arrays in, labels, PNG encoding and blitting.

- :func:`as_array`: a tensor (on any device) or array-like as a float NumPy array, its dimensions checked;
- :func:`check_series`: a ``{label: (x, y)}`` dict of curves, checked;
- :func:`unique_labels`: token labels made distinct for plotly (repeated tokens would merge columns);
- :func:`rgba_png`, :func:`figure_png`: PNG bytes, encoded fast;
- :class:`Blitter`: a live view's picture drawn once, only its changing artists redrawn;
- :func:`plain_log_axis`, :func:`label_columns`, :func:`label_rows`: axes and labels drawn fast.

A live view redraws on every change, so its picture is drawn for speed: a ``Figure`` outside
pyplot (nothing to close, nothing shown twice by the inline backend), and where only some
artists change, :class:`Blitter` draws the rest once and redraws just those over the saved
background. Used by every chapter's views (chapters 1 to 10); nothing outside ``seqviz.viz``
imports it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import numpy as np

from ._language import localize_artists, localize_matplotlib


def as_array(values, name: str = "values", dims: int | None = None) -> np.ndarray:
    """``values`` (a tensor, array or nested list) as a float NumPy array; ``dims`` checks its number of dimensions."""
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be numbers (a tensor, an array or a list), got the string {values!r}")
    try:
        array = np.asarray(values.detach().cpu() if hasattr(values, "detach") else values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers (a tensor, an array or a list), "
                         f"got {type(values).__name__}") from None
    if dims is not None and array.ndim != dims:
        raise ValueError(f"{name} must be {dims}-D, got shape {array.shape}")
    return array


def check_series(series, what: str) -> None:
    """``series`` must be a dict ``{label: (x, y)}``: a ``ValueError`` saying so otherwise."""
    if not isinstance(series, Mapping) or not series:
        raise ValueError(f"{what} needs at least one series {{label: (x, y)}}, got {type(series).__name__}")
    for label, pair in series.items():
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ValueError(f"{what}: series {label!r} must be a pair (x, y), got {type(pair).__name__}")


def unique_labels(labels) -> list[str]:
    """Repeated tokens ("the ... the") would merge plotly columns; number duplicates invisibly."""
    seen: dict = {}
    out = []
    for label in labels:
        label = str(label)
        seen[label] = seen.get(label, 0) + 1
        out.append(label + "\u200b" * (seen[label] - 1))
    return out


def rgba_png(rgba) -> bytes:
    """PNG bytes of an (H, W, 4) uint8 buffer; zlib level 1: a little larger, encoded fast."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.asarray(rgba)).save(buffer, format="png", compress_level=1)
    return buffer.getvalue()


def figure_png(figure, dpi: float = 80) -> bytes:
    """PNG bytes of a whole matplotlib Figure (no tight bounding box: that draws it twice)."""
    buffer = io.BytesIO()
    localize_matplotlib(figure).savefig(buffer, format="png", dpi=dpi, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(value, _position=None) -> str:
    """A log-axis tick label as plain text with superscripts ("10⁻³"), not mathtext."""
    if not value > 0:
        return ""
    exponent = np.log10(value)
    if abs(exponent - round(exponent)) > 1e-9:
        return f"{value:.3g}"
    return "10" + str(int(round(exponent))).translate(_SUPERSCRIPT)


def plain_log_axis(axis, numticks: int = 6) -> None:
    """A log axis drawn fast: at most ``numticks`` labelled decades, no minor ticks, labels as plain
    text (matplotlib's mathtext labels cost about 30 ms of parsing per draw)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    axis.set_major_locator(LogLocator(numticks=numticks))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(power_of_ten))


class Blitter:
    """Draw ``figure`` once without ``dynamic`` artists; :meth:`frame` redraws only them.

    Change the dynamic artists' data, then call :meth:`frame` for the new picture as an
    IPython ``Image``. The artists must stay inside the axes they were drawn in (a title or
    a bar may change; a tick label may not: it belongs to the saved background).
    """

    def __init__(self, figure, dynamic):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.figure, self.dynamic = localize_matplotlib(figure), list(dynamic)
        self.canvas = FigureCanvasAgg(figure)
        for artist in self.dynamic:
            artist.set_animated(True)  # left out of the full draw
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(figure.bbox)

    def frame(self, *overlay):
        """The picture: the background, then the dynamic artists and any ``overlay`` artists
        (new artists made for this frame only; the caller removes them afterwards)."""
        from IPython.display import Image

        localize_artists([*self.dynamic, *overlay])  # a title rewritten for this frame: the reader's language
        self.canvas.restore_region(self.background)
        for artist in [*self.dynamic, *overlay]:
            self.figure.draw_artist(artist)
        return Image(data=rgba_png(self.canvas.buffer_rgba()), format="png")


def label_columns(ax, labels, *, top: bool = False, rotation: float = 0, ha: str = "center", fontsize: float = 8):
    """Write ``labels`` under (or over) the columns 0..n-1 of ``ax`` as plain texts, without ticks.

    A matplotlib tick is five artists (two marks, two labels, a grid line) to build and lay
    out; a sentence of 20 tokens on two axes made ticks most of a live picture's drawing
    time. Returns the pad, in points, that an axis label needs to clear these labels.
    """
    from matplotlib.transforms import blended_transform_factory, offset_copy

    ax.set_xticks([])
    edge = blended_transform_factory(ax.transData, ax.transAxes)
    place = offset_copy(edge, fig=ax.figure, y=3 if top else -3, units="points")
    for i, label in enumerate(labels):
        ax.text(i, 1 if top else 0, str(label), transform=place, rotation=rotation, rotation_mode="anchor",
                ha=ha, va="bottom" if top else "top", fontsize=fontsize)
    longest = max(map(len, map(str, labels)), default=0)
    return 4 + 0.6 * fontsize * longest * abs(np.sin(np.radians(rotation))) + (fontsize if rotation < 80 else 0)


def label_rows(ax, labels, *, fontsize: float = 8):
    """Write ``labels`` left of the rows 0..n-1 of ``ax`` as plain texts, without ticks (see :func:`label_columns`)."""
    from matplotlib.transforms import blended_transform_factory, offset_copy

    ax.set_yticks([])
    edge = blended_transform_factory(ax.transAxes, ax.transData)
    place = offset_copy(edge, fig=ax.figure, x=-3, units="points")
    for i, label in enumerate(labels):
        ax.text(0, i, str(label), transform=place, ha="right", va="center", fontsize=fontsize)
    return 4 + 0.6 * fontsize * max(map(len, map(str, labels)), default=0)
