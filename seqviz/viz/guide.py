"""Chapter 10's decision guide as HTML: the live guide's picture.

- :func:`guide_html`: the answer :func:`seqviz.guide.recommend` gives, its reasons, and every
  measured number behind it (the :class:`seqviz.guide.Evidence` it read).

The rules themselves live in :mod:`seqviz.guide`; this module only draws their answer.
"""

from __future__ import annotations

import html


def guide_html(advice: dict, evidence: dict):
    """The live guide's picture: the answer, the reasons, and every measured number behind it.
    Returns an ``IPython.display.HTML``."""
    from IPython.display import HTML

    reasons = "".join(f"<li>{html.escape(r)}</li>" for r in advice["reasons"])
    rows = "".join(f"<li>{html.escape(evidence[k].summary)} <small>(section {html.escape(evidence[k].source)})"
                   f"</small></li>" for k in dict.fromkeys(advice["evidence"]))
    choice = ", ".join(f"{k} = {v}" for k, v in advice["choice"].items())
    return HTML(f"<div class='seqviz-guide'><p><b>Start with: {html.escape(advice['model'])}</b> "
                f"<small>({html.escape(choice)})</small></p><ul>{reasons}</ul>"
                f"<p>Measured in this run, and deciding:</p><ul>{rows}</ul></div>")
