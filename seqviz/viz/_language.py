"""Every label a figure shows, in the book's language: one walk over a finished figure, not a call per label.

Whoever wrote a label (a ``seqviz.viz`` function, or the chapter's own code: ``fig.add_hline(annotation_text=...)``,
``fig.update_traces(colorbar_title_text=...)``), it reaches the reader through a figure, so the figure is translated
as it is shown, through :func:`seqviz.book.translate`: a plotly figure when a renderer turns it into output (the
book's renderer, or in Jupyter and Colab the renderer :func:`apply_language` puts in front of plotly's own); a
matplotlib figure when it becomes a PNG (``figure_png``, ``Blitter``) or when IPython displays it. In English all of
this does nothing.

What is a label is told apart from what may be data: titles, axis titles, legend entries and titles, colour-bar
titles, annotations, a slider's title steps are labels (translated; one the catalogue lacks is reported); tick
labels, a slider's step labels, hover text and free text in a matplotlib axes may be the data (the words of a
sentence): translated only where the catalogue has them. A text that already holds Chinese is left as it is, so a
figure can be shown twice. In Chinese, plotly figures get a font list that ends in CJK fonts, and matplotlib draws
with the CJK font :func:`seqviz.i18n.cjk_font_file` finds (per-glyph fallback after DejaVu Sans), or says how to
install one.
"""

from __future__ import annotations

import copy
import functools
import logging
import re
import sys

from .. import book, i18n
from . import book as viz_book  # the book's plotly renderer (read when a language is set)

PLOTLY_FONT = ('"Open Sans", verdana, arial, "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", '
               '"Microsoft YaHei", "WenQuanYi Zen Hei", sans-serif')
_BREAK = re.compile(r"\s*<br\s*/?>\s*", re.IGNORECASE)
_HOVER_TOKEN = re.compile(r"(%\{[^}]*\}|<extra>.*?</extra>|<[^>]+>|\s*[·→:：,()]\s*)")
_STATE = {"renderer": None, "rc": None, "formatter": None}


def _label(text, strict: bool = True):
    """A label in the current language; a title wrapped with ``<br>`` is looked up as one line, then rewrapped."""
    if not isinstance(text, str) or book.language() == "en" or not text.strip() or i18n.has_cjk(text):
        return text
    if _BREAK.search(text):
        unwrapped = _BREAK.sub(" ", text)
        out = book.translate(unwrapped, strict=strict)
        return text if out == unwrapped else _rewrap(out, len(_BREAK.findall(text)))
    return book.translate(text, strict=strict)


def _rewrap(text: str, breaks: int) -> str:
    """Chinese text broken into ``breaks + 1`` lines at the punctuation nearest the even cuts."""
    stops = [i + 1 for i, c in enumerate(text) if c in "，：；。、？！）" and 0 < i + 1 < len(text)]
    cuts, lines, start = [], [], 0
    for k in range(1, breaks + 1):
        target = len(text) * k / (breaks + 1)
        near = min((s for s in stops if s > start), key=lambda s: abs(s - target), default=None)
        if near is None:
            break
        cuts.append(near)
        start = near
    for cut in cuts:
        lines.append(text[len("".join(lines)):cut])
    lines.append(text[len("".join(lines)):])
    return "<br>".join(line for line in lines if line)


def _hover(template):
    """Hover text: each run of words between the ``%{...}`` fields and tags, translated where known."""
    if not isinstance(template, str) or book.language() == "en":
        return template
    parts = _HOVER_TOKEN.split(template)
    out = []
    for i, part in enumerate(parts):
        if i % 2 or not part.strip():
            out.append(part)
        else:
            core = part.strip()
            out.append(part.replace(core, _label(core, strict=False)))
    return "".join(out)


def _title(holder: dict, key: str = "title", strict: bool = True) -> None:
    title = holder.get(key)
    if isinstance(title, dict):
        if "text" in title:
            title["text"] = _label(title["text"], strict)
    elif isinstance(title, str):
        holder[key] = _label(title, strict)


def _step_args(args) -> None:
    """A slider's or menu's update arguments: any title or name it sets is a label."""
    for arg in args or []:
        if isinstance(arg, dict):
            for key in list(arg):
                value = arg[key]
                if key.endswith("title.text") or key.endswith("title") and isinstance(value, str):
                    arg[key] = _label(value)
                elif key == "title" and isinstance(value, dict):
                    _title(arg)
                elif key == "name":
                    arg[key] = [_label(v) for v in value] if isinstance(value, list) else _label(value)


def localize_figure(fig_dict: dict) -> dict:
    """A copy of a plotly figure's dict with every label in the current language (the same dict in English)."""
    if book.language() == "en" or not isinstance(fig_dict, dict):
        return fig_dict
    fig = copy.deepcopy(fig_dict)
    layout = fig.setdefault("layout", {})
    _title(layout)
    for key, value in layout.items():
        if isinstance(value, dict) and re.fullmatch(r"[xy]axis\d*|coloraxis\d*|legend\d*", key):
            _title(value)
            if "colorbar" in value:
                _title(value["colorbar"])
            if isinstance(value.get("ticktext"), list):
                value["ticktext"] = [_label(t, strict=False) for t in value["ticktext"]]
    for note in layout.get("annotations") or []:
        note["text"] = _label(note.get("text"))
    for slider in layout.get("sliders") or []:
        current = slider.get("currentvalue") or {}
        if "prefix" in current:
            prefix = current["prefix"]
            core = prefix.rstrip(" :：")
            current["prefix"] = _label(core) + "：" if core else prefix
        for step in slider.get("steps") or []:
            step["label"] = _label(step.get("label"), strict=False)
            _step_args(step.get("args"))
    for menu in layout.get("updatemenus") or []:
        for button in menu.get("buttons") or []:
            button["label"] = _label(button.get("label"), strict=False)
            _step_args(button.get("args"))
    for trace in fig.get("data") or []:
        shown = trace.get("showlegend") is not False
        if "name" in trace:
            trace["name"] = _label(trace["name"], strict=shown)
        if "hovertemplate" in trace:
            hover = trace["hovertemplate"]
            trace["hovertemplate"] = [_hover(h) for h in hover] if isinstance(hover, list) else _hover(hover)
        if isinstance(trace.get("colorbar"), dict):
            _title(trace["colorbar"])
        if trace.get("type") == "heatmap":
            for axis in ("x", "y"):
                if isinstance(trace.get(axis), list):
                    trace[axis] = [_label(v, strict=False) for v in trace[axis]]
    font = layout.setdefault("font", {})
    font.setdefault("family", PLOTLY_FONT)
    return fig


DATA_GID = "seqviz-data"  # a matplotlib Text with this gid is data (a cell's name in a box): never translated


def _text(artist, strict: bool) -> None:
    text = artist.get_text()
    if getattr(artist, "get_gid", lambda: None)() == DATA_GID:
        return
    if text and not i18n.has_cjk(text):
        new = _label(text, strict)
        if new != text:
            artist.set_text(new)


def _is_label(artist) -> bool:
    axes, figure = getattr(artist, "axes", None), getattr(artist, "figure", None)
    if axes is not None and artist in (axes.title, getattr(axes, "_left_title", None),
                                       getattr(axes, "_right_title", None), axes.xaxis.label, axes.yaxis.label):
        return True
    return figure is not None and artist in (getattr(figure, "_suptitle", None), getattr(figure, "_supxlabel", None),
                                             getattr(figure, "_supylabel", None))


def localize_artists(artists) -> None:
    """Translate the given matplotlib Text artists in place (a live picture's changing titles)."""
    if book.language() == "en":
        return
    from matplotlib.text import Text

    for artist in artists:
        if isinstance(artist, Text):
            _text(artist, _is_label(artist))


def localize_matplotlib(figure):
    """Every text of a matplotlib Figure in the current language, in place; returns the figure."""
    if book.language() == "en" or figure is None:
        return figure
    from matplotlib.text import Text

    labels = set()
    for axes in figure.axes:
        labels.update({axes.title, axes._left_title, axes._right_title, axes.xaxis.label, axes.yaxis.label})
        legend = axes.get_legend()
        if legend is not None:
            labels.update(legend.get_texts())
            labels.add(legend.get_title())
    for legend in figure.legends:
        labels.update(legend.get_texts())
        labels.add(legend.get_title())
    labels.update(t for t in (getattr(figure, "_suptitle", None), getattr(figure, "_supxlabel", None),
                              getattr(figure, "_supylabel", None)) if t is not None)
    for artist in figure.findobj(Text):
        _text(artist, artist in labels)
    return figure


def in_book_language(draw):
    """Decorate a function that returns a matplotlib Figure: the figure comes back in the book's language.

    The PNG formatter :func:`_ipython` puts in front of IPython's is replaced when the inline backend configures
    itself, which happens when pyplot is first imported, often inside the very cell that draws: the book's Chinese
    pages showed every diagram in English. A diagram translates itself as it is made instead."""
    @functools.wraps(draw)
    def drawn(*args, **kwargs):
        return localize_matplotlib(draw(*args, **kwargs))

    return drawn


class _TranslatingRenderer:
    """In front of plotly's own renderer(s) outside the book: the figure translated, then rendered as before."""

    def __init__(self, inner: str):
        self.inner = inner

    def to_mimebundle(self, fig_dict):
        import plotly.io as pio

        return pio.renderers._build_mime_bundle(localize_figure(fig_dict), self.inner)


def _plotly(language: str) -> None:
    try:
        import plotly.io as pio
        from plotly.io._base_renderers import MimetypeRenderer
    except ImportError:
        return

    class Translating(_TranslatingRenderer, MimetypeRenderer):
        pass

    default = pio.renderers.default or ""
    if language != "en" and default not in (viz_book.RENDERER, "seqviz_language") and default:
        pio.renderers["seqviz_language"] = Translating(default)
        _STATE["renderer"] = default
        pio.renderers.default = "seqviz_language"
    elif language == "en" and default == "seqviz_language" and _STATE["renderer"]:
        pio.renderers.default = _STATE["renderer"]


def _matplotlib(language: str) -> None:
    try:
        import matplotlib as mpl
        from matplotlib import font_manager
    except ImportError:
        return
    if language == "en":
        if _STATE["rc"] is not None:
            mpl.rcParams.update(_STATE["rc"])
            _STATE["rc"] = None
        return
    path = i18n.cjk_font_file()
    if path is not None and str(path) not in {f.fname for f in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(path))
    known = {f.name for f in font_manager.fontManager.ttflist}
    family = next((name for name in i18n.CJK_FAMILIES if name in known), None)
    if family is None:
        print("seqviz: no font that draws Chinese was found, so figures would show empty boxes: pip install "
              "noto-cjk-sans-otc (the Chinese chapters' Colab cell does), then restart the kernel", file=sys.stderr)
        return
    if _STATE["rc"] is None:
        _STATE["rc"] = {k: mpl.rcParams[k] for k in ("font.family", "font.sans-serif")}
    # matplotlib falls back glyph by glyph along font.family's list (a generic name such as "sans-serif" stands
    # for one font only): Latin letters, digits and the minus sign from DejaVu Sans, Chinese from the CJK font.
    rest = [name for name in mpl.rcParams["font.sans-serif"] if name not in ("DejaVu Sans", family)]
    mpl.rcParams["font.family"] = ["DejaVu Sans", family]
    mpl.rcParams["font.sans-serif"] = ["DejaVu Sans", family, *rest]
    # The packaged Noto Sans CJK has one weight: bold Chinese is drawn regular. matplotlib says so on stderr for
    # every bold label ("Failed to find font weight bold"), which would print under the figure in the book.
    logging.getLogger("matplotlib.font_manager").addFilter(_one_weight_only)


def _one_weight_only(record) -> bool:
    """False (drop) for matplotlib's notice that the CJK font has no bold weight; True for everything else."""
    return not ("Failed to find font weight" in record.getMessage() and any(
        name in record.getMessage() for name in i18n.CJK_FAMILIES))


def _ipython(language: str) -> None:
    """IPython shows a matplotlib Figure through its PNG formatter: translate the figure's texts first."""
    try:
        from IPython import get_ipython
        from matplotlib.figure import Figure
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["image/png"]
    if language == "en":
        if _STATE["formatter"] is not None:
            formatter.for_type(Figure, _STATE["formatter"])
            _STATE["formatter"] = None
        return
    try:
        current = formatter.lookup_by_type(Figure)
    except KeyError:
        from IPython.core.pylabtools import print_figure

        current = lambda fig: print_figure(fig, "png")  # noqa: E731 - the formatter IPython would use
    if getattr(current, "_seqviz", False):
        return
    _STATE["formatter"] = current

    def png(fig):
        return current(localize_matplotlib(fig))

    png._seqviz = True
    formatter.for_type(Figure, png)


def apply_language(language: str) -> None:
    """Listener of :func:`seqviz.book.set_language`: plotly's renderer, matplotlib's font, IPython's formatter."""
    _plotly(language)
    _matplotlib(language)
    _ipython(language)
