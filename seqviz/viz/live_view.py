"""The live-view machinery: controls on top, a picture below that is redrawn on every change.

- :class:`LiveView` and :func:`live`: any ``render(**values)`` behind ipywidgets controls, timed;
- :func:`require_known_words`: a friendly ``ValueError`` for words a model has never seen (chapters 1, 3, 5, 10).

The kernel-side live views of chapters 1, 3, 5 and 10 are built on :func:`live`; the view families
(:mod:`.predictions`, :mod:`.gradients`, :mod:`.beams` ...) supply the pictures. The views of chapters 2, 4,
4b and 6-9 run in the page itself instead (:mod:`seqviz.web`), with a still from this package for print.

Every live view has a static counterpart (a plotly slider figure) that the book shows.
While the book is built (``seqviz.BOOK``), a view displays a still of its first picture
with a note instead of its controls: a page without a kernel cannot run the Python
behind a slider, and controls that move but change nothing would mislead the reader.
"""

from __future__ import annotations

import base64
import html
import time
from collections.abc import Callable, Iterable, Sequence

import ipywidgets as widgets

from .. import config
from ..book import language, listing, translate, wrap
from ._plumbing import figure_png
from .book import book_html

STILL_NOTE = ("A still of a live view: run this chapter in Colab or Jupyter (the rocket icon at the top) "
              "to move its controls.")


class LiveView(widgets.VBox):
    """Controls and the output of ``render(**values)``; ``update()`` redraws and times it.

    ``render`` returns a matplotlib or plotly figure (or anything displayable). A
    ``ValueError`` from it (a typo in a sentence, say) is shown as a message instead of
    a traceback; any other exception too, as a one-line message that names its type (a
    bug to report, not the reader's mistake). ``last_update_ms`` holds the duration of
    the latest redraw. A text box holding more than ``max_words`` words is answered with a
    message before ``render`` is called (a 500-word paste should not freeze the kernel).
    The view's element carries the CSS class ``seqviz-live``, its messages
    ``seqviz-live-message`` (a ValueError) or ``seqviz-live-error`` (anything else), so a
    browser test can find them.
    """

    def __init__(self, render: Callable, controls: dict[str, widgets.Widget], title: str = "",
                 max_words: int = 100):
        if not controls:
            raise ValueError("live() needs at least one control {name: widget}")
        self.render, self.controls, self.max_words = render, dict(controls), max_words
        self.output = widgets.Output()
        self.last_update_ms = float("nan")
        self._still: str | None = None  # HTML of the latest picture, shown instead of the widget in the book
        for control in self.controls.values():
            _in_book_language(control)
        header = [widgets.HTML(f"<b>{translate(title)}</b>")] if title else []
        super().__init__([*header, widgets.HBox(list(self.controls.values())), self.output])
        self.add_class("seqviz-live")
        for control in self.controls.values():
            control.observe(self.update, names="value")
        self.update()

    def values(self) -> dict:
        return {name: control.value for name, control in self.controls.items()}

    def update(self, _change=None):
        """Redraw. The picture is written into the Output widget's state directly rather than
        captured with ``with output: display(...)``: that capture relies on the front end to
        route messages, and under nbclient it intermittently left a finished cell waiting
        until its timeout."""
        start = time.perf_counter()
        try:
            for name, control in self.controls.items():
                words = len(control.value.split()) if isinstance(control, widgets.Text) else 0
                if words > self.max_words:
                    raise ValueError(f"'{name}' has {words} words; this view reads at most {self.max_words}")
            figure = self.render(**self.values())
        except ValueError as error:
            data = _message(str(error), "seqviz-live-message")
        except Exception as error:  # noqa: BLE001 - a reader never sees a traceback in a live view
            data = _message(f"this input broke the view ({type(error).__name__}: {error})", "seqviz-live-error")
        else:
            data = _mimebundle(figure)
            if config.BOOK:
                self._still = _still_html(figure, data)
            if hasattr(figure, "savefig"):  # matplotlib: drawn once, then released
                import matplotlib.pyplot as plt

                plt.close(figure)
        self.output.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)
        self.last_update_ms = (time.perf_counter() - start) * 1000

    def _repr_mimebundle_(self, **kwargs):
        if config.BOOK and self._still is not None:
            values = listing(_setting(name, control) for name, control in self.controls.items())
            shown = f"（{values}）" if language() == "zh" else f"({values})"
            note = f"<p class='seqviz-still-note'><em>{translate(STILL_NOTE)}</em> {html.escape(shown)}</p>"
            return {"text/html": f"<div class='seqviz-still'>{self._still}{note}</div>",
                    "text/plain": f"LiveView({values})"}
        return super()._repr_mimebundle_(**kwargs)


def _in_book_language(control) -> None:
    """A menu's labels and a control's description in the book's language where the catalogue has them (not
    strict: a menu may list data); the values the view's function receives stay as the code wrote them."""
    if isinstance(control, widgets.Dropdown):
        value = control.value
        pairs = [(translate(label, strict=False), option)
                 for label, option in zip(control._options_labels, control._options_values)]
        if any(label != str(option) for label, option in pairs):
            control.options = pairs
            control.value = value
    if control.description:
        control.description = translate(control.description, strict=False)


def _setting(name: str, control) -> str:
    """A control's setting as the still's note writes it, in words: "length 60", "activation: tanh",
    "sentence: “we saw …”" (Chinese: "长度 60", "句子：“…”"). The control's description names it (in the
    book's language already), else its keyword; a menu shows its label, a text box its words in quotes, a
    number itself."""
    label = control.description or translate(name, strict=False)
    colon = "：" if language() == "zh" else ": "
    if isinstance(control, widgets.Dropdown) and control.label is not None:
        return f"{label}{colon}{control.label}"
    value = control.value
    if isinstance(value, str):
        return f"{label}{colon}“{value}”"
    if isinstance(value, float) and not isinstance(value, bool):
        return f"{label} {value:.3g}"
    return f"{label} {value}"


def _message(text: str, kind: str) -> dict:
    text = translate(text, strict=False)  # the reader's language where the catalogue has the message
    return {"text/html": f"<span class='{kind}' style='color:#b00'>⚠ {html.escape(text)}</span>",
            "text/plain": f"⚠ {text}"}


def _png(figure) -> str:
    return base64.b64encode(figure_png(figure, dpi=80)).decode()


def _mimebundle(figure) -> dict:
    """A JSON-ready display bundle for a matplotlib figure, a plotly figure or anything IPython shows."""
    if hasattr(figure, "savefig"):
        return {"image/png": _png(figure), "text/plain": repr(figure)}
    if hasattr(figure, "_repr_mimebundle_"):
        bundle = figure._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        if bundle:
            return {k: v for k, v in bundle.items() if isinstance(v, (str, dict))}
    from IPython import get_ipython

    shell = get_ipython()
    if shell is not None:
        data, _ = shell.display_formatter.format(figure)
        return {k: base64.b64encode(v).decode() if isinstance(v, bytes) else v for k, v in data.items()}
    return {"text/plain": repr(figure)}


def _still_html(figure, data: dict) -> str:
    """The picture of a figure as HTML for the book: its PNG, or the plotly book renderer's HTML."""
    if "image/png" in data:
        return f"<img alt='live view' src='data:image/png;base64,{data['image/png']}'/>"
    if hasattr(figure, "to_plotly_json"):
        return book_html(figure)
    return data.get("text/html") or f"<pre>{html.escape(data.get('text/plain', ''))}</pre>"


def live(render: Callable, title: str = "", max_words: int = 100, **controls: widgets.Widget) -> LiveView:
    """``live(render, sentence=widgets.Text(...), step=widgets.IntSlider(...))``."""
    return LiveView(render, controls, title, max_words)


def require_known_words(tokens: Sequence[str], known: Iterable[str], show: int = 12) -> None:
    """Raise a friendly ``ValueError`` if a token is not in ``known`` (a vocabulary's words).

    The message names the unknown words and shows some words the model does know, so a
    live widget can print it instead of a traceback; it is in the book's language, broken into lines of 77
    columns (:func:`seqviz.book.wrap`).
    """
    known = list(known)
    known_set = set(known)
    if not tokens:
        raise ValueError(wrap(translate("the sentence is empty: type a few words, for example 'the keys near the old "
                                        "cabinet'")))
    unknown = [t for t in dict.fromkeys(tokens) if t not in known_set]
    if unknown:
        words = ", ".join(f"'{w}'" for w in unknown[:5]) + (" ..." if len(unknown) > 5 else "")
        sample = ", ".join(known[:show])
        # in the book's language and in lines that fit the output column: a cell may print it as it is
        raise ValueError(wrap(translate(f"this model has never seen {words}; it only knows {len(known)} words, "
                                        f"such as {sample} ...")))
