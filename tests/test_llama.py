"""The from-scratch Llama-style decoder against transformers.LlamaForCausalLM (random tiny weights), its pieces
against references, its cache against re-reading, and its errors. The real SmolLM2 weights: test_real_gpt.py."""

import math

import pytest
import torch
from torch import nn

from seqviz.models import DecoderConfig, LlamaDecoder
from seqviz.models.llama import GroupedQueryAttention, RMSNorm, apply_rotary, rotary_tables

transformers = pytest.importorskip("transformers")


def hf_model(heads=6, kv_heads=2, tie=True, seed=0):
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(vocab_size=97, hidden_size=48, intermediate_size=80, num_hidden_layers=3,
                                      num_attention_heads=heads, num_key_value_heads=kv_heads,
                                      max_position_embeddings=64, rms_norm_eps=1e-5, rope_theta=500.0,
                                      tie_word_embeddings=tie)
    model = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.05 * torch.randn_like(p))  # norms away from 1, so a norm applied wrongly shows
    return model


@pytest.mark.parametrize("heads,kv_heads,tie", [(6, 2, True), (6, 6, True), (6, 1, False)],
                         ids=["grouped", "multi-head", "multi-query-untied"])
def test_logits_and_gradients_equal_transformers(heads, kv_heads, tie):
    theirs = hf_model(heads, kv_heads, tie)
    ours = LlamaDecoder.from_transformers(theirs)
    assert ours.config.num_kv_heads == kv_heads and (ours.lm_head.weight is ours.model.embed_tokens.weight) == tie
    ids = torch.randint(0, 97, (2, 40))
    a, b = ours(ids), theirs(ids).logits
    torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    ramp = torch.linspace(-1, 1, a.numel()).view_as(a)  # any fixed loss of the logits
    (a * ramp).sum().backward()
    (b * ramp).sum().backward()
    theirs_grads = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        torch.testing.assert_close(p.grad, theirs_grads[name].grad, atol=1e-4, rtol=1e-4, msg=name)


def test_parameter_names_are_transformers_names():
    theirs = hf_model()
    ours = LlamaDecoder(DecoderConfig.from_transformers(theirs.config))
    assert set(ours.state_dict()) == set(theirs.state_dict())
    assert {k: v.shape for k, v in ours.state_dict().items()} == {k: v.shape for k, v in theirs.state_dict().items()}


def test_cached_generation_equals_re_reading_the_prefix():
    ours = LlamaDecoder.from_transformers(hf_model())
    ids = torch.randint(0, 97, (3, 30))
    with torch.no_grad():
        full = ours(ids)  # (3, 30, V)
        logits, cache = ours.prefill(ids[:, :7])
        steps = [logits]
        for t in range(7, 30):
            logits, cache = ours.step(ids[:, t:t + 1], cache)
            steps.append(logits)
    torch.testing.assert_close(torch.stack(steps, 1), full[:, 6:], atol=1e-5, rtol=1e-5)
    assert cache[0][0].shape == (3, ours.config.num_kv_heads, 30, ours.config.head_dim)


def test_step_leaves_the_old_cache_untouched():
    ours = LlamaDecoder(DecoderConfig(vocab_size=20, hidden_size=16, num_heads=4, num_kv_heads=2)).eval()
    with torch.no_grad():
        _, cache = ours.prefill(torch.tensor([[1, 2, 3]]))
        before = [(k.clone(), v.clone()) for k, v in cache]
        ours.step(torch.tensor([[4]]), cache)
    assert all(torch.equal(k, kb) and torch.equal(v, vb) for (k, v), (kb, vb) in zip(cache, before))


def test_a_later_token_never_changes_an_earlier_prediction():
    ours = LlamaDecoder(DecoderConfig(vocab_size=30, hidden_size=32, num_heads=4, num_kv_heads=2)).eval()
    ids = torch.randint(0, 30, (2, 12))
    changed = ids.clone()
    changed[:, 8] = (ids[:, 8] + 1) % 30
    with torch.no_grad():
        a, b = ours(ids), ours(changed)
    assert torch.equal(a[:, :8], b[:, :8]) and not torch.allclose(a[:, 8:], b[:, 8:])


def test_attention_weights_are_causal_rows_summing_to_one():
    ours = LlamaDecoder(DecoderConfig(vocab_size=30, hidden_size=32, num_heads=4, num_kv_heads=2)).eval()
    with torch.no_grad():
        _, trace = ours(torch.randint(0, 30, (2, 9)), return_trace=True)
    for w in trace["attention"]:
        assert w.shape == (2, 4, 9, 9)
        torch.testing.assert_close(w.sum(-1), torch.ones(2, 4, 9))
        assert w.triu(diagonal=1).abs().max() == 0


def test_rms_norm_equals_torch_rms_norm():
    x = torch.randn(4, 7, 24)
    ours = RMSNorm(24, eps=1e-5)
    with torch.no_grad():
        ours.weight.uniform_(0.5, 1.5)
    reference = nn.RMSNorm(24, eps=1e-5)
    reference.load_state_dict(ours.state_dict())
    torch.testing.assert_close(ours(x), reference(x))


def test_rotary_scores_depend_only_on_the_offset():
    torch.manual_seed(0)
    q, k = torch.randn(16), torch.randn(16)
    cos, sin = rotary_tables(torch.arange(40), 16, theta=100.0)

    def score(m, n):
        return float(apply_rotary(q, cos[m], sin[m]) @ apply_rotary(k, cos[n], sin[n]))

    assert math.isclose(score(3, 1), score(30, 28), rel_tol=1e-4)
    assert math.isclose(score(0, 0), float(q @ k), rel_tol=1e-5)  # position 0: no turn
    assert not math.isclose(score(3, 1), score(3, 2), rel_tol=1e-2)


def test_grouped_query_attention_passes_gradcheck_in_float64():
    torch.manual_seed(0)
    config = DecoderConfig(vocab_size=10, hidden_size=8, num_heads=4, num_kv_heads=2)
    attn = GroupedQueryAttention(config).double()
    cos, sin = rotary_tables(torch.arange(5), config.head_dim)
    x = torch.randn(2, 5, 8, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: attn(x, cos.double(), sin.double())[0], (x,))


def test_a_state_dict_of_another_shape_names_the_tensor_and_both_shapes():
    ours = LlamaDecoder(DecoderConfig(vocab_size=97, hidden_size=48, intermediate_size=80, num_layers=3,
                                      num_heads=6, num_kv_heads=2, max_len=64))
    wrong = hf_model(heads=6, kv_heads=3).state_dict()  # key/value projections of another width
    with pytest.raises(ValueError, match=r"model\.layers\.0\.self_attn\.k_proj\.weight has shape \(24, 48\) "
                                         r"in the state dict but \(16, 48\)"):
        ours.copy_from(wrong)
    with pytest.raises(ValueError, match="missing"):
        ours.copy_from({k: v for k, v in hf_model().state_dict().items() if "layers.2" not in k})
    with pytest.raises(ValueError, match="copy_from expects"):
        ours.copy_from([1, 2, 3])


def test_untied_weights_refuse_a_tied_decoder():
    untied = hf_model(tie=False)
    ours = LlamaDecoder(DecoderConfig.from_transformers(untied.config))
    ours_tied = LlamaDecoder(DecoderConfig(**{**ours.config.__dict__, "tie_word_embeddings": True}))
    with pytest.raises(ValueError, match="ties lm_head"):
        ours_tied.copy_from(untied)


def test_bad_input_gets_clear_messages():
    ours = LlamaDecoder(DecoderConfig(vocab_size=20, hidden_size=16, num_heads=4, num_kv_heads=2, max_len=8))
    with pytest.raises(ValueError, match="exceed this model's context of 8 tokens"):
        ours(torch.zeros(1, 9, dtype=torch.long))
    with pytest.raises(ValueError, match=r"in 0\.\.19"):
        ours(torch.tensor([[3, 20]]))
    with pytest.raises(ValueError, match="one new token per row"):
        ours.step(torch.zeros(1, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="multiple of num_kv_heads"):
        DecoderConfig(vocab_size=10, hidden_size=12, num_heads=3, num_kv_heads=2)
    with pytest.raises(ValueError, match="even width"):
        DecoderConfig(vocab_size=10, hidden_size=12, num_heads=4, num_kv_heads=2)
    with pytest.raises(ValueError, match="DecoderConfig"):
        LlamaDecoder({"vocab_size": 10})
