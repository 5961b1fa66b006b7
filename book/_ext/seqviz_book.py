"""Sphinx glue for the book: pages that work offline and throw no errors.

- Jupyter Book registers sphinx-thebe, whose inline ``const THEBE_JS_URL = ...`` script
  lands twice on every page ("Identifier 'THEBE_JS_URL' has already been declared") and
  points at a CDN. The book does not use Thebe (launch buttons go to Colab), so its
  scripts and styles are removed from every page.
- Scripts added twice to a page are kept once.
- The theme logs "Got invalid theme mode" when no default mode is set: default to auto.
- plotly.js (4.8 MB) is kept only on pages that hold a plotly figure, and the widget
  manager (require.js + 4.3 MB, about 1.4 s of page load here) and the saved widget state
  only on pages that show a widget view.
- Two editions, one site: the English book at the root, the Chinese one (``zh/``, ``seqviz_edition: zh``) in
  ``zh/``. Every page of each carries a language switch (``_templates/seqviz-language.html``, in the article
  header) to the same page of the other; ``scripts/sync_zh.py`` keeps the two tables of contents path for path, so
  the target exists (a Chinese page not yet translated is a notice page that links back to the English).
- The Chinese edition's notices: ``{zh-untranslated} notebooks/NN`` (a page not yet translated: what it is and a
  link to the English page), and at the end of its build one line saying how many pages and prose cells still wait
  for translation (``scripts/sync_zh.py --check`` lists them).
- A sentence a chapter's code glues (``sv.book.say``) is pasted by ``{glue:text}`` as plain text, so the Markdown
  an author writes in it would reach the reader raw ("$k = 8$", "*can*"). The inline Markdown a sentence may hold,
  ``$maths$``, ``**strong**``, ``*emphasis*`` and ```code```, is turned into the nodes the text around it gets
  (``GluedMarkup``, a transform that runs before Sphinx's math domain looks for equations).
- Exercises are numbered by chapter from their labels: ``ch08-ex2`` is "Exercise 8.2" and its
  solution "Solution to Exercise 8.2" (``ch04b-ex2``: "Exercise 4b.2"), the rule of
  ``seqviz.book.exercise_number`` that the text and the student edition follow too. sphinx-exercise
  numbers its enumerable exercises with Sphinx's figure numbers (``numfig``, one count through the
  whole book); once Sphinx has assigned them, the numbers of labelled exercises are replaced.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.transforms import Transform
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
EDITIONS = {  # edition: (the other's label, its language code, the link's title, the other's root from ours)
    "en": ("中文", "zh-CN", "阅读本页的中文版", "zh/"),
    "zh": ("English", "en", "Read this page in English", "../"),
}
TEMPLATES = Path(__file__).resolve().parents[1] / "_templates"
TODO_CLASS = "seqviz-zh-todo"  # scripts/sync_zh.py's notice over an English prose cell not yet translated

WIDGET_SCRIPTS = ("requirejs/require.js", "widgets-config.js", "html-manager/embed-amd.js")


def _name(asset) -> str:
    return str(getattr(asset, "filename", asset) or "")


def _attributes(asset) -> dict:
    return dict(getattr(asset, "attributes", {}) or {})


def _is_thebe(asset) -> bool:
    return "thebe" in _name(asset) or "THEBE_JS_URL" in str(_attributes(asset).get("body", ""))


def _is_widget_asset(asset) -> bool:
    return _name(asset).endswith(WIDGET_SCRIPTS) or "widget-state" in str(_attributes(asset).get("type", ""))


def _clean(pagename, context):
    if not context.get("default_mode"):
        context["default_mode"] = "auto"
    page = str(context.get("body", ""))
    needs_plotly = "plotly-graph-div" in page
    needs_widgets = "application/vnd.jupyter.widget-view+json" in page
    for key in ("script_files", "css_files"):
        kept, seen = [], set()
        for asset in context.get(key) or []:
            identity = (_name(asset), str(_attributes(asset).get("body", "")))
            if identity in seen or _is_thebe(asset):
                continue
            if ("plotly" in _name(asset) and not needs_plotly) or (_is_widget_asset(asset) and not needs_widgets):
                continue
            seen.add(identity)
            kept.append(asset)
        if key in context:
            context[key] = kept


def _switch(app, pagename, templatename, context, doctree):
    """The link to this page in the other edition, relative to this page."""
    label, code, title, other = EDITIONS[app.config.seqviz_edition]
    context["seqviz_language_href"] = "../" * pagename.count("/") + other + pagename + ".html"
    context.update(seqviz_language_label=label, seqviz_language_code=code, seqviz_language_title=title)


def _executed(app, config):
    """``SEQVIZ_EXECUTED=<folder>``: the notebooks were just executed into that jupyter-cache, several at once
    (scripts/execute_notebooks.py, run by the Makefile's book targets): myst-nb merges their outputs from it and
    runs only a notebook it does not find there. Without the variable the build runs every notebook itself
    (``execute_notebooks: force`` in _config.yml), so a direct ``jupyter-book build`` never shows stale outputs.
    """
    import os

    cache = os.environ.get("SEQVIZ_EXECUTED")
    if not cache:
        return
    if not Path(cache).is_dir():
        raise ValueError(f"SEQVIZ_EXECUTED must name the folder scripts/execute_notebooks.py wrote, got {cache!r} "
                         "(no such folder)")
    config.nb_execution_mode = "cache"
    config.nb_execution_cache_path = str(Path(cache).resolve())


def _header(app, config):
    if config.seqviz_edition not in EDITIONS:
        raise ValueError(f"seqviz_edition must be one of {list(EDITIONS)}, got {config.seqviz_edition!r}")
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    if config.html_theme != "sphinx_book_theme":  # the switch sits in that theme's article header; others lack it
        return
    options = dict(config.html_theme_options or {})
    end = options.get("article_header_end") or ["article-header-buttons.html"]
    end = [end] if isinstance(end, str) else list(end)
    if "seqviz-language.html" not in end:
        options["article_header_end"] = [*end, "seqviz-language.html"]
    config.html_theme_options = options


class Untranslated(Directive):
    """``{zh-untranslated} notebooks/02_sticky_note``: the Chinese notice page of a page not yet translated."""

    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        english = self.arguments[0]
        page = next((Path(env.srcdir).parent / f"{english}{s}" for s in (".ipynb", ".md")
                     if (Path(env.srcdir).parent / f"{english}{s}").is_file()), None)
        title = english
        if page is not None:
            text = page.read_text(encoding="utf-8")
            if page.suffix == ".ipynb":
                text = next(("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown"),
                            "")
            match = re.search(r"^#\s+(.+)$", text, re.MULTILINE)
            title = match[1].strip() if match else english
        href = "../" * (env.docname.count("/") + 1) + english + ".html"
        box = nodes.admonition(classes=["seqviz-zh-untranslated", "note"])
        box += nodes.title(text="本页尚未译成中文")
        para = nodes.paragraph()
        para += nodes.Text("这一页的中文译文还在路上。在它译好之前，请阅读英文原文：")
        para += nodes.reference(text=title, refuri=href, classes=["seqviz-english-page"])
        para += nodes.Text("。本书的代码、图和练习在两个版本中完全相同；想参与翻译，请看仓库中的 zh/TRANSLATING.md。")
        box += para
        env.metadata[env.docname]["seqviz_untranslated"] = True
        return [box]


CJK = "\u2014-\u2026\u3000-\u303f\u3400-\u9fff\uff00-\uffef"  # with dashes, quotes and the ellipsis
_SOFT_BREAK = re.compile(f"(?<=[{CJK}])[ \\t]*\\n[ \\t]*(?=[{CJK}])")
_IS_CJK = re.compile(f"[{CJK}]")


def _join_cjk_lines(app, doctree):
    """Chinese source is wrapped like English, but a line break between two Chinese characters is not a space:
    remove it (in the Chinese edition's prose only; code, math and literals keep theirs). MyST gives a soft break
    its own text node, or leaves it inside one."""
    if app.config.seqviz_edition != "zh":
        return
    skip = (nodes.literal_block, nodes.literal, nodes.math, nodes.math_block, nodes.raw, nodes.comment)
    for text in list(doctree.findall(nodes.Text)):
        parent = text.parent
        if parent is None or isinstance(parent, skip) or not ("\n" in text or text.startswith(" ")
                                                               or text.endswith(" ")):
            continue
        new = _SOFT_BREAK.sub("", str(text))
        index = next(i for i, child in enumerate(parent.children) if child is text)  # equal texts abound
        before = parent[index - 1].astext() if index > 0 else ""
        after = parent[index + 1].astext() if index + 1 < len(parent) else ""
        if not new.strip():
            if before and after and _IS_CJK.match(before[-1]) and _IS_CJK.match(after[0]):
                new = ""
        else:
            # the space the source needs beside a {glue:text} role ("……倍。 {glue:text}`x`") is no space in Chinese
            # when both neighbours are Chinese; beside a number or a Latin word it stays
            if new.startswith(" ") and before and _IS_CJK.match(before[-1]) and _IS_CJK.match(new.lstrip()[:1] or "a"):
                new = new.lstrip(" ")
            if new.endswith(" ") and after and _IS_CJK.match(after[0]) and _IS_CJK.match(new.rstrip()[-1:] or "a"):
                new = new.rstrip(" ")
        if new != str(text):
            parent.children[index] = nodes.Text(new)
            parent.children[index].parent = parent


# inline Markdown inside a glued sentence: $maths$, **strong**, *emphasis*, `code` (in that order of precedence)
_MARKUP = re.compile(r"\$(?P<math>[^$\n]+?)\$"
                     r"|\*\*(?P<strong>[^*\n]+?)\*\*"
                     r"|(?<![\w*])\*(?P<em>[^*\s](?:[^*\n]*?[^*\s])?)\*(?![\w*])"
                     r"|`(?P<code>[^`\n]+?)`")


def glued_markup(text: str) -> list[nodes.Node]:
    """The nodes for a glued sentence: plain text, with its inline Markdown (``$k = 8$``, ``**no**``, ``*can*``,
    ```h_t```) made into maths, strong, emphasis and literal nodes. A text without markup is one Text node."""
    parts, at = [], 0
    for match in _MARKUP.finditer(text):
        if match.start() > at:
            parts.append(nodes.Text(text[at:match.start()]))
        kind = match.lastgroup
        inner = match[kind]
        if kind == "math":
            parts.append(nodes.math(match[0], inner))
        elif kind == "strong":
            parts.append(nodes.strong(match[0], inner))
        elif kind == "em":
            parts.append(nodes.emphasis(match[0], inner))
        else:
            parts.append(nodes.literal(match[0], inner))
        at = match.end()
    if at < len(text):
        parts.append(nodes.Text(text[at:]))
    return parts or [nodes.Text(text)]


class GluedMarkup(Transform):
    """Render the inline Markdown of every pasted text (``{glue:text}``) that holds some."""

    default_priority = 700  # before SphinxDomains (850), so the math domain sees the maths

    def apply(self, **kwargs):
        for node in list(self.document.findall(nodes.inline)):
            if "pasted-text" not in node.get("classes", []) or not _MARKUP.search(node.astext()):
                continue
            parts = glued_markup(node.astext())
            if len(parts) == 1 and isinstance(parts[0], nodes.Text):
                continue
            node.children = []
            node += parts


def _count(app, doctree, docname):
    if app.config.seqviz_edition != "zh":
        return
    todo = sum(1 for node in doctree.findall(nodes.Element) if TODO_CLASS in node.get("classes", []))
    if todo:
        app.env.metadata[docname]["seqviz_todo"] = todo


def _summary(app, exception):
    if exception is not None or app.config.seqviz_edition != "zh":
        return
    pages = sorted(d for d, m in app.env.metadata.items() if m.get("seqviz_untranslated"))
    cells = {d: m["seqviz_todo"] for d, m in app.env.metadata.items() if m.get("seqviz_todo")}
    LOGGER.info(f"Chinese edition: {len(app.env.found_docs) - len(pages)} pages in Chinese, {len(pages)} not yet "
                f"translated (notice pages), {sum(cells.values())} prose cells shown in English under a notice"
                + (f" ({', '.join(f'{d}: {n}' for d, n in sorted(cells.items()))})" if cells else "")
                + " - python scripts/sync_zh.py --check lists them")
def _number_exercises(app, env):
    """Replace sphinx-exercise's book-wide exercise numbers by the chapter's: (chapter, k) from ``chNN-exK``.

    Runs after Sphinx's toctree collector has numbered every figure (the same event, a later priority);
    returns the pages whose numbers changed, so that they are written again."""
    from seqviz.book import exercise_number

    changed = []
    for docname, numbers in env.toc_fignumbers.items():
        exercises = numbers.get("exercise", {})
        for label in list(exercises):
            try:
                chapter, k = exercise_number(label).split(".")
            except ValueError:
                continue  # an exercise without a chapter label keeps Sphinx's number
            number = (chapter, int(k))
            if exercises[label] != number:
                exercises[label] = number
                changed.append(docname)
    return sorted(set(changed))


def setup(app):
    app.add_config_value("seqviz_edition", "en", "html")
    app.add_directive("zh-untranslated", Untranslated)
    app.add_transform(GluedMarkup)
    app.connect("config-inited", _header)
    app.connect("config-inited", _executed)
    app.connect("html-page-context", lambda app, pagename, templatename, context, doctree: _clean(pagename, context))
    app.connect("html-page-context", _switch)
    app.connect("doctree-read", lambda app, doctree: _count(app, doctree, app.env.docname))
    app.connect("doctree-read", _join_cjk_lines)
    app.connect("build-finished", _summary)
    app.connect("env-get-updated", _number_exercises, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
