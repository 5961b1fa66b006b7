"""The key/value cache changes the cost of a step, never its answer: for the attention, the layer, the
decoder-only Transformer and its language model."""

import pytest
import torch

from seqviz.models import (GRULM, CausalTransformerEncoder, MultiHeadAttention, TransformerEncoderLayer, TransformerLM,
                           cache_bytes, causal_mask)


def close(a, b):
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def test_attention_with_a_cache_equals_attention_over_all_keys():
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2).eval()
    x = torch.randn(2, 7, 8)
    full, weights = mha(x, x, x, mask=causal_mask(7))
    _, _, past = mha(x[:, :4], x[:, :4], x[:, :4], mask=causal_mask(4), use_cache=True)  # the first 4 positions
    rest = causal_mask(7)[4:]  # (3, 7): the last 3 queries over all 7 keys
    out, w, present = mha(x[:, 4:], x[:, 4:], x[:, 4:], mask=rest, past=past, use_cache=True)
    close(out, full[:, 4:])
    close(w, weights[:, :, 4:])
    assert past[0].shape == (2, 2, 4, 4) and present[0].shape == (2, 2, 7, 4)  # the old cache is untouched
    with pytest.raises(ValueError, match="past"):
        mha(x[:, :1], x[:, :1], x[:, :1], past=(past[0],))


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_steps_with_a_cache_equal_the_full_causal_forward(norm_first):
    torch.manual_seed(1)
    layer = TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=norm_first).eval()
    x = torch.randn(3, 6, 8)
    full, weights = layer(x, mask=causal_mask(6))
    past = None
    for t in range(6):
        out, w, past = layer(x[:, t:t + 1], past=past, use_cache=True)
        close(out, full[:, t:t + 1])
        close(w[:, :, 0], weights[:, :, t, : t + 1])
    assert past[0].shape == (3, 2, 6, 4)


def test_causal_encoder_steps_equal_its_forward():
    torch.manual_seed(2)
    enc = CausalTransformerEncoder(3, 8, num_heads=2, num_layers=2, max_len=16).eval()
    x = torch.randn(2, 5, 3)
    full, _ = enc(x)
    cache = None
    for t in range(5):
        out, cache = enc.step(x[:, t:t + 1], cache)
        close(out, full[:, t:t + 1])


@pytest.mark.parametrize("norm_first", [False, True])
def test_cached_steps_equal_rereading_the_prefix(norm_first):
    torch.manual_seed(0)
    model = TransformerLM(20, d_model=16, num_heads=4, num_layers=2, dim_feedforward=32, max_len=32,
                          norm_first=norm_first).eval()
    ids = torch.randint(0, 20, (3, 9))
    full = model(ids)  # (3, 9, 20)
    cache = None
    for t in range(ids.shape[1]):
        logits, cache = model.step(ids[:, t:t + 1], cache)
        torch.testing.assert_close(logits, full[:, t], atol=1e-5, rtol=1e-5)
        uncached, _ = model.next_logits(ids[:, :t + 1], use_cache=False)
        torch.testing.assert_close(logits, uncached, atol=1e-5, rtol=1e-5)
    assert cache[0][0].shape == (3, 4, 9, 4)


def test_prefill_matches_forward_and_step_leaves_the_old_cache_alone():
    torch.manual_seed(1)
    model = TransformerLM(12, d_model=8, num_heads=2, num_layers=1, dim_feedforward=16, max_len=16)
    ids = torch.randint(0, 12, (2, 5))
    logits, cache = model.prefill(ids)
    torch.testing.assert_close(logits, model(ids)[:, -1], atol=1e-5, rtol=1e-5)
    before = cache_bytes(cache)
    _, longer = model.step(ids[:, :1], cache)
    assert cache_bytes(cache) == before and cache_bytes(longer) > before


def test_the_future_does_not_leak():
    torch.manual_seed(2)
    model = TransformerLM(10, d_model=8, num_heads=2, num_layers=2, dim_feedforward=16, max_len=16)
    ids = torch.randint(0, 10, (1, 6))
    changed = ids.clone()
    changed[0, -1] = (ids[0, -1] + 1) % 10
    torch.testing.assert_close(model(ids)[:, :-1], model(changed)[:, :-1])


def test_gru_state_stays_the_same_size_and_steps_equal_forward():
    torch.manual_seed(0)
    model = GRULM(15, hidden_size=8)
    ids = torch.randint(0, 15, (2, 7))
    full = model(ids)
    state, sizes = None, set()
    for t in range(7):
        logits, state = model.step(ids[:, t:t + 1], state)
        torch.testing.assert_close(logits, full[:, t], atol=1e-5, rtol=1e-5)
        sizes.add(cache_bytes(state))
    assert len(sizes) == 1


def test_clear_errors():
    model = TransformerLM(10, d_model=8, num_heads=2, num_layers=1, dim_feedforward=16, max_len=4)
    with pytest.raises(ValueError, match="one new token"):
        model.step(torch.zeros(1, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="0..9"):
        model(torch.full((1, 2), 10))
    _, cache = model.prefill(torch.zeros(1, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="max_len"):
        model.step(torch.zeros(1, 1, dtype=torch.long), cache)
    with pytest.raises(ValueError, match="cell"):
        GRULM(10, cell="transformer")
