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
- Exercises are numbered by chapter from their labels: ``ch08-ex2`` is "Exercise 8.2" and its
  solution "Solution to Exercise 8.2" (``ch04b-ex2``: "Exercise 4b.2"), the rule of
  ``seqviz.book.exercise_number`` that the text and the student edition follow too. sphinx-exercise
  numbers its enumerable exercises with Sphinx's figure numbers (``numfig``, one count through the
  whole book); once Sphinx has assigned them, the numbers of labelled exercises are replaced.
"""

from __future__ import annotations

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
    app.connect("html-page-context", lambda app, pagename, templatename, context, doctree: _clean(pagename, context))
    app.connect("env-get-updated", _number_exercises, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
