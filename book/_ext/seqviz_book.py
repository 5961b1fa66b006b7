"""Sphinx glue for the book: pages that work offline and throw no errors.

- Jupyter Book registers sphinx-thebe, whose inline ``const THEBE_JS_URL = ...`` script
  lands twice on every page ("Identifier 'THEBE_JS_URL' has already been declared") and
  points at a CDN. The book does not use Thebe (launch buttons go to Colab), so its
  scripts and styles are removed from every page.
- Scripts added twice to a page are kept once.
- The theme logs "Got invalid theme mode" when no default mode is set: default to auto.
- plotly.js (4.8 MB) is kept only on pages that hold a plotly figure.
"""

from __future__ import annotations


def _name(asset) -> str:
    return str(getattr(asset, "filename", asset) or "")


def _is_thebe(asset) -> bool:
    body = str(getattr(asset, "attributes", {}).get("body", "")) if hasattr(asset, "attributes") else ""
    return "thebe" in _name(asset) or "THEBE_JS_URL" in body


def _clean(pagename, context):
    if not context.get("default_mode"):
        context["default_mode"] = "auto"
    needs_plotly = "plotly-graph-div" in str(context.get("body", ""))
    for key in ("script_files", "css_files"):
        assets = context.get(key)
        if not assets:
            continue
        kept, seen = [], set()
        for asset in assets:
            body = getattr(asset, "attributes", {}).get("body", "") if hasattr(asset, "attributes") else ""
            identity = (_name(asset), body)
            if _is_thebe(asset) or identity in seen or ("plotly" in _name(asset) and not needs_plotly):
                continue
            seen.add(identity)
            kept.append(asset)
        context[key] = kept


def setup(app):
    app.connect("html-page-context", lambda app, pagename, templatename, context, doctree: _clean(pagename, context))
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
