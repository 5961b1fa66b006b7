"""The translator's live views that run in the reader's browser (chapters 6 and 7).

Both take a trained :class:`~seqviz.models.Seq2Seq` and its two vocabularies, export the model's weights
(every parameter under its ``state_dict`` name) and return a :class:`~seqviz.web.page.WebView`; the page
runs the encoder and the decoder in ``js/nn/seq2seq.js`` and the search in ``js/nn/beam.js`` (the views:
``js/views/alignment.js``, ``js/views/beam_tree.js``), reading the weights named in ``names.json``.

- :func:`alignment_view`: chapter 7, the attention weights (output token x source word) of the greedy
  translation of a typed sentence, as the chapter's ``align`` computes them with ``model.greedy``;
- :func:`beam_view`: chapter 6, ``seqviz.decode.beam_search(model.log_prob_fn(ids), ...,
  return_record=True)`` on a typed sentence, drawn as a tree, with the beam size and alpha as sliders.

The page runs any ``Seq2Seq``: an RNN, LSTM or GRU encoder, one- or two-directional, with or without
attention (the decoder is always a GRU). Chapter 6's translator has a bidirectional GRU encoder and no
attention, chapter 7's the same encoder with additive attention.
"""

from __future__ import annotations

import math

import torch

from ..decode import beam_search
from ..models import Seq2Seq
from . import export
from .page import WebView


def _model_info(model, src_vocab, tgt_vocab) -> dict:
    """What the page needs to know about ``model``, after checking that it can run it."""
    if not isinstance(model, Seq2Seq):
        raise ValueError(f"expected a seqviz.models.Seq2Seq (the recurrent encoder-decoder), "
                         f"got {type(model).__name__}")
    for name, vocab, size in (("src_vocab", src_vocab, model.encoder.vocab_size),
                              ("tgt_vocab", tgt_vocab, model.tgt_vocab_size)):
        if not hasattr(vocab, "itos") or not hasattr(vocab, "stoi"):
            raise ValueError(f"{name} must be a seqviz.data.Vocab (with .itos), got {type(vocab).__name__}")
        if len(vocab.itos) != size:
            raise ValueError(f"{name} has {len(vocab.itos)} words but the model expects {size}")
    for name in ("bos_id", "eos_id"):
        export.check_int(getattr(model, name), f"the model's {name}", 0, model.tgt_vocab_size - 1)
    return {"cell": export.cell_kind(model.encoder.forward_rnn), "bidirectional": model.encoder.bidirectional,
            "attention": model.attention is not None, "hidden_size": model.hidden_size}


def _weights(model) -> dict:
    """The weights the page's translator reads (names.json's ``seq2seq``), exactly."""
    roles = export.NAMES["seq2seq"]
    names = [roles["source_embedding"], *export.recurrent_names(roles["forward_rnn"], 1)]
    if model.encoder.bidirectional:
        names += export.recurrent_names(roles["backward_rnn"], 1)
    names += [roles["bridge_weight"], roles["bridge_bias"], roles["embedding"],
              *export.recurrent_names(roles["decoder_rnn"], 1), roles["out_weight"], roles["out_bias"]]
    if model.attention is not None:
        names += [roles["query_weight"], roles["key_weight"], roles["key_bias"], roles["v_weight"]]
    return export.named_weights(model, names)


def _options(model, tgt_vocab, sentence, title, extra_steps) -> dict:
    if not isinstance(sentence, str) or not sentence.split():
        raise ValueError(f"sentence must be a non-empty string of source words, got {sentence!r}")
    export.check_int(extra_steps, "extra_steps", 1)   # output tokens beyond the source length
    return {"sentence": sentence, "title": export.check_title(title), "extra_steps": extra_steps,
            "bos_id": int(model.bos_id),
            "eos_id": int(model.eos_id), "target_itos": list(tgt_vocab.itos),
            "target_specials": list(getattr(tgt_vocab, "specials", ()))}


def alignment_view(model, src_vocab, tgt_vocab, sentence: str, *, extra_steps: int = 3, max_words: int = 20,
                   still=None, title: str = "Type digit words (zero ... nine)",
                   heading: str = "attention weights") -> WebView:
    """Chapter 7: type a sentence; the attention weights of its greedy translation, one row per output token.

    The page decodes greedily for at most ``len(words) + extra_steps`` tokens, stopping after eos (the
    chapter's ``align``: ``model.greedy(ids, max_len=len(ids) + 3)``); ``max_words`` bounds what the box takes.
    """
    info = _model_info(model, src_vocab, tgt_vocab)
    if not info["attention"]:
        raise ValueError("alignment_view needs a Seq2Seq with attention (built with attention=True), got one without")
    options = _options(model, tgt_vocab, sentence, title, extra_steps) | {
        "model": info, "heading": export.check_title(heading, "heading")}
    words = export.vocabulary(src_vocab, r"\S+", True, export.check_int(max_words, "max_words", 1))
    expected = {}
    ids = export.known_ids(sentence, src_vocab)
    if ids is not None:   # seqviz's greedy translation and its weights: the browser check compares the page's
        with torch.no_grad():
            output, weights = model.greedy(torch.tensor([ids], device=_device(model)), max_len=len(ids) + extra_steps)
        out = output[0].tolist()
        n = out.index(model.eos_id) + 1 if model.eos_id in out else len(out)
        expected = {"ids": out[:n], "weights": weights[0, :n]}
    return WebView("alignment", _weights(model), words, options, still, expected)


def beam_view(model, src_vocab, tgt_vocab, sentence: str, *, beam_size: int = 3, alpha: float = 0.0,
              max_beam: int = 8, max_alpha: float = 2.0, pruned_per_step: int = 2, extra_steps: int = 5,
              max_words: int = 20, still=None, title: str = "Beam search, live") -> WebView:
    """Chapter 6: type a sentence, move the beam size (1 to ``max_beam``) and alpha (0 to ``max_alpha``).

    The page runs ``beam_search(model.log_prob_fn(ids), bos, eos, beam_size, max_len=len(words) +
    extra_steps, length_penalty=alpha, return_record=True, pruned_per_step=pruned_per_step)`` and draws
    the record as ``seqviz.viz.BeamTreePicture`` does; the title gives the best answer and its score.
    """
    info = _model_info(model, src_vocab, tgt_vocab)
    max_beam = export.check_int(max_beam, "max_beam", 1)
    beam_size = export.check_int(beam_size, "beam_size", 1, max_beam)
    number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)  # noqa: E731
    if not (number(alpha) and number(max_alpha)) or max_alpha <= 0 or not 0 <= alpha <= max_alpha:
        raise ValueError(f"alpha must lie in 0..max_alpha = {max_alpha!r} (max_alpha > 0), got {alpha!r}")
    pruned_per_step = export.check_int(pruned_per_step, "pruned_per_step", 0)
    words = export.vocabulary(src_vocab, r"\S+", True, export.check_int(max_words, "max_words", 1))
    options = _options(model, tgt_vocab, sentence, title, extra_steps) | {
        "model": info, "beam_size": beam_size, "alpha": float(alpha), "max_beam": max_beam,
        "max_alpha": float(max_alpha), "pruned_per_step": pruned_per_step}
    expected = {}
    ids = export.known_ids(sentence, src_vocab)
    if ids is not None:   # seqviz's hypotheses for the first sentence: the browser check compares the page's
        with torch.no_grad():
            hypotheses = beam_search(model.log_prob_fn(ids), model.bos_id,
                                     model.eos_id, beam_size, max_len=len(ids) + extra_steps, length_penalty=alpha)
        expected = {"hypotheses": [{"tokens": h.tokens, "log_prob": h.log_prob, "score": h.score}
                                   for h in hypotheses]}
    return WebView("beam_tree", _weights(model), words, options, still, expected)


def _device(model):
    return next(model.parameters()).device
