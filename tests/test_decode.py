"""Greedy decoding and beam search (seqviz.decode) on toy next-token models."""

import math

import pytest
import torch

from seqviz.decode import beam_search, exhaustive_search, greedy_decode, length_score

BOS, EOS = 0, 1


def random_model(vocab_size=5, seed=0, sharpness=2.0):
    """A next-token model whose log-probabilities depend on the whole prefix (a seeded hash of it)."""

    def log_prob_fn(prefixes):
        rows = []
        for prefix in prefixes.tolist():
            g = torch.Generator().manual_seed(hash((seed, *prefix)) % 2**31)
            rows.append((sharpness * torch.randn(vocab_size, generator=g)).log_softmax(-1))
        return torch.stack(rows)  # (k, V)

    return log_prob_fn


def greedy_trap(prefixes):
    """Greedy takes A (0.6) and then faces a flat distribution; C (0.4) is followed by a sure eos: C-eos wins."""
    A = 2  # token ids: A (greedy's first choice); C = 3 is implicit below
    rows = []
    for prefix in prefixes.tolist():
        if len(prefix) == 1:
            p = [0.0, 0.0, 0.6, 0.4]
        elif prefix[-1] == A:
            p = [0.0, 0.34, 0.33, 0.33]
        else:
            p = [0.0, 0.9, 0.05, 0.05]
        rows.append(torch.tensor(p).log())
    return torch.stack(rows)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", [0.0, 0.7, 1.0])
def test_beam_equals_exhaustive_when_the_beam_covers_every_prefix(seed, alpha):
    fn, V, max_len = random_model(4, seed), 4, 4
    best = exhaustive_search(fn, BOS, EOS, max_len, length_penalty=alpha)
    found = beam_search(fn, BOS, EOS, beam_size=V ** max_len, max_len=max_len, length_penalty=alpha)
    assert found[0].tokens == best[0].tokens
    assert found[0].score == pytest.approx(best[0].score, abs=1e-5)
    assert [h.tokens for h in found[:5]] == [h.tokens for h in best[:5]]


@pytest.mark.parametrize("seed", range(8))
def test_beam_size_one_is_greedy(seed):
    fn = random_model(6, seed, sharpness=1.0)
    greedy = greedy_decode(fn, BOS, EOS, max_len=7)
    (beam,) = beam_search(fn, BOS, EOS, beam_size=1, max_len=7)
    assert beam.tokens == greedy.tokens and beam.finished == greedy.finished
    assert beam.log_prob == pytest.approx(greedy.log_prob, abs=1e-6)
    assert beam.score == pytest.approx(greedy.score, abs=1e-6)


def test_greedy_is_locally_optimal_and_beam_finds_the_better_sequence():
    greedy = greedy_decode(greedy_trap, BOS, EOS, max_len=3)
    beam = beam_search(greedy_trap, BOS, EOS, beam_size=2, max_len=3)
    assert greedy.tokens[:2] == [BOS, 2]
    assert beam[0].tokens == [BOS, 3, EOS]
    assert beam[0].log_prob == pytest.approx(math.log(0.4 * 0.9), abs=1e-6)
    assert beam[0].log_prob > greedy.log_prob


@pytest.mark.parametrize("alpha", [0.0, 0.5, 0.7, 2.0])
def test_scores_follow_the_length_penalty_formula(alpha):
    fn = random_model(5, 3, sharpness=0.5)
    hyps = beam_search(fn, BOS, EOS, beam_size=4, max_len=6, length_penalty=alpha)
    assert len(hyps) == 4
    for h in hyps:
        generated = len(h.tokens) - 1
        assert h.score == pytest.approx(h.log_prob / generated ** alpha, abs=1e-6)
        assert h.score == pytest.approx(length_score(h.log_prob, generated, alpha))
        # the log-probability is the sum of the model's log-probabilities along the path
        total = sum(fn(torch.tensor([h.tokens[:i]]))[0, h.tokens[i]].item() for i in range(1, len(h.tokens)))
        assert h.log_prob == pytest.approx(total, abs=1e-5)
        assert (h.tokens[-1] == EOS) == h.finished and EOS not in h.tokens[1:-1] and h.tokens[0] == BOS
    assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)


def test_max_len_counts_generated_tokens_and_cut_hypotheses_are_kept():
    never_ends = lambda p: torch.tensor([[-math.inf, -math.inf, -0.1, -2.0]]).expand(p.shape[0], -1)  # noqa: E731
    h = greedy_decode(never_ends, BOS, EOS, max_len=3)
    assert h.tokens == [BOS, 2, 2, 2] and not h.finished
    beams = beam_search(never_ends, BOS, EOS, beam_size=2, max_len=3)
    assert all(len(b.tokens) == 4 and not b.finished for b in beams)


def test_one_call_per_step_batched_over_the_beam():
    shapes = []
    fn = random_model(5, 1, sharpness=0.3)

    def spy(prefixes):
        shapes.append(tuple(prefixes.shape))
        return fn(prefixes)

    beam_search(spy, BOS, EOS, beam_size=3, max_len=5)
    assert shapes[0] == (1, 1)
    assert all(t == i + 1 and k <= 3 for i, (k, t) in enumerate(shapes))


def test_the_record_links_kept_and_pruned_candidates_to_their_parents():
    hyps, record = beam_search(greedy_trap, BOS, EOS, beam_size=2, max_len=3, return_record=True)
    by_id = {n["id"]: n for n in record.nodes}
    assert record.nodes[0]["status"] == "root"
    for node in record.nodes[1:]:
        assert by_id[node["parent"]]["step"] == node["step"] - 1
        assert by_id[node["parent"]]["status"] in ("root", "kept")
    first, second = record.steps
    assert first["considered"] == 4 and len(first["kept"]) == 2 and first["pruned"] == []  # the rest is impossible
    assert second["considered"] == 8 and len(second["finished"]) == 2 and len(second["pruned"]) == 2
    assert [by_id[i]["token"] for i in record.path(record.best[0])] == hyps[0].tokens
    assert {n["status"] for n in record.nodes} >= {"root", "kept", "finished", "pruned"}


@pytest.mark.parametrize("kwargs, match", [
    (dict(beam_size=0), "beam_size must be an int >= 1, got 0"),
    (dict(max_len=0), "max_len must be an int >= 1"),
    (dict(length_penalty=-1.0), "length_penalty must be a finite number >= 0"),
])
def test_bad_arguments_are_clear_errors(kwargs, match):
    args = dict(beam_size=2, max_len=3) | kwargs
    with pytest.raises(ValueError, match=match):
        beam_search(greedy_trap, BOS, EOS, **args)
    if "beam_size" not in kwargs:
        with pytest.raises(ValueError, match=match):
            greedy_decode(greedy_trap, BOS, EOS, args["max_len"], length_penalty=args.get("length_penalty", 0.0))


def test_a_model_that_returns_logits_or_the_wrong_shape_is_a_clear_error():
    with pytest.raises(ValueError, match="log-probabilities"):
        greedy_decode(lambda p: torch.ones(p.shape[0], 4), BOS, EOS, 3)
    with pytest.raises(ValueError, match=r"\(k, V\) with k = 1"):
        beam_search(lambda p: torch.zeros(4), BOS, EOS, 2, 3)


def late_winner(prefixes):
    """A toy whose best hypothesis comes after the search could stop too early (tokens: bos 0, eos 1, a 2).

    Step 1: eos -0.7, a -1.5. After "a": eos -0.1, a -0.2; after "a a" and later: eos -0.01, a -5. With beam 2
    and alpha 1, after step 2 the finished scores are -0.7 and -1.6 / 2 = -0.8 and the live "a a" has
    log P = -1.7. Its descendants can score as high as -1.7 / max_len (log P only falls), above -0.8: the search
    goes on, and "a a eos" (-1.71 / 3 = -0.57) wins. A bound of -1.7 / t (t = 2: -0.85) would stop there."""
    rows = []
    for prefix in prefixes.tolist():
        if len(prefix) == 1:
            p = [-math.inf, -0.7, -1.5]
        elif len(prefix) == 2:
            p = [-math.inf, -0.1, -0.2]
        else:
            p = [-math.inf, -0.01, -5.0]
        rows.append(torch.tensor(p))
    return torch.stack(rows)


def test_early_stop_bounds_a_live_prefix_by_max_len_not_by_the_step():
    hyps = beam_search(late_winner, BOS, EOS, beam_size=2, max_len=10, length_penalty=1.0)
    assert [h.tokens for h in hyps] == [[BOS, 2, 2, EOS], [BOS, EOS]]
    assert [h.score for h in hyps] == pytest.approx([(-1.5 - 0.2 - 0.01) / 3, -0.7])
    best = exhaustive_search(late_winner, BOS, EOS, max_len=10, length_penalty=1.0)[:2]
    assert [h.tokens for h in best] == [h.tokens for h in hyps]


def test_every_score_minus_infinity_and_an_eos_outside_the_vocabulary_are_clear_errors():
    impossible = lambda p: torch.full((p.shape[0], 4), -math.inf)  # noqa: E731
    with pytest.raises(ValueError, match="no hypothesis"):
        beam_search(impossible, BOS, EOS, 2, 3)
    with pytest.raises(ValueError, match="-inf"):
        greedy_decode(impossible, BOS, EOS, 3)
    with pytest.raises(ValueError, match="no hypothesis"):
        exhaustive_search(impossible, BOS, EOS, 2)
    for search in (lambda: beam_search(greedy_trap, BOS, 4, 2, 5), lambda: greedy_decode(greedy_trap, BOS, 4, 5)):
        with pytest.raises(ValueError, match="eos_id = 4 is not a token of log_prob_fn's vocabulary of 4"):
            search()


def test_the_tree_figures_draw_a_record():
    from seqviz.viz import beam_tree_figure, beam_tree_slider_figure

    hyps, record = beam_search(random_model(5, 2, 0.5), BOS, EOS, beam_size=3, max_len=4, return_record=True)
    labels = ["<bos>", "<eos>", "a", "b", "c"]
    fig = beam_tree_figure(record.nodes, labels, record.best, title="tree")
    assert len(fig.data) == 5 and len(fig.data[4].x) == len(hyps[0].tokens)
    slider = beam_tree_slider_figure(record.nodes, labels, record.best, title="tree")
    assert len(slider.layout.sliders[0].steps) == max(n["step"] for n in record.nodes)
    with pytest.raises(ValueError, match="labels has 2 entries"):
        beam_tree_figure(record.nodes, labels[:2])
    import matplotlib.pyplot as plt

    from seqviz.viz import beam_tree_plot

    figure = beam_tree_plot(record.nodes, labels, record.best, title="tree")
    assert figure.axes[0].get_title() == "tree"
    plt.close(figure)


def test_no_tree_label_covers_a_marker_or_another_label():
    from seqviz.viz import beam_tree_figure
    from seqviz.viz.beams import LABEL_CLEAR

    labels = ["<bos>", "<eos>", "a", "b", "c", "d", "e"]
    for seed in range(6):
        _, record = beam_search(random_model(7, seed, 0.5), BOS, EOS, beam_size=3, max_len=6, return_record=True,
                                pruned_per_step=3)
        fig = beam_tree_figure(record.nodes, labels, record.best)
        points = [(x, y, text) for trace in fig.data if "markers" in (trace.mode or "")
                  for x, y, text in zip(trace.x, trace.y, trace.text or [""] * len(trace.x))]
        assert points, "the tree drew no markers"
        for x, y, text in points:
            if text:   # a label sits above its node: nothing of its step may lie just above
                above = [other for ox, other, _ in points if ox == x and y - LABEL_CLEAR < other < y]
                assert not above, f"seed {seed}: the label {text!r} at step {x} covers a node at {above}"


def test_score_sequence_matches_the_search():
    from seqviz.decode import score_sequence

    fn = random_model(5, 4, 1.0)
    for h in beam_search(fn, BOS, EOS, beam_size=3, max_len=5, length_penalty=0.7):
        again = score_sequence(fn, h.tokens, length_penalty=0.7)
        assert again.log_prob == pytest.approx(h.log_prob, abs=1e-5) and again.score == pytest.approx(h.score, abs=1e-5)
