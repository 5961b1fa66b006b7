"""Chapter 10's decision guide as HTML: the live guide's picture.

- :func:`guide_html`: the answer :func:`seqviz.guide.recommend` gives, where its evidence comes from (measured in
  this run, the book's long runs, or the literature, cited), the reasons, and every number or finding behind it
  (the :class:`seqviz.guide.Evidence` it read), in the book's language (:func:`seqviz.book.translate`: the Chinese
  edition's catalogue holds every sentence the rules write, as patterns over their numbers).

The rules themselves live in :mod:`seqviz.guide`; this module only draws their answer.
"""

from __future__ import annotations

import html

from .. import i18n
from ..book import listing, translate


def guide_html(advice: dict, evidence: dict):
    """The live guide's picture: the answer, its regime, the reasons, and every number or finding behind it.
    Returns an ``IPython.display.HTML``."""
    from IPython.display import HTML

    for key in ("model", "reasons", "evidence", "choice"):
        if not isinstance(advice, dict) or key not in advice:
            raise ValueError(f"advice must be the dict that recommend() returns (with {key!r}), got {advice!r}")
    regime = advice.get("regime", "measured here")
    cite = "; ".join(advice.get("cite") or ())  # the works, as the bibliography names them: not translated
    # each text is written whole in English, then translated whole (the catalogue's patterns translate the parts)
    if regime == "measured here" and "setting" in evidence:
        where = f"measured here: {evidence['setting'].summary}"
    elif regime == "the book's long runs":  # the long runs decide; the literature is what they are read with
        where = "the book's long runs (one CPU thread, up to half an hour each)"
        where += f", read with {cite}" if cite else ""
    elif cite:
        where = f"{regime}: {cite}"
    else:
        where = regime
    reasons = "".join(f"<li>{html.escape(translate(r))}</li>" for r in advice["reasons"])
    rows = "".join(_evidence_item(evidence[k]) for k in dict.fromkeys(advice["evidence"]) if k != "setting")
    choice = listing(f"{translate(k)} = {translate(v)}" for k, v in advice["choice"].items())
    start = translate(f"Start with: {advice['model']}")
    return HTML(f"<div class='seqviz-guide'><p><b>{html.escape(start)}</b> "
                f"<small>{html.escape(_parenthesised(choice))}</small></p>"
                f"<p><i>{html.escape(translate(f'Evidence {where}'))}</i></p>"
                f"<ul>{reasons}</ul><p>{html.escape(translate('What decided it:'))}</p><ul>{rows}</ul></div>")


def _evidence_item(evidence) -> str:
    """One piece of evidence as a list item: what it says, then its regime and where it comes from (a section of the
    book, or the works cited, which keep the names the bibliography gives them)."""
    where = translate(f"({evidence.regime}; {evidence.source})")
    return f"<li>{html.escape(translate(evidence.summary))} <small>{html.escape(where)}</small></li>"


def _parenthesised(text: str) -> str:
    """``text`` in the parentheses of its language: full-width around Chinese."""
    return f"（{text}）" if i18n.has_cjk(text) else f"({text})"
