"""Bidirectional encoders, a tagger and the encoder-decoder (chapters 5-7).

- :class:`Encoder`: embedding, then one recurrent network reading left to right and,
  if ``bidirectional``, a second one reading each sequence right to left (Schuster and
  Paliwal, 1997). Padding is handled explicitly: the backward network reads each row
  reversed *within its length* (:func:`reverse_padded`), so it starts at the last real
  token, never at a pad.
- :class:`Tagger`: an encoder and a linear layer on every position (chapter 5).
- :class:`Seq2Seq`: an encoder and a GRU decoder (Sutskever et al., 2014; Cho et al.,
  2014). Without attention the decoder sees the source only through its first state, a
  function of the encoder's summary: the fixed-vector bottleneck. With
  ``attention=True`` it also reads, at every step, a context vector from
  :class:`~seqviz.models.attention.AdditiveAttention` over all encoder states (Bahdanau
  et al., 2015). ``teacher_forcing`` is the chance, in training mode, that the decoder
  is fed the gold previous token rather than its own guess (Williams and Zipser, 1989).
  ``dropout`` (training mode only; off by default) zeroes a share of the embeddings and of
  the output layer's inputs (Srivastava et al., 2014), which a long run on real sentences needs.

The recurrent layers are ``torch.nn`` modules for speed; chapters 2 and 4 show that
``seqviz.models.RNN/LSTM/GRU`` compute the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..config import check_device
from ._checks import check_ids, check_lengths
from ._decoding import Decoding
from .attention import AdditiveAttention, padding_mask
from .cells import make_recurrent


def reverse_padded(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Reverse the first ``lengths[b]`` steps of each row of ``x`` (B, T, ...); padding stays put."""
    B, T = x.shape[:2]
    if lengths.shape != (B,):
        raise ValueError(f"lengths must have shape ({B},), got {tuple(lengths.shape)}")
    positions = torch.arange(T, device=x.device)[None, :]  # (1, T)
    lengths = lengths.to(x.device)[:, None]  # (B, 1)
    index = torch.where(positions < lengths, lengths - 1 - positions, positions)  # (B, T)
    index = index.view(B, T, *([1] * (x.dim() - 2))).expand_as(x)
    return x.gather(1, index)


class Encoder(nn.Module):
    """``forward(ids (B, S), lengths (B,))`` -> ``(outputs (B, S, D*H), summary (B, D*H))``.

    ``summary`` is the forward state at the last real token, joined (if bidirectional)
    with the backward state at the first token: each has read the whole sentence.
    """

    def __init__(self, vocab_size: int, embed_size: int, hidden_size: int, bidirectional: bool = True,
                 cell: str = "gru"):
        super().__init__()
        self.vocab_size, self.hidden_size, self.bidirectional = vocab_size, hidden_size, bool(bidirectional)
        self.output_size = hidden_size * (2 if bidirectional else 1)
        self.embedding = nn.Embedding(vocab_size, embed_size, padding_idx=0)
        self.forward_rnn = make_recurrent(cell, embed_size, hidden_size)  # torch.nn's, batch-first
        self.backward_rnn = make_recurrent(cell, embed_size, hidden_size) if bidirectional else None

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor | None = None, dropout: nn.Module | None = None):
        check_ids(ids, self.vocab_size, type(self).__name__, self.embedding.weight)
        lengths = check_lengths(lengths, ids, type(self).__name__)
        x = self.embedding(ids)  # (B, S, E)
        if dropout is not None:  # the encoder-decoder's dropout, on the embeddings (training mode only)
            x = dropout(x)
        outputs, _ = self.forward_rnn(x)  # (B, S, H); positions after a row's end are never read
        last = (lengths.to(ids.device) - 1).view(-1, 1, 1).expand(-1, 1, self.hidden_size)  # (B, 1, H)
        summary = outputs.gather(1, last).squeeze(1)  # (B, H)
        if self.backward_rnn is not None:
            backward, _ = self.backward_rnn(reverse_padded(x, lengths))  # (B, S, H), in reversed order
            backward = reverse_padded(backward, lengths)  # back to input order: position j has read j..end
            outputs = torch.cat([outputs, backward], dim=-1)  # (B, S, 2H)
            summary = torch.cat([summary, backward[:, 0]], dim=-1)  # (B, 2H)
        return outputs, summary


class Tagger(nn.Module):
    """One tag per token: ``forward(ids (B, T), lengths (B,))`` -> logits (B, T, num_tags)."""

    def __init__(self, vocab_size: int, embed_size: int, hidden_size: int, num_tags: int, bidirectional: bool = True,
                 cell: str = "lstm"):
        super().__init__()
        self.encoder = Encoder(vocab_size, embed_size, hidden_size, bidirectional, cell)
        self.head = nn.Linear(self.encoder.output_size, num_tags)

    def forward(self, ids, lengths=None):
        outputs, _ = self.encoder(ids, lengths)  # (B, T, D*H)
        return self.head(outputs)  # (B, T, num_tags)


def sequence_loss(logits: torch.Tensor, targets: torch.Tensor, pad_id: int = 0,
                  label_smoothing: float = 0.0) -> torch.Tensor:
    """Mean cross-entropy over the non-pad positions: logits (B, T, V), targets (B, T).

    ``label_smoothing`` ε > 0 trains against a target that puts 1 - ε on the right token and spreads ε evenly
    over the whole vocabulary (Szegedy et al., 2016; used by Vaswani et al., 2017, with ε = 0.1)."""
    if logits.shape[:2] != targets.shape:
        raise ValueError(f"logits (B, T, V) and targets (B, T) disagree: {tuple(logits.shape)} vs {tuple(targets.shape)}")
    if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float)) \
            or not 0.0 <= label_smoothing < 1.0:
        raise ValueError(f"label_smoothing must be a number in [0, 1), got {label_smoothing!r}")
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=pad_id,
                           label_smoothing=float(label_smoothing))


def token_accuracy(logits: torch.Tensor, targets: torch.Tensor, pad_id: int = 0) -> float:
    """Share of non-pad positions whose argmax is the target."""
    real = targets != pad_id
    return ((logits.argmax(-1) == targets) & real).sum().item() / max(1, real.sum().item())


@dataclass
class Memory:
    """What the decoder may consult: encoder ``outputs`` (B, S, De), ``mask`` (B, S), ``state`` (B, H), and the
    attention's ``projected`` keys (B, S, A) or None."""

    outputs: torch.Tensor
    mask: torch.Tensor
    state: torch.Tensor
    projected: torch.Tensor | None

    def expand(self, k: int) -> "Memory":
        """The memory of one sentence repeated for ``k`` hypotheses (no copy)."""
        grow = lambda t: None if t is None else t[:1].expand(k, *t.shape[1:])  # noqa: E731
        return Memory(grow(self.outputs), grow(self.mask), grow(self.state), grow(self.projected))


class Seq2Seq(Decoding, nn.Module):
    """Encoder-decoder; ``forward(src, src_lengths, tgt_in)`` -> logits (B, U, V) for every target step.

    With ``return_trace=True`` also a dict: ``"fed"`` (B, U), the tokens the decoder read,
    and with attention ``"attention"`` (B, U, S). Teacher forcing applies in training
    mode only; in eval mode the decoder is always fed ``tgt_in``.
    """

    def __init__(self, src_vocab_size: int, tgt_vocab_size: int, embed_size: int = 32, hidden_size: int = 64,
                 attention: bool = False, bidirectional: bool = True, teacher_forcing: float = 1.0,
                 cell: str = "gru", attention_size: int | None = None, bos_id: int = 2, eos_id: int = 3,
                 dropout: float = 0.0):
        super().__init__()
        if not 0.0 <= teacher_forcing <= 1.0:
            raise ValueError(f"teacher_forcing is a probability in [0, 1], got {teacher_forcing!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
        self.tgt_vocab_size, self.hidden_size, self.use_attention = tgt_vocab_size, hidden_size, bool(attention)
        self.teacher_forcing, self.bos_id, self.eos_id = float(teacher_forcing), bos_id, eos_id
        self.encoder = Encoder(src_vocab_size, embed_size, hidden_size, bidirectional, cell)
        enc = self.encoder.output_size
        self.bridge = nn.Linear(enc, hidden_size)  # summary -> the decoder's first state
        self.embedding = nn.Embedding(tgt_vocab_size, embed_size, padding_idx=0)
        context = enc if attention else 0
        self.attention = AdditiveAttention(hidden_size, enc, attention_size or hidden_size) if attention else None
        self.rnn = nn.GRU(embed_size + context, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size + context, tgt_vocab_size)
        # training only: on the embeddings both sides read and on the features the output layer reads
        self.dropout = nn.Dropout(float(dropout))

    def encode(self, src: torch.Tensor, src_lengths: torch.Tensor | None = None) -> Memory:
        check_ids(src, self.encoder.vocab_size, type(self).__name__, self.encoder.embedding.weight)
        src_lengths = check_lengths(src_lengths, src, type(self).__name__)
        outputs, summary = self.encoder(src, src_lengths, self.dropout)  # (B, S, De), (B, De)
        mask = padding_mask(src_lengths.to(src.device), src.shape[1])  # (B, S)
        projected = self.attention.project_keys(outputs) if self.attention is not None else None
        return Memory(outputs, mask, torch.tanh(self.bridge(summary)), projected)

    def step(self, memory: Memory, tokens: torch.Tensor, state: torch.Tensor):
        """One decoder step: tokens (B,), state (B, H) -> (logits (B, V), new state (B, H), weights (B, S) or None)."""
        check_device(self.embedding.weight, type(self).__name__, tokens=tokens, state=state)
        x = self.dropout(self.embedding(tokens))  # (B, E)
        weights = None
        if self.attention is not None:  # the query is the previous state, as in Bahdanau et al.
            context, weights = self.attention(state, memory.outputs, memory.mask, memory.projected)  # (B, De), (B, S)
            x = torch.cat([x, context], dim=-1)  # (B, E + De)
        _, h = self.rnn(x[:, None, :], state[None].contiguous())  # h (1, B, H)
        state = h[0]  # (B, H)
        features = state if self.attention is None else torch.cat([state, context], dim=-1)
        return self.out(self.dropout(features)), state, weights

    def forward(self, src, src_lengths, tgt_in, return_trace: bool = False):
        if not isinstance(tgt_in, torch.Tensor) or tgt_in.dim() != 2 or tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in must be token ids ({src.shape[0]}, U), bos first, got "
                             f"{tuple(tgt_in.shape) if isinstance(tgt_in, torch.Tensor) else type(tgt_in).__name__}")
        check_device(self.embedding.weight, type(self).__name__, tgt_in=tgt_in)
        memory = self.encode(src, src_lengths)
        forcing = self.teacher_forcing if self.training else 1.0
        if self.attention is None and forcing == 1.0:  # every input is known: one call for all steps
            out, _ = self.rnn(self.dropout(self.embedding(tgt_in)), memory.state[None].contiguous())  # (B, U, H)
            logits = self.out(self.dropout(out))  # (B, U, V)
            return (logits, {"fed": tgt_in}) if return_trace else logits
        logits, fed, weights = [], [], []
        state, tokens = memory.state, tgt_in[:, 0]
        for u in range(tgt_in.shape[1]):
            if u > 0 and forcing < 1.0:
                gold = torch.rand(tokens.shape[0], device=tokens.device) < forcing  # (B,): a coin per sentence
                tokens = torch.where(gold, tgt_in[:, u], logits[-1].argmax(-1))
            elif u > 0:
                tokens = tgt_in[:, u]
            fed.append(tokens)
            step_logits, state, w = self.step(memory, tokens, state)
            logits.append(step_logits)
            weights.append(w)
        logits = torch.stack(logits, dim=1)  # (B, U, V)
        if not return_trace:
            return logits
        trace = {"fed": torch.stack(fed, dim=1)}  # (B, U)
        if self.attention is not None:
            trace["attention"] = torch.stack(weights, dim=1)  # (B, U, S)
        return logits, trace

    # -- the hooks of Decoding: greedy and log_prob_fn -------------------------------------------------

    def _begin(self, src, src_lengths):
        return self.encode(src, src_lengths)

    def _expand(self, memory, k):
        return memory.expand(k)

    def _first_state(self, memory):
        return memory.state  # (B, H)

    def _next(self, memory, prefix, state):
        return self.step(memory, prefix[:, -1], state)  # the GRU reads only the newest token

    @torch.no_grad()
    def alignment(self, src_ids, output_ids) -> torch.Tensor:
        """Attention weights (U, S) while the decoder produces ``output_ids`` (bos first) from ``src_ids``."""
        if self.attention is None:
            raise ValueError("this Seq2Seq has no attention (build it with attention=True)")
        src = torch.as_tensor(list(src_ids), dtype=torch.long)[None]
        tgt = torch.as_tensor(list(output_ids), dtype=torch.long)[None]
        device = next(self.parameters()).device
        was_training = self.training
        self.eval()
        _, trace = self(src.to(device), None, tgt[:, :-1].to(device), return_trace=True)
        self.train(was_training)
        return trace["attention"][0].cpu()  # (U, S)


def sequence_accuracy(predicted: torch.Tensor, tgt_out: torch.Tensor, eos_id: int = 3, pad_id: int = 0) -> torch.Tensor:
    """(B,) bool: the prediction equals the target up to and including eos. Both (B, *) id tensors."""
    width = max(predicted.shape[1], tgt_out.shape[1])
    pred = F.pad(predicted, (0, width - predicted.shape[1]), value=pad_id)
    gold = F.pad(tgt_out, (0, width - tgt_out.shape[1]), value=pad_id).to(pred.device)
    after_eos = (pred == eos_id).long().cumsum(1) - (pred == eos_id).long() > 0  # positions after the first eos
    pred = pred.masked_fill(after_eos, pad_id)
    return (pred == gold).all(1)
