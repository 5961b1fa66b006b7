"""Plotly figures in the built book: the renderer every chapter (1 to 10) switches on in its imports cell.

``sv.viz.use_book_renderer()`` is called explicitly by each chapter's imports cell; importing
``seqviz.viz`` changes no global state (neither plotly's renderer nor matplotlib's backend).
While the book is built (``SEQVIZ_BOOK=1``, set by ``make book``; :data:`seqviz.config.BOOK`) it
makes plotly draw every figure as HTML that expects one site-wide copy of plotly.js, which the
book serves itself; anywhere else (Jupyter, Colab, the tests) it does nothing, so plotly keeps
its own default there. :func:`book_html` is that HTML for one figure (a live view's still).

On a narrow screen (a phone: the figure under 560 px wide) each figure rearranges itself once drawn
(:data:`NARROW_SCRIPT`): a title too long for the width is wrapped again to that width (words, or Chinese
characters counted double) instead of running off the right edge, and a legend on the right moves under the
plot instead of squeezing it. Back on a wide screen the figure's own layout returns.
"""

from __future__ import annotations

import plotly.io as pio
from plotly.io._base_renderers import MimetypeRenderer

from .. import config
from . import _language  # a module, not its names: _language reads RENDERER from here

PLOTLY_CONFIG = {"displaylogo": False, "responsive": True}
RENDERER = "seqviz_book"
# runs after each figure is drawn; plotly fills in {plot_id}
NARROW_SCRIPT = r"""
(function () {
  var gd = document.getElementById('{plot_id}');
  if (!gd || !window.Plotly || !gd.layout) return;
  var layout = gd.layout, wideTitle = (layout.title && layout.title.text) || '';
  // the title as one line, rewrapped to the phone's width (the desktop's breaks would leave lines too long)
  var title = wideTitle.replace(/\s*<br\s*\/?>\s*/gi, ' '), wideLines = wideTitle.split(/<br\s*\/?>/i).length;
  var wide = {title: wideTitle, top: (layout.margin || {}).t,
              legend: JSON.parse(JSON.stringify(layout.legend || {}))};
  // plotly lifts a title anchored at its top by part of a line for every line after the first: pad it down
  var anchoredTop = (layout.title || {}).yanchor === 'top', pad = ((layout.title || {}).pad || {}).t || 0;
  var sliders = (layout.sliders || []).length > 0, narrow = null;
  var HAN = '\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f', STOPS = /[，。：；、？！）」』]/;
  var CJK = new RegExp('[' + HAN + ']'), TOKENS = new RegExp('\\s+|[' + HAN + ']|[^\\s' + HAN + ']+', 'g');
  function units(text) {  // a Chinese character is as wide as two Latin letters
    var n = 0;
    for (var i = 0; i < text.length; i++) n += CJK.test(text[i]) ? 2 : 1;
    return n;
  }
  function wrap(text, chars) {  // words (and each Chinese character) filled into lines of at most chars
    var lines = [], line = '', space = '';
    (text.match(TOKENS) || []).forEach(function (token) {
      if (/^\s+$/.test(token)) { space = line ? ' ' : ''; return; }
      if (line && !STOPS.test(token) && units(line + space + token) > chars) { lines.push(line); line = token; }
      else { line += space + token; }
      space = '';
    });
    if (line) lines.push(line);
    return lines;
  }
  function fit() {
    var now = gd.clientWidth > 0 && gd.clientWidth < 560;
    if (now === narrow) return;
    narrow = now;
    var update = {};
    if (now) {
      var chars = Math.max(18, Math.floor((gd.clientWidth - 40) / 9));
      var tooLong = wideTitle.split(/<br\s*\/?>/i).some(function (line) { return units(line) > chars; });
      if (tooLong) {
        var lines = wrap(title, chars), more = Math.max(0, lines.length - wideLines);
        update['title.text'] = lines.join('<br>');
        update['margin.t'] = (wide.top || 50) + (anchoredTop ? 31 : 20) * more;
        if (anchoredTop) update['title.pad.t'] = pad + 11 * more;
      }
      var shown = gd.data.filter(function (t) { return t.showlegend !== false && t.name; }).length;
      if (!sliders && shown > 1 && layout.showlegend !== false && wide.legend.orientation !== 'h') {
        update['legend.orientation'] = 'h';
        update['legend.x'] = 0; update['legend.xanchor'] = 'left';
        update['legend.y'] = -0.3; update['legend.yanchor'] = 'top';
      }
    } else {
      update['title.text'] = wide.title;
      update['margin.t'] = wide.top;
      if (anchoredTop) update['title.pad.t'] = pad;
      update.legend = wide.legend;
    }
    if (Object.keys(update).length) window.Plotly.relayout(gd, update);
  }
  fit();
  window.addEventListener('resize', fit);
})();
"""


def book_html(figure) -> str:
    """A plotly figure (or its dict) as the book's HTML: a ``div`` and a script, no plotly.js, no MathJax; its
    labels in the book's language (:func:`seqviz.book.set_language`)."""
    fig_dict = _language.localize_figure(figure.to_dict() if hasattr(figure, "to_dict") else figure)
    return pio.to_html(fig_dict, include_plotlyjs=False, include_mathjax=False, full_html=False,
                       validate=False, config=PLOTLY_CONFIG, default_width="100%", post_script=NARROW_SCRIPT)


class BookRenderer(MimetypeRenderer):
    """HTML that draws the figure with a global ``Plotly`` loaded once per site.

    Plain ``plotly_mimetype`` output is dropped by myst-nb, and the ``notebook``
    renderer inlines 4.8 MB of plotly.js into every page; this renderer does neither.
    """

    def to_mimebundle(self, fig_dict):
        return {"text/html": book_html(fig_dict)}


def use_book_renderer(force: bool = False) -> bool:
    """Make the book renderer plotly's default while the book is built (or always, with ``force=True``).

    Returns whether it did. Outside a book build it changes nothing, so a chapter can call
    it unconditionally: in Jupyter and Colab plotly keeps its own renderer.
    """
    if not (force or config.BOOK):
        return False
    pio.renderers[RENDERER] = BookRenderer()
    pio.renderers.default = RENDERER
    return True
