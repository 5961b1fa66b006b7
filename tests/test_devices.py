"""The device rule (seqviz/config.py, CONTRIBUTING.md's "Devices"), proven on a CPU-only machine.

Under ``emulated_accelerator()`` (see ``tests/emulated_accelerator.py``) ``pick_device()`` answers "cuda" and
tensors moved there fail, as on CUDA, wherever they meet a CPU tensor. Three promises are checked:

1. a model's ``forward`` (and ``encode``, ``decode``, ``step``), handed CPU inputs while its parameters are on
   the accelerator, raises one ``ValueError`` naming both devices; with its inputs moved it gives the CPU's
   numbers and reads no value back to the host (no host-device synchronisation);
2. a method that decodes (``greedy``, ``log_prob_fn``, ``alignment``, ``rollout``) and every runner that
   receives or builds a model (``fit``/``evaluate``, the ``*_rows`` runners, ``measure``, the cost functions,
   the experiments, the gradient recorders) runs where the model is, takes CPU inputs, and gives the CPU's
   numbers;
3. value checks (token ids in range) still run on CPU inputs, and on the accelerator under ``SEQVIZ_DEBUG``.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from emulated_accelerator import STATE, emulated_accelerator

import seqviz as sv
from seqviz import config

ACCEL = "cuda"  # what a chapter asks for; the emulation keeps the numbers on the CPU


def cpu(tree):
    """Every tensor in a (nested) result, copied to the CPU."""
    if isinstance(tree, torch.Tensor):
        return tree.detach().cpu()
    if isinstance(tree, dict):
        return {k: cpu(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(cpu(v) for v in tree)
    return tree


def close(a, b, **tol):
    torch.testing.assert_close(cpu(a), cpu(b), **({"rtol": 1e-4, "atol": 1e-5} | tol))


def devices_of(tree):
    if isinstance(tree, torch.Tensor):
        return {tree.device.type}
    if isinstance(tree, dict):
        tree = list(tree.values())
    if isinstance(tree, (list, tuple)):
        return set().union(*(devices_of(v) for v in tree)) if tree else set()
    return set()


# -- 1. forward-like methods: inputs must be where the parameters are ------------------------------------------------


def _ids(*shape, high=10):
    return torch.randint(1, high, shape)


def _cases():
    from seqviz.models import (GRU, GRULM, LSTM, RNN, AdditiveAttention, BagOfWords, BertClassifier, BertMini,
                               CausalCNN, CausalTransformerEncoder, Encoder, Forecaster, MultiHeadAttention,
                               causal_mask, Seq2Seq, SequenceClassifier, Tagger, TransformerDecoderLayer,
                               TransformerEncoderLayer, TransformerLM, TransformerSeq2Seq)

    lengths = torch.tensor([5, 3])
    src, tgt = _ids(2, 5), _ids(2, 4)
    x = torch.randn(2, 5, 8)
    bert = lambda: BertMini(20, d_model=8, num_layers=1, num_heads=2, max_len=8, dropout=0.0)  # noqa: E731
    return {
        "RNN.forward": (lambda: RNN(8, 6), lambda m, a: m(a), (x,)),
        "LSTM.forward": (lambda: LSTM(8, 6, bidirectional=True), lambda m, a: m(a, return_trace=True), (x,)),
        "GRU.forward": (lambda: GRU(8, 6, num_layers=2), lambda m, a: m(a), (x,)),
        "SequenceClassifier.forward": (lambda: SequenceClassifier(10, 8, LSTM(8, 6), 2),
                                       lambda m, a, n: m(a, n), (src, lengths)),
        "SequenceClassifier.features": (lambda: SequenceClassifier(10, 8, GRU(8, 6), 2),
                                        lambda m, a, n: m.features(a, n, return_trace=True), (src, lengths)),
        "BagOfWords.forward": (lambda: BagOfWords(10, 8, 2), lambda m, a: m(a), (src,)),
        "CausalCNN.forward": (lambda: CausalCNN(10, 8, 6, 3, 2, 2), lambda m, a, n: m(a, n), (src, lengths)),
        "Encoder.forward": (lambda: Encoder(10, 8, 6), lambda m, a, n: m(a, n), (src, lengths)),
        "Tagger.forward": (lambda: Tagger(10, 8, 6, 4), lambda m, a, n: m(a, n), (src, lengths)),
        "Seq2Seq.forward": (lambda: Seq2Seq(10, 10, 8, 6, attention=True),
                            lambda m, a, n, t: m(a, n, t, return_trace=True), (src, lengths, tgt)),
        "Seq2Seq.encode": (lambda: Seq2Seq(10, 10, 8, 6, attention=True), lambda m, a, n: vars(m.encode(a, n)),
                           (src, lengths)),
        "TransformerSeq2Seq.forward": (lambda: TransformerSeq2Seq(10, 10, 8, 2, 1, 1, 16, dropout=0.0, max_len=8),
                                       lambda m, a, n, t: m(a, n, t, return_trace=True), (src, lengths, tgt)),
        "TransformerSeq2Seq.encode": (lambda: TransformerSeq2Seq(10, 10, 8, 2, 1, 1, 16, dropout=0.0, max_len=8),
                                      lambda m, a, n: m.encode(a, n, return_trace=True), (src, lengths)),
        "MultiHeadAttention.forward": (lambda: MultiHeadAttention(8, 2), lambda m, a, mask: m(a, a, a, mask),
                                       (x, causal_mask(5))),
        "TransformerEncoderLayer.forward": (lambda: TransformerEncoderLayer(8, 2, 16, dropout=0.0),
                                            lambda m, a: m(a), (x,)),
        "TransformerDecoderLayer.forward": (lambda: TransformerDecoderLayer(8, 2, 16, dropout=0.0),
                                            lambda m, a, b: m(a, b), (x[:, :3], x)),
        "AdditiveAttention.forward": (lambda: AdditiveAttention(6, 8, 5), lambda m, q, k: m(q, k),
                                      (torch.randn(2, 6), x)),
        "BertMini.forward": (bert, lambda m, a: m(a), (_ids(2, 6, high=20),)),
        "BertClassifier.forward": (lambda: BertClassifier(bert(), 3, dropout=0.0), lambda m, a: m(a),
                                   (_ids(2, 6, high=20),)),
        "TransformerLM.forward": (lambda: TransformerLM(10, 8, 2, 1, 16, max_len=8), lambda m, a: m(a), (src,)),
        "TransformerLM.prefill": (lambda: TransformerLM(10, 8, 2, 1, 16, max_len=8), lambda m, a: m.prefill(a),
                                  (src,)),
        "GRULM.forward": (lambda: GRULM(10, 8), lambda m, a: m(a), (src,)),
        "GRULM.step": (lambda: GRULM(10, 8), lambda m, a: m.step(a), (src[:, :1],)),
        "CausalTransformerEncoder.forward": (lambda: CausalTransformerEncoder(8, 8, 2, max_len=8),
                                             lambda m, a: m(a), (x,)),
        "Forecaster.forward": (lambda: Forecaster("GRU", 6), lambda m, a: m(a), (x[..., :1],)),
    }


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
def test_forward_refuses_inputs_on_another_device_and_matches_the_cpu(name):
    build, call, inputs = CASES[name]
    torch.manual_seed(0)
    model = build().eval()
    expected = call(model, *inputs)
    with emulated_accelerator() as state:
        model.to(ACCEL)
        with pytest.raises(ValueError) as caught:
            call(model, *inputs)
        message = str(caught.value)
        assert "meta" in message and "cpu" in message, f"{name}: the error must name both devices: {message}"
        moved = [t.to(ACCEL) for t in inputs]
        state.syncs = 0
        got = call(model, *moved)
        syncs = state.syncs
        assert devices_of(got) == {"meta"}, f"{name}: results left the accelerator: {devices_of(got)}"
        close(got, expected)
    assert syncs == 0, f"{name}: the forward read {syncs} value(s) back to the host (a GPU stall per call)"


# -- 2. decoding methods and runners: they move what they are given ---------------------------------------------------


def _translation_models():
    from seqviz.models import Seq2Seq, TransformerSeq2Seq

    torch.manual_seed(0)
    return {"Seq2Seq": Seq2Seq(10, 10, 8, 6, attention=True).eval(),
            "TransformerSeq2Seq": TransformerSeq2Seq(10, 10, 8, 2, 1, 1, 16, dropout=0.0, max_len=12).eval()}


@pytest.mark.parametrize("kind", ["Seq2Seq", "TransformerSeq2Seq"])
def test_decoding_methods_move_their_inputs_and_answer_on_the_callers_device(kind):
    from seqviz.decode import beam_search

    model = _translation_models()[kind]
    src, lengths = _ids(3, 5), torch.tensor([5, 4, 2])
    expected_greedy = model.greedy(src, lengths, max_len=6)
    expected_beam = beam_search(model.log_prob_fn(src[0].tolist()), 2, 3, beam_size=2, max_len=5)
    with emulated_accelerator():
        model.to(ACCEL)
        got = model.greedy(src, lengths, max_len=6)
        assert devices_of(got) - {"cpu"} == set(), "greedy answers on the device its inputs came from"
        close(got, expected_greedy)
        beam = beam_search(model.log_prob_fn(src[0].tolist()), 2, 3, beam_size=2, max_len=5)
        assert [h.tokens for h in beam] == [h.tokens for h in expected_beam]
        if kind == "Seq2Seq":
            close(model.alignment(src[0].tolist(), [2, 5, 6, 3]), model.to("cpu").alignment(src[0].tolist(),
                                                                                           [2, 5, 6, 3]))


def test_forecaster_rollout_moves_its_context():
    from seqviz.models import Forecaster

    torch.manual_seed(0)
    model = Forecaster("LSTM", 6).eval()
    context = torch.randn(10)
    expected = model.rollout(context, 4)
    with emulated_accelerator():
        model.to(ACCEL)
        got = model.rollout(context, 4)
        assert got.device.type == "cpu"
        close(got, expected)


def _classification_data(n=24):
    torch.manual_seed(1)
    return _ids(n, 6), torch.randint(2, 7, (n,)), torch.randint(0, 2, (n,))


def test_fit_places_the_model_and_evaluate_follows_it():
    from seqviz.models import GRU, SequenceClassifier
    from seqviz.train import accuracy, evaluate, fit

    data = _classification_data()

    def run():
        torch.manual_seed(0)
        model = SequenceClassifier(10, 8, GRU(8, 6), 2)
        history = fit(model, data, F.cross_entropy, steps=3, batch_size=8, valid=data,
                      metrics={"acc": accuracy}, progress=False)
        return model, history["loss"], evaluate(model, data, {"acc": accuracy}, F.cross_entropy)

    _, expected_loss, expected_scores = run()
    with emulated_accelerator():
        model, loss, scores = run()
        assert next(model.parameters()).device.type == "meta", "fit's default is pick_device()"
    close(torch.tensor(loss), torch.tensor(expected_loss))
    assert scores == pytest.approx(expected_scores, rel=1e-5)


def test_gradient_recorders_follow_the_model():
    from seqviz.gradients import product_norms, rnn_step_jacobians
    from seqviz.models import RNN
    from seqviz.trace import hidden_grad_norms, hidden_grads

    torch.manual_seed(0)
    rnn, lstm = RNN(4, 5), torch.nn.LSTM(4, 5, batch_first=True)
    x = torch.randn(2, 6, 4)
    loss = lambda out: out[:, -1].sum()  # noqa: E731
    expected = (hidden_grads(rnn, x, loss), hidden_grad_norms(lstm, x, loss), product_norms(rnn_step_jacobians(rnn, x)[0]))
    with emulated_accelerator():
        rnn.to(ACCEL), lstm.to(ACCEL)
        norms = hidden_grad_norms(lstm, x, loss)
        assert norms.device.type == "cpu", "a curve to plot comes back on the CPU"
        got = (hidden_grads(rnn, x, loss), norms, product_norms(rnn_step_jacobians(rnn, x)[0]))
        close(got, expected)


def test_measure_and_comparisons_follow_the_model():
    from seqviz.experiments import accuracy_by_length, learning_curve
    from seqviz.measure import measure
    from seqviz.models import Forecaster

    torch.manual_seed(0)
    forecaster = Forecaster("GRU", 6)
    x = torch.randn(4, 10, 1)
    models = _translation_models()
    src, lengths = _ids(6, 5), torch.tensor([5, 5, 4, 3, 2, 1])
    tgt_in, tgt_out = _ids(6, 4), _ids(6, 4)
    expected_by_length = accuracy_by_length(models["Seq2Seq"], src, lengths, tgt_out, max_len=6)
    data = (src, lengths, tgt_in, tgt_out)

    def curve():
        torch.manual_seed(0)
        from seqviz.models import Seq2Seq
        return learning_curve(Seq2Seq(10, 10, 8, 6), data, data, steps=2, points=2, batch_size=4)["accuracy"]

    expected_curve = curve()
    with emulated_accelerator() as state:
        forecaster.to(ACCEL), models["Seq2Seq"].to(ACCEL)
        state.ops = 0
        got = measure(forecaster, (x,), (x[:1],), min_time=1e-4, repeats=1)
        assert state.ops > 0 and got["memory_kb"] > 0 and got["latency_ms"] > 0
        assert accuracy_by_length(models["Seq2Seq"], src, lengths, tgt_out, max_len=6) == expected_by_length
        assert curve() == pytest.approx(expected_curve, abs=1e-6)


def test_cost_functions_run_on_the_default_device():
    from seqviz.experiments import cost_vs_batch, cost_vs_length, step_cost, streaming_cost

    fast = dict(min_time=1e-4, repeats=1, progress=False)
    expected_steps = step_cost([4, 8], ("GRU", "Transformer"), width=8, batch_size=2, **fast)
    expected_stream = streaming_cost([2, 4], d_model=8, num_layers=1, vocab_size=12, **fast)
    runs = {"step_cost": lambda: step_cost([4, 8], ("GRU", "Transformer"), width=8, batch_size=2, **fast),
            "streaming_cost": lambda: streaming_cost([2, 4], d_model=8, num_layers=1, vocab_size=12, **fast),
            "cost_vs_length": lambda: cost_vs_length([4, 8], d_model=8, batch_size=2, train=True, **fast),
            "cost_vs_batch": lambda: cost_vs_batch([1, 2], 4, d_model=8, min_time=1e-4, repeats=1, progress=False)}
    with emulated_accelerator() as state:
        results, idle = {}, []
        for name, run in runs.items():
            state.ops = 0
            results[name] = run()
            if state.ops == 0:
                idle.append(name)
    assert not idle, f"these ran on the CPU although pick_device() offered an accelerator: {idle}"
    steps, stream, lengths, batches = results.values()
    # the same tensors are saved; the emulator's storages alias a little differently, so bytes agree to 10%
    assert [r["saved_MiB"] for r in steps] == pytest.approx([r["saved_MiB"] for r in expected_steps], rel=0.1)
    assert [r["state_bytes"] for r in stream] == [r["state_bytes"] for r in expected_stream]
    assert all(len(v) == 2 and min(v) > 0 for v in [*lengths.values(), *batches.values()])


def test_chapter_runners_give_the_cpus_numbers_on_the_accelerator():
    from seqviz.experiments import accuracy_vs_distance, agreement_rows, forecast_rows, translation_rows
    from seqviz.models import GRU

    def run():
        table = accuracy_vs_distance({"GRU": lambda e: GRU(e, 6)}, [0, 2], [0], 3, n_train=30, n_test=8,
                                     embed_size=8, progress=False)
        rows = agreement_rows(("GRU",), hidden_size=6, steps=2, n_train=30, n_test=8, progress=False)
        rows += translation_rows(("GRU", "Transformer"), hidden_size=8, steps=2, n_train=30, n_test=8,
                                 progress=False)
        forecast, models, _ = forecast_rows(("LSTM",), hidden_size=6, steps=2, n_series=4, series_length=70,
                                            progress=False)
        return table.accuracy["GRU"], [(r["model"], r["score"], r["memory_kb"]) for r in rows + forecast], models

    expected_table, expected_rows, _ = run()
    with emulated_accelerator():
        table, rows, models = run()
        assert next(models["LSTM"].parameters()).device.type == "meta"
    close(table, expected_table)
    assert [r[0] for r in rows] == [r[0] for r in expected_rows]
    for (_, score, memory), (_, want_score, want_memory) in zip(rows, expected_rows):
        # memory is not compared: torch.nn's recurrent layers save different tensors on a CPU (oneDNN) and elsewhere
        assert score == pytest.approx(want_score, abs=1e-6) and memory > 0


def test_seed_runners_train_on_the_accelerator_and_give_the_cpus_numbers():
    from seqviz.experiments import (accuracy_vs_distance, accuracy_vs_train_size, exact_match, retest,
                                    train_translators)
    from seqviz.models import GRU, Seq2Seq

    data = (_ids(6, 5), torch.tensor([5, 5, 4, 3, 2, 1]), _ids(6, 4), _ids(6, 4))
    args = dict(n_test=8, embed_size=8, progress=False)

    def run():
        table = accuracy_vs_distance({"GRU": lambda e: GRU(e, 6)}, [0, 2], [0], 3, n_train=30, keep_models=True,
                                     **args)
        sizes = accuracy_vs_train_size({"GRU": lambda e: GRU(e, 6)}, [6], [0], 2, distances=[0, 1], **args)
        runs = train_translators({"s": lambda: Seq2Seq(10, 10, 8, 6)}, data, data, [0], 2, batch_size=4,
                                 keep_models=True, progress=False)
        model = runs.models["s"][0]
        return (retest(table, [1], n_test=8).accuracy["GRU"], sizes.train["GRU"], runs.curves["s"],
                exact_match(model, data)), model

    expected, _ = run()
    with emulated_accelerator():
        got, model = run()
        assert next(model.parameters()).device.type == "meta", "train_translators' default is pick_device()"
    close(got[:3], expected[:3])
    assert got[3] == pytest.approx(expected[3])


# -- 3. value checks: on CPU inputs always, on an accelerator under SEQVIZ_DEBUG --------------------------------------


def test_value_checks_run_on_the_cpu_and_on_the_accelerator_only_in_debug_mode(monkeypatch):
    from seqviz.models import GRU, SequenceClassifier

    model = SequenceClassifier(10, 8, GRU(8, 6), 2)
    bad = torch.tensor([[1, 2, 12]])
    with pytest.raises(ValueError, match="ids in 0..9"):
        model(bad)
    with emulated_accelerator():
        model.to(ACCEL)
        monkeypatch.setattr(config, "DEBUG", True)
        with pytest.raises(ValueError, match="ids in 0..9"):
            model(bad.to(ACCEL))
