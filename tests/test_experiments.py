"""seqviz.experiments: accuracy_vs_distance (shapes, determinism, the table and its checks), repeat_over_seeds and
SeedTable."""

import pytest
import torch
from torch import nn

from seqviz.experiments import DistanceTable, accuracy_vs_distance
from seqviz.models import GRU


def small(**kwargs):
    models = {"RNN": lambda e: nn.RNN(e, 8, batch_first=True), "GRU": lambda e: GRU(e, 8)}
    args = dict(n_train=60, n_test=20, embed_size=8, progress=False, device="cpu")
    args.update(kwargs)
    return accuracy_vs_distance(models, [0, 3], [0, 1], 3, **args)


def test_shapes_parameters_and_kept_models():
    table = small(keep_models=True)
    assert isinstance(table, DistanceTable)
    assert list(table.accuracy) == ["RNN", "GRU"]
    for name, acc in table.accuracy.items():
        assert acc.shape == (2, 2) and ((acc >= 0) & (acc <= 1)).all()
        assert len(table.seconds[name]) == 2
        assert len(table.models[name]) == 2 and not table.models[name][0].training
    # embedding 50 x 8 (vocab) + recurrent layer + head 8 x 2 + 2: the GRU's layer is 3x the RNN's
    rnn_layer, gru_layer = 8 * (8 + 8) + 2 * 8, 3 * (8 * (8 + 8) + 2 * 8)
    assert table.parameters["GRU"] - table.parameters["RNN"] == gru_layer - rnn_layer
    assert table.mean("RNN").shape == (2,)
    assert table.at("GRU", 3).shape == (2,)


def test_same_seed_same_numbers_and_models_differ_by_seed():
    a, b = small(), small()
    for name in a.accuracy:
        torch.testing.assert_close(a.accuracy[name], b.accuracy[name])
    kept = small(keep_models=True).models["RNN"]
    assert not torch.equal(kept[0].encoder.weight_hh_l0, kept[1].encoder.weight_hh_l0)


def test_markdown_table_shows_mean_and_range():
    table = DistanceTable([2, 40], [0, 1], {"LSTM": torch.tensor([[1.0, 0.9], [0.98, 0.7]])}, {"LSTM": [1, 1]},
                          {"LSTM": 10})
    text = table.to_markdown()
    assert "| model | d = 2 | d = 40 |" in text
    assert "| LSTM | 99.0 (98.0–100.0) | 80.0 (70.0–90.0) |" in text
    assert "(" not in table.to_markdown(spread=False).splitlines()[-1]
    with pytest.raises(ValueError, match="not tested"):
        table.at("LSTM", 5)
    with pytest.raises(ValueError, match="no model named"):
        table.mean("GRU")


def test_clear_errors():
    make = lambda e: nn.RNN(e, 4, batch_first=True)  # noqa: E731
    with pytest.raises(ValueError, match="distances"):
        accuracy_vs_distance(make, [], [0], 1)
    with pytest.raises(ValueError, match="seeds"):
        accuracy_vs_distance(make, [2], [-1], 1)
    with pytest.raises(ValueError, match="steps"):
        accuracy_vs_distance(make, [2], [0], 0)
    with pytest.raises(ValueError, match="function"):
        accuracy_vs_distance({"x": 3}, [2], [0], 1)
    with pytest.raises(ValueError, match="hidden_size"):
        accuracy_vs_distance(lambda e: nn.Linear(e, 4), [2], [0], 1, n_train=10, n_test=5, progress=False)


# --- repeat_over_seeds / SeedTable ----------------------------------------------------------------------------

from seqviz.experiments import SeedTable, repeat_over_seeds  # noqa: E402


def test_repeat_over_seeds_collects_every_run_in_order():
    calls = []

    def run(name, setting, seed):
        calls.append((name, setting, seed))
        return (100 if name == "a" else 0) + 10 * setting + seed

    table = repeat_over_seeds(run, ["a", "b"], [1, 2], [0, 3, 5], progress=False)
    assert isinstance(table, SeedTable) and len(calls) == 12
    assert table.values["a"].shape == (3, 2)
    torch.testing.assert_close(table.at("a", 2), torch.tensor([120.0, 123.0, 125.0], dtype=torch.float64))
    torch.testing.assert_close(table.mean("b"), torch.tensor([10 + 8 / 3, 20 + 8 / 3], dtype=torch.float64))
    torch.testing.assert_close(table.low("b"), torch.tensor([10.0, 20.0], dtype=torch.float64))
    torch.testing.assert_close(table.high("b"), torch.tensor([15.0, 25.0], dtype=torch.float64))
    assert table.separated("a", "b") == [True, True] and table.separated("b", "a") == [False, False]


def test_seed_table_spread_and_overlap():
    table = SeedTable([6, 24], [0, 1, 2], {"pretrained": torch.tensor([[0.6, 0.9], [0.5, 0.95], [0.7, 1.0]]),
                                           "scratch": torch.tensor([[0.2, 0.9], [0.3, 0.7], [0.25, 0.8]])})
    assert table.separated("pretrained", "scratch") == [True, False]  # at 24 the ranges overlap (0.9 = 0.9)
    text = table.to_markdown("labels")
    assert "| labels | pretrained % | scratch % |" in text
    assert "| 6 | 60.0 (50.0–70.0) | 25.0 (20.0–30.0) |" in text
    with pytest.raises(ValueError, match="not run"):
        table.at("scratch", 12)
    with pytest.raises(ValueError, match="no runs named"):
        table.mean("other")


def test_repeat_over_seeds_clear_errors():
    with pytest.raises(ValueError, match="function"):
        repeat_over_seeds(3, ["a"], [1], [0])
    with pytest.raises(ValueError, match="names"):
        repeat_over_seeds(lambda *a: 0.0, ["a", "a"], [1], [0])
    with pytest.raises(ValueError, match="settings"):
        repeat_over_seeds(lambda *a: 0.0, ["a"], [], [0])
    with pytest.raises(ValueError, match="seeds"):
        repeat_over_seeds(lambda *a: 0.0, ["a"], [1], [-1])
    with pytest.raises(ValueError, match="number"):
        repeat_over_seeds(lambda *a: "high", ["a"], [1], [0], progress=False)
