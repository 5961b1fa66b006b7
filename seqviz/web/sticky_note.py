"""Chapter 2's sticky note, live in the reader's browser: :func:`sticky_note_view`.

It takes the chapter's trained classifier and vocabulary, exports the weights (:mod:`.export`) and returns a
:class:`~seqviz.web.page.WebView` of ``views.sticky_note`` (``js/views/sticky_note.js`` over
``js/nn/recurrent.js``): type a sentence, move the step. ``still`` is the picture shown without JavaScript and
in print (``seqviz.viz.NoteCanvas``). Tests: ``tests/test_js_twins.py`` (the numbers, under node),
``tests/test_web_views.py`` (the view).
"""

from __future__ import annotations

import torch

from . import export
from .page import WebView


def sticky_note_view(model, vocab, sentence: str, *, class_names, track: int = 0, pattern: str = r"[a-z']+",
                     still=None, title: str = "The sticky note, rewritten token by token") -> WebView:
    """Chapter 2: type a sentence, move the step; the note, each token's change and P(``class_names[track]``).

    ``model`` is a ``SequenceClassifier`` over a one-layer RNN, LSTM or GRU; ``pattern`` splits a typed
    sentence into words as the chapter's ``read`` does (``re.findall(pattern, sentence.lower())``).
    """
    weights, info = export.classifier(model)
    class_names = export.check_names(class_names, "class_names")
    if len(class_names) != model.head.out_features:
        raise ValueError(f"expected {model.head.out_features} class names, got {len(class_names)}")
    track = export.check_int(track, "track (a class index)", 0, len(class_names) - 1)
    page_vocab = export.vocabulary(vocab, pattern)
    title = export.check_title(title)
    ids = export.known_ids(sentence, vocab, pattern)
    if ids is None:
        raise ValueError(f"the first sentence must be words the model knows, got {sentence!r}")
    trace = export.classifier_trace(model, ids)   # seqviz's numbers for the first sentence: the browser check
    with torch.no_grad():                         # compares the page's with them
        states = trace["h"][-1, 0]
        expected = {"states": states, "probs": model.head(states).softmax(-1)}
    return WebView("sticky_note", weights, page_vocab,
                   {"model": info, "sentence": sentence, "class_names": class_names, "track": track,
                    "title": title}, still, expected)
