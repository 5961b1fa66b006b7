"""The Transformer's blocks and a small encoder-decoder (chapter 8).

Vaswani et al. (2017), "Attention is all you need". An encoder block is

    x = LayerNorm(x + SelfAttention(x))        # every position looks at every other
    x = LayerNorm(x + FFN(x))                  # then each position thinks on its own

("post-LN", as in the paper and ``torch.nn``'s default). With ``norm_first=True`` the
normalisation moves inside the residual branch ("pre-LN", Xiong et al., 2020):
``x = x + SelfAttention(LayerNorm(x))``, which trains more easily when stacked deep. A
decoder block adds a causal mask to its self-attention and, between the two, attends
to the encoder's output (cross-attention).

Parameter names mirror ``torch.nn.TransformerEncoderLayer`` / ``TransformerDecoderLayer``
(``self_attn``, ``multihead_attn``, ``linear1``, ``norm1`` ...), so ``copy_from`` is a
``load_state_dict``. Every ``forward`` returns the attention weights beside its output.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..config import check_device
from ._checks import check_ids
from ._decoding import Decoding
from .attention import padding_mask
from .mha import LearnedPositionalEncoding, MultiHeadAttention, SinusoidalPositionalEncoding, causal_mask

ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


class _Block(nn.Module):
    """What encoder and decoder layers share: the self-attention, the feed-forward network, the LayerNorms."""

    def __init__(self, d_model, num_heads, dim_feedforward, dropout, activation, norm_first, layer_norm_eps,
                 num_norms):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        self.d_model, self.norm_first, self.activation_name = d_model, bool(norm_first), activation
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.linear1 = nn.Linear(d_model, dim_feedforward)
        self.dropout = nn.Dropout(dropout)
        self.linear2 = nn.Linear(dim_feedforward, d_model)
        for i in range(1, num_norms + 1):
            setattr(self, f"norm{i}", nn.LayerNorm(d_model, eps=layer_norm_eps))
            setattr(self, f"dropout{i}", nn.Dropout(dropout))

    def feed_forward(self, x):
        """FFN(x) = W_2 act(W_1 x + b_1) + b_2, each position on its own: (B, T, d) -> (B, T, d)."""
        return self.linear2(self.dropout(ACTIVATIONS[self.activation_name](self.linear1(x))))

    def _check(self, x, name):
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise ValueError(f"{type(self).__name__} expects {name} (B, T, {self.d_model}), got {tuple(x.shape)}")
        check_device(self.linear1.weight, type(self).__name__, **{name: x})

    def copy_from(self, torch_layer) -> "_Block":
        """Copy the weights of the matching ``torch.nn`` layer (batch_first, same sizes); returns self."""
        expected = nn.TransformerEncoderLayer if isinstance(self, TransformerEncoderLayer) else nn.TransformerDecoderLayer
        if not isinstance(torch_layer, expected):
            raise ValueError(f"copy_from expects a torch.nn.{expected.__name__}, got {type(torch_layer).__name__}")
        if torch_layer.norm_first != self.norm_first:
            raise ValueError(f"norm_first differs: torch layer {torch_layer.norm_first}, this layer {self.norm_first}")
        if not torch_layer.self_attn.batch_first:
            raise ValueError("build the torch layer with batch_first=True, as this one is")
        theirs = {k: tuple(v.shape) for k, v in torch_layer.state_dict().items()}
        ours = {k: tuple(v.shape) for k, v in self.state_dict().items()}
        if theirs != ours:
            diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            raise ValueError(f"the layers differ in size or parameters: {diff[:6]}")
        self.load_state_dict(torch_layer.state_dict())
        return self


class TransformerEncoderLayer(_Block):
    """``forward(x (B, T, d), mask=None, key_mask=None)`` -> ``(x (B, T, d), weights (B, heads, T, T))``.

    ``mask`` (T, T) bool, True = may attend; ``key_mask`` (B, T) bool, True on real tokens.
    ``past``/``use_cache``: the self-attention's key/value cache (see :class:`MultiHeadAttention`);
    with ``use_cache=True`` the result is ``(x, weights, present)``. Under a causal mask this
    layer is a decoder-only Transformer's block (:class:`~seqviz.models.CausalTransformerEncoder`).
    """

    def __init__(self, d_model: int, num_heads: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str = "relu", norm_first: bool = False, layer_norm_eps: float = 1e-5):
        super().__init__(d_model, num_heads, dim_feedforward, dropout, activation, norm_first, layer_norm_eps, 2)

    def forward(self, x, mask=None, key_mask=None, past=None, use_cache: bool = False):
        self._check(x, "x")
        if self.norm_first:  # pre-LN: x = x + Sublayer(LayerNorm(x))
            y = self.norm1(x)
            attn, *extra = self.self_attn(y, y, y, mask, key_mask, past=past, use_cache=use_cache)
            x = x + self.dropout1(attn)
            x = x + self.dropout2(self.feed_forward(self.norm2(x)))
        else:  # post-LN: x = LayerNorm(x + Sublayer(x))
            attn, *extra = self.self_attn(x, x, x, mask, key_mask, past=past, use_cache=use_cache)
            x = self.norm1(x + self.dropout1(attn))
            x = self.norm2(x + self.dropout2(self.feed_forward(x)))
        return (x, *extra)  # (x, weights) or (x, weights, present)


class TransformerDecoderLayer(_Block):
    """``forward(x (B, U, d), memory (B, S, d), mask=None, key_mask=None, memory_key_mask=None)``
    -> ``(x (B, U, d), self_weights (B, heads, U, U), cross_weights (B, heads, U, S))``.

    ``mask`` is the decoder's (U, U) mask (pass :func:`causal_mask`); ``key_mask`` (B, U)
    marks real target tokens, ``memory_key_mask`` (B, S) real source tokens.
    """

    def __init__(self, d_model: int, num_heads: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str = "relu", norm_first: bool = False, layer_norm_eps: float = 1e-5):
        super().__init__(d_model, num_heads, dim_feedforward, dropout, activation, norm_first, layer_norm_eps, 3)
        self.multihead_attn = MultiHeadAttention(d_model, num_heads, dropout)

    def forward(self, x, memory, mask=None, key_mask=None, memory_key_mask=None):
        self._check(x, "x")
        self._check(memory, "memory")
        if self.norm_first:  # pre-LN: x = x + Sublayer(LayerNorm(x))
            y = self.norm1(x)
            attn, self_w = self.self_attn(y, y, y, mask, key_mask)
            x = x + self.dropout1(attn)
            cross, cross_w = self.multihead_attn(self.norm2(x), memory, memory, None, memory_key_mask)
            x = x + self.dropout2(cross)
            x = x + self.dropout3(self.feed_forward(self.norm3(x)))
        else:  # post-LN: x = LayerNorm(x + Sublayer(x))
            attn, self_w = self.self_attn(x, x, x, mask, key_mask)
            x = self.norm1(x + self.dropout1(attn))
            cross, cross_w = self.multihead_attn(x, memory, memory, None, memory_key_mask)
            x = self.norm2(x + self.dropout2(cross))
            x = self.norm3(x + self.dropout3(self.feed_forward(x)))
        return x, self_w, cross_w


class TransformerSeq2Seq(Decoding, nn.Module):
    """A small encoder-decoder Transformer with the interface of :class:`~seqviz.models.Seq2Seq`:
    ``forward(src (B, S), src_lengths (B,), tgt_in (B, U))`` -> logits (B, U, V).

    With ``return_trace=True`` also a dict of attention weights, one (B, heads, ., .)
    tensor per layer: ``"encoder"`` (S x S), ``"decoder"`` (U x U, causal) and
    ``"cross"`` (U x S). ``positional`` is "sinusoidal", "learned" or "none" (to show
    what goes wrong without it). Token embeddings are scaled by sqrt(d_model), as in the paper.
    ``greedy`` and ``log_prob_fn`` come from :class:`~seqviz.models._decoding.Decoding`; each step
    re-reads the whole prefix (decoding stays sequential, one token at a time).
    ``tie_embeddings=True`` makes the output layer's weight the target embedding itself (Press and Wolf, 2017;
    Vaswani et al., 2017): one (V, d) table both reads and writes French, a third fewer parameters to learn.
    """

    def __init__(self, src_vocab_size: int, tgt_vocab_size: int, d_model: int = 64, num_heads: int = 4,
                 num_encoder_layers: int = 2, num_decoder_layers: int = 2, dim_feedforward: int = 128,
                 dropout: float = 0.1, max_len: int = 128, positional: str = "sinusoidal", norm_first: bool = False,
                 bos_id: int = 2, eos_id: int = 3, tie_embeddings: bool = False):
        super().__init__()
        kinds = {"sinusoidal": SinusoidalPositionalEncoding, "learned": LearnedPositionalEncoding, "none": None}
        if positional not in kinds:
            raise ValueError(f"positional must be one of {sorted(kinds)}, got {positional!r}")
        self.src_vocab_size, self.tgt_vocab_size, self.d_model = src_vocab_size, tgt_vocab_size, d_model
        self.bos_id, self.eos_id, self.max_len = bos_id, eos_id, max_len
        self.src_embedding = nn.Embedding(src_vocab_size, d_model, padding_idx=0)
        self.tgt_embedding = nn.Embedding(tgt_vocab_size, d_model, padding_idx=0)
        for embedding in (self.src_embedding, self.tgt_embedding):  # std d^-1/2: after the sqrt(d) scaling, about
            nn.init.normal_(embedding.weight, std=d_model ** -0.5)  # unit size, like the positional code it meets
            nn.init.zeros_(embedding.weight[0])
        make = kinds[positional]
        self.src_position = make(max_len, d_model) if make else nn.Identity()
        self.tgt_position = make(max_len, d_model) if make else nn.Identity()
        layer = dict(dim_feedforward=dim_feedforward, dropout=dropout, norm_first=norm_first)
        self.encoder_layers = nn.ModuleList(TransformerEncoderLayer(d_model, num_heads, **layer)
                                            for _ in range(num_encoder_layers))
        self.decoder_layers = nn.ModuleList(TransformerDecoderLayer(d_model, num_heads, **layer)
                                            for _ in range(num_decoder_layers))
        # pre-LN leaves the residual stream un-normalised: one final LayerNorm per stack (as torch.nn.Transformer)
        self.encoder_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.decoder_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(d_model, tgt_vocab_size)
        self.tie_embeddings = bool(tie_embeddings)
        if self.tie_embeddings:
            self.out.weight = self.tgt_embedding.weight  # (V, d): the same tensor, read by both

    def _check_ids(self, ids, vocab, name):
        check_ids(ids, vocab, type(self).__name__, self.out.weight, label=name, max_len=self.max_len)

    def encode(self, src, src_lengths=None, return_trace=False):
        """``(memory (B, S, d), src_mask (B, S))``, and the encoder's weights if ``return_trace``."""
        self._check_ids(src, self.src_vocab_size, "src")
        if src_lengths is None:
            src_lengths = torch.full((src.shape[0],), src.shape[1], dtype=torch.long, device=src.device)
        src_mask = padding_mask(src_lengths.to(src.device), src.shape[1])  # (B, S)
        x = self.dropout(self.src_position(self.src_embedding(src) * math.sqrt(self.d_model)))  # (B, S, d)
        weights = []
        for layer in self.encoder_layers:
            x, w = layer(x, key_mask=src_mask)  # w (B, h, S, S)
            weights.append(w)
        return (self.encoder_norm(x), src_mask, weights) if return_trace else (self.encoder_norm(x), src_mask)

    def decode(self, memory, src_mask, tgt_in):
        """``(logits (B, U, V), decoder self-attention weights, cross-attention weights)`` for all U steps at once."""
        self._check_ids(tgt_in, self.tgt_vocab_size, "tgt_in")
        U = tgt_in.shape[1]
        y = self.dropout(self.tgt_position(self.tgt_embedding(tgt_in) * math.sqrt(self.d_model)))  # (B, U, d)
        mask = causal_mask(U, device=tgt_in.device)  # (U, U): step u reads steps 0..u only
        self_w, cross_w = [], []
        for layer in self.decoder_layers:
            y, sw, cw = layer(y, memory, mask=mask, memory_key_mask=src_mask)  # (B, U, d), (B,h,U,U), (B,h,U,S)
            self_w.append(sw)
            cross_w.append(cw)
        return self.out(self.decoder_norm(y)), self_w, cross_w  # (B, U, V)

    def forward(self, src, src_lengths, tgt_in, return_trace: bool = False):
        if not isinstance(tgt_in, torch.Tensor) or tgt_in.dim() != 2 or tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in must be token ids ({src.shape[0]}, U), bos first")
        memory, src_mask, enc_w = self.encode(src, src_lengths, return_trace=True)
        logits, self_w, cross_w = self.decode(memory, src_mask, tgt_in)
        if return_trace:
            return logits, {"encoder": enc_w, "decoder": self_w, "cross": cross_w}
        return logits

    # -- the hooks of Decoding: greedy and log_prob_fn -------------------------------------------------

    def _begin(self, src, src_lengths):
        return self.encode(src, src_lengths)  # (memory (B, S, d), src_mask (B, S))

    def _expand(self, memory, k):
        return memory[0].expand(k, -1, -1), memory[1].expand(k, -1)

    def _first_state(self, memory):
        return None  # no state: every step re-reads the prefix

    def _decode_steps(self, max_len):
        return min(max_len, self.max_len - 1)

    def _next(self, memory, prefix, state):
        logits, _, cross_w = self.decode(*memory, prefix)  # (B, t, V), cross_w: per layer (B, h, t, S)
        return logits[:, -1], None, cross_w[-1][:, :, -1].mean(1)  # (B, V), the last layer's row, mean over heads
