"""Bidirectional encoder, tagger, Seq2Seq with and without additive attention."""

import pytest
import torch
from torch import nn

from seqviz.decode import beam_search, greedy_decode
from seqviz.models import (
    AdditiveAttention, Encoder, Seq2Seq, Tagger, masked_softmax, padding_mask, reverse_padded, sequence_accuracy,
    sequence_loss,
)


def batch(B=4, S=6, U=5, vocab=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.tensor([S, 1, 3, S - 1][:B])
    src = torch.randint(4, vocab, (B, S), generator=g)
    src[torch.arange(S)[None] >= lengths[:, None]] = 0  # right padding
    tgt_in = torch.randint(4, vocab, (B, U), generator=g)
    tgt_in[:, 0] = 2
    return src, lengths, tgt_in


def test_reverse_padded_reverses_within_each_length_and_is_its_own_inverse():
    x = torch.arange(12.0).view(2, 6)[..., None]  # (2, 6, 1)
    lengths = torch.tensor([4, 6])
    r = reverse_padded(x, lengths)
    assert r[0, :, 0].tolist() == [3, 2, 1, 0, 4, 5] and r[1, :, 0].tolist() == [11, 10, 9, 8, 7, 6]
    assert torch.equal(reverse_padded(r, lengths), x)


def test_the_backward_direction_ignores_padding():
    enc = Encoder(12, 8, 5, bidirectional=True).eval()
    src, lengths, _ = batch()
    out, summary = enc(src, lengths)
    for b in range(src.shape[0]):
        alone, alone_summary = enc(src[b:b + 1, : lengths[b]], lengths[b:b + 1])
        torch.testing.assert_close(out[b, : lengths[b]], alone[0])
        torch.testing.assert_close(summary[b], alone_summary[0])


def test_the_bidirectional_encoder_equals_a_builtin_bidirectional_gru():
    enc = Encoder(12, 8, 5, bidirectional=True)
    builtin = nn.GRU(8, 5, batch_first=True, bidirectional=True)
    with torch.no_grad():
        for name, p in enc.forward_rnn.named_parameters():
            getattr(builtin, name).copy_(p)
            getattr(builtin, name + "_reverse").copy_(getattr(enc.backward_rnn, name))
    src = torch.randint(4, 12, (3, 7))
    out, _ = enc(src)
    expected, _ = builtin(enc.embedding(src))
    torch.testing.assert_close(out, expected)


def test_a_tagger_reads_right_context_only_when_bidirectional():
    src, lengths, _ = batch()
    for bidirectional in (False, True):
        tagger = Tagger(12, 8, 6, num_tags=4, bidirectional=bidirectional).eval()
        logits = tagger(src, lengths)
        assert logits.shape == (4, 6, 4)
        changed = src.clone()
        changed[0, 5] = 4 if src[0, 5] != 4 else 5  # change the last token of sentence 0
        moved = (tagger(changed, lengths)[0, 0] - logits[0, 0]).abs().max().item()
        assert (moved > 1e-6) == bidirectional


def test_padding_mask_and_masked_softmax():
    mask = padding_mask(torch.tensor([2, 4]), 4)
    assert mask.tolist() == [[True, True, False, False], [True] * 4]
    w = masked_softmax(torch.randn(2, 4), mask)
    assert torch.allclose(w.sum(-1), torch.ones(2)) and (w[0, 2:] == 0).all()
    with pytest.raises(ValueError, match="lengths must lie in 1..4"):
        padding_mask(torch.tensor([0, 2]), 4)


def test_additive_attention_weights_sum_to_one_and_are_zero_on_padding():
    att = AdditiveAttention(5, 7, 6)
    keys = torch.randn(3, 4, 7)
    mask = padding_mask(torch.tensor([4, 2, 1]), 4)
    context, weights = att(torch.randn(3, 5), keys, mask)
    assert context.shape == (3, 7) and weights.shape == (3, 4)
    torch.testing.assert_close(weights.sum(-1), torch.ones(3))
    assert (weights[~mask] == 0).all()
    torch.testing.assert_close(context, (weights[..., None] * keys).sum(1))
    # by hand: v^T tanh(W q + U k + b)
    q = torch.randn(3, 5)
    hidden = torch.tanh((q @ att.query_proj.weight.T)[:, None] + keys @ att.key_proj.weight.T + att.key_proj.bias)
    e = hidden @ att.v.weight[0]  # (3, 4)
    torch.testing.assert_close(att(q, keys)[1], e.softmax(-1))
    with pytest.raises(ValueError, match="query"):
        att(torch.randn(3, 6), keys)


@pytest.mark.parametrize("attention", [False, True])
def test_seq2seq_shapes_padding_and_attention_trace(attention):
    model = Seq2Seq(12, 9, 8, 10, attention=attention).eval()
    src, lengths, tgt_in = batch(vocab=9)
    logits, trace = model(src, lengths, tgt_in, return_trace=True)
    assert logits.shape == (4, 5, 9)
    assert torch.equal(trace["fed"], tgt_in)
    if attention:
        w = trace["attention"]  # (B, U, S)
        assert w.shape == (4, 5, 6)
        torch.testing.assert_close(w.sum(-1), torch.ones(4, 5))
        assert (w[~padding_mask(lengths, 6)[:, None, :].expand_as(w)] == 0).all()
    # padding does not change the translation of a sentence
    alone = model(src[1:2, :1], lengths[1:2], tgt_in[1:2])
    torch.testing.assert_close(logits[1:2], alone)


def test_the_one_call_decoder_equals_the_step_by_step_decoder():
    model = Seq2Seq(12, 9, 8, 10, attention=False).eval()
    src, lengths, tgt_in = batch(vocab=9)
    fast = model(src, lengths, tgt_in)
    memory, steps, state = model.encode(src, lengths), [], None
    state = memory.state
    for u in range(tgt_in.shape[1]):
        logits, state, _ = model.step(memory, tgt_in[:, u], state)
        steps.append(logits)
    torch.testing.assert_close(fast, torch.stack(steps, 1))


def test_a_teacher_forcing_ratio_of_one_feeds_the_gold_tokens_and_zero_feeds_the_guesses():
    src, lengths, tgt_in = batch(vocab=9)
    for attention in (False, True):
        model = Seq2Seq(12, 9, 8, 10, attention=attention, teacher_forcing=1.0).train()
        _, trace = model(src, lengths, tgt_in, return_trace=True)
        assert torch.equal(trace["fed"], tgt_in)
        model.teacher_forcing = 0.0
        logits, trace = model(src, lengths, tgt_in, return_trace=True)
        assert torch.equal(trace["fed"][:, 0], tgt_in[:, 0])
        assert torch.equal(trace["fed"][:, 1:], logits[:, :-1].argmax(-1))
        model.eval()  # evaluation is always teacher-forced
        _, trace = model(src, lengths, tgt_in, return_trace=True)
        assert torch.equal(trace["fed"], tgt_in)


@pytest.mark.parametrize("attention", [False, True])
def test_batched_greedy_and_the_cached_log_prob_fn_agree_with_decode(attention):
    torch.manual_seed(1)
    model = Seq2Seq(12, 9, 8, 10, attention=attention).eval()
    src, lengths, _ = batch(vocab=12)
    tokens, _ = model.greedy(src, lengths, max_len=6)
    for b in range(src.shape[0]):
        fn = model.log_prob_fn(src[b, : lengths[b]])
        h = greedy_decode(fn, 2, 3, max_len=6)
        got = [t for t in tokens[b].tolist()]
        assert h.tokens[1:] == got[: len(h.tokens) - 1]
        (beam,) = beam_search(model.log_prob_fn(src[b, : lengths[b]]), 2, 3, beam_size=1, max_len=6)
        assert beam.tokens == h.tokens
        # the cached log-probabilities equal a fresh teacher-forced pass
        fresh = model(src[b:b + 1, : lengths[b]], None, torch.tensor([h.tokens[:-1]])).log_softmax(-1)
        total = fresh[0].gather(1, torch.tensor(h.tokens[1:])[:, None]).sum().item()
        assert total == pytest.approx(h.log_prob, abs=1e-4)


def test_sequence_loss_and_accuracy_ignore_padding():
    logits = torch.randn(2, 3, 5)
    targets = torch.tensor([[4, 3, 0], [4, 4, 3]])
    assert sequence_loss(logits, targets).item() == pytest.approx(
        nn.functional.cross_entropy(logits.flatten(0, 1)[targets.flatten() != 0], targets[targets != 0]).item())
    predicted = torch.tensor([[4, 3, 7, 7], [4, 4, 4, 3]])  # row 0 right (junk after eos), row 1 one token too long
    assert sequence_accuracy(predicted, targets).tolist() == [True, False]


def test_bad_inputs_are_clear_errors():
    model = Seq2Seq(12, 9, 8, 10, attention=True)
    with pytest.raises(ValueError, match="empty source"):
        model.encode(torch.zeros(1, 0, dtype=torch.long))
    with pytest.raises(ValueError, match="non-empty source"):
        model.log_prob_fn([])
    with pytest.raises(ValueError, match=r"ids in 0..11, got 0..40"):
        model.encode(torch.tensor([[40, 0]]))
    with pytest.raises(ValueError, match="lengths"):
        model.encode(torch.tensor([[5, 6]]), torch.tensor([0]))
    with pytest.raises(ValueError, match="teacher_forcing is a probability"):
        Seq2Seq(12, 9, teacher_forcing=1.5)
    with pytest.raises(ValueError, match="max_len must be an int >= 1"):
        model.greedy(torch.tensor([[5, 6]]), max_len=0)


def test_sequence_loss_smooths_labels_as_torch_does():
    import torch.nn.functional as F

    from seqviz.models import sequence_loss

    torch.manual_seed(0)
    logits, targets = torch.randn(2, 5, 7), torch.randint(1, 7, (2, 5))
    targets[1, 3:] = 0                                                     # padding, ignored
    plain = sequence_loss(logits, targets)
    smooth = sequence_loss(logits, targets, label_smoothing=0.1)
    # by hand: the target puts 1 - eps + eps/V on the right token and eps/V on every token
    log_p = logits.log_softmax(-1)[targets != 0]                         # (N, V)
    t = torch.full_like(log_p, 0.1 / 7)
    t[torch.arange(len(t)), targets[targets != 0]] += 0.9
    torch.testing.assert_close(smooth, -(t * log_p).sum(-1).mean())
    torch.testing.assert_close(plain, F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=0))
    with pytest.raises(ValueError, match="label_smoothing"):
        sequence_loss(logits, targets, label_smoothing=1.0)
