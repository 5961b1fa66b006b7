"""Chapter 10's decision guide as HTML: the live guide's picture.

- :func:`guide_html`: the answer :func:`seqviz.guide.recommend` gives, where its evidence comes from (measured in
  this run, the book's long runs, or the literature, cited), the reasons, and every number or finding behind it
  (the :class:`seqviz.guide.Evidence` it read).

The rules themselves live in :mod:`seqviz.guide`; this module only draws their answer.
"""

from __future__ import annotations

import html


def guide_html(advice: dict, evidence: dict):
    """The live guide's picture: the answer, its regime, the reasons, and every number or finding behind it.
    Returns an ``IPython.display.HTML``."""
    from IPython.display import HTML

    for key in ("model", "reasons", "evidence", "choice"):
        if not isinstance(advice, dict) or key not in advice:
            raise ValueError(f"advice must be the dict that recommend() returns (with {key!r}), got {advice!r}")
    regime = advice.get("regime", "measured here")
    if regime == "measured here" and "setting" in evidence:
        where = f"measured here: {evidence['setting'].summary}"
    elif regime == "the book's long runs":  # the long runs decide; the literature is what they are read with
        where = "the book's long runs (one CPU thread, up to half an hour each)"
        where += f", read with {'; '.join(advice['cite'])}" if advice.get("cite") else ""
    elif advice.get("cite"):
        where = f"{regime}: {'; '.join(advice['cite'])}"
    else:
        where = regime
    reasons = "".join(f"<li>{html.escape(r)}</li>" for r in advice["reasons"])
    rows = "".join(f"<li>{html.escape(evidence[k].summary)} <small>({html.escape(evidence[k].regime)}; "
                   f"{html.escape(evidence[k].source)})</small></li>"
                   for k in dict.fromkeys(advice["evidence"]) if k != "setting")
    choice = ", ".join(f"{k} = {v}" for k, v in advice["choice"].items())
    return HTML(f"<div class='seqviz-guide'><p><b>Start with: {html.escape(advice['model'])}</b> "
                f"<small>({html.escape(choice)})</small></p><p><i>Evidence {html.escape(where)}</i></p>"
                f"<ul>{reasons}</ul><p>What decided it:</p><ul>{rows}</ul></div>")
