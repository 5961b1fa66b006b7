"""Greedy decoding and a ``log_prob_fn`` for :mod:`seqviz.decode`, written once for both encoder-decoders
(:class:`~seqviz.models.Seq2Seq`, chapters 5-7, and :class:`~seqviz.models.TransformerSeq2Seq`, chapter 8).

A model mixes in :class:`Decoding` and supplies four hooks:

- ``_begin(src (B, S), src_lengths (B,) or None) -> memory``: what the decoder consults;
- ``_expand(memory, k) -> memory``: one sentence's memory repeated for ``k`` hypotheses;
- ``_first_state(memory) -> state (B, ...) or None``: the decoder's state before any token;
- ``_next(memory, prefix (B, t), state) -> (logits (B, V), state, weights (B, S) or None)``: read the
  prefix's last token (a recurrent decoder, from ``state``) or the whole prefix (a Transformer, whose
  ``state`` stays None), and give the next token's logits and the attention over the source;

and ``bos_id``, ``eos_id``; ``_decode_steps(max_len)`` may lower the number of steps.
"""

from __future__ import annotations

import torch

from ..config import model_device


class Decoding:
    """``greedy`` (batched) and ``log_prob_fn`` (one sentence, for beam search) over the four hooks."""

    def _decode_steps(self, max_len: int) -> int:
        return max_len

    @torch.no_grad()
    def greedy(self, src, src_lengths=None, max_len: int = 20):
        """Batched greedy decoding: ``(tokens (B, <= max_len), attention (B, <= max_len, S) or None)``; after eos, pads.

        ``attention`` row u is the attention over the source while producing token u (a Transformer's: its
        last decoder layer's cross-attention, averaged over heads). Stops early once every row has produced
        eos. Runs where the model is (``src`` and ``src_lengths`` are moved there); the results come back on
        ``src``'s device.
        """
        if not isinstance(max_len, int) or isinstance(max_len, bool) or max_len < 1:
            raise ValueError(f"max_len must be an int >= 1, got {max_len!r}")
        if not isinstance(src, torch.Tensor):
            raise ValueError(f"src must be a tensor of token ids (B, S), got {type(src).__name__}")
        caller, device = src.device, model_device(self)
        src = src.to(device)
        memory = self._begin(src, None if src_lengths is None else src_lengths.to(device))
        B = src.shape[0]
        prefix = torch.full((B, 1), self.bos_id, dtype=torch.long, device=device)  # (B, 1)
        done = torch.zeros(B, dtype=torch.bool, device=device)
        state, weights = self._first_state(memory), []
        for _ in range(self._decode_steps(max_len)):
            logits, state, w = self._next(memory, prefix, state)  # (B, V)
            tokens = logits.argmax(-1).masked_fill(done, 0)  # (B,): pads after eos
            prefix = torch.cat([prefix, tokens[:, None]], dim=1)
            weights.append(w)
            done |= tokens == self.eos_id
            if bool(done.all()):  # one read per generated token: the price of stopping early
                break
        attention = torch.stack(weights, dim=1).to(caller) if weights and weights[0] is not None else None
        return prefix[:, 1:].to(caller), attention

    def log_prob_fn(self, src_ids):
        """A ``log_prob_fn`` for :mod:`seqviz.decode` that translates one source sentence (a list or 1-D tensor
        of ids). A recurrent decoder's states are cached by prefix, so each call costs one decoder step."""
        src = torch.as_tensor(list(src_ids) if not isinstance(src_ids, torch.Tensor) else src_ids, dtype=torch.long)
        if src.dim() != 1 or src.numel() == 0:
            raise ValueError(f"log_prob_fn expects one non-empty source sentence (S,) of ids, got shape "
                             f"{tuple(src.shape)}")
        device = model_device(self)
        with torch.no_grad():
            memory = self._begin(src[None].to(device), None)
            first = self._first_state(memory)
        states = {(): None if first is None else first[0]}  # the state after reading each prefix, per row

        def state_after(prefix):
            if prefix not in states:  # not seen before: read the prefix from the start
                state = None if first is None else first
                for i in range(len(prefix)):
                    _, state, _ = self._next(memory, torch.tensor([prefix[: i + 1]], device=device), state)
                states[prefix] = None if state is None else state[0]
            return states[prefix]

        @torch.no_grad()
        def log_probs(prefixes: torch.Tensor) -> torch.Tensor:
            rows = prefixes.tolist()
            before = [state_after(tuple(r[:-1])) for r in rows]
            state = None if first is None else torch.stack(before)  # (k, ...)
            logits, after, _ = self._next(self._expand(memory, len(rows)), prefixes.to(device), state)
            for i, r in enumerate(rows):
                states[tuple(r)] = None if after is None else after[i]
            return logits.log_softmax(-1)  # (k, V)

        return log_probs
