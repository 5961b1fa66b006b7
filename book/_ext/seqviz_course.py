"""The course build: the same book with every solution removed (``make book SOLUTIONS=0``; book/instructors.md).

The published book shows each exercise's solution in a dropdown, for readers who study alone. An instructor who
runs a class builds it with ``SOLUTIONS=0`` (or ``SEQVIZ_SOLUTIONS=0``) in the environment; then this extension

- removes every solution from every page: ``{solution}`` directives and the gated ``{solution-start}`` ...
  ``{solution-end}`` blocks with the code cells inside them (after sphinx-exercise has merged them), and any code
  cell tagged ``solution`` left outside a gate;
- stops Sphinx from copying the pages' sources (``_sources/``: the notebooks, solutions included) and drops the
  download and launch (Colab) buttons, which would hand out the notebooks with their solutions;
- marks each page (``<meta name="seqviz-solutions" content="0">``) so that ``scripts/browser_check.py`` checks that
  no solution is left on it.

Without the variable the build is the published book, unchanged.
"""

from __future__ import annotations

import os

from docutils import nodes
from sphinx.transforms import SphinxTransform


def solutions_shown() -> bool:
    value = os.environ.get("SEQVIZ_SOLUTIONS", os.environ.get("SOLUTIONS", "1")).strip().lower()
    return value not in ("0", "no", "false", "off")


class RemoveSolutions(SphinxTransform):
    """Every solution node, and every code cell tagged ``solution``, out of the document."""

    default_priority = 900  # after sphinx-exercise merges the gated solutions (priority 10)

    def apply(self):
        if solutions_shown():
            return
        from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node

        for kind in (solution_node, solution_start_node, solution_end_node):
            for node in list(self.document.findall(kind)):
                node.parent.remove(node)
        for node in list(self.document.findall(nodes.container)):
            if "tag_solution" in node.get("classes", []) and node.parent is not None:
                node.parent.remove(node)


def _configure(app, config):
    if solutions_shown():
        return
    config.html_copy_source = False
    config.html_show_sourcelink = False
    options = dict(config.html_theme_options or {})
    if "use_download_button" in options or config.html_theme == "sphinx_book_theme":
        options["use_download_button"] = False
    if "launch_buttons" in options:
        options["launch_buttons"] = {}
    config.html_theme_options = options


def _mark(app, pagename, templatename, context, doctree):
    if not solutions_shown():
        context["metatags"] = context.get("metatags", "") + '\n<meta name="seqviz-solutions" content="0">'


def setup(app):
    app.add_transform(RemoveSolutions)
    app.connect("config-inited", _configure, priority=900)
    app.connect("html-page-context", _mark)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
