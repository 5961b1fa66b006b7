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


def setup(app):
    app.connect("html-page-context", lambda app, pagename, templatename, context, doctree: _clean(pagename, context))
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
