"""A tiny BERT, built from chapter 8's encoder layers (chapter 9).

Devlin et al. (2019), "BERT: pre-training of deep bidirectional Transformers for language
understanding". The input of position t is the sum of three learned embeddings,

    x_t = TokenEmb[id_t] + SegmentEmb[segment_t] + PositionEmb[t],

normalised, then read by a stack of (post-LN) Transformer encoder layers in which every
token may attend to every other real token: no causal mask, so the model is bidirectional.
Two heads sit on top:

- the masked-language-model head, ``LayerNorm(gelu(W h_t))`` followed by a projection back
  onto the vocabulary whose weight **is** the token embedding (tied, as in BERT);
- the next-sentence head on the first position, ``[CLS]``: a "pooler" ``tanh(W h_0)`` and a
  linear layer to two classes (0: B is not A's continuation, 1: it is).

Names follow Hugging Face's ``BertModel`` loosely (``token_embedding``, ``pooler``). The
attention weights of every layer come back with the outputs, never stored on the module. ``copy_from``
takes the weights of a Hugging Face ``BertModel`` / ``BertForPreTraining``; the outputs then agree (tests).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ..config import check_device, value_checks
from ..data.bert_data import IGNORE_INDEX
from ._checks import check_ids, check_positive_int
from .transformer import TransformerEncoderLayer


class BertMini(nn.Module):
    """``forward(input_ids (B, T), segment_ids (B, T) = None, attention_mask (B, T) = None)`` -> dict with
    ``"hidden"`` (B, T, d), ``"mlm_logits"`` (B, T, V), ``"nsp_logits"`` (B, 2), ``"pooled"`` (B, d) and
    ``"attentions"``: a list over layers of (B, heads, T, T).

    ``attention_mask`` is True (or 1) on real tokens; padded keys get exactly zero attention.
    ``segment_ids`` default to all 0 (one sentence).
    """

    def __init__(self, vocab_size: int, d_model: int = 64, num_layers: int = 2, num_heads: int = 4,
                 max_len: int = 64, dim_feedforward: int | None = None, dropout: float = 0.1,
                 num_segments: int = 2, pad_id: int = 0):
        super().__init__()
        for name, value in (("vocab_size", vocab_size), ("d_model", d_model), ("num_layers", num_layers),
                            ("num_heads", num_heads), ("max_len", max_len), ("num_segments", num_segments)):
            check_positive_int(name, value)
        if d_model % num_heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by num_heads ({num_heads})")
        self.vocab_size, self.d_model, self.max_len, self.num_segments = vocab_size, d_model, max_len, num_segments
        self.num_heads = num_heads
        dim_feedforward = dim_feedforward or 4 * d_model
        self.token_embedding = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.segment_embedding = nn.Embedding(num_segments, d_model)
        self.position_embedding = nn.Embedding(max_len, d_model)  # learned, as in BERT
        self.embedding_norm = nn.LayerNorm(d_model, eps=1e-12)
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList(TransformerEncoderLayer(d_model, num_heads, dim_feedforward, dropout,
                                                            activation="gelu", norm_first=False, layer_norm_eps=1e-12)
                                    for _ in range(num_layers))
        # MLM head: transform, then decode with the (tied) token embedding and a bias of its own
        self.mlm_transform = nn.Linear(d_model, d_model)
        self.mlm_norm = nn.LayerNorm(d_model, eps=1e-12)
        self.mlm_decoder = nn.Linear(d_model, vocab_size)
        self.mlm_decoder.weight = self.token_embedding.weight  # tied: one (V, d) matrix reads and writes words
        # NSP head on [CLS]
        self.pooler = nn.Linear(d_model, d_model)
        self.nsp_head = nn.Linear(d_model, 2)
        self._init_weights()

    def _init_weights(self):
        for module in self.modules():  # BERT's initialisation: N(0, 0.02) everywhere, zero biases
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        for layer in self.layers:
            nn.init.normal_(layer.self_attn.in_proj_weight, std=0.02)
            nn.init.zeros_(layer.self_attn.in_proj_bias)
        with torch.no_grad():
            self.token_embedding.weight[self.token_embedding.padding_idx].zero_()

    def copy_from(self, hf_model) -> "BertMini":
        """Copy the weights of a Hugging Face ``BertModel`` or ``BertForPreTraining`` of the same sizes; returns self.

        The encoder (and the pooler) always; the MLM and NSP heads when ``hf_model`` has them (a bare
        ``BertModel`` has not: ours keep their values). Each of Hugging Face's separate query, key and
        value projections becomes one third of our stacked ``in_proj_weight``.
        """
        if not hasattr(hf_model, "state_dict"):
            raise ValueError(f"copy_from expects a Hugging Face BertModel or BertForPreTraining, got "
                             f"{type(hf_model).__name__}")
        theirs = hf_model.state_dict()
        prefix = "bert." if any(k.startswith("bert.") for k in theirs) else ""
        names = {"token_embedding": "embeddings.word_embeddings", "segment_embedding": "embeddings.token_type_embeddings",
                 "position_embedding": "embeddings.position_embeddings", "embedding_norm": "embeddings.LayerNorm",
                 "pooler": "pooler.dense"}
        for i in range(len(self.layers)):
            hf = f"encoder.layer.{i}."
            names.update({f"layers.{i}.self_attn.out_proj": hf + "attention.output.dense",
                          f"layers.{i}.norm1": hf + "attention.output.LayerNorm",
                          f"layers.{i}.linear1": hf + "intermediate.dense", f"layers.{i}.linear2": hf + "output.dense",
                          f"layers.{i}.norm2": hf + "output.LayerNorm"})
        new = {}
        for ours, hf in names.items():
            for kind in ("weight", "bias"):
                key = f"{prefix}{hf}.{kind}"
                if f"{ours}.{kind}" in self.state_dict() and key in theirs:
                    new[f"{ours}.{kind}"] = theirs[key]
        for i in range(len(self.layers)):
            hf = f"{prefix}encoder.layer.{i}.attention.self."
            for kind in ("weight", "bias"):
                parts = [theirs.get(f"{hf}{p}.{kind}") for p in ("query", "key", "value")]
                if any(part is None for part in parts):
                    raise ValueError(f"{type(hf_model).__name__} has no layer {i} (this model has {len(self.layers)})")
                new[f"layers.{i}.self_attn.in_proj_{kind}"] = torch.cat(parts)  # (3d, d) / (3d,): W_q, W_k, W_v
        heads = {"mlm_transform": "cls.predictions.transform.dense", "mlm_norm": "cls.predictions.transform.LayerNorm",
                 "nsp_head": "cls.seq_relationship"}
        for ours, hf in heads.items():
            for kind in ("weight", "bias"):
                if f"{hf}.{kind}" in theirs:
                    new[f"{ours}.{kind}"] = theirs[f"{hf}.{kind}"]
        if "cls.predictions.bias" in theirs:
            new["mlm_decoder.bias"] = theirs["cls.predictions.bias"]
        mine = self.state_dict()
        wrong = [f"{k}: ours {tuple(mine[k].shape)}, theirs {tuple(v.shape)}" for k, v in new.items()
                 if mine[k].shape != v.shape]
        if wrong or "token_embedding.weight" not in new:
            raise ValueError("the models differ in size: " + ("; ".join(wrong[:4]) or "no BERT embeddings found"))
        self.load_state_dict(new, strict=False)
        return self

    def _check(self, input_ids, segment_ids, attention_mask):
        check_ids(input_ids, self.vocab_size, type(self).__name__, self.token_embedding.weight, label="input_ids",
                  max_len=self.max_len)
        B, T = input_ids.shape
        check_device(self.token_embedding.weight, type(self).__name__, segment_ids=segment_ids,
                     attention_mask=attention_mask)
        if segment_ids is None:
            segment_ids = torch.zeros_like(input_ids)
        elif segment_ids.shape != input_ids.shape or (value_checks(segment_ids) and (
                int(segment_ids.min()) < 0 or int(segment_ids.max()) >= self.num_segments)):
            raise ValueError(f"segment_ids must be ({B}, {T}) with values in 0..{self.num_segments - 1}, got "
                             f"{tuple(segment_ids.shape)}")
        if attention_mask is not None:
            if attention_mask.shape != input_ids.shape:
                raise ValueError(f"attention_mask must be ({B}, {T}), True/1 on real tokens, got "
                                 f"{tuple(attention_mask.shape)}")
            attention_mask = attention_mask.bool()
            if value_checks(attention_mask) and not bool(attention_mask[:, 0].all()):
                raise ValueError("attention_mask must be True at position 0 ([CLS]) of every sequence")
        return segment_ids.long(), attention_mask

    def forward(self, input_ids, segment_ids=None, attention_mask=None) -> dict:
        segment_ids, key_mask = self._check(input_ids, segment_ids, attention_mask)
        T = input_ids.shape[1]
        positions = torch.arange(T, device=input_ids.device)
        x = self.token_embedding(input_ids) + self.segment_embedding(segment_ids) \
            + self.position_embedding(positions)  # (B, T, d)
        x = self.dropout(self.embedding_norm(x))
        attentions = []
        for layer in self.layers:
            x, weights = layer(x, key_mask=key_mask)  # (B, T, d), (B, heads, T, T)
            attentions.append(weights)
        h = self.mlm_norm(F.gelu(self.mlm_transform(x)))  # (B, T, d)
        mlm_logits = self.mlm_decoder(h)  # (B, T, V): h @ TokenEmb^T + bias
        pooled = torch.tanh(self.pooler(x[:, 0]))  # (B, d): the [CLS] position
        return {"hidden": x, "mlm_logits": mlm_logits, "nsp_logits": self.nsp_head(pooled), "pooled": pooled,
                "attentions": attentions}


class BertClassifier(nn.Module):
    """A sequence classifier on top of a :class:`BertMini`: ``forward(input_ids, segment_ids, attention_mask)``
    -> logits (B, num_classes) from the pooled ``[CLS]`` vector. The BERT weights are trained too (fine-tuning)."""

    def __init__(self, bert: BertMini, num_classes: int, dropout: float = 0.1):
        super().__init__()
        if not isinstance(bert, BertMini):
            raise ValueError(f"bert must be a BertMini, got {type(bert).__name__}")
        self.bert = bert
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(bert.d_model, num_classes)
        nn.init.normal_(self.classifier.weight, std=0.02)
        nn.init.zeros_(self.classifier.bias)

    def forward(self, input_ids, segment_ids=None, attention_mask=None):
        return self.classifier(self.dropout(self.bert(input_ids, segment_ids, attention_mask)["pooled"]))  # (B, C)


# -- losses and metrics for seqviz.train.fit: targets (B, T + 1) = MLM labels, then is_next ---------------


def _split_targets(output, targets):
    T = output["mlm_logits"].shape[1]
    if targets.dim() != 2 or targets.shape[1] != T + 1:
        raise ValueError(f"targets must be (B, T + 1) = (B, {T + 1}): MLM labels then is_next, got "
                         f"{tuple(targets.shape)}")
    return targets[:, :T], targets[:, T]


def mlm_loss(output, targets):
    labels, _ = _split_targets(output, targets)
    logits = output["mlm_logits"]
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=IGNORE_INDEX)


def nsp_loss(output, targets):
    return F.cross_entropy(output["nsp_logits"], _split_targets(output, targets)[1])


def pretraining_loss(output, targets):
    """BERT's pretraining loss: the MLM cross-entropy over chosen tokens plus the NSP cross-entropy."""
    return mlm_loss(output, targets) + nsp_loss(output, targets)


def mlm_accuracy(output, targets) -> float:
    """Share of chosen tokens (label != -100) whose original id is the top prediction."""
    labels, _ = _split_targets(output, targets)
    chosen = labels != IGNORE_INDEX
    if not bool(chosen.any()):
        return float("nan")
    return (output["mlm_logits"].argmax(-1)[chosen] == labels[chosen]).float().mean().item()


def nsp_accuracy(output, targets) -> float:
    return (output["nsp_logits"].argmax(-1) == _split_targets(output, targets)[1]).float().mean().item()
