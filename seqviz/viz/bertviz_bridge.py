"""bertviz's head view and model view (Vig, 2019), drawn with no network: chapters 8 and 9.

bertviz's own Python API (``head_view`` / ``model_view`` with ``html_action="return"``) builds
the HTML; its page loads require.js 2.3.6, d3 5.7.0 and jQuery 2.0.0 from a CDN, so offline it
draws nothing. Here only those script sources change; they point at copies shipped with
``seqviz`` (``bertviz_js/``, each with its licence):

- in a live kernel (JupyterLab, Notebook, Colab) the scripts travel inside the output: require.js
  as an inline script (loaded only where the page has no AMD loader yet), d3 and jQuery as
  ``data:`` URLs that require.js loads as it would the CDN files;
- while the book is built (``SEQVIZ_BOOK=1``) they point at the copies the book serves under
  ``_static/bertviz/`` (``scripts/vendor_assets.py``), so a page stays small and needs no kernel.

jQuery 2.0.0 is on no registry; the copy is 2.0.3, the same 2.0 line, as shipped by the ``ipython``
2.4.1 wheel on PyPI. Our tensors go in through :func:`seqviz.viz.to_bertviz`'s checks, rounded to
three decimals (the page stores every weight as text; a line's shade needs no more).
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Sequence
from pathlib import Path

from .. import config
from .heads import to_bertviz

ASSETS = Path(__file__).with_name("bertviz_js")
SCRIPTS = {"require": "require.js", "d3": "d3.min.js", "jquery": "jquery.min.js"}
INSTALL_HINT = "bertviz is not installed here: pip install bertviz, then run this cell again."
# What bertviz 1.4 writes: one <script src> for require.js, and require.config paths for d3 and jQuery.
_REQUIRE_TAG = re.compile(r'<script src="https?://[^"]*/require\.js/[^"]*"></script>')
_PATH = {name: re.compile(rf"""(\b{name}\s*:\s*)(['"])https?://[^'"]*/{name}/[^'"]*\2""") for name in ("d3", "jquery")}
# bertviz's template fills its marker twice, once inside a comment: a second, dead copy of every weight
_COMMENT_COPY = re.compile(r"// HACK: \{\"attention\".*$", re.MULTILINE)
# the model view draws its grid 970 px wide, whatever the page: in the book's text column (about 700 px) a
# third of the heads fell off the right edge. The width becomes the view's own container's, so every head shows.
_MODEL_VIEW_WIDTH = "const DIV_WIDTH = 970;"
_FITTED_WIDTH = ("const DIV_WIDTH = Math.max(320, Math.min(970, (document.getElementById(params['root_div_id'])"
                 " || {}).clientWidth || 970));")


class Message:
    """A short note shown where a view would be (bertviz missing)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_html_(self):
        return f"<p class='seqviz-note'><em>{html.escape(self.text)}</em></p>"

    def __repr__(self):
        return self.text


class BertvizView:
    """bertviz's HTML with local scripts; displays itself in Jupyter and in the book."""

    def __init__(self, page: str, kind: str):
        self.html, self.kind = page, kind

    def _repr_html_(self):
        return self.html

    def __repr__(self):
        return f"<bertviz {self.kind}: {len(self.html) / 1e3:.0f} kB of HTML, scripts served locally>"


def _book_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / "_config.yml").is_file() and (folder / "_toc.yml").is_file():
            return folder
    return None


def _data_url(name: str) -> str:
    data = (ASSETS / SCRIPTS[name]).read_bytes()
    return "data:text/javascript;base64," + base64.b64encode(data).decode()


def script_sources(mode: str | None = None) -> tuple[str, dict[str, str]]:
    """The tag that loads require.js and the require.js paths of d3 and jQuery, for ``mode``:
    "inline" (a live kernel: everything inside the output) or "book" (the book's ``_static/bertviz/``,
    relative to the page of the notebook being executed). The default is "book" while the book is
    built and "inline" otherwise."""
    mode = mode or ("book" if config.BOOK else "inline")
    if mode == "book":
        root = _book_root(Path.cwd())
        if root is None:
            raise ValueError(f"mode='book' needs to run inside the book (no _config.yml above {Path.cwd()})")
        base = Path(os.path.relpath(root, Path.cwd())).as_posix() + "/_static/bertviz/"
        tag = f'<script src="{base}{SCRIPTS["require"]}"></script>'
        return tag, {"d3": base + "d3.min", "jquery": base + "jquery.min"}  # require.js adds ".js"
    if mode != "inline":
        raise ValueError(f"mode must be 'inline' or 'book', got {mode!r}")
    source = (ASSETS / SCRIPTS["require"]).read_text(encoding="utf-8").replace("</script", "<\\/script")
    # waitSeconds 0: no load timeout (the scripts are inline; a busy page may take longer than the default 7 s)
    tag = ("<script>/* require.js 2.3.6 (MIT), shipped with seqviz: only where the page has no AMD loader */\n"
           f"if (typeof window.requirejs === 'undefined') {{\n{source}\n}}\nrequirejs.config({{waitSeconds: 0}});\n"
           "</script>")
    return tag, {"d3": _data_url("d3"), "jquery": _data_url("jquery")}


def localise(page: str, mode: str | None = None) -> str:
    """bertviz's HTML with its three CDN script sources replaced by local copies (see :func:`script_sources`),
    and without the second copy of the weights that bertviz's template leaves in a JavaScript comment.

    Raises ``ValueError`` if a source is not where bertviz 1.4 puts it (a newer bertviz may move them)."""
    tag, paths = script_sources(mode)
    page, found = _REQUIRE_TAG.subn(lambda _: tag, page, count=1)
    for name, pattern in _PATH.items():
        page, n = pattern.subn(lambda m, name=name: f"{m.group(1)}{m.group(2)}{paths[name]}{m.group(2)}", page,
                               count=1)
        found += n
    if found != 3 or "cdnjs" in page:
        raise ValueError(f"expected bertviz's require.js tag and its d3 and jQuery paths (3 CDN sources), replaced "
                         f"{found}: this bertviz writes its HTML differently")
    return _COMMENT_COPY.sub("// (the weights are in params above)", page)


def _bertviz_input(attentions, tokens: Sequence[str]) -> list:
    """Checked (1, heads, T, T) float64 tensors, one per layer, rounded to 3 decimals."""
    import torch   # here, not at the top: importing seqviz.viz stays free of torch

    layers = to_bertviz(attentions, list(tokens))
    first = tuple(layers[0].shape)
    for i, layer in enumerate(layers[1:], start=1):
        if tuple(layer.shape) != first:
            raise ValueError(f"attentions[{i}] is {tuple(layer.shape)} but attentions[0] is {first}: every layer "
                             "must have the same heads and tokens")
    if not all(torch.isfinite(layer).all() for layer in layers):
        raise ValueError("attentions contain NaN or infinite weights")
    return [torch.round(layer.double(), decimals=3) for layer in layers]


def _bertviz(name: str):
    try:
        import bertviz
    except ImportError:
        return None
    return getattr(bertviz, name)


def bertviz_head_view(attentions, tokens: Sequence[str], *, sentence_b_start: int | None = None,
                      mode: str | None = None, **kwargs):
    """``bertviz.head_view(attention, tokens, html_action="return")`` with local scripts.

    ``attentions``: a list over layers of (B, heads, T, T) or (heads, T, T) tensors (batch row 0
    is shown), ``tokens`` its T labels. Returns a :class:`BertvizView` (display it, or leave it as
    the cell's last value), or a :class:`Message` saying how to install bertviz where it is missing.
    Other keyword arguments go to bertviz (``layer``, ``heads``, ``include_layers``).
    """
    return _view("head_view", attentions, tokens, sentence_b_start, mode, kwargs)


def bertviz_model_view(attentions, tokens: Sequence[str], *, sentence_b_start: int | None = None,
                       mode: str | None = None, **kwargs):
    """``bertviz.model_view(...)``: every layer and head as a grid of thumbnails; as :func:`bertviz_head_view`.

    The grid takes the width of the view's container (at most bertviz's 970 px, at least 320 px), so all the
    heads fit in the book's text column and on a phone."""
    return _view("model_view", attentions, tokens, sentence_b_start, mode, kwargs)


def _view(name, attentions, tokens, sentence_b_start, mode, kwargs):
    layers = _bertviz_input(attentions, tokens)
    if sentence_b_start is not None and not 0 < sentence_b_start < len(tokens):
        raise ValueError(f"sentence_b_start must be in 1..{len(tokens) - 1} (an index into the tokens), "
                         f"got {sentence_b_start}")
    draw = _bertviz(name)
    if draw is None:
        return Message(INSTALL_HINT)
    page = draw(layers, list(tokens), sentence_b_start=sentence_b_start, html_action="return", **kwargs)
    page = localise(page.data, mode)
    if name == "model_view":
        if _MODEL_VIEW_WIDTH not in page:
            raise ValueError("expected bertviz's model view to set its width with 'const DIV_WIDTH = 970;': this "
                             "bertviz writes its HTML differently")
        page = page.replace(_MODEL_VIEW_WIDTH, _FITTED_WIDTH, 1)
    return BertvizView(page, name)
