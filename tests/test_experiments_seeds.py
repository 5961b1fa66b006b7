"""seqviz.experiments runners for the seed claims: retest, accuracy_vs_train_size, train_translators; and the
translation measures beside them (exact_match, accuracy_by_length, learning_curve)."""

import pytest
import torch
from torch import nn

from seqviz.data import (agreement_task, agreement_vocab, pairs_to_tensors, to_tensors, translation_task,
                         translation_vocabs)
from seqviz.experiments import (accuracy_by_length, accuracy_vs_distance, accuracy_vs_train_size, exact_match,
                                learning_curve, retest, train_translators)
from seqviz.models import Seq2Seq, TransformerSeq2Seq, sequence_accuracy
from seqviz.train import accuracy, evaluate

ARGS = dict(n_train=60, n_test=20, embed_size=8, progress=False, device="cpu")


def test_retest_at_the_tables_own_distances_gives_its_numbers_back():
    models = {"GRU": lambda e: nn.GRU(e, 8, batch_first=True), "LSTM": lambda e: nn.LSTM(e, 8, batch_first=True)}
    table = accuracy_vs_distance(models, [0, 3], [0, 1], 20, keep_models=True, **ARGS)
    same = retest(table, [0, 3], n_test=20)
    for name in models:
        torch.testing.assert_close(same.accuracy[name], table.accuracy[name])
    longer = retest(table, [7], n_test=30)
    assert longer.distances == [7] and longer.accuracy["GRU"].shape == (2, 1)
    # the same number, computed by hand on fresh sentences of distance 7 drawn with seed 1
    test = to_tensors(agreement_task(30, 7, attractors="random", seed=1), agreement_vocab())
    assert longer.accuracy["LSTM"][1, 0].item() == pytest.approx(
        evaluate(table.models["LSTM"][1], test, {"acc": accuracy})["acc"])


def test_retest_needs_the_models():
    table = accuracy_vs_distance(lambda e: nn.RNN(e, 4, batch_first=True), [1], [0], 2, **ARGS)
    with pytest.raises(ValueError, match="keep_models=True"):
        retest(table, [5])
    with pytest.raises(ValueError, match="distances"):
        retest(table, [])


def test_train_size_table_measures_training_and_test_accuracy():
    models = {"GRU": lambda e: nn.GRU(e, 16, batch_first=True)}
    table = accuracy_vs_train_size(models, [8, 40], [0, 1], 150, distances=[0, 1], n_test=20, embed_size=8,
                                   lr=1e-2, progress=False, device="cpu")
    assert table.sizes == [8, 40] and table.train["GRU"].shape == (2, 2) and table.test["GRU"].shape == (2, 2)
    # eight sentences, 150 steps: the model memorises them (the test accuracy is the runner's own business)
    assert (table.train["GRU"][:, 0] == 1.0).all()
    torch.testing.assert_close(table.gap("GRU"), table.train["GRU"] - table.test["GRU"])
    # the test column is accuracy_vs_distance's, averaged over the distances
    reference = accuracy_vs_distance(models, [0, 1], [0, 1], 150, train_distances=[0, 1], n_train=40, n_test=20,
                                     embed_size=8, lr=1e-2, batch_size=32, progress=False, device="cpu")
    torch.testing.assert_close(table.test["GRU"][:, 1], reference.accuracy["GRU"].mean(1))
    text = table.to_markdown()
    assert "| GRU | 8 | 100.0 (100.0–100.0) |" in text
    with pytest.raises(ValueError, match="no model named"):
        table.gap("LSTM")


def translation_data(n, seed, lo=1, hi=4):
    src_vocab, tgt_vocab = translation_vocabs()
    return pairs_to_tensors(translation_task(n, lo, hi, seed=seed), src_vocab, tgt_vocab), src_vocab, tgt_vocab


def test_exact_match_is_greedy_sequence_accuracy():
    valid, src_vocab, tgt_vocab = translation_data(30, 3)
    torch.manual_seed(0)
    model = Seq2Seq(len(src_vocab), len(tgt_vocab), 8, 8).train()
    src, lengths, _, tgt_out = valid
    with torch.no_grad():
        predicted, _ = model.greedy(src, lengths, max_len=tgt_out.shape[1] + 2)
    expected = sequence_accuracy(predicted, tgt_out).float().mean().item()
    assert exact_match(model, valid) == pytest.approx(expected)
    assert model.training  # its mode is restored


def test_train_translators_curves_lengths_and_seeds():
    train, src_vocab, tgt_vocab = translation_data(200, 1)
    valid, _, _ = translation_data(40, 2)
    by_length = {n: translation_data(20, 10 + n, n, n)[0] for n in (1, 3)}
    make = {"tf 1": lambda: Seq2Seq(len(src_vocab), len(tgt_vocab), 8, 16, teacher_forcing=1.0),
            "tf 0": lambda: Seq2Seq(len(src_vocab), len(tgt_vocab), 8, 16, teacher_forcing=0.0)}
    runs = train_translators(make, train, valid, [0, 1], 25, eval_every=10, by_length=by_length, keep_models=True,
                             progress=False, device="cpu")
    assert runs.checkpoints == [10, 20, 25] and runs.lengths == [1, 3]
    assert runs.curves["tf 1"].shape == (2, 3) and runs.by_length["tf 0"].shape == (2, 2)
    # the last point of each curve and each length are the kept model's own exact match
    for name in make:
        for i, model in enumerate(runs.models[name]):
            assert runs.final(name)[i].item() == pytest.approx(exact_match(model, valid))
            assert runs.by_length[name][i, 1].item() == pytest.approx(exact_match(model, by_length[3]))
    # same seed, same numbers; another seed, other weights
    again = train_translators({"tf 1": make["tf 1"]}, train, valid, [0], 25, eval_every=10, progress=False,
                              device="cpu", keep_models=True)
    torch.testing.assert_close(again.curves["tf 1"][0], runs.curves["tf 1"][0])
    assert not torch.equal(runs.models["tf 1"][0].bridge.weight, runs.models["tf 1"][1].bridge.weight)
    assert "| tf 0 |" in runs.to_markdown()


def test_train_translators_clear_errors():
    train, src_vocab, tgt_vocab = translation_data(20, 1)
    make = {"m": lambda: Seq2Seq(len(src_vocab), len(tgt_vocab), 4, 4)}
    with pytest.raises(ValueError, match="models"):
        train_translators({}, train, train, [0], 2)
    with pytest.raises(ValueError, match="eval_every"):
        train_translators(make, train, train, [0], 2, eval_every=5)
    with pytest.raises(ValueError, match="steps"):
        train_translators(make, train, train, [0], 0)


def test_accuracy_by_length_is_exact_match_per_length():
    valid, src_vocab, tgt_vocab = translation_data(40, 3)
    torch.manual_seed(0)
    model = Seq2Seq(len(src_vocab), len(tgt_vocab), 8, 8).train()
    src, lengths, tgt_in, tgt_out = valid
    acc = accuracy_by_length(model, src, lengths, tgt_out, batch_size=7)  # batches that split the lengths
    assert sorted(acc) == sorted(set(lengths.tolist())) and model.training
    for n, value in acc.items():
        keep = lengths == n
        assert value == pytest.approx(exact_match(model, (src[keep], lengths[keep], tgt_in[keep], tgt_out[keep])))


def test_learning_curve_chunks_and_times():
    model = TransformerSeq2Seq(14, 14, d_model=8, num_heads=2, dim_feedforward=16, max_len=8)
    src = torch.tensor([[4, 5, 0], [6, 7, 8]])
    data = (src, torch.tensor([2, 3]), torch.tensor([[2, 4, 5, 0], [2, 6, 7, 8]]),
            torch.tensor([[4, 5, 3, 0], [6, 7, 8, 3]]))
    curve = learning_curve(model, data, data, steps=4, points=2, device="cpu")
    assert curve["steps"] == [2, 4] and curve["seconds"][1] >= curve["seconds"][0] > 0
    assert all(0 <= a <= 1 for a in curve["accuracy"])
    with pytest.raises(ValueError, match="points"):
        learning_curve(model, data, data, steps=2, points=3)
