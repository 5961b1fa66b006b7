"""A decoder-only Transformer of the Llama family, from scratch: what changed in chapter 8's block since 2017.

The block of Touvron et al. (2023), the one SmolLM2 (Allal et al., 2025) and most open decoders use, is chapter
8's pre-LN decoder block with four parts replaced:

- :class:`RMSNorm` (Zhang & Sennrich, 2019) instead of LayerNorm: ``x / rms(x) * weight``, no mean subtracted, no
  bias; applied *before* each sublayer (pre-norm), with one more at the top;
- rotary position embeddings (Su et al., 2021; :func:`rotary_tables`, :func:`apply_rotary`) instead of a
  sinusoidal vector added to the input: each query and key is rotated, pair of coordinates by pair of
  coordinates, by an angle proportional to its position, so a query-key dot product depends on their *offset*;
- grouped-query attention (Ainslie et al., 2023; :class:`GroupedQueryAttention`): ``num_heads`` query heads share
  ``num_kv_heads`` key/value heads, which shrinks the key/value cache by ``num_heads / num_kv_heads``;
- a SwiGLU feed-forward (Shazeer, 2020; :class:`SwiGLU`): ``down(silu(gate(x)) * up(x))`` instead of
  ``W2 relu(W1 x)``.

:class:`LlamaDecoder` stacks them; its parameter names are ``transformers``' (``model.layers.3.self_attn.q_proj.
weight`` ...), so ``copy_from`` is a ``load_state_dict`` with shape checks and the tests compare logits with
``transformers.LlamaForCausalLM``. ``prefill`` reads a prompt in one parallel pass and returns the key/value cache
(Pope et al., 2022); ``step`` adds one token; together they are the protocol of :func:`seqviz.sampling.sample`.
Used by chapter 9b.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import check_ids, check_positive_int

__all__ = ["DecoderConfig", "GroupedQueryAttention", "LlamaDecoder", "RMSNorm", "SwiGLU", "apply_rotary",
           "rotary_tables"]


@dataclass
class DecoderConfig:
    """The sizes of a :class:`LlamaDecoder` (``transformers.LlamaConfig``'s, under shorter names)."""

    vocab_size: int
    hidden_size: int = 64
    intermediate_size: int = 128
    num_layers: int = 2
    num_heads: int = 4
    num_kv_heads: int = 2
    max_len: int = 512
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-6
    tie_word_embeddings: bool = True

    def __post_init__(self):
        for name in ("vocab_size", "hidden_size", "intermediate_size", "num_layers", "num_heads", "num_kv_heads",
                     "max_len"):
            check_positive_int(name, getattr(self, name))
        if self.hidden_size % self.num_heads or (self.hidden_size // self.num_heads) % 2:
            raise ValueError(f"hidden_size ({self.hidden_size}) must split into num_heads ({self.num_heads}) heads of "
                             "an even width (rotary embeddings turn coordinates in pairs)")
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads}): "
                             "each key/value head serves a whole group of query heads")

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads

    @classmethod
    def from_transformers(cls, config) -> "DecoderConfig":
        """The sizes of a ``transformers.LlamaConfig``."""
        rope = getattr(config, "rope_parameters", None) or {}
        theta = rope.get("rope_theta", getattr(config, "rope_theta", 10000.0))
        if rope.get("rope_type", "default") != "default" or getattr(config, "attention_bias", False) \
                or getattr(config, "mlp_bias", False):
            raise ValueError("LlamaDecoder follows the plain Llama block: default rotary embeddings, no biases; got "
                             f"rope {rope}, attention_bias={getattr(config, 'attention_bias', None)}, "
                             f"mlp_bias={getattr(config, 'mlp_bias', None)}")
        if getattr(config, "head_dim", None) not in (None, config.hidden_size // config.num_attention_heads):
            raise ValueError(f"head_dim {config.head_dim} differs from hidden_size / num_attention_heads")
        return cls(config.vocab_size, config.hidden_size, config.intermediate_size, config.num_hidden_layers,
                   config.num_attention_heads, config.num_key_value_heads, config.max_position_embeddings,
                   float(theta), float(config.rms_norm_eps), bool(config.tie_word_embeddings))


def _wide(x: torch.Tensor) -> torch.Tensor:
    """``x`` in float32 if it is in a half-precision type, else as it is (float64 stays float64 for gradcheck)."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


class RMSNorm(nn.Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the last dimension, in at least float32 (Zhang & Sennrich,
    2019)."""

    def __init__(self, size: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(size))

    def forward(self, x):
        wide = _wide(x)  # half precision is normalised in float32
        normed = wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + self.eps)  # (..., size)
        return self.weight * normed.to(x.dtype)


def rotary_tables(positions: torch.Tensor, head_dim: int, theta: float = 10000.0):
    """``(cos, sin)``, each (T, head_dim), for the positions (T,): pair ``i`` of a head turns by
    ``position * theta^(-2i/head_dim)``; the first and second halves of a head form the pairs."""
    inv_freq = 1.0 / theta ** (torch.arange(0, head_dim, 2, device=positions.device).float() / head_dim)  # (d/2,)
    # float32, as transformers computes them: the tables must be the same numbers for the logits to agree
    angles = positions.float()[:, None] * inv_freq[None, :]  # (T, d/2)
    angles = torch.cat([angles, angles], dim=-1)  # (T, d)
    return angles.cos(), angles.sin()


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate ``x`` (..., T, head_dim) by the tables of :func:`rotary_tables`: coordinate ``j`` of the first half
    and ``j`` of the second half turn together, as a point in the plane."""
    first, second = x.chunk(2, dim=-1)  # (..., T, d/2) each
    return x * cos + torch.cat([-second, first], dim=-1) * sin  # (..., T, d)


class GroupedQueryAttention(nn.Module):
    """Causal self-attention with ``num_heads`` query heads and ``num_kv_heads`` key/value heads (Ainslie et al.,
    2023); rotary embeddings on queries and keys; an optional key/value cache.

    ``forward(x (B, T, d), cos, sin, past=None)`` -> ``(out (B, T, d), weights (B, heads, T, t+T), present)``,
    where ``past`` is the ``(keys, values)`` of ``t`` earlier positions, each (B, kv_heads, t, head_dim), and
    ``present`` the same for all ``t+T``. Query head ``h`` reads key/value head ``h // (num_heads / num_kv_heads)``.
    """

    def __init__(self, config: DecoderConfig):
        super().__init__()
        d, hd = config.hidden_size, config.head_dim
        self.num_heads, self.num_kv_heads, self.head_dim = config.num_heads, config.num_kv_heads, hd
        self.q_proj = nn.Linear(d, config.num_heads * hd, bias=False)
        self.k_proj = nn.Linear(d, config.num_kv_heads * hd, bias=False)
        self.v_proj = nn.Linear(d, config.num_kv_heads * hd, bias=False)
        self.o_proj = nn.Linear(config.num_heads * hd, d, bias=False)

    def forward(self, x, cos, sin, past=None):
        B, T, _ = x.shape
        kvh, group, hd = self.num_kv_heads, self.num_heads // self.num_kv_heads, self.head_dim
        q = self.q_proj(x).view(B, T, kvh, group, hd).permute(0, 2, 3, 1, 4)  # (B, kvh, group, T, hd)
        k = self.k_proj(x).view(B, T, kvh, hd).transpose(1, 2)  # (B, kvh, T, hd)
        v = self.v_proj(x).view(B, T, kvh, hd).transpose(1, 2)  # (B, kvh, T, hd)
        q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)  # the angle of each token's own position
        if past is not None:
            k, v = torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2)  # (B, kvh, t+T, hd)
        t = k.shape[2] - T  # positions already in the cache
        scores = q @ k[:, :, None].transpose(-2, -1) / math.sqrt(hd)  # (B, kvh, group, T, t+T): groups share keys
        allowed = torch.ones(T, t + T, dtype=torch.bool, device=x.device).tril(diagonal=t)  # key j <= t + i
        scores = scores.masked_fill(~allowed, float("-inf"))
        weights = _wide(scores).softmax(dim=-1).to(q.dtype)  # (B, kvh, group, T, t+T)
        out = (weights @ v[:, :, None]).permute(0, 3, 1, 2, 4).reshape(B, T, -1)  # (B, T, heads * hd)
        return self.o_proj(out), weights.reshape(B, self.num_heads, T, t + T), (k, v)


class SwiGLU(nn.Module):
    """The gated feed-forward of Shazeer (2020): ``down(silu(gate(x)) * up(x))``, applied at every position."""

    def __init__(self, hidden_size: int, intermediate_size: int):
        super().__init__()
        self.gate_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.up_proj = nn.Linear(hidden_size, intermediate_size, bias=False)
        self.down_proj = nn.Linear(intermediate_size, hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))  # (..., hidden)


class DecoderLayer(nn.Module):
    """One pre-norm block: ``x = x + attn(norm1(x))``, then ``x = x + mlp(norm2(x))``."""

    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.input_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.self_attn = GroupedQueryAttention(config)
        self.post_attention_layernorm = RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = SwiGLU(config.hidden_size, config.intermediate_size)

    def forward(self, x, cos, sin, past=None):
        attended, weights, present = self.self_attn(self.input_layernorm(x), cos, sin, past)
        x = x + attended  # (B, T, d)
        x = x + self.mlp(self.post_attention_layernorm(x))
        return x, weights, present


class DecoderStack(nn.Module):
    """The token embedding, the blocks and the final norm (``transformers``' ``LlamaModel``, named ``model``)."""

    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.num_layers))
        self.norm = RMSNorm(config.hidden_size, config.rms_norm_eps)


class LlamaDecoder(nn.Module):
    """A Llama-style language model: ``forward(ids (B, T))`` -> logits (B, T, V); with ``return_trace=True`` also
    ``{"attention": [(B, heads, T, T) per layer]}``. ``prefill(ids)`` -> ``(logits of the last position (B, V),
    cache)`` in one pass; ``step(ids (B, 1), cache)`` -> ``(logits (B, V), cache)``. A cache is a list with one
    ``(keys, values)`` pair per layer, each (B, kv_heads, t, head_dim), rotated already; ``step`` returns a new
    list and leaves the old one untouched."""

    def __init__(self, config: DecoderConfig, *, init: bool = True):
        super().__init__()
        if not isinstance(config, DecoderConfig):
            raise ValueError(f"LlamaDecoder expects a DecoderConfig, got {type(config).__name__}")
        self.config = config
        self.model = DecoderStack(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight  # the same matrix reads tokens in and out
        if init:
            for module in self.modules():
                if isinstance(module, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(module.weight, std=0.02)

    def _run(self, ids, cache=None, return_weights: bool = False):
        c = self.config
        check_ids(ids, c.vocab_size, type(self).__name__, self.model.embed_tokens.weight)
        if cache is not None and len(cache) != c.num_layers:
            raise ValueError(f"cache must hold one (keys, values) pair per layer ({c.num_layers}), got {len(cache)}")
        t = 0 if cache is None else cache[0][0].shape[2]
        if t + ids.shape[1] > c.max_len:
            raise ValueError(f"{t + ids.shape[1]:,} positions ({t:,} cached + {ids.shape[1]:,} new) exceed this "
                             f"model's context of {c.max_len:,} tokens (max_len)")
        cos, sin = rotary_tables(torch.arange(t, t + ids.shape[1], device=ids.device), c.head_dim, c.rope_theta)
        h = self.model.embed_tokens(ids)  # (B, T, d)
        weights, present = [], []
        for i, layer in enumerate(self.model.layers):
            h, w, kv = layer(h, cos, sin, None if cache is None else cache[i])
            present.append(kv)
            if return_weights:
                weights.append(w)
        return self.lm_head(self.model.norm(h)), present, weights  # (B, T, V)

    def forward(self, ids, return_trace: bool = False):
        logits, _, weights = self._run(ids, return_weights=return_trace)
        return (logits, {"attention": weights}) if return_trace else logits

    def prefill(self, ids):
        """Read a prompt (B, T) in one parallel pass: ``(logits of its last position (B, V), cache)``."""
        logits, cache, _ = self._run(ids)
        return logits[:, -1], cache

    def step(self, ids, cache=None):
        """Add one token per row, ids (B, 1), to ``cache``: ``(logits (B, V), new cache)``."""
        if isinstance(ids, torch.Tensor) and ids.dim() == 2 and ids.shape[1] != 1:
            raise ValueError(f"step takes one new token per row, ids (B, 1); got {tuple(ids.shape)}")
        logits, cache, _ = self._run(ids, cache)
        return logits[:, -1], cache

    def copy_from(self, source) -> "LlamaDecoder":
        """Load the weights of a ``transformers.LlamaForCausalLM``, another :class:`LlamaDecoder` or a state dict
        with the same names and shapes; returns self. A missing, extra or differently shaped tensor raises one
        ``ValueError`` naming it (and both shapes)."""
        state = source.state_dict() if isinstance(source, nn.Module) else source
        if not hasattr(state, "keys"):
            raise ValueError(f"copy_from expects a LlamaForCausalLM, a LlamaDecoder or a state dict, got "
                             f"{type(source).__name__}")
        ours = self.state_dict()
        missing, extra = sorted(set(ours) - set(state)), sorted(set(state) - set(ours))
        if missing or extra:
            raise ValueError(f"the state dict does not match this LlamaDecoder: missing {missing[:4]}, "
                             f"unexpected {extra[:4]} ({len(missing)} and {len(extra)} in all)")
        for name, tensor in ours.items():
            if tuple(state[name].shape) != tuple(tensor.shape):
                raise ValueError(f"{name} has shape {tuple(state[name].shape)} in the state dict but "
                                 f"{tuple(tensor.shape)} in this LlamaDecoder (config {self.config})")
        if self.config.tie_word_embeddings and not torch.equal(state["lm_head.weight"],
                                                               state["model.embed_tokens.weight"]):
            raise ValueError("this LlamaDecoder ties lm_head.weight to model.embed_tokens.weight, but the two differ "
                             "in the state dict: build it with tie_word_embeddings=False")
        with torch.no_grad():
            for name, tensor in ours.items():
                tensor.copy_(state[name])
        return self

    @classmethod
    def from_transformers(cls, hf_model, device=None) -> "LlamaDecoder":
        """A decoder of ``hf_model``'s sizes carrying its weights (``hf_model``: a ``LlamaForCausalLM``), in eval
        mode, on ``device`` (default: where ``hf_model`` is). Built without a random initialisation first."""
        config = DecoderConfig.from_transformers(hf_model.config)
        device = device or next(hf_model.parameters()).device
        with torch.device("meta"):
            model = cls(config, init=False)
        model = model.to_empty(device=device)
        if config.tie_word_embeddings:
            model.lm_head.weight = model.model.embed_tokens.weight  # to_empty made two tensors of the tied one
        return model.copy_from(hf_model).eval()
