"""seqviz.experiments.lm_race: matched models, one clock, perplexity at fixed contexts (against references)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from seqviz.experiments.language import ngram_perplexity, perplexity
from seqviz.experiments.lm_race import context_perplexity, race, race_models
from seqviz.measure import count_parameters
from seqviz.models import GRULM, TransformerLM


def test_race_models_match_the_transformers_parameter_count():
    models = race_models(30, d_model=32, num_layers=2, dim_feedforward=64, max_len=64)
    assert list(models) == ["Transformer", "GRU", "LSTM"]
    target = count_parameters(models["Transformer"])
    for name in ("GRU", "LSTM"):
        size = models[name].hidden_size
        ours = count_parameters(models[name])
        # no multiple of 4 comes nearer: one step either way is at least as far
        for other in (size - 4, size + 4):
            cell = name.lower()
            assert abs(count_parameters(GRULM(30, other, cell=cell)) - target) >= abs(ours - target)
        assert abs(ours - target) < 0.1 * target
    assert models["LSTM"].hidden_size < models["GRU"].hidden_size   # four weight blocks instead of three


def _reference(model, ids, contexts, every):
    """Each target token scored by its own forward over exactly its L tokens of history, one at a time."""
    targets = range(max(contexts), ids.numel(), every)
    out = {}
    with torch.no_grad():
        for L in contexts:
            nll = [F.cross_entropy(model(ids[t - L:t][None])[0, -1], ids[t]).item() for t in targets]
            out[L] = math.exp(sum(nll) / len(nll))
    return out


@pytest.mark.parametrize("kind", ["transformer", "gru"])
def test_context_perplexity_scores_the_same_targets_from_exactly_L_tokens(kind):
    torch.manual_seed(0)
    model = (TransformerLM(11, 16, 2, 1, 32, max_len=64) if kind == "transformer" else GRULM(11, 12)).eval()
    ids = torch.randint(11, (150,))
    contexts = [1, 3, 8, 16]
    ours = context_perplexity(model, ids, contexts, every=5, batch_size=7)
    assert list(ours) == contexts
    reference = _reference(model, ids, contexts, every=5)
    for L in contexts:
        assert ours[L] == pytest.approx(reference[L], rel=1e-5)
    # the targets are fixed by the longest context: with 8 as the longest, 8 scores other tokens
    assert context_perplexity(model, ids, [8], every=5)[8] != pytest.approx(ours[8], rel=1e-9)


def test_a_model_that_reads_only_the_last_token_gains_nothing_from_context():
    class LastToken(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.table = torch.nn.Embedding(6, 6)

        def forward(self, ids):
            return self.table(ids)  # (B, T, V): each prediction from its own token only

    model, ids = LastToken(), torch.randint(6, (300,))
    ppl = context_perplexity(model, ids, [1, 2, 16])
    assert ppl[1] == pytest.approx(ppl[2], rel=1e-9) and ppl[2] == pytest.approx(ppl[16], rel=1e-9)


def test_context_perplexity_checks_its_input():
    model = GRULM(5, 4)
    with pytest.raises(ValueError, match="contexts"):
        context_perplexity(model, torch.randint(5, (100,)), [0, 8])
    with pytest.raises(ValueError, match="too few"):
        context_perplexity(model, torch.randint(5, (16,)), [2, 16])
    with pytest.raises(ValueError, match="1-D LongTensor"):
        context_perplexity(model, torch.rand(100), [2, 16])


def test_a_race_gives_every_model_the_same_clock_and_lowers_perplexity():
    text = torch.tensor([0, 1, 2, 0, 1, 3] * 80)
    train, valid = text[:400], text[400:]
    torch.manual_seed(0)
    models = {"Transformer": TransformerLM(4, 16, 2, 1, 32, max_len=32, norm_first=True), "GRU": GRULM(4, 16)}
    runs = race(models, train, valid, seconds=0.6, slices=3, seq_len=12, batch_size=8, lr=3e-3, device="cpu",
                progress=False)
    for name, run in runs.items():
        assert [r["step"] for r in run.curve][0] == 0 and len(run.curve) == 4
        steps = [r["step"] for r in run.curve]
        assert steps == sorted(steps) and steps[-1] > steps[0]
        seconds = [r["seconds"] for r in run.curve]
        for k, s in enumerate(seconds[1:], 1):               # each slice ends just past its share of the clock
            assert s >= 0.6 * k / 3
        assert run.train_seconds == seconds[-1] < 0.6 + 1.0
        assert run.valid_ppl == pytest.approx(perplexity(run.model, valid, 12))
        best = min(r["valid_ppl"] for r in run.curve[1:])  # a tiny Transformer on a tiny text may wobble
        assert best < min(run.curve[0]["valid_ppl"], ngram_perplexity(train, valid, 4, n=1))


def test_race_rejects_a_budget_that_is_not_a_positive_number():
    with pytest.raises(ValueError, match="seconds"):
        race({"GRU": GRULM(4, 4)}, torch.randint(4, (100,)), torch.randint(4, (50,)), seconds=0, seq_len=8)
    with pytest.raises(ValueError, match="at least one model"):
        race({}, torch.randint(4, (100,)), torch.randint(4, (50,)), seconds=1, seq_len=8)


def test_race_trains_on_the_default_device_and_context_perplexity_runs_where_the_model_is():
    import copy

    from emulated_accelerator import emulated_accelerator

    torch.manual_seed(0)
    model, ids = GRULM(5, 8), torch.randint(5, (200,))
    expected = context_perplexity(model, ids, [1, 4, 8])
    with emulated_accelerator():
        got = context_perplexity(copy.deepcopy(model).to("cuda"), ids, [1, 4, 8])   # CPU ids, accelerator model
        runs = race({"GRU": GRULM(5, 8)}, ids[:150], ids[150:], seconds=0.2, slices=2, seq_len=8, progress=False)
        assert next(runs["GRU"].model.parameters()).device.type == "meta", "race's default is pick_device()"
    assert got == pytest.approx(expected, rel=1e-6)
    assert len(runs["GRU"].curve) == 3 and all(math.isfinite(r["valid_ppl"]) for r in runs["GRU"].curve)
