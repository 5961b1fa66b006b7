"""seqviz.experiments.attention (chapter 8's "why sqrt(d)"): softmax rows saturate without the scale, the gradient
against the softmax Jacobian written out, and the starvation of unscaled scores at large widths."""

import math

import pytest
import torch

from seqviz.experiments import attention_entropy, attention_gradients, softmax_attention_gradients


def test_softmax_attention_gradients_match_the_softmax_jacobian():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 5, 8, generator=g, dtype=torch.float64), torch.randn(2, 5, 8, generator=g, dtype=torch.float64)
    v, r = torch.randn(2, 5, 3, generator=g, dtype=torch.float64), torch.randn(2, 5, 3, generator=g, dtype=torch.float64)
    for scaled, s in ((True, 8 ** 0.5), (False, 1.0)):
        p = (q @ k.transpose(1, 2) / s).softmax(-1)  # (B, T, T)
        u = r @ v.transpose(1, 2)  # dL/dp: u[b, i, j] = readout_i . v_j
        d_logits = p * (u - (p * u).sum(-1, keepdim=True))  # the softmax Jacobian applied to u
        d_q = d_logits @ k / s
        norms = softmax_attention_gradients(q, k, v, r, scaled=scaled)
        torch.testing.assert_close(norms["scores"], d_logits.norm(dim=-1))
        torch.testing.assert_close(norms["query"], d_q.norm(dim=-1))
    assert not q.requires_grad  # the inputs are left alone
    with pytest.raises(ValueError, match="matching"):
        softmax_attention_gradients(q, k[:, :4], v, r)


def test_attention_gradients_starve_without_the_scale():
    scaled = attention_gradients([4, 1024], samples=16, scaled=True)
    raw = attention_gradients([4, 1024], samples=16, scaled=False)
    # with 1/sqrt(d) the typical gradient stays within a factor of 2 and no row starves
    assert 0.5 < scaled["query_median"][1] / scaled["query_median"][0] < 2 and max(scaled["starved"]) == 0
    # without it, at d = 1024 most rows are saturated and the typical query gets almost nothing
    assert raw["query_median"][1] < 0.01 * scaled["query_median"][1] and raw["starved"][1] > 0.5
    assert attention_gradients([1], samples=4, scaled=True) == attention_gradients([1], samples=4, scaled=False)



def test_attention_entropy_saturates_without_the_scale():
    scaled = attention_entropy([4, 256], scaled=True)
    raw = attention_entropy([4, 256], scaled=False)
    assert raw[1] < 1.0 < scaled[1] and abs(scaled[0] - scaled[1]) < 0.5
    assert max(scaled) <= math.log(32) + 1e-9  # at most uniform weights over the 32 keys
    # one row by hand: the entropy of softmax(q k^T / sqrt(d))
    g = torch.Generator().manual_seed(0)
    q, k = (torch.randn(1, 32, 4, generator=g, dtype=torch.float64) for _ in range(2))
    p = (q @ k.transpose(1, 2) / 2).softmax(-1)
    assert attention_entropy([4], samples=1) == [pytest.approx(float(-(p * p.log()).sum(-1).mean()))]
