"""Live views that run in the reader's browser, in the published book as in a kernel.

A view here is HTML with the model's weights and a small forward pass in JavaScript (``js/``), so typing a
sentence recomputes the picture on the page itself. Tests in headless Chromium prove the page's numbers
equal seqviz's (tests/test_web_views.py).
"""

from .gates import gates_view
from .heads import head_view
from .page import WebView, bundle, tensor
from .translation import alignment_view, beam_view
from .views import sticky_note_view

from .gates import gates_view
from .heads import head_view
from .page import WebView, bundle, tensor
from .translation import alignment_view, beam_view
from .views import sticky_note_view

__all__ = ["WebView", "alignment_view", "beam_view", "bundle", "gates_view", "head_view", "sticky_note_view", "tensor"]
