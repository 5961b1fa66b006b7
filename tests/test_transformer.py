"""Attention, masks, positional encodings and Transformer layers, proven equal to torch.nn."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from seqviz.decode import beam_search, greedy_decode
from seqviz.models import (
    LearnedPositionalEncoding, MultiHeadAttention, SinusoidalPositionalEncoding, TransformerDecoderLayer,
    TransformerEncoderLayer, TransformerSeq2Seq, causal_mask, padding_mask, positional_encoding,
    scaled_dot_product_attention, sequence_loss,
)


def test_sdpa_equals_torch_with_and_without_masks():
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 4)
    out, w = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 3, 5))
    keys = padding_mask(torch.tensor([7, 3]), 7)[:, None, None, :]  # (2, 1, 1, 7)
    out, w = scaled_dot_product_attention(q, k, v, keys)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=keys))
    assert (w[1, ..., 3:] == 0).all()
    c = causal_mask(7)
    out, w = scaled_dot_product_attention(k, k, v, c)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(k, k, v, is_causal=True))
    assert (w.triu(1) == 0).all()


def test_sdpa_scale_and_gradcheck_in_float64():
    q, k, v = (torch.randn(2, 4, 6, dtype=torch.float64, requires_grad=True) for _ in range(3))
    out, _ = scaled_dot_product_attention(q, k, v, scale=1.0)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, scale=1.0))
    assert torch.autograd.gradcheck(lambda a, b, c: scaled_dot_product_attention(a, b, c, causal_mask(4))[0], (q, k, v))


def test_sdpa_rejects_bad_masks_and_shapes():
    q = torch.randn(1, 3, 4)
    with pytest.raises(ValueError, match="bool"):
        scaled_dot_product_attention(q, q, q, torch.ones(3, 3))
    with pytest.raises(ValueError, match="no key"):
        scaled_dot_product_attention(q, q, q, torch.zeros(3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="broadcast"):
        scaled_dot_product_attention(q, q, q, torch.ones(2, 2, dtype=torch.bool))
    with pytest.raises(ValueError):
        scaled_dot_product_attention(q, torch.randn(1, 3, 5), q)
    with pytest.raises(ValueError):
        causal_mask(0)


def test_causal_mask_values():
    assert causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def _torch_mha(d=8, h=2):
    return nn.MultiheadAttention(d, h, batch_first=True).eval()


def test_mha_equals_torch_with_masks_and_per_head_weights():
    ref = _torch_mha()
    ours = MultiHeadAttention(8, 2).copy_from(ref).eval()
    x, mem = torch.randn(3, 5, 8), torch.randn(3, 6, 8)
    lengths = torch.tensor([6, 2, 4])
    keys = padding_mask(lengths, 6)
    out, w = ours(x, mem, mem, key_mask=keys)
    expected, expected_w = ref(x, mem, mem, key_padding_mask=~keys, average_attn_weights=False)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(w, expected_w)
    assert w.shape == (3, 2, 5, 6)
    torch.testing.assert_close(w.sum(-1), torch.ones(3, 2, 5))
    assert (w[1, :, :, 2:] == 0).all()
    c = causal_mask(5)
    out, w = ours(x, x, x, mask=c)
    expected, expected_w = ref(x, x, x, attn_mask=~c, average_attn_weights=False)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(w, expected_w)


def test_mha_gradients_equal_torch():
    ref = nn.MultiheadAttention(8, 4, batch_first=True)
    ours = MultiHeadAttention(8, 4).copy_from(ref)
    x = torch.randn(2, 5, 8)
    ours(x, x, x, mask=causal_mask(5))[0].pow(2).sum().backward()
    ref(x, x, x, attn_mask=~causal_mask(5))[0].pow(2).sum().backward()
    for name, p in ours.named_parameters():
        torch.testing.assert_close(p.grad, dict(ref.named_parameters())[name].grad, msg=name)


def test_mha_multiplies_by_the_values_once():
    """Two products per call (scores, then weights @ v), with dropout or without: none computed twice."""
    from torch.overrides import TorchFunctionMode

    class CountMatmuls(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.count = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            self.count += func in (torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__)
            return func(*args, **(kwargs or {}))

    x = torch.randn(2, 5, 8)
    for mha in (MultiHeadAttention(8, 2).eval(), MultiHeadAttention(8, 2, dropout=0.5).train()):
        with CountMatmuls() as counter:
            mha(x, x, x, mask=causal_mask(5))
        assert counter.count == 2


def test_mha_gradcheck_float64():
    mha = MultiHeadAttention(4, 2).double()
    x = torch.randn(1, 3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: mha(t, t, t, mask=causal_mask(3))[0], (x,))


def test_mha_checks():
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(6, 4)
    with pytest.raises(ValueError, match="MultiheadAttention"):
        MultiHeadAttention(8, 2).copy_from(nn.Linear(8, 8))
    with pytest.raises(ValueError):
        MultiHeadAttention(8, 2).copy_from(nn.MultiheadAttention(8, 4))
    with pytest.raises(ValueError, match="key_mask"):
        MultiHeadAttention(8, 2)(torch.randn(2, 3, 8), torch.randn(2, 3, 8), torch.randn(2, 3, 8),
                                 key_mask=torch.ones(2, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match="expects"):
        MultiHeadAttention(8, 2)(torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.randn(2, 3, 4))


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_equals_torch(norm_first, activation):
    ref = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation=activation, batch_first=True,
                                     norm_first=norm_first).eval()
    ours = TransformerEncoderLayer(8, 2, 16, activation=activation, norm_first=norm_first).copy_from(ref).eval()
    x = torch.randn(3, 5, 8)
    keys = padding_mask(torch.tensor([5, 2, 4]), 5)
    out, w = ours(x, key_mask=keys)
    expected = ref(x, src_key_padding_mask=~keys)
    real = keys[..., None]  # torch's fast path may zero padded positions: compare the real ones
    torch.testing.assert_close(out * real, expected * real)
    assert w.shape == (3, 2, 5, 5)
    out, _ = ours(x, mask=causal_mask(5))
    torch.testing.assert_close(out, ref(x, src_mask=~causal_mask(5), is_causal=True))


def test_encoder_layer_gradients_equal_torch():
    ref = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    ours = TransformerEncoderLayer(8, 2, 16, dropout=0.0).copy_from(ref)
    x = torch.randn(2, 4, 8)
    ours(x)[0].sum().backward()
    ref(x).sum().backward()
    theirs = dict(ref.named_parameters())
    for name, p in ours.named_parameters():
        torch.testing.assert_close(p.grad, theirs[name].grad, msg=name)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_equals_torch(norm_first):
    ref = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True, norm_first=norm_first).eval()
    ours = TransformerDecoderLayer(8, 2, 16, norm_first=norm_first).copy_from(ref).eval()
    y, mem = torch.randn(3, 4, 8), torch.randn(3, 6, 8)
    src_keys = padding_mask(torch.tensor([6, 2, 5]), 6)
    out, sw, cw = ours(y, mem, mask=causal_mask(4), memory_key_mask=src_keys)
    expected = ref(y, mem, tgt_mask=~causal_mask(4), memory_key_padding_mask=~src_keys)
    torch.testing.assert_close(out, expected)
    assert sw.shape == (3, 2, 4, 4) and cw.shape == (3, 2, 4, 6)
    assert (sw.triu(1) == 0).all() and (cw[1, ..., 2:] == 0).all()


def test_layer_copy_from_checks():
    with pytest.raises(ValueError, match="norm_first"):
        TransformerEncoderLayer(8, 2, 16).copy_from(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                                               norm_first=True))
    with pytest.raises(ValueError, match="differ"):
        TransformerEncoderLayer(8, 2, 16).copy_from(nn.TransformerEncoderLayer(8, 2, 32, batch_first=True))
    with pytest.raises(ValueError, match="TransformerDecoderLayer"):
        TransformerDecoderLayer(8, 2, 16).copy_from(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True))
    with pytest.raises(ValueError, match="batch_first"):
        TransformerEncoderLayer(8, 2, 16).copy_from(nn.TransformerEncoderLayer(8, 2, 16))


def test_causal_mask_hides_the_future_by_perturbation():
    layer = TransformerEncoderLayer(8, 2, 16).eval()
    x = torch.randn(1, 6, 8)
    x2 = x.clone()
    x2[0, 4] += 5.0  # change token 4
    out, _ = layer(x, mask=causal_mask(6))
    out2, _ = layer(x2, mask=causal_mask(6))
    torch.testing.assert_close(out[0, :4], out2[0, :4])  # earlier positions cannot see it
    assert not torch.allclose(out[0, 4:], out2[0, 4:])
    free, _ = layer(x)
    free2, _ = layer(x2)
    assert not torch.allclose(free[0, :4], free2[0, :4])  # without the mask they can


def test_padding_mask_makes_pads_irrelevant_by_perturbation():
    layer = TransformerEncoderLayer(8, 2, 16).eval()
    x = torch.randn(2, 5, 8)
    keys = padding_mask(torch.tensor([3, 5]), 5)
    x2 = x.clone()
    x2[0, 3:] = torch.randn(2, 8) * 10  # new junk in the pads of row 0
    out, _ = layer(x, key_mask=keys)
    out2, _ = layer(x2, key_mask=keys)
    torch.testing.assert_close(out[0, :3], out2[0, :3])
    torch.testing.assert_close(out[1], out2[1])


def test_self_attention_without_positions_is_permutation_equivariant():
    layer = TransformerEncoderLayer(8, 2, 16).eval()
    x = torch.randn(1, 5, 8)
    perm = torch.tensor([3, 0, 4, 1, 2])
    out, _ = layer(x)
    out_perm, _ = layer(x[:, perm])
    torch.testing.assert_close(out[:, perm], out_perm)


def test_positional_encoding_formula():
    pe = positional_encoding(50, 16)
    assert pe.shape == (50, 16)
    for pos, i in ((0, 0), (7, 0), (7, 3), (49, 7)):
        angle = pos / 10000 ** (2 * i / 16)
        assert math.isclose(pe[pos, 2 * i].item(), math.sin(angle), abs_tol=1e-6)
        assert math.isclose(pe[pos, 2 * i + 1].item(), math.cos(angle), abs_tol=1e-6)
    assert positional_encoding(4, 5).shape == (4, 5)  # odd width: the last sine has no cosine partner
    with pytest.raises(ValueError):
        positional_encoding(0, 4)


def test_positional_modules_add_their_table():
    x = torch.zeros(2, 5, 8)
    torch.testing.assert_close(SinusoidalPositionalEncoding(10, 8)(x)[0], positional_encoding(5, 8))
    learned = LearnedPositionalEncoding(10, 8)
    torch.testing.assert_close(learned(x)[1], learned.weight[:5].detach())
    with pytest.raises(ValueError):
        learned(torch.zeros(1, 11, 8))


def _tiny_batch():
    src = torch.tensor([[4, 5, 6, 7], [8, 9, 0, 0]])
    lengths = torch.tensor([4, 2])
    tgt_in = torch.tensor([[2, 4, 5, 6, 7], [2, 8, 9, 0, 0]])
    tgt_out = torch.tensor([[4, 5, 6, 7, 3], [8, 9, 3, 0, 0]])
    return src, lengths, tgt_in, tgt_out


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "none"])
def test_seq2seq_shapes_trace_and_padding(positional):
    model = TransformerSeq2Seq(12, 12, d_model=16, num_heads=2, dim_feedforward=32, positional=positional,
                               max_len=16).eval()
    src, lengths, tgt_in, _ = _tiny_batch()
    logits, trace = model(src, lengths, tgt_in, return_trace=True)
    assert logits.shape == (2, 5, 12)
    assert len(trace["encoder"]) == 2 and trace["cross"][0].shape == (2, 2, 5, 4)
    assert (trace["cross"][-1][1, ..., 2:] == 0).all()
    alone = model(src[1:, :2], lengths[1:], tgt_in[1:])
    torch.testing.assert_close(logits[1], alone[0])  # padding changes nothing


def test_seq2seq_decoder_is_causal_and_greedy_matches_beam():
    model = TransformerSeq2Seq(12, 12, d_model=16, num_heads=2, dim_feedforward=32, max_len=16).eval()
    src, lengths, tgt_in, _ = _tiny_batch()
    a = model(src, lengths, tgt_in)
    changed = tgt_in.clone()
    changed[:, 3] = 11
    b = model(src, lengths, changed)
    torch.testing.assert_close(a[:, :3], b[:, :3])
    tokens, cross = model.greedy(src[:1], lengths[:1], max_len=6)
    assert cross.shape[0] == 1 and cross.shape[1] == tokens.shape[1] and cross.shape[2] == 4
    fn = model.log_prob_fn(src[0])
    g = greedy_decode(fn, 2, 3, max_len=6)
    assert g.tokens[1:] == tokens[0].tolist()[: len(g.tokens) - 1]
    assert beam_search(fn, 2, 3, beam_size=1, max_len=6)[0].tokens == g.tokens


def test_seq2seq_learns_to_copy():
    torch.manual_seed(0)
    model = TransformerSeq2Seq(12, 12, d_model=32, num_heads=2, dim_feedforward=64, dropout=0.0, max_len=16)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(300):
        src = torch.randint(4, 12, (32, 4))
        tgt_in = torch.cat([torch.full((32, 1), 2), src], 1)
        tgt_out = torch.cat([src, torch.full((32, 1), 3)], 1)
        loss = sequence_loss(model(src, None, tgt_in), tgt_out)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.1


def test_seq2seq_checks():
    model = TransformerSeq2Seq(12, 12, d_model=16, num_heads=2, max_len=5)
    with pytest.raises(ValueError, match="max_len"):
        model(torch.randint(4, 12, (1, 6)), None, torch.tensor([[2]]))
    with pytest.raises(ValueError, match="ids"):
        model(torch.tensor([[13]]), None, torch.tensor([[2]]))
    with pytest.raises(ValueError, match="positional"):
        TransformerSeq2Seq(12, 12, positional="rotary")
