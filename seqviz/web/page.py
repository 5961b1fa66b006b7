"""A live view as one piece of HTML that runs wherever a browser shows it.

:class:`WebView` writes a ``<div class="seqviz-web">`` holding the view's spec (weights, vocabulary,
options) as JSON, a still picture, and the page's script (every file of ``js/``, inlined once per view,
defined once per page). The script computes the model's forward pass and draws the
picture in the reader's browser, so the same output is live in the published book (no kernel), in
JupyterLab and in Colab. Without JavaScript (or printed) the reader sees the still.

Used by every view of :mod:`seqviz.web` (chapters 2, 4, 6, 7, 8 and 9).
"""

from __future__ import annotations

import base64
import functools
import html
import json
from pathlib import Path

from .. import book, i18n
from ..book import translate

FIRST, LAST = ("nn.js", "views.js"), ("mount.js",)  # the core, then each family's file (sorted), then mount
STILL_NOTE = "A still of a live view: with JavaScript on, this picture recomputes in your browser."

CSS = """
.seqviz-web { margin: 0.5em 0 1em; font-family: sans-serif; }
.seqviz-web-title { font-weight: bold; margin-bottom: 0.3em; }
.seqviz-web-controls { display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; align-items: center; margin-bottom: 0.3em; }
.seqviz-web-control { font-size: 0.9em; }
.seqviz-web-message { color: #b00; min-height: 1.2em; font-size: 0.9em; }
.seqviz-web-picture { overflow-x: auto; }
.seqviz-web-caption { font-size: 0.85em; margin: 0.2em 0 0.2em 4em; }
.seqviz-web-mounted > .seqviz-web-still { display: none; }
.seqviz-web:not(.seqviz-web-mounted) > .seqviz-web-live { display: none; }
@media print {
  .seqviz-web-mounted > .seqviz-web-still { display: block; }
  .seqviz-web > .seqviz-web-live { display: none; }
}
"""


@functools.lru_cache(maxsize=1)
def bundle() -> str:
    """The page's script: every file of ``js/`` in one function scope, defining ``window.seqviz`` once.

    ``nn.js`` (the forward-pass core) and ``views.js`` (the controls and chapter 2's view) come first, each
    model family's file (``gates.js``, ``seq2seq.js`` ...) next, ``mount.js`` last."""
    folder = Path(__file__).parent / "js"
    middle = sorted(p.name for p in folder.glob("*.js") if p.name not in FIRST + LAST)
    body = "\n".join((folder / name).read_text() for name in (*FIRST, *middle, *LAST))
    return ("(function () {\n\"use strict\";\nif (!window.seqviz) {\n" + body +
            "\nwindow.seqviz = { nn, ui, views, mount, mountAll };\n}\n})();")


def tensor(value) -> dict:
    """A tensor or array for the page: its shape and its float32 bytes (little-endian), base64."""
    import numpy as np

    array = value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
    array = np.ascontiguousarray(array, dtype="<f4")
    return {"shape": list(array.shape), "data": base64.b64encode(array.tobytes()).decode()}


def _lists(value):
    """Tensors and arrays (also inside dicts and lists) as nested lists of floats, for the spec's JSON."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    return value


def _still_html(still) -> str:
    """A still picture as an <img>: PNG bytes, an object with PNG ``.data`` (IPython Image) or a figure."""
    if still is None:
        return ""
    if hasattr(still, "savefig"):
        from ..viz._plumbing import figure_png

        still = figure_png(still, dpi=80)
    data = getattr(still, "data", still)
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"still must be PNG bytes, an IPython Image or a matplotlib figure, got {type(still).__name__}")
    return f"<img alt='a still of the live view' src='data:image/png;base64,{base64.b64encode(data).decode()}'/>"


def page_messages() -> dict:
    """What the page's script needs to speak the book's language: ``{"language", "messages"}``, the messages the
    catalogue of :mod:`seqviz.i18n` has for the views' own texts (``web.json``: English template with ``{name}``
    placeholders -> translation). Empty in English. (The views' JavaScript reads them through one function.)"""
    language = book.language()
    if language == "en":
        return {"language": "en", "messages": {}}
    entries = i18n.catalogue(language)
    messages = {key: value for key, value in entries.entries.items() if entries.sources.get(key) == "web.json"}
    return {"language": language, "messages": messages}


class WebView:
    """One live view for the browser: ``WebView(view, weights, vocab, options, still)``.

    ``view`` names a function of ``js/views.js``; ``weights`` maps names to tensors
    (:func:`tensor`), ``vocab`` is ``{"itos", "specials", "pattern", "lower", "max_tokens"}`` and
    ``options`` what the view shows (the first sentence, class names ...). ``expected`` holds seqviz's own
    numbers for the first input (names as the view's ``numbers()``): the browser check compares the page's
    numbers with them on every built page. Displayed, it is HTML.
    """

    def __init__(self, view: str, weights: dict, vocab: dict | None, options: dict, still=None,
                 expected: dict | None = None):
        if not isinstance(view, str) or not view:
            raise ValueError(f"view must be the name of a view in js/views.js, got {view!r}")
        if isinstance(options, dict) and isinstance(options.get("title"), str):
            options = {**options, "title": translate(options["title"])}  # the book's language
        self.spec = {"view": view, "weights": {k: v if isinstance(v, dict) else tensor(v) for k, v in weights.items()},
                     "vocab": vocab, "options": options, "expected": _lists(expected or {}),
                     "i18n": page_messages()}
        self.still = _still_html(still)

    def html(self) -> str:
        spec = json.dumps(self.spec, separators=(",", ":")).replace("</", "<\\/")
        note = f"<p class='seqviz-still-note'><em>{html.escape(translate(STILL_NOTE))}</em></p>" if self.still else ""
        return (f"<div class='seqviz-web' data-view='{html.escape(self.spec['view'])}'>"
                f"<style>{CSS}</style>"
                f"<div class='seqviz-web-still'>{self.still}{note}</div>"
                f"<div class='seqviz-web-live'></div>"
                f"<script type='application/json' class='seqviz-web-spec'>{spec}</script>"
                f"<script>{bundle()}\n(function () {{ var s = document.currentScript; "
                f"var root = s && s.closest('.seqviz-web'); if (root) window.seqviz.mount(root); "
                f"else window.seqviz.mountAll(); }})();</script></div>")

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return f"WebView({self.spec['view']!r}, {len(self.spec['weights'])} tensors)"
