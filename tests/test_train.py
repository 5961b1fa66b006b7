"""The training loop: it learns, it is reproducible, it clips, and it stops on NaN."""

import math

import pytest
import torch
from torch import nn

from seqviz.data import agreement_task, agreement_vocab, to_tensors
from seqviz.models import RNN, SequenceClassifier
from seqviz.train import TrainingDiverged, accuracy, evaluate, fit


def agreement_data(n, distance, seed):
    ids, _, labels = to_tensors(agreement_task(n, distance, seed=seed), agreement_vocab())
    return ids, labels


def make_model(seed=0):
    torch.manual_seed(seed)
    return SequenceClassifier(len(agreement_vocab()), 16, RNN(16, 32), 2)


def test_fit_learns_short_agreement_and_is_reproducible():
    train, valid = agreement_data(512, 1, 0), agreement_data(256, 1, 1)
    runs = []
    for _ in range(2):
        model = make_model()
        history = fit(model, train, nn.functional.cross_entropy, steps=150, lr=1e-2, valid=valid,
                      metrics={"acc": accuracy}, eval_every=50, device="cpu", progress=False)
        runs.append(history)
    assert runs[0]["loss"] == runs[1]["loss"]  # same seed, same numbers
    assert runs[0].last("valid_acc") > 0.9, runs[0].last("valid_acc")
    assert runs[0].steps("valid_acc") == [50, 100, 150]
    assert evaluate(model, valid, {"acc": accuracy})["acc"] == pytest.approx(runs[1].last("valid_acc"))


def test_clip_norm_bounds_the_update():
    model = nn.Linear(3, 1)
    data = (torch.randn(8, 3) * 1e3, torch.randn(8, 1) * 1e3)
    before = [p.detach().clone() for p in model.parameters()]
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    history = fit(model, data, nn.functional.mse_loss, steps=1, batch_size=8, optimizer=opt, clip_norm=0.5,
                  device="cpu", progress=False)
    step = torch.sqrt(sum(((p.detach() - b) ** 2).sum() for p, b in zip(model.parameters(), before)))
    assert history.last("grad_norm") > 0.5 and step.item() == pytest.approx(0.5, rel=1e-4)


def test_nan_guard_raises_with_a_clear_message_or_stops():
    model = nn.Linear(2, 1)
    data = (torch.tensor([[float("nan"), 1.0]] * 4), torch.zeros(4, 1))
    with pytest.raises(TrainingDiverged, match=r"step 1: loss = nan.*clip"):
        fit(model, data, nn.functional.mse_loss, steps=5, device="cpu", progress=False)
    history = fit(model, data, nn.functional.mse_loss, steps=5, device="cpu", progress=False, on_nonfinite="stop")
    assert history.diverged_at == 1 and math.isnan(history.last("loss"))


def test_bad_arguments():
    model = nn.Linear(2, 1)
    with pytest.raises(ValueError, match="tuple"):
        fit(model, torch.zeros(3, 2), nn.functional.mse_loss, steps=1, progress=False)
    with pytest.raises(ValueError, match=r"train\[1\].*3 rows"):
        fit(model, (torch.zeros(3, 2), torch.zeros(2, 1)), nn.functional.mse_loss, steps=1, progress=False)
    with pytest.raises(ValueError, match="steps"):
        fit(model, (torch.zeros(3, 2), torch.zeros(3, 1)), nn.functional.mse_loss, steps=0, progress=False)


def test_warmup_lr_is_the_transformer_schedule():
    from seqviz.train import warmup_lr

    rates = [warmup_lr(s, peak=1.0, warmup=4) for s in range(1, 17)]
    assert rates[:4] == [0.25, 0.5, 0.75, 1.0]                          # a linear rise to the peak
    assert rates[15] == pytest.approx((4 / 16) ** 0.5)                   # then peak * sqrt(warmup / step)
    cold = [warmup_lr(s, peak=1.0, warmup=4, warm=False) for s in range(1, 17)]
    assert cold[:4] == [1.0] * 4 and cold[4:] == rates[4:]              # without warm-up: only the rise differs
    assert warmup_lr(9, peak=2.0, warmup=4, decay=False) == 2.0
    with pytest.raises(ValueError, match="step counts from 1"):
        warmup_lr(0, peak=1.0, warmup=4)
    with pytest.raises(ValueError, match="warmup must be an int >= 1"):
        warmup_lr(1, peak=1.0, warmup=0)


def test_schedule_callback_sets_the_rate_of_every_step():
    from seqviz.train import schedule_callback, warmup_lr

    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    data = (torch.randn(32, 3), torch.randn(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=123.0)
    schedule = lambda s: warmup_lr(s, peak=0.1, warmup=5)
    history = fit(model, data, nn.functional.mse_loss, steps=8, optimizer=optimizer, progress=False,
                  callbacks=[schedule_callback(optimizer, schedule)], device="cpu")
    assert [r["lr"] for r in history.records] == pytest.approx([schedule(s) for s in range(1, 9)])
    # started part-way (a learning curve's second chunk), it continues the count
    optimizer = torch.optim.SGD(model.parameters(), lr=123.0)
    history = fit(model, data, nn.functional.mse_loss, steps=2, optimizer=optimizer, progress=False,
                  callbacks=[schedule_callback(optimizer, schedule, start=8)], device="cpu")
    assert [r["lr"] for r in history.records] == pytest.approx([schedule(9), schedule(10)])
