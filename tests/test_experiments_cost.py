"""Cost against length and batch (chapters 8 and 10): training steps, generated tokens, attention vs a GRU."""

import pytest

from seqviz.experiments import cost_vs_batch, cost_vs_length, step_cost, streaming_cost


def test_cost_helpers_return_rows():
    rows = step_cost([4, 8], kinds=("GRU", "Transformer"), width=8, batch_size=2, min_time=0.001, repeats=1,
                     progress=False)
    assert len(rows) == 4 and all(r["saved_MiB"] > 0 for r in rows)
    stream = streaming_cost([4, 8], d_model=8, num_layers=1, vocab_size=10, min_time=0.001, repeats=1,
                            progress=False)
    assert {r["model"] for r in stream} == {"GRU", "Transformer (KV cache)", "Transformer (no cache)"}


def test_cost_vs_length_and_batch_time_each_block():
    times = cost_vs_length([8, 16], d_model=8, batch_size=2, train=True, min_time=0.001, repeats=1, progress=False)
    assert set(times) == {"attention", "gru"} and all(len(v) == 2 and min(v) > 0 for v in times.values())
    times = cost_vs_batch([1, 2], 8, d_model=8, min_time=0.001, repeats=1, progress=False)
    assert all(len(v) == 2 and min(v) > 0 for v in times.values())
    with pytest.raises(ValueError, match="lengths"):
        cost_vs_length([], progress=False)
    with pytest.raises(ValueError, match="kind"):
        cost_vs_length([4], kinds=("cnn",), progress=False)


def test_streaming_cost_times_every_context_in_turns(monkeypatch):
    """Chapter 10 read the first context's cost as if it were the model's: the first point timed was the slowest.
    Every (model, context) is now warmed up before any is timed, and the repeats take turns across all of them."""
    import seqviz.experiments.cost as cost

    calls = []

    def fake(fns, *, min_time, repeats, device):
        calls.append(list(fns))
        for fn in fns.values():
            fn()  # each case still runs
        return {key: [0.001 * (i + 1)] * repeats for i, key in enumerate(fns)}

    monkeypatch.setattr(cost, "interleaved_samples", fake)
    rows = streaming_cost([4, 8], d_model=8, num_layers=1, vocab_size=10, min_time=0.001, repeats=3,
                          progress=False)
    assert len(calls) == 1 and len(calls[0]) == 6  # one interleaved measurement of 3 models x 2 contexts
    assert [(r["model"], r["context"]) for r in rows] == calls[0]
    assert all(len(r["ms_samples"]) == 3 for r in rows)
