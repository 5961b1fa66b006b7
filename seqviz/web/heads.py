"""The head view of chapters 8 and 9, live in the reader's browser: :func:`head_view`.

The reader types a sentence (chapter 8: the encoder of a :class:`~seqviz.models.TransformerSeq2Seq`) or two
(chapter 9: a :class:`~seqviz.models.BertMini` reading ``[CLS] A [SEP] B [SEP]``), picks a layer and a head,
and the page runs the encoder's forward pass (``js/nn/transformer.js``) and draws that head's weights as
:class:`seqviz.viz.HeadsCanvas` does (``js/views/head_view.js``). The exporters below write only what the
encoder needs (the decoder, the MLM and NSP heads stay behind), under the ``state_dict`` names of
``names.json``.

Used by chapters 8 and 9.
"""

from __future__ import annotations

import numbers

import torch
from torch import nn

from ..data import encode_pairs
from ..models import BertMini, TransformerSeq2Seq
from ..models.mha import LearnedPositionalEncoding, SinusoidalPositionalEncoding
from . import export
from .page import WebView

SENTENCE_PATTERN = r"\S+"  # the chapters split a typed sentence with str.lower().split()


def _layers_info(layers, prefix: str) -> dict:
    """What the page's encoder stack needs to know of ``layers`` (TransformerEncoderLayers), checked; ``prefix``
    is their state_dict prefix (names.json's ``layers``, e.g. ``"encoder_layers."``)."""
    first = layers[0]
    for i, layer in enumerate(layers):
        attention = layer.self_attn
        if attention.in_proj_bias is None or layer.linear1.bias is None:
            raise ValueError(f"{prefix}{i}: the page's encoder layers have biases: expected bias=True")
        if (layer.norm_first, layer.activation_name, layer.norm1.eps, attention.num_heads) != \
                (first.norm_first, first.activation_name, first.norm1.eps, first.self_attn.num_heads):
            raise ValueError(f"{prefix}{i} differs from {prefix}0 (norm_first, activation, eps or heads): the page "
                             "runs one kind of layer")
    return {"layers": prefix, "num_layers": len(layers), "num_heads": int(first.self_attn.num_heads),
            "d_model": int(first.d_model), "norm_first": bool(first.norm_first),
            "activation": first.activation_name, "eps": float(first.norm1.eps)}


def _layer_names(prefix: str, num_layers: int, attention_only: bool) -> list[str]:
    """The names of every encoder layer's weights; the last layer's attention (and norm1) only with
    ``attention_only`` (its feed-forward block comes after the attention the view draws)."""
    roles = export.NAMES["encoder_layer"]
    names = []
    for i in range(num_layers):
        last = attention_only and i == num_layers - 1
        names += [f"{prefix}{i}.{roles[r]}" for r in roles
                  if not last or r.startswith(("in_proj", "out_proj", "norm1"))]
    return names


def transformer_encoder(model: TransformerSeq2Seq, attention_only: bool = False) -> tuple[dict, dict]:
    """Chapter 8: ``(weights, model info)`` of a ``TransformerSeq2Seq``'s encoder (``nn.transformer.seq2seqEncode``)."""
    if not isinstance(model, TransformerSeq2Seq):
        raise ValueError(f"expected a seqviz.models.TransformerSeq2Seq, got {type(model).__name__}")
    position = model.src_position
    if isinstance(position, SinusoidalPositionalEncoding):
        positional = "sinusoidal"
    elif isinstance(position, LearnedPositionalEncoding):
        positional = "learned"
    elif isinstance(position, nn.Identity):
        positional = "none"
    else:
        raise ValueError(f"the page knows sinusoidal, learned or no positions, got {type(position).__name__}")
    roles = export.NAMES["transformer_seq2seq"]
    info = _layers_info(model.encoder_layers, roles["layers"])
    final_norm = isinstance(model.encoder_norm, nn.LayerNorm) and not attention_only
    names = [roles["embedding"], *_layer_names(roles["layers"], info["num_layers"], attention_only)]
    if positional == "learned":
        names.append(roles["position"])
    if final_norm:
        names += [roles["final_norm_weight"], roles["final_norm_bias"]]
    info.update(kind="transformer", positional=positional, base=10000.0, max_len=int(model.max_len),
                final_norm=final_norm, attention_only=attention_only)
    return export.named_weights(model, names), info


def bert_encoder(model: BertMini, vocab, attention_only: bool = False) -> tuple[dict, dict]:
    """Chapter 9: ``(weights, model info)`` of a ``BertMini``'s input and encoder (``nn.transformer.bertEncode``)."""
    if not isinstance(model, BertMini):
        raise ValueError(f"expected a seqviz.models.BertMini, got {type(model).__name__}")
    for token in ("[CLS]", "[SEP]"):
        if token not in getattr(vocab, "stoi", {}):
            raise ValueError(f"expected chapter 9's BertVocab (with {token}), got {type(vocab).__name__}")
    roles = export.NAMES["bert"]
    info = _layers_info(model.layers, roles["layers"])
    names = [roles[r] for r in ("token_embedding", "segment_embedding", "position_embedding", "embedding_norm_weight",
                                "embedding_norm_bias")] + _layer_names(roles["layers"], info["num_layers"],
                                                                       attention_only)
    info.update(kind="bert", max_len=int(model.max_len), final_norm=False, cls="[CLS]", sep="[SEP]",
                embedding_eps=float(model.embedding_norm.eps), attention_only=attention_only)
    return export.named_weights(model, names), info


def head_view(model, vocab, sentence: str | tuple[str, str], *, still=None, layer: int = 0, head: int = 0,
              title: str = "Type a sentence; choose a layer and a head", with_hidden: bool = False) -> WebView:
    """The live head view of ``model``'s encoder: every layer's self-attention, one head (or the mean) at a time.

    - chapter 8: ``model`` a ``TransformerSeq2Seq``, ``vocab`` its source vocabulary, ``sentence`` a string;
    - chapter 9: ``model`` a ``BertMini``, ``vocab`` its ``BertVocab``, ``sentence`` a pair ``(sentence_a,
      sentence_b)`` read as ``[CLS] A [SEP] B [SEP]`` with segments 0 and 1 (as ``encode_pairs``).

    Words are split as the chapters do (``sentence.lower().split()``); the page refuses an unknown word, an empty
    box and more tokens than the model's ``max_len``. ``layer`` and ``head`` (from 0; ``head=num_heads`` for the
    mean) are the first picture's; ``still`` the picture shown without JavaScript (``HeadsCanvas(...).show(...)``).
    The page computes the model in evaluation mode (no dropout). The view draws attention only, so by default the
    last layer's feed-forward block (and a final LayerNorm) stays out of the page, a third of chapter 9's weights;
    ``with_hidden=True`` ships them, and the view's ``numbers()`` then also hold the encoder's output.
    """
    if not isinstance(with_hidden, bool):
        raise ValueError(f"with_hidden must be True or False, got {with_hidden!r}")
    attention_only = not with_hidden   # the last layer's attention comes before its feed-forward block: leave it out
    if isinstance(model, BertMini):
        if not (isinstance(sentence, (tuple, list)) and len(sentence) == 2
                and all(isinstance(text, str) for text in sentence)):
            raise ValueError(f"a BertMini reads a pair: expected sentence=(sentence_a, sentence_b), got {sentence!r}")
        weights, info = bert_encoder(model, vocab, attention_only)
        sentences = {"sentence_a": sentence[0], "sentence_b": sentence[1]}
        most, size = info["max_len"] - 3, model.vocab_size
    elif isinstance(model, TransformerSeq2Seq):
        if not isinstance(sentence, str):
            raise ValueError(f"a TransformerSeq2Seq reads one sentence: expected a string, got {sentence!r}")
        weights, info = transformer_encoder(model, attention_only)
        sentences, most, size = {"sentence": sentence}, info["max_len"], model.src_vocab_size
    else:
        raise ValueError(f"expected a TransformerSeq2Seq (chapter 8) or a BertMini (chapter 9), "
                         f"got {type(model).__name__}")
    if len(getattr(vocab, "itos", ())) != size:
        raise ValueError(f"expected the model's vocabulary of {size} tokens, got {len(getattr(vocab, 'itos', ()))}")
    L, H = info["num_layers"], info["num_heads"]
    ints = [isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in (layer, head)]
    if not (all(ints) and 0 <= layer < L and 0 <= head <= H):
        raise ValueError(f"layer must be an int in 0..{L - 1} and head in 0..{H} ({H}: the mean), got {layer!r} "
                         f"and {head!r}")
    layer, head = int(layer), int(head)
    return WebView("head_view", weights, export.vocabulary(vocab, SENTENCE_PATTERN, lower=True, max_tokens=most),
                   {"model": info, **sentences, "layer": layer, "head": head, "title": export.check_title(title)},
                   still, _expected(model, vocab, sentence))


def _expected(model, vocab, sentence) -> dict:
    """seqviz's attention weights for the first input, one (heads, T, T) per layer, which the browser check
    compares with the page's; none for a first input the model cannot read (the page shows its message)."""
    try:
        return {"attentions": _attentions(model, vocab, sentence)}
    except ValueError:
        return {}


def _attentions(model, vocab, sentence) -> list:
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            if isinstance(model, BertMini):
                ids, segments, mask, _ = encode_pairs([[s.lower().split() for s in sentence]], vocab,
                                                      len(sentence[0].split()) + len(sentence[1].split()) + 3)
                out = model(ids.to(device), segments.to(device), mask.to(device))
                return [a[0] for a in out["attentions"]]
            ids = torch.tensor([vocab.encode(sentence.lower().split())], device=device)
            return [a[0] for a in model.encode(ids, return_trace=True)[2]]
    finally:
        model.train(was_training)
