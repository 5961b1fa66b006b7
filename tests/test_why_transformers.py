"""Chapter 9b's runners and helpers: loss against compute from training logs (synthetic logs whose law is known),
power-law fits with their uncertainty, loss by position (a model trained here that can only use its context),
training throughput and the cost of a generated token, and their figures."""

import math
import random
import statistics

import pytest
import torch

from seqviz.experiments import (binned_losses, bins_table, character_bins, character_curve, compare_families,
                                compute_frontier, family_fit, generation_cost, log_points, loss_by_position,
                                loss_per_character, text_windows, token_characters, token_losses, training_throughput)
from seqviz.measure import crossover_interval, power_law_fit, time_call, time_samples
from seqviz.models import GRULM, DecoderConfig, LlamaDecoder
from seqviz.viz import frontier_figure, position_loss_figure, spread_figure


# -- power laws with their uncertainty ---------------------------------------------------------------------------


def test_an_exact_power_law_is_recovered_with_no_spread():
    x = [10.0 ** k for k in range(1, 7)]
    fit = power_law_fit(x, [4.0 * v ** -0.25 for v in x])
    assert fit.exponent == pytest.approx(-0.25, abs=1e-9) and fit.coefficient == pytest.approx(4.0, rel=1e-9)
    assert fit.exponent_se == pytest.approx(0, abs=1e-9) and fit.exponent_interval == pytest.approx((-0.25, -0.25))
    assert fit.predict(1e8) == pytest.approx(4.0 * 1e8 ** -0.25)


def test_the_interval_covers_the_true_exponent_of_noisy_points():
    rng = random.Random(1)
    x = [10 ** (k / 4) for k in range(4, 30)]
    covered = 0
    for trial in range(20):
        y = [2.0 * v ** -0.3 * math.exp(rng.gauss(0, 0.05)) for v in x]
        fit = power_law_fit(x, y, level=0.9, draws=300, seed=trial)
        covered += fit.exponent_interval[0] <= -0.3 <= fit.exponent_interval[1]
        assert fit.exponent_se == pytest.approx((fit.exponent_interval[1] - fit.exponent_interval[0]) / 3.29, rel=0.5)
    assert covered >= 15  # about 90 % of the intervals hold the truth


def test_two_laws_cross_where_algebra_says_and_parallel_laws_never():
    x = [10.0 ** k for k in range(1, 7)]
    steep = power_law_fit(x, [8.0 * v ** -0.3 for v in x])
    flat = power_law_fit(x, [2.0 * v ** -0.1 for v in x])
    where = crossover_interval(steep, flat)
    assert where.x == pytest.approx(4 ** (1 / 0.2), rel=1e-6) and where.inside and where.share_in_range == 1.0
    assert where.a_lower_before is False  # the steep law starts higher and ends lower
    parallel = crossover_interval(steep, power_law_fit(x, [3.0 * v ** -0.3 for v in x]))
    assert parallel.x is None and parallel.share_in_range == 0.0 and not parallel.inside


def test_power_law_fit_refuses_what_it_cannot_fit():
    with pytest.raises(ValueError, match="two different x"):
        power_law_fit([5, 5, 5], [1, 2, 3])
    with pytest.raises(ValueError, match="x > 0 and y > 0"):
        power_law_fit([1, 2, 3], [1, 0, 3])
    with pytest.raises(ValueError, match="equal count"):
        power_law_fit([1, 2], [1])


def test_time_samples_keeps_every_repeat_and_time_call_their_median():
    samples = time_samples(lambda: sum(range(2000)), min_time=0.001, repeats=4)
    assert len(samples) == 4 and all(s > 0 for s in samples)
    assert time_call(lambda: None, repeats=3, min_time=0.001) >= 0
    with pytest.raises(ValueError, match="repeats"):
        time_samples(lambda: None, repeats=0)


# -- loss against compute from training logs ---------------------------------------------------------------------


def synthetic_log(size: float, steps: int = 30, noise: float = 0.0, seed: int = 0):
    """A run of a model of `size` parameters: loss = L(N) + (its compute-limited term), FLOPs = 6 N tokens; rows
    as checkpoint.log gives them, the validation loss blank on odd steps."""
    rng = random.Random(seed)
    rows = []
    for step in range(1, steps + 1):
        tokens = 1000 * step
        flops = 6 * size * tokens
        loss = 3.0 * (size / 1e3) ** -0.1 + 40.0 * flops ** -0.2
        valid = loss * math.exp(rng.gauss(0, noise)) if step % 2 == 0 else ""
        rows.append({"step": step, "seconds": 0.1 * step, "tokens": tokens, "flops": flops, "train_loss": loss,
                     "valid_loss": valid, "sample": ""})
    return rows


def test_log_points_skip_blank_cells_and_need_their_columns():
    rows = synthetic_log(1e4) + [{"step": 99, "seconds": 1, "tokens": 1, "flops": None, "train_loss": 1,
                                  "valid_loss": 2.0, "sample": ""},
                                 {"step": 100, "seconds": 1, "tokens": 1, "flops": 5.0, "train_loss": 1,
                                  "valid_loss": float("nan"), "sample": ""}]
    points = log_points(rows)
    assert len(points) == 15 and all(isinstance(a, float) and isinstance(b, float) for a, b in points)
    assert log_points(rows, x="seconds", y="train_loss")[0] == (0.1, rows[0]["train_loss"])
    with pytest.raises(ValueError, match="no column 'accuracy'"):
        log_points(rows, y="accuracy")
    with pytest.raises(ValueError, match="x must be one of"):
        log_points(rows, x="joules")


def test_the_frontier_is_the_lowest_loss_reached_at_each_compute():
    runs = {"s": synthetic_log(1e3), "m": synthetic_log(1e4), "l": synthetic_log(1e5)}
    frontier = compute_frontier(runs)
    every = [(a, b) for rows in runs.values() for a, b in log_points(rows)]
    for row in frontier:  # nothing at or below this compute does better
        assert all(b >= row["y"] for a, b in every if a <= row["x"])
    xs = [r["x"] for r in frontier]
    assert xs == sorted(xs) and [r["y"] for r in frontier] == sorted((r["y"] for r in frontier), reverse=True)
    assert {r["run"] for r in frontier} >= {"s", "l"}  # small models lead at small budgets, large at large


def test_family_fits_and_their_crossing_follow_the_logs():
    fast = {f"{n:g}": synthetic_log(n, noise=0.01, seed=i) for i, n in enumerate((1e3, 3e3, 1e4, 3e4))}
    fits = family_fit("fast", fast, min_compute=1e7)
    assert all(a >= 1e7 for a, _ in fits.points) and fits.fit.n == len(fits.points)
    assert -0.5 < fits.fit.exponent < 0 and fits.fit.exponent_interval[0] < fits.fit.exponent < fits.fit.exponent_interval[1]
    # a second family: the same laws shifted (worse at small compute, better at large)
    slow = {k: [dict(r, valid_loss=(r["valid_loss"] and r["valid_loss"] * (r["flops"] / 1e9) ** -0.05))
                for r in rows] for k, rows in fast.items()}
    other = family_fit("slow", slow, min_compute=1e7)
    where = compare_families(fits, other)
    # the factor (F / 1e9)^-0.05 is 1 at F = 1e9; the fitted laws approximate frontiers that are not exact laws
    assert where.x == pytest.approx(1e9, rel=0.3) and where.inside
    assert where.interval[0] < where.x < where.interval[1]
    with pytest.raises(ValueError, match="frontier point"):
        family_fit("fast", fast, min_compute=1e30)
    with pytest.raises(ValueError, match="runs must be"):
        compute_frontier({})


# -- loss by position ---------------------------------------------------------------------------------------------


class Uniform(torch.nn.Module):
    """Logits of zeros: every token has probability 1/V, at every position."""

    def __init__(self, vocab_size):
        super().__init__()
        self.vocab_size = vocab_size
        self.anchor = torch.nn.Parameter(torch.zeros(1))

    def forward(self, ids):
        return torch.zeros(*ids.shape, self.vocab_size) + 0 * self.anchor


def test_a_uniform_model_costs_log_v_everywhere_and_per_character_arithmetic():
    windows = text_windows(torch.arange(100) % 7, length=10, count=4)
    losses = token_losses(Uniform(7), windows, batch_size=3, progress=False)
    assert losses.shape == (4, 10)
    torch.testing.assert_close(losses, torch.full((4, 10), math.log(7)))
    mean, se = loss_by_position(losses)
    torch.testing.assert_close(mean, torch.full((10,), math.log(7), dtype=torch.float64))
    assert float(se.abs().max()) < 1e-6
    rows = binned_losses(losses)
    assert [(r["start"], r["end"]) for r in rows] == [(1, 1), (2, 3), (4, 10)]  # 8..15 would not fit: 4..10
    assert [(r["start"], r["end"]) for r in binned_losses(torch.zeros(2, 1024))][-2:] == [(256, 511), (512, 1024)]
    assert [(r["start"], r["end"]) for r in binned_losses(torch.zeros(2, 15))] == [(1, 1), (2, 3), (4, 7), (8, 15)]
    score = loss_per_character(losses, characters=80)
    assert score["nats_per_char"] == pytest.approx(40 * math.log(7) / 80)
    assert score["bits_per_char"] == pytest.approx(score["nats_per_char"] / math.log(2))
    assert score["chars_per_token"] == 2.0


def test_character_bins_are_the_token_bins_for_characters_and_weigh_longer_tokens():
    losses = torch.rand(5, 40, generator=torch.Generator().manual_seed(0))
    ones = torch.ones(5, 41, dtype=torch.long)
    by_char, by_token = character_bins(losses, ones), binned_losses(losses)
    assert [(r["start"], r["end"]) for r in by_char] == [(r["start"], r["end"]) for r in by_token]
    for a, b in zip(by_char, by_token):
        assert a["mean"] == pytest.approx(b["mean"]) and a["se"] == pytest.approx(b["se"]) and a["windows"] == 5
        assert a["tokens"] == 5 * (a["end"] - a["start"] + 1)  # one token a character, in each of five windows
    x, mean, se = character_curve(losses, ones)
    torch.testing.assert_close(x, torch.arange(1, 41, dtype=torch.float64))
    torch.testing.assert_close((mean, se), loss_by_position(losses))
    # one window of tokens spelling 2, 3, 1, 4, 2 characters: contexts 2, 5, 6, 10 before tokens 1..4
    chars = torch.tensor([[2, 3, 1, 4, 2]])
    lost = torch.tensor([[3.0, 1.0, 8.0, 4.0]])
    rows = character_bins(lost, chars)
    assert [(r["start"], r["end"]) for r in rows] == [(2, 3), (4, 10)]  # range 1-1 holds no token: left out
    assert rows[0]["mean"] == pytest.approx(3.0 / 3) and rows[1]["mean"] == pytest.approx((1 + 8 + 4) / 7)
    assert rows[0]["se"] == 0.0 and rows[0]["windows"] == 1
    assert [r["tokens"] for r in rows] == [1, 3]  # the token after context 2; those after contexts 5, 6 and 10
    assert character_bins(lost, chars, ranges=[(5, 6)])[0]["mean"] == pytest.approx(9.0 / 5)
    x, mean, _ = character_curve(lost, chars)
    assert x.tolist() == [2, 5, 6, 10] and mean.tolist() == pytest.approx([1.0, 1.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="chars must be"):
        character_bins(lost, ones)
    with pytest.raises(ValueError, match="ranges must be"):
        character_bins(lost, chars, ranges=[(3, 2)])
    # another model's ranges, then ranges doubling from there: contexts of 40 tokens of 10 characters each
    tens = torch.full((2, 41), 10)
    long_losses = torch.rand(2, 40, generator=torch.Generator().manual_seed(1))
    after = character_bins(long_losses, tens, ranges=[(1, 15), (16, 32)], continue_doubling=True)
    # contexts 10, 20, ... 400: 33-64, 65-128 and the rest (129-256 would leave 257-400, not a whole 257-512)
    assert [(r["start"], r["end"]) for r in after] == [(1, 15), (16, 32), (33, 64), (65, 128), (129, 400)]
    assert after[-1]["mean"] == pytest.approx(float(long_losses[:, 12:].sum(1).div(10 * 28).mean()))
    clipped = character_bins(lost, chars, ranges=[(1, 3), (4, 50), (60, 99)], continue_doubling=True)
    assert [(r["start"], r["end"]) for r in clipped] == [(1, 3), (4, 10)]  # none past the context of 10
    with pytest.raises(ValueError, match="give ranges"):
        character_bins(lost, chars, continue_doubling=True)
    with pytest.raises(ValueError, match="True or False"):
        character_bins(lost, chars, ranges=[(1, 3)], continue_doubling="yes")
    table = bins_table({"a": by_char, "b": rows})
    assert table[0] == {"range": "1–1", "a": by_char[0]["mean"]}  # "b" has no 1-1 range: an empty cell
    assert table[2]["range"] == "4–7" and set(table[2]) == {"range", "a", "b"}
    counted = bins_table({"a": by_char, "b": rows}, tokens_of="b")  # b's token counts, where b has the range
    assert "tokens" not in counted[0] and [row.get("tokens") for row in counted[1:3]] == [1, 3]
    with pytest.raises(ValueError, match="tokens_of"):
        bins_table({"a": by_char}, tokens_of="c")
    with pytest.raises(ValueError, match="tokens_of"):
        bins_table({"a": binned_losses(losses)}, tokens_of="a")  # token bins do not count tokens


def test_token_characters_follow_a_fast_tokenizers_offsets():
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    backend = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0, "call": 1, "me": 2, ",": 3},
                                                               unk_token="[UNK]"))
    backend.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=backend)
    text = "call me ,  Ishmael"
    spelled = token_characters(tokenizer, text)
    assert spelled.tolist() == [4, 3, 2, 9]  # each token with the spaces before it: they add up to the text
    assert int(spelled.sum()) == len(text)
    with pytest.raises(ValueError, match="non-empty string"):
        token_characters(tokenizer, "")


def test_windows_are_spread_over_the_text_and_checked():
    ids = torch.arange(1000)
    windows = text_windows(ids, 9, 3)
    assert windows[:, 0].tolist() == [0, 495, 990] and windows.shape == (3, 10)
    with pytest.raises(ValueError, match="needs at least 1,001"):
        text_windows(ids, 1000, 1)
    with pytest.raises(ValueError, match="1-D tensor"):
        text_windows(ids[None], 5, 1)


def test_a_model_that_must_use_its_context_shows_it_in_the_loss_by_position():
    """Windows of 'a b a b ...' with a, b fresh at random: the token after the first cannot be guessed (log V),
    every later one can be copied from two tokens back; a small GRU trained here learns that."""
    V, T = 12, 16
    g = torch.Generator().manual_seed(0)

    def batch(n):
        pair = torch.randint(0, V, (n, 2), generator=g)
        return pair.repeat(1, (T + 2) // 2)[:, :T + 1]  # (n, T + 1)

    torch.manual_seed(0)
    model = GRULM(V, 48)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(250):
        ids = batch(64)
        loss = torch.nn.functional.cross_entropy(model(ids[:, :-1]).transpose(1, 2), ids[:, 1:])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    losses = token_losses(model, batch(256), batch_size=64, progress=False)
    mean, _ = loss_by_position(losses)
    assert mean[0] > 0.8 * math.log(V)  # one token of context: b is a fresh draw
    assert float(mean[2:].max()) < 0.3 * math.log(V)  # from two tokens on: copy
    rows = binned_losses(losses)
    assert rows[0]["mean"] > 2 * rows[-1]["mean"]


def test_token_losses_read_a_transformers_output_as_well_as_a_tensor():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    hf = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64)).eval()
    ours = LlamaDecoder.from_transformers(hf)
    windows = text_windows(torch.randint(0, 50, (200,)), 20, 5)
    torch.testing.assert_close(token_losses(hf, windows, progress=False), token_losses(ours, windows, progress=False),
                               atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="windows must be"):
        token_losses(ours, torch.zeros(3, dtype=torch.long))


# -- training throughput and the cost of a generated token -------------------------------------------------------


def test_training_throughput_rows_and_the_threads_put_back():
    before = torch.get_num_threads()
    rows = training_throughput([4, 16], tokens_per_step=64, width=16, device="cpu", threads=1, repeats=2,
                               min_time=0.001, progress=False)
    assert torch.get_num_threads() == before
    assert [(r["kind"], r["length"], r["batch"]) for r in rows] == [("LSTM", 4, 16), ("LSTM", 16, 4),
                                                                    ("attention", 4, 16), ("attention", 16, 4)]
    for r in rows:
        assert len(r["seconds"]) == 2 and r["tokens_per_s"] == pytest.approx(64 / statistics.median(r["seconds"]))
    lstm, block = rows[0]["parameters"], rows[2]["parameters"]
    assert abs(lstm - block) / lstm < 0.05  # matched size: about 8 width^2 each
    with pytest.raises(ValueError, match="does not fit"):
        training_throughput([128], tokens_per_step=64, device="cpu")
    with pytest.raises(ValueError, match="kind must be one of"):
        training_throughput([4], tokens_per_step=64, kinds=("Mamba",), device="cpu")


def test_generation_cost_times_both_ways_for_a_decoder():
    decoder = LlamaDecoder(DecoderConfig(vocab_size=40, hidden_size=32, num_heads=4, num_kv_heads=2, max_len=64))
    rows = generation_cost(decoder, [4, 16], repeats=2, min_time=0.001, progress=False)
    assert [(r["context"], r["mode"]) for r in rows] == [(4, "cache"), (4, "re-read"), (16, "cache"),
                                                         (16, "re-read")]
    assert all(len(r["seconds"]) == 2 and r["ms_per_token"] > 0 for r in rows)
    assert decoder.training  # put back as it was
    with pytest.raises(ValueError, match="prefill"):
        generation_cost(torch.nn.Linear(2, 2), [4])


# -- the figures -------------------------------------------------------------------------------------------------


def test_the_figures_draw_what_they_are_given():
    fig = spread_figure({"a": ([1, 10], [[1.0, 2.0, 3.0], [4.0, 4.0]])}, transform=lambda x, v: x * v)
    assert list(fig.data[0].y) == [2.0, 40.0] and list(fig.data[0].error_y.array) == [1.0, 0.0]
    with pytest.raises(ValueError, match="lists of samples"):
        spread_figure({"a": ([1, 2], [[1.0]])})
    losses = torch.rand(3, 20)
    mean, se = loss_by_position(losses)
    fig = position_loss_figure({"m": (mean, se)}, {"m": binned_losses(losses)})
    assert len(fig.data) == 2 and len(fig.data[1].x) == len(binned_losses(losses))
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.range[1] > max(r["mean"] for r in binned_losses(losses))
    runs = {"s": synthetic_log(1e3), "l": synthetic_log(1e5)}
    fit = family_fit("f", runs)
    fig = frontier_figure({"f": {"points": [p for r in runs.values() for p in log_points(r)],
                                 "frontier": fit.points, "fit": (fit.fit.exponent, fit.fit.coefficient)}},
                          crossover=1e8)
    assert len(fig.data) == 3 and fig.layout.yaxis.type == "log"
    with pytest.raises(ValueError, match="lacks"):
        frontier_figure({"f": {"points": []}})
    fig = frontier_figure({"f": {"points": [], "frontier": fit.points, "fit": (fit.fit.exponent, fit.fit.coefficient),
                                 "fit_range": (1e7, 1e9)}})
    assert min(fig.data[2].x) == pytest.approx(1e7) and max(fig.data[2].x) == pytest.approx(1e9)
    x = torch.tensor([3.0, 7.0, 12.0])
    fig = position_loss_figure({"chars": (x, torch.ones(3), torch.zeros(3))}, xlabel="characters of context")
    assert list(fig.data[0].x) == [3.0, 7.0, 12.0] and fig.layout.xaxis.title.text == "characters of context"
    with pytest.raises(ValueError, match="one value per position"):
        position_loss_figure({"m": (torch.ones(2), torch.ones(3), torch.ones(3))})


def test_all_threads_is_the_cores_capped_by_omp_num_threads(monkeypatch):
    import os

    from seqviz.experiments.parallel import all_threads

    cores = len(os.sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert all_threads() == cores
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert all_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", str(cores + 7))   # a limit above the cores leaves the cores
    assert all_threads() == cores
    for unusable in ("", "0", "two", "-3"):                    # not a positive number: no limit
        monkeypatch.setenv("OMP_NUM_THREADS", unusable)
        assert all_threads() == cores
