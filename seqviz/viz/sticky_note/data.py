"""A reading of chapter 2's sticky note, checked, and what the views compute from it. No drawing.

A reading is ``(tokens, states, probs)``: ``states`` (T, H) is the hidden state after each token and
``probs`` (T, C) the model's class probabilities at each step (or None).

- :func:`check_reading`: validate one reading; :func:`step_changes`: ``||h_t - h_{t-1}||`` per step;
- :func:`tracked_class`, :func:`class_name`, :func:`step_title`: the class a view follows, its name,
  and the title of step t (shared by the plotly figure and the live picture).
"""

from __future__ import annotations

import html

import numpy as np

from .._plumbing import as_array

NOTE_COLORSCALE = "RdBu_r"


def check_reading(tokens, states, probs=None, class_names=None):
    """Validate one reading; return (tokens list, states (T, H) array, probs (T, C) array or None)."""
    tokens = [str(t) for t in tokens]
    if not tokens:
        raise ValueError("the sentence is empty: type at least one word")
    states = as_array(states)
    if states.ndim != 2:
        raise ValueError(f"states must be (T, H) = (tokens, hidden units), got shape {states.shape}")
    if states.shape[0] != len(tokens):
        raise ValueError(f"states has {states.shape[0]} rows but there are {len(tokens)} tokens; "
                         "expected one hidden state per token")
    if probs is not None:
        probs = as_array(probs)
        if probs.ndim == 1:  # (T,): the probability of one class
            probs = probs[:, None]
        if probs.ndim != 2 or probs.shape[0] != len(tokens):
            raise ValueError(f"probs must be (T, C) with T = {len(tokens)} tokens, got shape {probs.shape}")
        if class_names is not None and len(class_names) != probs.shape[1]:
            raise ValueError(f"{len(class_names)} class names for {probs.shape[1]} classes")
    return tokens, states, probs


def step_changes(states) -> np.ndarray:
    """``||h_t - h_{t-1}||`` for each step t (T,), with ``h_0 = 0``: how much each token rewrote the note."""
    states = as_array(states)
    if states.ndim != 2:
        raise ValueError(f"states must be (T, H), got shape {states.shape}")
    previous = np.vstack([np.zeros((1, states.shape[1])), states[:-1]])  # (T, H): h_{t-1}
    return np.linalg.norm(states - previous, axis=1)  # (T,)


def tracked_class(probs, track):
    """The class whose probability the views plot: ``track``, or the prediction at the last step."""
    if probs is None:
        return None
    if track is None:
        return int(probs[-1].argmax())
    if not 0 <= int(track) < probs.shape[1]:
        raise ValueError(f"track must be a class index in 0..{probs.shape[1] - 1}, got {track}")
    return int(track)


def class_name(class_names, c) -> str:
    """The name of class ``c``: ``class_names[c]``, or "class c" without names."""
    return str(class_names[c]) if class_names is not None else f"class {c}"


def step_title(tokens, states, probs, upto, class_names) -> str:
    """The title of step ``upto`` (1-based): the token read and the prediction there (HTML-escaped), short
    enough for a phone; how much the token changed the note is the figure's highlighted bar."""
    text = f"word {upto} of {len(tokens)}, '{html.escape(tokens[upto - 1])}'"
    if probs is not None:
        c = int(probs[upto - 1].argmax())
        text += f": predicts {html.escape(class_name(class_names, c))} ({probs[upto - 1, c]:.0%})"
    return text
