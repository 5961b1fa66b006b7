"""A live view as one piece of HTML that runs wherever a browser shows it.

:class:`WebView` writes a ``<div class="seqviz-web">`` holding the view's spec (weights, vocabulary,
options, seqviz's own numbers for the first input) as JSON, a still picture, and the page's script
(:func:`bundle`: ``names.json``, the numeric twins of ``js/nn/`` and the views of ``js/views/``, inlined in
every view's output, defined once per page). The script computes the model's forward pass and draws the
picture in the reader's browser, so the same output is live in the published book (no kernel), in
JupyterLab and in Colab (which shows each output in its own frame: each must carry everything). Without
JavaScript (or printed) the reader sees the still.

Used by every view of :mod:`seqviz.web` (chapters 2, 4, 4b, 6, 7, 8 and 9).
"""

from __future__ import annotations

import base64
import functools
import html
import json
import math
import re
from pathlib import Path

import numpy as np

from .. import book, i18n
from ..book import translate

JS = Path(__file__).parent / "js"
FIRST = ("nn/core.js", "views/ui.js")   # each folder's core first, then its files sorted; views/mount.js last
LAST = "views/mount.js"
STILL_NOTE = "A still of a live view: with JavaScript on, this picture recomputes in your browser."

CSS = """
.seqviz-web { margin: 0.5em 0 1em; font-family: sans-serif; }
.seqviz-web-title { font-weight: bold; margin-bottom: 0.3em; }
.seqviz-web-controls { display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; align-items: center; margin-bottom: 0.3em; }
.seqviz-web-control { font-size: 0.9em; max-width: 100%; }
.seqviz-web-control input[type=text] { max-width: 100%; box-sizing: border-box; }
.seqviz-web-message { color: #b00; min-height: 1.2em; font-size: 0.9em; }
.seqviz-web-picture { overflow-x: auto; max-width: 100%; }
.seqviz-web-caption { font-size: 0.85em; margin: 0.2em 0 0.2em 4em; }
.seqviz-web-still img { max-width: 100%; height: auto; }
@media (max-width: 600px) { .seqviz-web-caption { margin-left: 0; } }
.seqviz-web-mounted > .seqviz-web-still { display: none; }
.seqviz-web:not(.seqviz-web-mounted) > .seqviz-web-live { display: none; }
@media print {
  .seqviz-web-mounted > .seqviz-web-still { display: block; }
  .seqviz-web > .seqviz-web-live { display: none; }
}
"""


def script_files() -> list[Path]:
    """The page's script files in bundle order: ``js/nn/`` (the numeric twins, ``core.js`` first), then
    ``js/views/`` (``ui.js`` first, ``mount.js`` last), each folder's other files sorted."""
    files = []
    for folder, first in (("nn", FIRST[0]), ("views", FIRST[1])):
        rest = sorted(p for p in (JS / folder).glob("*.js") if p.relative_to(JS).as_posix() not in (first, LAST))
        files += [JS / first, *rest]
    return [*files, JS / LAST]


@functools.lru_cache(maxsize=1)
def bundle() -> str:
    """The page's script: every file of ``js/`` in one function scope, defining ``window.seqviz`` once.

    ``NAMES`` (``names.json``: the state_dict names the exporters write and the twins read) comes first, then
    the numeric twins of ``js/nn/`` and the views of ``js/views/`` (:func:`script_files`). Under node, with
    ``window = globalThis``, the same text defines the same ``seqviz.nn`` (``tests/test_js_twins.py``)."""
    names = (Path(__file__).parent / "names.json").read_text()
    body = "\n".join(f"// ---- js/{p.relative_to(JS).as_posix()}\n{p.read_text()}" for p in script_files())
    return ("(function () {\n\"use strict\";\nif (!window.seqviz) {\nconst NAMES = " + names.strip() + ";\n" + body +
            "\nwindow.seqviz = { nn, ui, views, mount, mountAll };\n}\n})();")


def tensor(value, name: str = "a tensor") -> dict:
    """A tensor or array for the page: its shape and its float32 bytes (little-endian), base64. Every value must be
    finite: a NaN or infinite weight would make the page draw NaN, so it is refused here, by ``name``."""
    if hasattr(value, "detach"):
        array = value.detach().cpu().numpy()
    else:
        try:
            array = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a tensor or an array of numbers, got {type(value).__name__}") from None
    if array.dtype.kind not in "fiub":
        raise ValueError(f"{name} must hold numbers, got dtype {array.dtype}")
    array = np.ascontiguousarray(array, dtype="<f4")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} holds {int((~np.isfinite(array)).sum())} NaN or infinite values: the page's "
                         "forward pass needs finite weights")
    return {"shape": list(array.shape), "data": base64.b64encode(array.tobytes()).decode()}


def _lists(value, where: str = "expected"):
    """Tensors and arrays (also inside dicts and lists) as nested lists of floats, for the spec's JSON. JSON has no
    NaN or infinity (a page would fail to read its spec), so a non-finite number is a ``ValueError`` naming where."""
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, dict):
        return {k: _lists(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(v, where) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} holds {value}: a page view's numbers must be finite")
    return value


def spec_json(spec: dict) -> str:
    """The spec as JSON that is safe inside ``<script type="application/json">``: no NaN or infinity (JSON has
    none), and every ``<`` escaped (``\\u003c``), so no ``</script>`` or ``<!--`` in a title or a word ends or
    hides the script element."""
    try:
        text = json.dumps(spec, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise ValueError("a page view's options must hold finite numbers only (JSON has no NaN or infinity)") from None
    except TypeError as error:
        raise ValueError(f"a page view's options must be JSON data (str, numbers, lists, dicts): {error}") from None
    return text.replace("<", "\\u003c")


def _still_html(still) -> str:
    """A still picture as an <img>: PNG bytes, an object with PNG ``.data`` (IPython Image) or a figure."""
    if still is None:
        return ""
    if hasattr(still, "savefig"):   # a matplotlib figure: seqviz.viz, which loads plotly and ipywidgets, only now
        from ..viz._plumbing import figure_png

        still = figure_png(still, dpi=80)
    data = getattr(still, "data", still)
    if not isinstance(data, (bytes, bytearray)):
        raise ValueError(f"still must be PNG bytes, an IPython Image or a matplotlib figure, "
                         f"got {type(still).__name__}")
    return f"<img alt='a still of the live view' src='data:image/png;base64,{base64.b64encode(data).decode()}'/>"


# A text the page's script writes: nn.say(spec, "an English template {name}", ...) with the template as a literal.
_SAID = re.compile(r'nn\.say\(spec,\s*"((?:[^"\\]|\\.)*)"')


@functools.lru_cache(maxsize=1)
def script_texts() -> tuple[str, ...]:
    """Every English text the page's script writes through ``nn.say`` (control labels, axis titles, the messages
    for what a reader types), in the order of :func:`script_files`; each is a key of the catalogues."""
    found = []
    for path in script_files():
        for match in _SAID.finditer(path.read_text()):
            text = json.loads(f'"{match[1]}"')
            if text not in found:
                found.append(text)
    return tuple(found)


def page_messages() -> dict:
    """What the page's script needs to speak the book's language: ``{"language", "messages"}``, where messages maps
    each text of :func:`script_texts` (an English template with ``{name}`` placeholders) to the catalogue's
    translation (:mod:`seqviz.i18n`; ``web.json`` and the shared labels). Empty in English. The views read them
    through one function, ``nn.say`` (``js/nn/core.js``), so the page fetches nothing."""
    language = book.language()
    if language == "en":
        return {"language": "en", "messages": {}}
    entries = i18n.catalogue(language).entries
    return {"language": language, "messages": {text: entries[text] for text in script_texts() if text in entries}}


class WebView:
    """One live view for the browser: ``WebView(view, weights, vocab, options, still)``.

    ``view`` names a view of ``js/views/``; ``weights`` maps names to tensors
    (:func:`tensor`), ``vocab`` is ``{"itos", "specials", "pattern", "lower", "max_tokens"}`` and
    ``options`` what the view shows (the first sentence, class names ...). ``expected`` holds seqviz's own
    numbers for the first input (names as the view's ``numbers()``): the browser check compares the page's
    numbers with them on every built page. Displayed, it is HTML.
    """

    def __init__(self, view: str, weights: dict, vocab: dict | None, options: dict, still=None,
                 expected: dict | None = None):
        if not isinstance(view, str) or not view:
            raise ValueError(f"view must be the name of a view in js/views/, got {view!r}")
        if not isinstance(weights, dict) or not isinstance(options, dict):
            raise ValueError(f"weights and options must be dicts, got {type(weights).__name__} and "
                             f"{type(options).__name__}")
        if vocab is not None and not isinstance(vocab, dict):
            raise ValueError(f"vocab must be None or the dict export.vocabulary writes, got {type(vocab).__name__}")
        if isinstance(options.get("title"), str):
            options = {**options, "title": translate(options["title"])}  # the book's language
        self.spec = {"view": view, "weights": {k: v if isinstance(v, dict) else tensor(v, f"weight {k!r}")
                                               for k, v in weights.items()},
                     "vocab": vocab, "options": options, "expected": _lists(expected or {}),
                     "i18n": page_messages()}
        spec_json(self.spec)   # checked now, where the bad value came from, not when the view is shown
        self.still = _still_html(still)

    def html(self) -> str:
        spec = spec_json(self.spec)
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
