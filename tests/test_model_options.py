"""The options the long runs need, each against a reference: dropout only in training, tied embeddings that are
one tensor, label smoothing equal to its formula, and the defaults unchanged."""

import math
import time

import pytest
import torch
import torch.nn.functional as F

from seqviz.experiments.language import loss_by_position, mean_loss
from seqviz.measure import Stopwatch
from seqviz.models import GRULM, Seq2Seq, TransformerLM, TransformerSeq2Seq, sequence_loss


def test_label_smoothing_is_the_mixture_of_cross_entropy_and_the_uniform_loss():
    torch.manual_seed(0)
    logits, targets = torch.randn(3, 5, 11), torch.randint(1, 11, (3, 5))
    targets[0, 3:] = 0  # padding is ignored
    eps = 0.1
    log_p = logits.log_softmax(-1)
    real = targets != 0
    nll = -log_p.gather(-1, targets[..., None])[..., 0]
    uniform = -log_p.mean(-1)  # the cross-entropy against 1/V on every token
    expected = ((1 - eps) * nll + eps * uniform)[real].mean()
    torch.testing.assert_close(sequence_loss(logits, targets, label_smoothing=eps), expected)
    torch.testing.assert_close(sequence_loss(logits, targets), nll[real].mean())
    with pytest.raises(ValueError, match="label_smoothing"):
        sequence_loss(logits, targets, label_smoothing=1.0)


@pytest.mark.parametrize("make", [
    lambda d: GRULM(20, 16, num_layers=2, cell="lstm", dropout=d),
    lambda d: TransformerLM(20, 16, 2, 2, 32, max_len=32, norm_first=True, dropout=d),
], ids=["GRULM", "TransformerLM"])
def test_lm_dropout_acts_in_training_only_and_zero_is_the_old_model(make):
    ids = torch.randint(20, (3, 12))
    torch.manual_seed(0)
    plain = make(0.0)
    torch.manual_seed(0)
    dropped = make(0.5)
    assert plain.state_dict().keys() == dropped.state_dict().keys()
    dropped.load_state_dict(plain.state_dict())
    plain.eval(), dropped.eval()
    torch.testing.assert_close(dropped(ids), plain(ids))  # eval mode: no dropout at all
    dropped.train()
    assert not torch.allclose(dropped(ids), plain(ids))  # training mode: some activations zeroed
    plain.train()
    state = torch.get_rng_state()
    plain(ids)
    assert torch.equal(state, torch.get_rng_state())  # dropout 0 draws no random numbers: old results unchanged


def test_seq2seq_dropout_acts_in_training_only():
    torch.manual_seed(0)
    src, lengths, tgt = torch.randint(4, 30, (4, 6)), torch.tensor([6, 5, 3, 1]), torch.randint(4, 25, (4, 5))
    for attention in (False, True):
        torch.manual_seed(1)
        plain = Seq2Seq(30, 25, 8, 12, attention=attention)
        dropped = Seq2Seq(30, 25, 8, 12, attention=attention, dropout=0.5)
        dropped.load_state_dict(plain.state_dict())
        plain.eval(), dropped.eval()
        torch.testing.assert_close(dropped(src, lengths, tgt), plain(src, lengths, tgt))
        dropped.train()
        assert not torch.allclose(dropped(src, lengths, tgt), plain(src, lengths, tgt))
    with pytest.raises(ValueError, match="dropout"):
        Seq2Seq(30, 25, dropout=1.0)


def test_tied_embeddings_are_one_tensor_that_learns_from_both_ends():
    model = TransformerSeq2Seq(30, 25, 16, 2, 1, 1, 32, 0.0, tie_embeddings=True)
    assert model.out.weight is model.tgt_embedding.weight
    untied = TransformerSeq2Seq(30, 25, 16, 2, 1, 1, 32, 0.0)
    assert sum(p.numel() for p in untied.parameters()) - sum(p.numel() for p in model.parameters()) == 25 * 16
    lm = GRULM(20, 16, tie_embeddings=True)
    assert lm.out.weight is lm.embedding.weight
    assert lm.embedding.weight.abs().max() <= 0.1  # a tied table starts small: it is also the output layer
    logits = lm(torch.randint(20, (2, 5)))
    logits.sum().backward()
    assert lm.embedding.weight.grad is not None and lm.embedding.weight.grad.abs().sum() > 0
    # a state dict keeps both names, so a tied model saves and loads like any other
    copy = GRULM(20, 16, tie_embeddings=True)
    copy.load_state_dict(lm.state_dict())
    assert copy.out.weight is copy.embedding.weight and torch.equal(copy.out.weight, lm.out.weight)


def test_loss_by_position_averages_to_the_mean_loss():
    torch.manual_seed(0)
    model = GRULM(10, 8)
    ids = torch.randint(10, (400,))
    by_position = loss_by_position(model, ids, 16, batch_size=5)
    assert by_position.shape == (16,) and by_position.dtype == torch.float64
    assert by_position.mean().item() == pytest.approx(mean_loss(model, ids, 16), rel=1e-9)
    # position 0 of every window, by hand: the model reads the window's first token alone
    assert by_position[0].item() == pytest.approx(
        -sum(model(ids[None, s:s + 1])[0, 0].log_softmax(-1)[ids[s + 1]].item() for s in range(0, 384, 16)) / 24,
        rel=1e-5)
    with pytest.raises(ValueError, match="language model"):
        loss_by_position("model", ids, 16)


def test_stopwatch_counts_only_while_running():
    watch = Stopwatch(running=True)
    time.sleep(0.05)
    watch.pause()
    paused_at = watch.wall
    time.sleep(0.05)
    assert watch.wall == paused_at and 0.04 < paused_at < 0.5
    watch.resume()
    total = 0.0
    for i in range(200_000):  # CPU work: counted by both clocks
        total += math.sqrt(i)
    assert watch.cpu > 0.0 and watch.wall > paused_at


def test_transformer_lm_tokens_start_at_the_scale_of_their_positions():
    """After the sqrt(d) scaling a token's vector is about as large as its positional code (Vaswani et al.'s
    initialisation): with N(0, 1) embeddings it would be sqrt(d) times larger and drown the position."""
    torch.manual_seed(0)
    d = 256
    model = TransformerLM(500, d, 4, 1, 64, max_len=64)
    token_size = (model.embedding.weight * math.sqrt(d)).norm(dim=1).mean()
    position_size = model.decoder.position.pe[:64].norm(dim=1).mean()  # sqrt(d / 2) for sinusoids
    assert 0.9 < (token_size / (position_size * math.sqrt(2))).item() < 1.1, (token_size, position_size)
