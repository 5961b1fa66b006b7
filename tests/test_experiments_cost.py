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
