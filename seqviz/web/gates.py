"""Chapter 4's gates, live in the reader's browser: :func:`gates_view`.

Type a sentence: the page runs the chapter's trained LSTM (or GRU) on it (``js/views/gates.js`` on
``js/nn/recurrent.js``) and draws every gate per token, as :class:`seqviz.viz.GatesCanvas` does; a slider picks
the token the conveyor belt starts from, and the belt panel shows the product of forget gates from there
(:func:`seqviz.viz.forget_survival`). Tests: ``tests/test_web_gates.py``.

Used by chapter 4.
"""

from __future__ import annotations

import numbers

from . import export
from .page import WebView

TRACE_NAMES = {"lstm": ("forget", "input", "candidate", "output", "c", "h"),
               "gru": ("update", "reset", "candidate", "h")}
DEFAULT_GATES = {"lstm": ("forget", "input", "candidate", "output"), "gru": ("update", "reset", "candidate")}


def _unit_list(values, hidden_size: int, what: str) -> list[int]:
    units = None if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") else list(values)
    if not units or any(isinstance(u, bool) or not isinstance(u, numbers.Integral) for u in units) \
            or min(units) < 0 or max(units) >= hidden_size or len(set(units)) != len(units):
        raise ValueError(f"{what} must be distinct unit indices (ints) in 0..{hidden_size - 1}, got {values!r}")
    return [int(u) for u in units]


def gates_view(model, vocab, sentence: str, *, units=None, unit_labels=None, order=None, gates=None,
               layer: int = 0, start: int = 2, pattern: str = r"[a-z']+", still=None,
               title: str = "Gates and the conveyor belt, live") -> WebView:
    """Chapter 4: type a sentence, see every gate per token; a slider picks the belt's start token.

    ``model`` is a ``SequenceClassifier`` over an LSTM or a GRU (seqviz or ``torch.nn``, any number of
    layers); the view shows layer ``layer``'s gates (``trace[name][layer, 0]``; 0, the first, as the chapter
    reads them). ``gates`` names the quantities drawn, in seqviz's trace names (default: an LSTM's forget,
    input, candidate and output gates; a GRU's update, reset and candidate); with "forget" among them the belt
    panel is drawn. ``order`` lists the hidden units drawn as columns, left to right (default all, in order);
    ``units`` (unit numbers of the model, default: every drawn unit) and ``unit_labels`` are the belt's lines.
    ``start`` is the slider's first value, counting tokens from 1 (2: the subject of the agreement
    sentences). ``pattern`` splits a typed sentence into words as the chapter does
    (``re.findall(pattern, sentence.lower())``); ``still`` is the picture shown without JavaScript.
    """
    _, info = export.classifier(model)
    kind, H, L = info["cell"], info["hidden_size"], info["num_layers"]
    if kind not in TRACE_NAMES:
        raise ValueError(f"expected a classifier over an LSTM or a GRU (a vanilla RNN has no gates), got {kind}")
    layer = export.check_int(layer, "layer", -L, L - 1) % L
    gates = export.check_names(DEFAULT_GATES[kind] if gates is None else gates, "gates")
    unknown = [g for g in gates if g not in TRACE_NAMES[kind]]
    if not gates or unknown:
        raise ValueError(f"gates must be names from the {kind}'s trace {TRACE_NAMES[kind]}, got {gates}")
    order = _unit_list(range(H) if order is None else order, H, "order")
    belt = "forget" in gates
    units = order if units is None else _unit_list(units, H, "units")
    if belt and not set(units) <= set(order):
        raise ValueError(f"units {units} must be among the units drawn (order), {order}")
    unit_labels = [f"unit {u}" for u in units] if unit_labels is None else export.check_names(unit_labels,
                                                                                               "unit_labels")
    if len(unit_labels) != len(units):
        raise ValueError(f"{len(unit_labels)} unit labels for {len(units)} units")
    if isinstance(start, bool) or not isinstance(start, numbers.Integral) or start < 1:
        raise ValueError(f"start counts tokens from 1: expected an int >= 1, got {start!r}")
    start = int(start)
    weights, _ = export.classifier(model, num_layers=layer + 1)   # the head and the layers above: not needed
    page_vocab, title = export.vocabulary(vocab, pattern), export.check_title(title)
    info = {**info, "layer": layer}
    ids = export.known_ids(sentence, vocab, pattern)
    if ids is None:
        raise ValueError(f"the first sentence must be words the model knows, got {sentence!r}")
    trace = export.classifier_trace(model, ids)   # seqviz's numbers for the first sentence: the browser check
    expected = {"gates": {g: trace[g][layer, 0][:, order] for g in gates}}   # compares the page's with them
    return WebView("gates", weights, page_vocab,
                   {"model": info, "sentence": sentence, "gates": gates, "order": order, "belt": belt,
                    "belt_units": units if belt else [], "unit_labels": unit_labels if belt else [],
                    "start": start, "title": title}, still, expected)
