"""The long-run hooks of the training loop: a warm-up schedule, batches by length, padding trimmed.

Reference values are computed by hand here; each hook is also checked against what ``fit`` did with it.
"""

import math

import pytest
import torch
from torch import nn

from seqviz.data import trim_padding
from seqviz.train import fit, length_buckets, warmup_schedule


@pytest.mark.parametrize("decay", ["constant", "cosine", "linear", "inverse_sqrt"])
def test_warmup_rises_linearly_then_decays(decay):
    f = warmup_schedule(10, 110, decay, floor=0.1)
    assert [f(s) for s in (1, 5, 10)] == pytest.approx([0.1, 0.5, 1.0])
    expected_end = {"constant": 1.0, "cosine": 0.1, "linear": 0.1, "inverse_sqrt": math.sqrt(10 / 110)}[decay]
    assert f(110) == pytest.approx(expected_end)
    assert all(f(s) >= f(s + 1) - 1e-12 for s in range(10, 110))  # never rises after the warm-up


def test_cosine_midpoint_and_linear_midpoint():
    assert warmup_schedule(0, 100, "cosine", 0.0)(50) == pytest.approx(0.5)  # cos(pi/2): half way down
    assert warmup_schedule(0, 100, "linear", 0.2)(50) == pytest.approx(0.6)


def test_fit_applies_the_schedule_to_the_optimiser():
    model = nn.Linear(2, 1)
    data = (torch.randn(16, 2), torch.randn(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    history = fit(model, data, nn.functional.mse_loss, steps=20, optimizer=opt, device="cpu", progress=False,
                  schedule=warmup_schedule(5, 20, "linear", 0.0))
    assert history["lr"][:5] == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    assert history["lr"][-1] == pytest.approx(0.0)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.0)


def test_fit_without_hooks_is_unchanged():
    """The default path draws the same batches and gives the same losses as before the hooks existed."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    data = (torch.randn(40, 3), torch.randn(40, 1))
    start = {k: v.clone() for k, v in model.state_dict().items()}
    plain = fit(model, data, nn.functional.mse_loss, steps=6, batch_size=4, lr=0.1, device="cpu", progress=False)
    model.load_state_dict(start)
    generator = torch.Generator().manual_seed(0)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    losses = []
    for _ in range(6):  # the loop fit runs, written out
        index = torch.randint(40, (4,), generator=generator)
        loss = nn.functional.mse_loss(model(data[0][index]), data[1][index])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert plain["loss"] == pytest.approx(losses, abs=0)
    assert "lr" not in plain.records[0]


def test_length_buckets_group_similar_lengths_and_cover_every_row():
    lengths = torch.randint(1, 40, (5000,), generator=torch.Generator().manual_seed(1))
    sampler = length_buckets(lengths, 32, bucket_size=320)
    generator = torch.Generator().manual_seed(0)
    spreads, seen = [], set()
    for _ in range(400):
        index = sampler(generator, 32)
        assert index.shape == (32,)
        chosen = lengths[index]
        spreads.append(int(chosen.max() - chosen.min()))
        seen.update(index.tolist())
    assert max(spreads) <= 3, max(spreads)  # 5000 rows of 39 lengths, buckets of 320: a bucket spans 1-3 lengths
    # every row keeps its chance: 12,800 uniform draws from 5,000 rows reach 5000 (1 - e^-2.56) = 4,614 rows
    assert len(seen) > 4400, len(seen)
    again = length_buckets(lengths, 32, bucket_size=320)
    assert torch.equal(again(torch.Generator().manual_seed(0), 32),
                       sampler(torch.Generator().manual_seed(0), 32))  # deterministic


def test_trim_padding_cuts_only_the_columns_every_row_pads():
    src = torch.tensor([[5, 6, 0, 0], [7, 0, 0, 0]])
    lengths = torch.tensor([2, 1])
    tgt = torch.tensor([[2, 9, 9, 0, 0], [2, 9, 0, 0, 0]])
    out = trim_padding([src, lengths, tgt])
    assert out[0].tolist() == [[5, 6], [7, 0]] and out[1] is lengths and out[2].tolist() == [[2, 9, 9], [2, 9, 0]]


def test_bad_hook_arguments():
    with pytest.raises(ValueError, match="warmup <= total"):
        warmup_schedule(20, 10)
    with pytest.raises(ValueError, match="decay must be one of"):
        warmup_schedule(1, 10, "exp")
    with pytest.raises(ValueError, match="floor"):
        warmup_schedule(1, 10, floor=2)
    with pytest.raises(ValueError, match="bucket_size"):
        length_buckets(torch.arange(10), 8, bucket_size=4)
    with pytest.raises(ValueError, match="lengths"):
        length_buckets(torch.rand(10), 8)
    with pytest.raises(ValueError, match="schedule must be a function"):
        fit(nn.Linear(1, 1), (torch.zeros(2, 1), torch.zeros(2, 1)), nn.functional.mse_loss, steps=1,
            device="cpu", progress=False, schedule=0.5)
    with pytest.raises(ValueError, match="list of tensors"):
        trim_padding(torch.zeros(2, 2))
