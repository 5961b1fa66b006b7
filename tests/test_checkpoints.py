"""The shipped long-run models (``make checkpoints``): reproducible, re-evaluated, and checked against the code.

Tolerances: a re-evaluation on this code and data reproduces the manifest's final metric to the last digit on
the machine that trained it; another CPU's kernels may round the last bits differently, so a language model's
loss must agree within 1e-3 nats and a translator's BLEU within 0.5 points (a token flipped in a few sentences).
Every shipped model is re-evaluated on the slice its log's last row scored (quick mode included); the whole
splits of the manifest's final metrics, outside quick mode (and the smallest model's always). Retraining the first steps from the seed must give the log's first rows within 1e-3 nats.
"""

import json
import shutil

import pytest
import torch

import seqviz as sv
import seqviz.checkpoints as C
from seqviz.checkpoints import load, names
from seqviz.checkpoints.recipes import RECIPES
from seqviz.checkpoints.trainer import LOG_BLEU_SENTENCES, LOG_COLUMNS, LOG_VALID_TOKENS, train

SHIPPED = names()
pytestmark = pytest.mark.skipif(not SHIPPED, reason="no checkpoint built yet (make checkpoints)")


def test_every_recipe_is_shipped_with_its_files():
    assert SHIPPED == list(RECIPES)
    for name in SHIPPED:
        for file in C.FILES:
            assert (C.FOLDER / name / file).is_file(), (name, file)


def test_families_smallest_first_with_long_contexts_for_the_largest():
    for family in ("charlm-lstm", "charlm-transformer"):
        members = names(family=family)
        assert len(members) >= 3, members
        sizes = [load(n, device="cpu").manifest["parameters"] for n in members]
        assert sizes == sorted(sizes), sizes
        assert RECIPES[members[-1]].context >= 256
    lstm = [load(n, device="cpu").manifest["parameters"] for n in names(family="charlm-lstm")]
    tf = [load(n, device="cpu").manifest["parameters"] for n in names(family="charlm-transformer")]
    assert all(0.7 < a / b < 1.4 for a, b in zip(lstm, tf)), (lstm, tf)  # roughly matched pairs


def test_package_data_stays_within_30_mb():
    total = sum(f.stat().st_size for f in C.FOLDER.rglob("*") if f.is_file() and f.suffix in (".pt", ".json", ".csv"))
    real = sum(f.stat().st_size for f in (C.FOLDER.parent / "data" / "real").glob("eng_fra_large*"))
    assert total + real <= 30 * 2**20, (total, real)


@pytest.mark.parametrize("name", SHIPPED)
def test_manifest_and_log_say_what_the_chapters_need(name):
    ck = load(name, device="cpu")
    m = ck.manifest
    for key in ("name", "family", "architecture", "parameters", "seed", "git_commit", "data", "vocab_sha256",
                "threads", "wall_budget_s", "wall_s", "steps", "batch_size", "context", "tokens_seen", "flops",
                "optimizer", "final", "created", "dtype", "machine"):
        assert key in m, key
    assert m["threads"] == 1 and m["steps"] == RECIPES[name].steps
    assert m["dtype"] in ("float16", "float32")
    assert (C.FOLDER / name / "weights.pt").stat().st_size < 2.2 * m["parameters"] * (2 if m["dtype"] == "float16" else 4)
    rows = ck.log
    assert set(rows[0]) <= set(LOG_COLUMNS) and {"step", "seconds", "tokens", "flops", "train_loss",
                                                  "valid_loss"} <= set(rows[0])
    assert rows[0]["step"] == 0 and rows[-1]["step"] == m["steps"]
    assert len([r for r in rows if r["valid_loss"] is not None]) >= 40  # many validation points per run
    for column in ("seconds", "tokens", "flops"):
        values = [r[column] for r in rows]
        assert values == sorted(values) and values[-1] > 0, column
    assert rows[-1]["tokens"] == m["tokens_seen"] and rows[-1]["flops"] == m["flops"]
    if ck.task != "translate":
        assert sum(bool(r.get("sample")) for r in rows) >= 5  # samples at several points of training
    assert rows[-1]["valid_loss"] < rows[0]["valid_loss"] - 1.0  # it learned


LANGUAGE_MODELS = [n for n in SHIPPED if RECIPES[n].task != "translate"]
TRANSLATORS = [n for n in SHIPPED if RECIPES[n].task == "translate"]


@pytest.mark.parametrize("name", LANGUAGE_MODELS)
def test_reevaluating_each_language_model_matches_its_log_and_manifest(name):
    """The log's last row scores the first 32,768 validation tokens (or all, if fewer): re-evaluated now on that same slice, the
    shipped weights must give it within 1e-3 nats (the row was scored in float32 before the weights were
    halved: the trainer ships float16 only where that moves the loss by under 2e-3, and it moved far less).
    The manifest's final loss covers the whole split: checked here for the smallest model, and for every one
    outside quick mode."""
    ck = load(name, device="cpu")
    got = ck.evaluate("valid", max_tokens=LOG_VALID_TOKENS)
    scored = min(LOG_VALID_TOKENS, len(ck.ids("valid")) - 1)  # the word model's split is shorter
    assert got["tokens"] == scored // ck.context * ck.context
    assert got["loss"] == pytest.approx(ck.log[-1]["valid_loss"], abs=1e-3)
    if name == "charlm-lstm-s" or not sv.QUICK:
        whole = ck.evaluate("valid")
        assert whole["loss"] == pytest.approx(ck.manifest["final"]["valid_loss"], abs=1e-3)
        assert whole["tokens"] == ck.manifest["final"]["valid_tokens"]


@pytest.mark.parametrize("name", TRANSLATORS)
def test_reevaluating_each_translator_matches_its_log_and_manifest(name):
    """The log's last row translates the first 500 distinct validation sentences greedily: re-translated now,
    BLEU must agree within 0.5 points (a token flipped in a few sentences by another CPU's rounding) and the
    exact-match rate within 1 %. The manifest's test BLEU (3,031 sentences) is checked outside quick mode."""
    ck = load(name, device="cpu")
    got = ck.evaluate("valid", max_sentences=LOG_BLEU_SENTENCES)
    assert got["sentences"] == LOG_BLEU_SENTENCES
    assert got["bleu"] == pytest.approx(ck.log[-1]["valid_bleu"], abs=0.5)
    if not sv.QUICK:
        whole = ck.evaluate("test")
        assert whole["bleu"] == pytest.approx(ck.manifest["final"]["test_bleu"], abs=0.5)
        assert whole["exact"] == pytest.approx(ck.manifest["final"]["test_exact"], abs=0.01)
        assert whole["sentences"] == ck.manifest["final"]["test_sentences"]


def test_retraining_the_first_steps_from_the_seed_matches_the_log():
    recipe = RECIPES["charlm-lstm-s"]
    shipped = load("charlm-lstm-s", device="cpu").log
    torch.set_num_threads(1)
    rows = train(recipe, None, stop_after=recipe.eval_every, progress=False)["rows"]
    assert [r["step"] for r in rows] == [0, recipe.eval_every]
    for ours, theirs in zip(rows, shipped[:2]):
        assert ours["tokens"] == theirs["tokens"] and ours["flops"] == theirs["flops"]
        assert ours["valid_loss"] == pytest.approx(theirs["valid_loss"], abs=1e-3)
        if theirs["train_loss"] is not None:
            assert ours["train_loss"] == pytest.approx(theirs["train_loss"], abs=1e-3)


def test_same_seed_and_thread_count_give_the_same_weights():
    recipe = RECIPES["charlm-lstm-s"]
    torch.set_num_threads(1)
    runs = [train(recipe, None, stop_after=10, progress=False)["model"].state_dict() for _ in range(2)]
    assert runs[0].keys() == runs[1].keys()
    assert all(torch.equal(runs[0][k], runs[1][k]) for k in runs[0])  # bit for bit, whatever the clock said


# -- bad input: one ValueError naming the file, what differs, and how to rebuild --------------------------------

@pytest.fixture
def copy_of(tmp_path, monkeypatch):
    def make(name="charlm-lstm-s"):
        shutil.copytree(C.FOLDER / name, tmp_path / name)
        monkeypatch.setattr(C, "FOLDER", tmp_path)
        return tmp_path / name
    return make


def _edit_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_missing_checkpoint_or_weights_file(copy_of):
    folder = copy_of()
    (folder / "weights.pt").unlink()
    with pytest.raises(ValueError, match=r"weights\.pt: is missing; run `make checkpoints` to rebuild it"):
        load("charlm-lstm-s", device="cpu")
    shutil.rmtree(folder)
    with pytest.raises(ValueError, match=r"manifest\.json: is missing.*make checkpoints"):
        load("charlm-lstm-s", device="cpu")
    with pytest.raises(ValueError, match="no checkpoint named 'charlm-gru'"):
        load("charlm-gru")


def test_corrupt_files(copy_of):
    folder = copy_of()
    weights = (folder / "weights.pt").read_bytes()
    (folder / "weights.pt").write_bytes(weights[: len(weights) // 2])
    with pytest.raises(ValueError, match=r"weights\.pt: cannot be read as weights.*make checkpoints"):
        load("charlm-lstm-s", device="cpu")
    (folder / "weights.pt").write_bytes(weights)
    (folder / "manifest.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"manifest\.json: is not valid JSON.*make checkpoints"):
        load("charlm-lstm-s", device="cpu")


def test_a_manifest_whose_architecture_differs_from_the_code(copy_of):
    folder = copy_of()
    _edit_json(folder / "manifest.json", lambda m: m["architecture"]["kwargs"].update(hidden_size=64))
    with pytest.raises(ValueError, match=r"manifest\.json: architecture differs from the code's recipe: "
                                         r"hidden_size=64 \(code: 128\); run `make checkpoints`"):
        load("charlm-lstm-s", device="cpu")


def test_a_vocabulary_that_differs(copy_of):
    folder = copy_of()
    _edit_json(folder / "vocab.json", lambda v: v["itos"].append("§"))
    with pytest.raises(ValueError, match=r"vocab\.json: has vocabulary hash .* the manifest says .*make checkpoints"):
        load("charlm-lstm-s", device="cpu")


def test_data_whose_hash_differs(copy_of):
    folder = copy_of()
    _edit_json(folder / "manifest.json", lambda m: m["data"].update(sha256="0" * 64))
    with pytest.raises(ValueError, match=r"manifest\.json: was trained on moby_dick\.txt with hash 000000000000.*"
                                         r"make checkpoints"):
        load("charlm-lstm-s", device="cpu")


def test_weights_of_another_shape(copy_of):
    folder = copy_of()
    state = torch.load(folder / "weights.pt", weights_only=True)
    state["out.weight"] = state["out.weight"][:, :10]
    torch.save(state, folder / "weights.pt")
    with pytest.raises(ValueError, match=r"weights\.pt: does not fit the model the code builds: it has shapes "
                                         r"out\.weight \(\d+, 10\) \(code: \(\d+, 128\)\).*make checkpoints"):
        load("charlm-lstm-s", device="cpu")


def test_loader_arguments():
    ck = load("charlm-lstm-s", device="cpu")
    with pytest.raises(ValueError, match="max_tokens must be a positive int"):
        ck.evaluate("valid", max_tokens=0)
    with pytest.raises(ValueError, match="split must be one of"):
        ck.evaluate("dev")
    with pytest.raises(ValueError, match="use max_tokens"):
        ck.evaluate("valid", max_sentences=3)
    with pytest.raises(ValueError, match="family must be one of"):
        names(family="lstm")
    with pytest.raises(ValueError, match="translate checkpoint"):
        load("translate-gru", device="cpu").ids()


def test_the_initial_model_is_the_one_the_log_started_from():
    from seqviz.experiments.language import mean_loss

    ck = load("charlm-lstm-s", device="cpu")
    before = torch.get_rng_state()
    untrained = ck.initial_model()
    assert torch.equal(before, torch.get_rng_state())  # the caller's random numbers are untouched
    ids = ck.ids("valid", LOG_VALID_TOKENS)
    assert mean_loss(untrained, ids, ck.context, batch_size=32) == pytest.approx(ck.log[0]["valid_loss"], abs=1e-4)
