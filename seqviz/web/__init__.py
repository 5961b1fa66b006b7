"""Live views that run in the reader's browser, in the published book as in a kernel.

A view here is HTML with the model's weights (under the names of ``names.json``) and a small forward pass in
JavaScript (``js/nn/``, one twin per Python original; the views in ``js/views/``), so typing a sentence
recomputes the picture on the page itself. One view per chapter family:

- :func:`sticky_note_view` (chapter 2), :func:`gates_view` (chapter 4);
- :func:`beam_view` (chapter 6), :func:`alignment_view` (chapter 7);
- :func:`generate_view` (chapter 4b): a language model writes, with temperature, top-k and seed;
- :func:`head_view` (chapters 8 and 9).

Golden vectors run under node prove the page's numbers equal seqviz's (``tests/test_js_twins.py``, no browser);
tests in headless Chromium drive the controls and the drawing (``tests/test_web_*.py``), and the browser check
compares the numbers again on every built page, with the chapter's trained weights.
"""

from .gates import gates_view
from .generate import generate_view
from .heads import head_view
from .page import WebView, bundle, tensor
from .sticky_note import sticky_note_view
from .translation import alignment_view, beam_view

__all__ = ["WebView", "alignment_view", "beam_view", "bundle", "gates_view", "generate_view", "head_view",
           "sticky_note_view", "tensor"]
