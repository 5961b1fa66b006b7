"""The key/value cache changes the cost of a step, never its answer."""

import pytest
import torch

from seqviz.streaming import GRULM, TransformerLM, cache_bytes


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
